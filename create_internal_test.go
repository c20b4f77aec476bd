package pkft

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/schema"
)

// TestCreateWritesJavaSchemaBytes re-creates every Java-written golden table from its
// schema-0 (read as Java's schema JSON, the form `pkft create --schema` accepts) and checks that
// Create writes the very bytes Java's SchemaManager#createTable wrote, creation time aside.
func TestCreateWritesJavaSchemaBytes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "tables", "java", "*", "schema", "schema-0"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Java schema files: %v", err)
	}
	ctx := context.Background()
	for _, f := range files {
		name := filepath.Base(filepath.Dir(filepath.Dir(f)))
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			js, err := schema.Parse(want)
			if err != nil {
				t.Fatal(err)
			}
			def, err := ParseTableDefinition(want)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), name)
			if f := js.Options["file.format"]; f != "" && f != "parquet" {
				// Go writes Parquet alone: a table of another format (ft-avro) is refused by
				// name, with nothing written; pkft reads it (TestConformance/table/scan/ft-avro).
				_, err := Create(ctx, dir, def, createNow(time.UnixMilli(js.TimeMillis)))
				if err == nil || !strings.Contains(err.Error(), "file.format") {
					t.Fatalf("create with file.format=%s: %v, want a refusal naming file.format", f, err)
				}
				if _, statErr := os.Stat(dir); !errors.Is(statErr, os.ErrNotExist) {
					t.Fatalf("a refused create left %s (%v)", dir, statErr)
				}
				return
			}
			if _, err := Create(ctx, dir, def, createNow(time.UnixMilli(js.TimeMillis))); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("schema-0 differs from Java's:\n--- go\n%s\n--- java\n%s", got, want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Name() != "schema" {
				t.Errorf("Create left %v in the table directory, want only schema/", entries)
			}
		})
	}
}

// TestCreateRefuses checks the definitions Create refuses, with nothing written.
func TestCreateRefuses(t *testing.T) {
	ctx := context.Background()
	cols := []ColumnDefinition{{Name: "id", Type: "INT"}, {Name: "p", Type: "STRING"}, {Name: "text", Type: "STRING"}}
	cases := []struct {
		name string
		def  TableDefinition
		want string
	}{
		{"no columns", TableDefinition{}, "no columns"},
		{"duplicate column", TableDefinition{Columns: append(cols, ColumnDefinition{Name: "id", Type: "INT"})}, "given twice"},
		{"bad type", TableDefinition{Columns: []ColumnDefinition{{Name: "id", Type: "INTEGR"}}}, "INTEGR"},
		{"nested type", TableDefinition{Columns: []ColumnDefinition{{Name: "a", Type: "VARIANT"}}}, "not one pkft writes"},
		{"unknown primary key", TableDefinition{Columns: cols, PrimaryKeys: []string{"nope"}}, "primary key nope is not a column"},
		{"unknown partition key", TableDefinition{Columns: cols, PartitionKeys: []string{"nope"}}, "partition key nope is not a column"},
		{"keys only partitions", TableDefinition{Columns: cols, PrimaryKeys: []string{"p"}, PartitionKeys: []string{"p"}}, "should not be same with partition fields"},
		{"keys twice", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"primary-key": "id"}}, "at the same time"},
		{"bad bucket", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "x"}}, "bucket"},
		{"full text without deletion vectors", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"},
			Options: map[string]string{"bucket": "1", "pk-full-text.index.columns": "text"}}, "deletion-vectors"},
		{"btree without deletion vectors", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1", "pk-btree.index.columns": "text"}},
			"Primary-key BTree and Bitmap indexes require deletion-vectors.enabled = true."},
		{"bitmap on a missing column", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"},
			Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-bitmap.index.columns": "nope"}},
			"pk-bitmap.index.columns entry 'nope' must reference an existing column."},
		{"btree and full text on one column", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"},
			Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-btree.index.columns": "text", "pk-full-text.index.columns": "text"}},
			"Column 'text' can own at most one primary-key index."},
		{"unknown option", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1", "no-such.option": "x"}}, "no-such.option"},
		{"refused option", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1", "changelog-producer": "lookup"}}, "changelog-producer"},
		{"unknown sequence field", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1", "sequence.field": "ts"}},
			"Sequence field: 'ts' can not be found in table schema."},
		{"first-row with deletion vectors", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"},
			Options: map[string]string{"bucket": "1", "merge-engine": "first-row", "deletion-vectors.enabled": "true"}}, "First row merge engine does not need deletion vectors"},
		{"unknown rowkind field", TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1", "rowkind.field": "op"}},
			"Rowkind field: 'op' can not be found in table schema."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			_, err := Create(ctx, dir, c.def)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
				t.Fatalf("Create: %v, want an error containing %q", err, c.want)
			}
			if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("a refused Create left %s behind", dir)
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "t")
	def := TableDefinition{Columns: cols, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1"}}
	if _, err := Create(ctx, dir, def); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if _, err := Create(ctx, dir, def); !errors.Is(err, ErrTableExists) {
		t.Fatalf("second Create: %v, want ErrTableExists", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if !bytes.Equal(before, after) {
		t.Error("the second Create changed schema-0")
	}
}
