package textreader

import (
	"fmt"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
)

// The data files these tests read are written by internal/testing/paimonparquet: a Paimon key-value
// Parquet data file of the table (id INT NOT NULL primary key, <text> STRING, payload INT), with
// the _KEY_ fields, _SEQUENCE_NUMBER, _VALUE_KIND and the value fields, each carrying its Paimon
// field id.

func strs(values ...any) paimonparquet.TextFunc {
	return func(i int) ([]byte, bool) {
		switch v := values[i].(type) {
		case nil:
			return nil, true
		case string:
			return []byte(v), false
		default:
			panic(fmt.Sprintf("bad fixture value %T", v))
		}
	}
}

// bytesOf writes a data file with layout o into memory.
func bytesOf(t testing.TB, o paimonparquet.Options, rows int, text paimonparquet.TextFunc) []byte {
	t.Helper()
	data, _, err := paimonparquet.Bytes(rows, text, o)
	if err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	return data
}

// names is a FieldNameFunc over a fixed map of (schema id, field id) -> name.
func names(m map[[2]int64]string) FieldNameFunc {
	return func(schemaID int64, fieldID int32) (string, error) {
		if n, ok := m[[2]int64{schemaID, int64(fieldID)}]; ok {
			return n, nil
		}
		return "", fmt.Errorf("schema %d field %d: %w", schemaID, fieldID, ErrFieldNotInSchema)
	}
}

// contentAt0 resolves field 1 in schema 0 to "content".
var contentAt0 = names(map[[2]int64]string{{0, paimonparquet.DefaultTextFieldID}: "content"})
