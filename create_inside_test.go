package pkft_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestCreateRefusesAPathInsideATable: a table is not created in a directory of another table
// (its schema's directory's parent or deeper), and nothing is written there; beside the table it
// is.
func TestCreateRefusesAPathInsideATable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	def := pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "v", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1"},
	}
	outer := filepath.Join(dir, "outer")
	if _, err := pkft.Create(ctx, outer, def); err != nil {
		t.Fatal(err)
	}
	for _, inner := range []string{filepath.Join(outer, "inner"), filepath.Join(outer, "bucket-0", "x", "y")} {
		_, err := pkft.Create(ctx, inner, def)
		if err == nil || !strings.Contains(err.Error(), "inside the table at "+outer) {
			t.Errorf("create %s: %v, want a refusal naming the table at %s", inner, err, outer)
		}
		if _, err := os.Stat(inner); !os.IsNotExist(err) {
			t.Errorf("the refused create left %s behind (%v)", inner, err)
		}
	}
	if _, err := pkft.Create(ctx, filepath.Join(dir, "beside"), def); err != nil {
		t.Errorf("a table beside another: %v", err)
	}
}

// TestOpenSaysThereIsNoTable: opening a path where nothing exists, or a directory without a
// schema, says there is no table there.
func TestOpenSaysThereIsNoTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for path, want := range map[string]string{
		filepath.Join(dir, "missing"): "no Paimon table at " + filepath.Join(dir, "missing") + ": nothing exists there",
		dir:                           "no Paimon table at " + dir + ": it has no schema",
	} {
		if _, err := pkft.Open(ctx, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("open %s: %v, want %q", path, err, want)
		}
	}
}
