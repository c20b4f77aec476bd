package tableops_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// setOptions commits a new schema of the table at root with opts added to its options (new keys
// appended in key order).
func setOptions(t *testing.T, root string, opts map[string]string) {
	t.Helper()
	s, err := table.Open(fileio.NewLocal(), root).LatestSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = map[string]string{}
	for k, v := range s.Options {
		next.Options[k] = v
	}
	next.OptionOrder = slices.Clone(s.OptionOrder)
	keys := slices.Sorted(maps.Keys(opts))
	for _, k := range keys {
		if _, ok := next.Options[k]; !ok {
			next.OptionOrder = append(next.OptionOrder, k)
		}
		next.Options[k] = opts[k]
	}
	if err := os.WriteFile(filepath.Join(root, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteHonoursBucketFunction writes ids 901-906 into a copy of a Java table of two buckets
// under each bucket function and checks every level-0 file holds only keys of its bucket: id mod
// 2 for mod (ModBucketFunction's floorMod) and for hive (an INT hashes to itself), Go's default
// hash otherwise (bucket/hash checks it against Java).
func TestWriteHonoursBucketFunction(t *testing.T) {
	ctx := context.Background()
	for _, fn := range []string{"default", "mod", "hive"} {
		t.Run(fn, func(t *testing.T) {
			root := copyGolden(t, "partitioned-dv")
			setOptions(t, root, map[string]string{"bucket-function.type": fn})
			tbl := table.Open(fileio.NewLocal(), root)
			w, err := tableops.OpenWriter(ctx, tbl, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int32]int32{}
			for id := int32(901); id <= 906; id++ {
				row := []any{"eu", int32(19753), id, "x"}
				if err := w.Write(ctx, types.Insert, row); err != nil {
					t.Fatal(err)
				}
				b := id % 2
				if fn == "default" {
					n, err := tableops.BucketOf(w.Schema(), row)
					if err != nil {
						t.Fatal(err)
					}
					b = int32(n)
				}
				want[id] = b
			}
			res, err := w.Commit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			layout, err := kvfile.NewLayout(w.Schema())
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, b := range res.Buckets {
				for _, f := range b.NewFiles {
					for _, key := range [][]byte{f.MinKey, f.MaxKey} {
						br, err := binrow.DeserializeBinaryRow(key)
						if err != nil {
							t.Fatal(err)
						}
						vals, err := br.Decode(layout.KeyType)
						if err != nil {
							t.Fatal(err)
						}
						id := vals[0].(int32)
						if want[id] != b.Bucket {
							t.Errorf("id %d written to bucket %d, want %d", id, b.Bucket, want[id])
						}
					}
					seen += int(f.RowCount)
				}
			}
			if seen != 6 {
				t.Errorf("%d rows written, want 6", seen)
			}
		})
	}
}

// TestBucketFunctionRefusedForKeyType checks a bucket function Java cannot create for the table's
// bucket key (mod of a DECIMAL + TIMESTAMP key, hive of a TIMESTAMP) refuses the write and the
// compaction by name, with no file written.
func TestBucketFunctionRefusedForKeyType(t *testing.T) {
	ctx := context.Background()
	for _, fn := range []string{"mod", "hive"} {
		root := copyGolden(t, "composite-key")
		setOptions(t, root, map[string]string{"bucket-function.type": fn})
		before := listFiles(t, root)
		tbl := table.Open(fileio.NewLocal(), root)
		_, werr := tableops.OpenWriter(ctx, tbl, nil)
		_, cerr := tableops.Compact(ctx, tbl, nil)
		for _, err := range []error{werr, cerr} {
			if !errors.Is(err, tableops.ErrUnsupportedTable) || !strings.Contains(err.Error(), "bucket-function.type") {
				t.Errorf("%s: %v", fn, err)
			}
		}
		if !slices.Equal(listFiles(t, root), before) {
			t.Errorf("%s: files changed", fn)
		}
	}
}

// TestCompactTopLevelFromSortedRunTrigger checks the top level of a full compaction when only
// num-sorted-run.compaction-trigger is set: Java's CoreOptions#numLevels is the trigger plus one,
// so a trigger of 7 compacts into level 7.
func TestCompactTopLevelFromSortedRunTrigger(t *testing.T) {
	ctx := context.Background()
	root := copyGolden(t, "two-levels")
	setOptions(t, root, map[string]string{"num-sorted-run.compaction-trigger": "7"})
	tbl := table.Open(fileio.NewLocal(), root)
	want := mergedRows(t, tbl)
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
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
	for _, b := range c.Buckets {
		for _, f := range b.DataFiles {
			if f.Level != 7 {
				t.Errorf("bucket %d: %s at level %d, want 7", b.Bucket, f.FileName, f.Level)
			}
		}
	}
}
