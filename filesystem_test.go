package pkft_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestFileSystemOptionsRefusedByName checks that an option the table's file system does not take,
// and a scheme pkft has no file system for, are refused by name before anything is read or
// written.
func TestFileSystemOptionsRefusedByName(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	def := pkft.TableDefinition{Columns: []pkft.ColumnDefinition{{Name: "id", Type: "INT"}}, PrimaryKeys: []string{"id"}}
	for _, c := range []struct {
		path string
		opts map[string]string
		want string
	}{
		{dir + "/t", map[string]string{"s3.endpoint": "http://127.0.0.1:1"}, "takes no file-system options (got s3.endpoint)"},
		{"s3://bucket/t", map[string]string{"s3.endpoint": "http://127.0.0.1:1", "s3.fast-upload": "true"}, `S3 option "s3.fast-upload" is not supported`},
		{"s3://bucket/t", map[string]string{"warehouse": "x"}, `option "warehouse" is not an S3 option`},
		{"gs://bucket/t", nil, `scheme "gs" is not supported`},
	} {
		_, err := pkft.Open(ctx, c.path, pkft.WithFileSystemOptions(c.opts))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s, %v): %v, want %q", c.path, c.opts, err, c.want)
		}
		_, err = pkft.Create(ctx, c.path, def, pkft.WithOpenOptions(pkft.WithFileSystemOptions(c.opts)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Create(%s, %v): %v, want %q", c.path, c.opts, err, c.want)
		}
		if _, err := pkft.TableOptions(ctx, c.path, pkft.WithFileSystemOptions(c.opts)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("TableOptions(%s, %v): %v, want %q", c.path, c.opts, err, c.want)
		}
	}
	if _, err := pkft.Open(ctx, dir+"/t"); err == nil {
		t.Fatal("the refused Create left a table behind")
	}
}
