package tableops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/scan"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// byKey re-keys rows by their primary-key values.
func byKey(rows [][]any, keyIdx []int) map[string]string {
	out := map[string]string{}
	for _, row := range rows {
		k := make([]any, len(keyIdx))
		for i, idx := range keyIdx {
			k[i] = row[idx]
		}
		out[fmt.Sprint(k...)] = fmt.Sprint(row)
	}
	return out
}

// batchRead is Java's batch read of the table's latest snapshot (internal/scan): with deletion
// vectors, level 0 is skipped.
func batchRead(t *testing.T, tbl *table.Table, keyIdx []int) map[string]string {
	t.Helper()
	ctx := context.Background()
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	buckets, err := scan.Read(ctx, tbl, latest, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for _, b := range buckets {
		rows = append(rows, b.Rows...)
	}
	return byKey(rows, keyIdx)
}

// TestWriteVisibleAtCommit writes rounds of inserts, updates and deletes into copies of
// Java-written tables with deletion vectors (with and without full-text, partitioned and not, one
// and two buckets, one and two levels) and checks after each commit, with no explicit
// compaction: the commit is an APPEND snapshot followed by a COMPACT one, no level-0 file is
// left, Java's batch read (which skips level 0) returns exactly the rows written, each key has
// one live row, and every full-text archive is current.
func TestWriteVisibleAtCommit(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, name := range []string{"ft-default-partitioned", "partitioned-dv", "two-levels"} {
		t.Run(name, func(t *testing.T) {
			root := copyJavaTable(t, name)
			tbl := table.Open(fileio.NewLocal(), root)
			r, err := restore.NewRestorer(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			// The whole primary key (data files' keys leave the partition fields out).
			var keyIdx []int
			for _, k := range r.Schema.PrimaryKeys {
				keyIdx = append(keyIdx, slices.IndexFunc(r.Schema.Fields, func(f types.DataField) bool { return f.Name == k }))
			}
			var initial [][]any
			for _, row := range mergedRows(t, tbl) {
				initial = append(initial, row)
			}
			want := map[string][]any{}
			for _, row := range initial {
				k := make([]any, len(keyIdx))
				for i, idx := range keyIdx {
					k[i] = row[idx]
				}
				want[fmt.Sprint(k...)] = row
			}
			if got := batchRead(t, tbl, keyIdx); len(got) != len(want) {
				t.Fatalf("the Java table reads %d rows, its files merge to %d", len(got), len(want))
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			nextID := int32(100000)
			for round := range 4 {
				w, err := tableops.OpenWriter(ctx, tbl, eng, tableops.WithCommitUser("at-commit"))
				if err != nil {
					t.Fatal(err)
				}
				keys := make([]string, 0, len(want))
				for k := range want {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for i := range 80 {
					var row []any
					kind := types.Insert
					switch {
					case i%5 == 1 && len(keys) > 0:
						if old := want[keys[rng.IntN(len(keys))]]; old != nil {
							row = slices.Clone(old)
							row[len(row)-1] = fmt.Sprintf("updated in round %d step %d", round, i)
							kind = types.UpdateAfter
						}
					case i%7 == 2 && len(keys) > 0:
						row = want[keys[rng.IntN(len(keys))]]
						kind = types.Delete
					default:
						nextID++
						if len(r.Schema.Fields) == 2 {
							row = []any{nextID, fmt.Sprintf("round %d new %d", round, nextID)}
						} else {
							row = []any{[]string{"eu", "中国"}[i%2], int32(19753 + 29*(i%2)), nextID, fmt.Sprintf("round %d new %d", round, nextID)}
						}
					}
					if row == nil {
						continue
					}
					if err := w.Write(ctx, kind, row); err != nil {
						t.Fatal(err)
					}
					k := make([]any, len(keyIdx))
					for j, idx := range keyIdx {
						k[j] = row[idx]
					}
					if kind == types.Delete {
						delete(want, fmt.Sprint(k...))
					} else {
						want[fmt.Sprint(k...)] = row
					}
				}
				res, err := w.Commit(ctx)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if res.Snapshot == nil || res.Snapshot.CommitKind != snapshot.CommitAppend {
					t.Fatalf("round %d: append snapshot %+v", round, res.Snapshot)
				}
				if res.CompactSnapshot == nil || res.CompactSnapshot.CommitKind != snapshot.CommitCompact || res.CompactSnapshot.ID != res.Snapshot.ID+1 {
					t.Fatalf("round %d: compact snapshot %+v after append %d", round, res.CompactSnapshot, res.Snapshot.ID)
				}
				// The COMPACT snapshot changed buckets: each is reported once.
				if len(res.Compactions) == 0 {
					t.Fatalf("round %d: compact snapshot %d, but no bucket's compaction reported", round, res.CompactSnapshot.ID)
				}
				seen := map[string]bool{}
				for _, bc := range res.Compactions {
					if k := fmt.Sprintf("%x/%d", bc.Partition, bc.Bucket); seen[k] {
						t.Errorf("round %d: bucket %s reported twice", round, k)
					} else {
						seen[k] = true
					}
				}
				for _, bc := range res.Compactions {
					levels := map[int32]int{}
					for _, f := range bc.After {
						levels[f.Level]++
					}
					dvs := int64(0)
					if bc.DeletionVectors != nil {
						for _, rg := range bc.DeletionVectors.DVRanges {
							if rg.Cardinality != nil {
								dvs += *rg.Cardinality
							}
						}
					}
					t.Logf("round %d bucket %d: %d files before, after by level %v, %d rewritten, %d upgraded, %d deleted rows in vectors",
						round, bc.Bucket, len(bc.Before), levels, bc.Rewritten, bc.Upgraded, dvs)
				}
				c := latestContents(t, tbl)
				for _, b := range c.Buckets {
					for _, f := range b.DataFiles {
						if f.Level == 0 {
							t.Errorf("round %d: bucket %d keeps level-0 file %s after the commit", round, b.Bucket, f.FileName)
						}
					}
					dvFiles := 0
					for _, f := range b.IndexFiles {
						if f.IndexType == meta.IndexTypeDeletionVectors {
							dvFiles++
						}
					}
					if dvFiles > 1 {
						t.Errorf("round %d: bucket %d has %d deletion-vector files", round, b.Bucket, dvFiles)
					}
				}
				wantRows := map[string]string{}
				for k, row := range want {
					wantRows[k] = fmt.Sprint(row)
				}
				if got := batchRead(t, tbl, keyIdx); !mapsEqual(got, wantRows) {
					t.Fatalf("round %d: the batch read returns %d rows, %d written live (%s)", round, len(got), len(wantRows), firstMapDiff(got, wantRows))
				}
				var merged [][]any
				for _, row := range mergedRows(t, tbl) {
					merged = append(merged, row)
				}
				if got := byKey(merged, keyIdx); !mapsEqual(got, wantRows) {
					t.Fatalf("round %d: the files merge to %d rows, %d written live (%s)", round, len(got), len(wantRows), firstMapDiff(got, wantRows))
				}
				if r.FullText != nil {
					checkAllCurrent(t, tbl, r.FullText.FieldID)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

func firstMapDiff(got, want map[string]string) string {
	for k, v := range want {
		if g, ok := got[k]; !ok {
			return "missing " + k
		} else if g != v {
			return fmt.Sprintf("%s: %s, want %s", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return "extra " + k
		}
	}
	return "none"
}

// TestWriteOnlyAndForceLookup: write-only (and its fallback key write.compaction-skip) makes the
// writer commit level-0 files with no compaction, as Java's NoopCompactManager; force-lookup on
// a table without deletion vectors compacts level 0 at every commit (ForceUpLevel0Compaction)
// with no deletion vectors, and the table merges to the rows written.
func TestWriteOnlyAndForceLookup(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, c := range []struct {
		table   string
		options map[string]string
		compact bool
	}{
		{"two-levels", map[string]string{"write-only": "true"}, false},
		{"two-levels", map[string]string{"write.compaction-skip": "true"}, false},
		{"full-compaction", nil, false},
		{"full-compaction", map[string]string{"force-lookup": "true"}, true},
	} {
		t.Run(fmt.Sprint(c.table, c.options), func(t *testing.T) {
			var keys []string
			for k := range c.options {
				keys = append(keys, k)
			}
			root := copyGoldenWith(t, c.table, keys, c.options)
			tbl := table.Open(fileio.NewLocal(), root)
			w, err := tableops.OpenWriter(ctx, tbl, eng)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				row := []any{int32(7000 + i), fmt.Sprintf("write-only %d", i)}
				if len(w.Schema().Fields) == 3 {
					row = append(row, int64(i))
				}
				if err := w.Write(ctx, types.Insert, row); err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Commit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.CompactSnapshot != nil; got != c.compact {
				t.Fatalf("compaction at commit: %v, want %v", got, c.compact)
			}
			contents := latestContents(t, tbl)
			level0 := 0
			for _, b := range contents.Buckets {
				for _, f := range b.DataFiles {
					if f.Level == 0 {
						level0++
					}
				}
				for _, f := range b.IndexFiles {
					if f.IndexType == meta.IndexTypeDeletionVectors && c.options["force-lookup"] != "" {
						t.Errorf("force-lookup without deletion vectors wrote deletion vectors %s", f.FileName)
					}
				}
			}
			if (level0 == 0) != c.compact {
				t.Errorf("%d level-0 files after the commit (compaction at commit: %v)", level0, c.compact)
			}
			rows := mergedRows(t, tbl)
			for i := range 20 {
				found := false
				for _, row := range rows {
					found = found || (row[0] == int32(7000+i) && row[1] == fmt.Sprintf("write-only %d", i))
				}
				if !found {
					t.Fatalf("row %d missing", 7000+i)
				}
			}
		})
	}
}

// TestSharedWriteBuffer: write-buffer-size bounds the buffers of all of a writer's buckets
// together; when they hold it and write-buffer-spillable is off, the bucket holding the most
// writes its records as a level-0 file. Many small flushes across four buckets, the same keys
// updated between them, still merge to the rows written, write-only as well as compacted at
// commit.
func TestSharedWriteBuffer(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, writeOnly := range []bool{true, false} {
		t.Run(fmt.Sprint("write-only=", writeOnly), func(t *testing.T) {
			root := copyJavaTableWith(t, "ft-default-partitioned", map[string]string{
				"write-buffer-size": "16 kb", "page-size": "1 kb", "write-buffer-spillable": "false"})
			tbl := table.Open(fileio.NewLocal(), root)
			var opts []tableops.MaintainOption
			if writeOnly {
				opts = append(opts, tableops.WithWriteOnly())
			}
			w, err := tableops.OpenWriter(ctx, tbl, eng, opts...)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for i := range 600 {
				id := int32(20000 + i%150)
				row := []any{[]string{"eu", "中国"}[i%2], int32(19753 + 29*(i%2)), id, fmt.Sprintf("buffered %d version %d", id, i)}
				if err := w.Write(ctx, types.Insert, row); err != nil {
					t.Fatal(err)
				}
				want[fmt.Sprint(row[0], row[1], row[2])] = fmt.Sprint(row)
			}
			res, err := w.Commit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			files := 0
			for _, b := range res.Buckets {
				files += len(b.NewFiles)
			}
			if files <= len(res.Buckets) {
				t.Fatalf("%d level-0 files in %d buckets: a 16 kb buffer for 600 rows flushed nothing early", files, len(res.Buckets))
			}
			got := map[string]string{}
			for _, row := range mergedRows(t, tbl) {
				if id := row[2].(int32); id >= 20000 && id < 20150 {
					got[fmt.Sprint(row[0], row[1], row[2])] = fmt.Sprint(row)
				}
			}
			if !mapsEqual(got, want) {
				t.Fatalf("the files merge to %d of the written keys, want %d (%s)", len(got), len(want), firstMapDiff(got, want))
			}
		})
	}
}

// TestConcurrentWritersCompactAtCommit opens two writers on the same snapshot of a
// deletion-vector full-text table and commits them one after the other: the second is rebased
// (its rows renumbered after the first's, its compaction planned again on the first's COMPACT
// snapshot), so both writes' rows are read, no level-0 file is left and every archive is current.
func TestConcurrentWritersCompactAtCommit(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "ft-default-partitioned")
	tbl := table.Open(fileio.NewLocal(), root)
	r, err := restore.NewRestorer(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	var ws []*tableops.Writer
	for range 2 {
		w, err := tableops.OpenWriter(ctx, tbl, eng)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	want := map[string]string{}
	for i, w := range ws {
		for j := range 40 {
			// Both writers update keys 30000..30019; each adds its own keys too.
			id := int32(30000 + j%20)
			if j >= 20 {
				id = int32(31000 + 100*i + j)
			}
			row := []any{"eu", int32(19753), id, fmt.Sprintf("writer %d row %d", i, j)}
			if err := w.Write(ctx, types.Insert, row); err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprint(row[0], row[1], row[2])] = fmt.Sprint(row)
		}
	}
	for i, w := range ws {
		res, err := w.Commit(ctx)
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		if i == 1 && res.Commit.Replans == 0 {
			t.Errorf("the second writer was not rebased: %+v", res.Commit)
		}
	}
	got := map[string]string{}
	for k, row := range batchRead(t, tbl, []int{0, 1, 2}) {
		// Keys print as region, then day and id separated by a space.
		fields := strings.Fields(k)
		if id, err := strconv.Atoi(fields[len(fields)-1]); err == nil && id >= 30000 {
			got[k] = row
		}
	}
	if !mapsEqual(got, want) {
		t.Fatalf("the batch read returns %d of the writers' keys, want %d (%s)", len(got), len(want), firstMapDiff(got, want))
	}
	checkAllCurrent(t, tbl, r.FullText.FieldID)
}

// latestContents reads the contents of the table's latest snapshot.
func latestContents(t *testing.T, tbl *table.Table) *table.Contents {
	t.Helper()
	ctx := context.Background()
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
