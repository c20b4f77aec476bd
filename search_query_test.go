package pkft_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// Issue 36: a query outside the engine's language gave 0 hits on a table with no archives and
// an engine error on one with archives. Table.Search refuses it by name before reading the
// table, whatever the table holds: here one with no snapshot at all.
func TestSearchChecksTheQueryBeforeTheData(t *testing.T) {
	ctx := context.Background()
	tbl, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "t"), pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		`{"fuzzy":{"query":"lake"}}`: `unknown query type "fuzzy"`,
		`{"match":{"qury":"lake"}}`:  `unknown field "qury"`,
	} {
		_, err := tbl.Search(ctx, q)
		if !errors.Is(err, pkft.ErrInvalidQuery) || !strings.Contains(err.Error(), want) {
			t.Errorf("Search(%s) = %v, want ErrInvalidQuery naming %s", q, err, want)
		}
		if err := pkft.CheckQuery(q, pkft.QueryBounds{}); !errors.Is(err, pkft.ErrInvalidQuery) {
			t.Errorf("CheckQuery(%s) = %v", q, err)
		}
	}
	if got, err := pkft.EngineQuery("lake format"); err != nil || got != `{"match":{"query":"lake format"}}` {
		t.Errorf("EngineQuery = %q, %v", got, err)
	}
}
