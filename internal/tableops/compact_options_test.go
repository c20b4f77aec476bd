package tableops_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestCompactOptions: the uncovered and the minor compaction exclude each other (each alone
// runs); a parallelism of 0 or less runs one bucket at a time; the commit user given is the
// snapshot's, and a compaction without one commits under a generated one.
func TestCompactOptions(t *testing.T) {
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copyGolden(t, "two-levels"))
	if _, err := tableops.Compact(ctx, tbl, nil, tableops.WithUncoveredCompaction(), tableops.WithMinorCompaction()); err == nil ||
		!strings.Contains(err.Error(), "the uncovered and minor compactions exclude each other") {
		t.Fatalf("uncovered and minor: %v", err)
	}
	// Alone, the minor compaction runs (the table has no level-0 files: nothing to commit).
	if _, err := tableops.Compact(ctx, tbl, nil, tableops.WithMinorCompaction()); err != nil {
		t.Fatalf("minor: %v", err)
	}
	for _, c := range []struct {
		name string
		opts []tableops.MaintainOption
		user string // "": a generated one
	}{
		{"parallelism 0", []tableops.MaintainOption{tableops.WithParallelism(0), tableops.WithCommitUser("alice")}, "alice"},
		{"parallelism -3", []tableops.MaintainOption{tableops.WithParallelism(-3)}, ""},
	} {
		tbl := table.Open(fileio.NewLocal(), copyGolden(t, "two-levels"))
		before, err := tbl.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tableops.Compact(ctx, tbl, nil, c.opts...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		after, err := tbl.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after.ID <= before.ID {
			t.Fatalf("%s: no snapshot committed", c.name)
		}
		if c.user != "" && after.CommitUser != c.user || c.user == "" && (after.CommitUser == "" || after.CommitUser == before.CommitUser) {
			t.Errorf("%s: commit user %q (before %q), want %q", c.name, after.CommitUser, before.CommitUser, c.user)
		}
	}
}

// TestCompactNumLevels: num-levels of 2 compacts into level 1, its top; lowered below the levels
// of a table's files, the files' highest level is the top (as Java restores Levels); 1 leaves no
// level to compact into and is refused by name.
func TestCompactNumLevels(t *testing.T) {
	ctx := context.Background()
	tbl, _ := newTable(t, map[string]string{"bucket": "1", tableops.NumLevelsOption: "2"})
	if err := writeRows(t, tbl, []any{types.Insert, int32(1), "a", int32(1)}, []any{types.Insert, int32(2), "b", int32(2)}); err != nil {
		t.Fatal(err)
	}
	res, err := tableops.Compact(ctx, tbl, nil)
	if err != nil {
		t.Fatalf("num-levels 2: %v", err)
	}
	if len(res.Buckets) != 1 || len(res.Buckets[0].After) == 0 {
		t.Fatalf("num-levels 2: compacted %+v", res.Buckets)
	}
	for _, f := range res.Buckets[0].After {
		if f.Level != 1 {
			t.Errorf("num-levels 2: %s on level %d, want 1", f.FileName, f.Level)
		}
	}

	// num-levels lowered below the table's files: Java's Levels restores as many levels as the
	// highest file needs, and the full compaction goes to that level.
	root := copyGolden(t, "two-levels")
	tbl = table.Open(fileio.NewLocal(), root)
	top := int32(0)
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			top = max(top, f.Level)
		}
	}
	if top < 2 {
		t.Fatalf("two-levels: highest level %d, want a file above level 1", top)
	}
	setOptions(t, root, map[string]string{tableops.NumLevelsOption: "2"})
	if res, err = tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatalf("num-levels 2 below a file on level %d: %v", top, err)
	}
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			if f.Level != top {
				t.Errorf("num-levels 2 below a file on level %d: %s on level %d after a full compaction", top, f.FileName, f.Level)
			}
		}
	}

	tbl, _ = newTable(t, map[string]string{"bucket": "1", tableops.NumLevelsOption: "1"})
	if _, err := tableops.Compact(ctx, tbl, nil); err == nil || !strings.Contains(err.Error(), tableops.NumLevelsOption+": 1 levels leave no level to compact into") {
		t.Errorf("num-levels 1: %v, want a refusal naming %s", err, tableops.NumLevelsOption)
	}
}

// TestCompactSmallFileRatio: a full compaction rewrites files alone in their key ranges when they
// are smaller than target-file-size * compaction.small-file-ratio (two such files become one) and
// moves them up as they are otherwise (CoreOptions#compactionFileSize, MergeTreeCompactTask).
func TestCompactSmallFileRatio(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name          string
		target        func(size int64) int64 // target-file-size from the larger file's size
		ratio         string                 // "": the default, 0.7
		wantRewritten bool
	}{
		{"target their size", func(s int64) int64 { return s }, "", false},
		{"target 1.3 times their size", func(s int64) int64 { return s * 13 / 10 }, "", false},
		{"target 1.5 times their size", func(s int64) int64 { return s * 15 / 10 }, "", true},
		{"target their size, ratio 1.1", func(s int64) int64 { return s }, "1.1", true},
		// Exactly at target * ratio: not smaller, moved up.
		{"target their size, ratio 1", func(s int64) int64 { return s }, "1", false},
	} {
		tbl, root := newTable(t, map[string]string{"bucket": "1"})
		// Two files of keys that do not overlap: each alone in its section.
		for _, id := range []int32{1, 3} {
			if err := writeRows(t, tbl, []any{types.Insert, id, "a", id}, []any{types.Insert, id + 1, "b", id}); err != nil {
				t.Fatal(err)
			}
		}
		var small, size int64
		for _, b := range latestContents(t, tbl).Buckets {
			for _, f := range b.DataFiles {
				if small == 0 || f.FileSize < small {
					small = f.FileSize
				}
				size = max(size, f.FileSize)
			}
		}
		if small != size {
			t.Fatalf("files of %d and %d bytes: the cases need files of one size", small, size)
		}
		opts := map[string]string{kvfile.TargetFileSizeOption: strconv.FormatInt(c.target(size), 10) + " b"}
		if c.ratio != "" {
			opts[tableops.CompactionSmallFileOpt] = c.ratio
		}
		setOptions(t, root, opts)
		res, err := tableops.Compact(ctx, tbl, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(res.Buckets) != 1 {
			t.Fatalf("%s: compacted %d buckets", c.name, len(res.Buckets))
		}
		b := res.Buckets[0]
		want := [2]int{0, 2} // rewritten, moved up
		if c.wantRewritten {
			want = [2]int{2, 0}
		}
		if got := [2]int{b.Rewritten, b.Upgraded}; got != want {
			t.Errorf("%s: files of %d and %d bytes: rewritten %d, moved up %d; want %d and %d", c.name, small, size, got[0], got[1], want[0], want[1])
		}
		// A rewrite reads and writes the four rows; moving up reads none.
		if rows := int64(2 * want[0]); b.RowsRead != rows || b.RowsWritten != rows {
			t.Errorf("%s: %d rows read, %d written; want %d", c.name, b.RowsRead, b.RowsWritten, rows)
		}
	}
}

// TestCompactRefusesRescaledBucket: a bucket whose files were written with another bucket count
// than the table's is refused, as Java's writer refuses to restore it ("Try to write ... with a
// new bucket num"), and nothing is written.
func TestCompactRefusesRescaledBucket(t *testing.T) {
	ctx := context.Background()
	root := copyGolden(t, "two-levels")
	tbl := table.Open(fileio.NewLocal(), root)
	for _, e := range latestContents(t, tbl).Entries {
		if e.TotalBuckets != 1 {
			t.Fatalf("two-levels: %s written with %d buckets, want 1", e.File.FileName, e.TotalBuckets)
		}
	}
	setOptions(t, root, map[string]string{"bucket": "3"})
	before := listFiles(t, root)
	_, err := tableops.Compact(ctx, tbl, nil)
	if !errors.Is(err, tableops.ErrUnsupportedTable) || !strings.Contains(err.Error(), "the table has 3 buckets but the bucket's files were written with 1") {
		t.Fatalf("compaction of a rescaled table: %v, want a refusal naming both bucket counts", err)
	}
	if after := listFiles(t, root); !slices.Equal(after, before) {
		t.Errorf("a refused compaction changed the table's files:\n%v\nwas\n%v", after, before)
	}
}
