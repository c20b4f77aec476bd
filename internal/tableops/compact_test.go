package tableops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// copyGolden copies a Java-written golden table as it is.
func copyGolden(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "testdata", "tables", "java", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCompactJavaTables fully compacts every Java-written golden table (two levels, partitions,
// deletion vectors, DECIMAL and TIMESTAMP keys, files of an older schema, full-text archives
// of three analyzers): the rows are those a full merge of the table gives, every file ends at
// the top level, and on full-text tables every archive is current.
func TestCompactJavaTables(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, name := range []string{"two-levels", "partitioned-dv", "composite-key", "full-compaction",
		"ft-default-partitioned", "ft-ngram-two-levels", "ft-jieba-renamed-late"} {
		t.Run(name, func(t *testing.T) {
			root := copyGolden(t, name)
			tbl := table.Open(fileio.NewLocal(), root)
			want := mergedRows(t, tbl)
			r, err := restore.NewRestorer(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			// Every golden table is a deduplicate table with fixed buckets: none may be refused.
			res, err := tableops.Compact(ctx, tbl, eng)
			if err != nil {
				t.Fatal(err)
			}
			if got := mergedRows(t, tbl); !sameRows(got, want) {
				t.Fatalf("rows changed: %d, want %d", len(got), len(want))
			}
			latest, err := tbl.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c, err := tbl.Read(ctx, latest)
			if err != nil {
				t.Fatal(err)
			}
			top := int32(5)
			if v, ok := r.Schema.Options["num-levels"]; ok {
				top = int32(v[0]-'0') - 1
			}
			for _, b := range c.Buckets {
				for _, f := range b.DataFiles {
					if f.Level != top {
						t.Errorf("bucket %d: %s at level %d, want %d", b.Bucket, f.FileName, f.Level, top)
					}
				}
			}
			if r.FullText != nil {
				checkAllCurrent(t, tbl, r.FullText.FieldID)
			}
			t.Logf("%d buckets compacted, snapshot %v", len(res.Buckets), res.Snapshot != nil)
			checkNoOrphanFiles(t, tbl, root)
		})
	}
}

// TestCompactRefusesOtherMergeEngines checks the refusals of what the merge does not implement
// (a changelog producer, a sequence field that is no column) name what they refuse.
func TestCompactRefusesOtherMergeEngines(t *testing.T) {
	ctx := context.Background()
	for opt, val := range map[string]string{"changelog-producer": "lookup", "sequence.field": "nope"} {
		root := copyGolden(t, "two-levels")
		tbl := table.Open(fileio.NewLocal(), root)
		s, err := tbl.LatestSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		next := *s
		next.ID = s.ID + 1
		next.Options = map[string]string{opt: val}
		for k, v := range s.Options {
			next.Options[k] = v
		}
		next.OptionOrder = append(append([]string{}, s.OptionOrder...), opt)
		if err := os.WriteFile(filepath.Join(root, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = tableops.Compact(ctx, tbl, nil)
		if !errors.Is(err, tableops.ErrUnsupportedTable) || !containsAll(err.Error(), opt, val) {
			t.Errorf("%s=%s: compaction error %v", opt, val, err)
		}
		if _, err := tableops.OpenWriter(ctx, tbl, nil); !errors.Is(err, tableops.ErrUnsupportedTable) {
			t.Errorf("%s=%s: writer error %v", opt, val, err)
		}
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !contains(s, p) {
			return false
		}
	}
	return true
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
