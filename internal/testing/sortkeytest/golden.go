package sortkeytest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Golden is one Java-written index file checked in under testdata/java/<name>/: rows.json holds
// the runner's sorted-index-write arguments (index type, type INT or STRING, options, rows with
// keys as text) plus the meta (base64) and row count Paimon returned, and index holds the file
// Paimon wrote from them (regenerate with the runner: pkft-runner sorted-index-write ARGS).
type Golden struct {
	IndexType string            `json:"indexType"`
	Type      string            `json:"type"`
	Options   map[string]string `json:"options"`
	Rows      []struct {
		Key   *string `json:"key"`
		RowID int64   `json:"rowId"`
	} `json:"rows"`
	Meta     []byte `json:"meta"`
	RowCount int64  `json:"rowCount"`
	// File is the content of the Java-written index file.
	File []byte `json:"-"`
}

// LoadGolden reads testdata/java/<name>.
func LoadGolden(name string) (*Golden, error) {
	dir := filepath.Join("testdata", "java", name)
	data, err := os.ReadFile(filepath.Join(dir, "rows.json"))
	if err != nil {
		return nil, err
	}
	var g Golden
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if g.File, err = os.ReadFile(filepath.Join(dir, "index")); err != nil {
		return nil, err
	}
	return &g, nil
}

// Serializer returns the key serializer of the golden's type.
func (g *Golden) Serializer() (*sortkey.Serializer, error) {
	switch g.Type {
	case "INT":
		return sortkey.New(types.Int())
	case "STRING":
		return sortkey.New(types.String())
	}
	return nil, fmt.Errorf("golden type %s", g.Type)
}

// KeyRows returns the rows with decoded keys.
func (g *Golden) KeyRows() ([]Row, error) {
	out := make([]Row, 0, len(g.Rows))
	for _, r := range g.Rows {
		row := Row{RowID: r.RowID}
		if r.Key != nil {
			if g.Type == "INT" {
				n, err := strconv.ParseInt(*r.Key, 10, 32)
				if err != nil {
					return nil, err
				}
				row.Key = int32(n)
			} else {
				row.Key = *r.Key
			}
		}
		out = append(out, row)
	}
	return out, nil
}
