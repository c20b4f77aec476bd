package tableops_test

import (
	"context"
	"testing"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/table"
	"github.com/paimon-pkft/pkft/impl/tableops"
	"github.com/paimon-pkft/pkft/impl/types"
)

// TestCompactForceRewriteAllFiles checks compaction.force-rewrite-all-files as Java's
// MergeTreeCompactTask#upgrade and CompactStrategy#pickFullCompaction apply it: a full compaction
// rewrites every file instead of moving the large ones up (so every file of the top level is a
// COMPACT file), and a full compaction of a table already compacted into the top level rewrites
// every file again; the rows stay the same. Without the option the same compaction moves files up.
func TestCompactForceRewriteAllFiles(t *testing.T) {
	ctx := context.Background()
	for _, force := range []bool{false, true} {
		root := copyGolden(t, "two-levels")
		if force {
			setOptions(t, root, map[string]string{"compaction.force-rewrite-all-files": "true"})
		}
		// Every file counts as large: without the option the ones overlapping nothing move up.
		setOptions(t, root, map[string]string{"compaction.small-file-ratio": "0.0"})
		tbl := table.Open(fileio.NewLocal(), root)
		if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
			t.Fatal(err)
		}
		// New keys after every key of the table: a level-0 file overlapping no top-level file.
		w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithWriteOnly())
		if err != nil {
			t.Fatal(err)
		}
		for id := int32(100000); id < 100050; id++ {
			if err := w.Write(ctx, types.Insert, []any{id, "new"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		want := mergedRows(t, tbl)
		res, err := tableops.Compact(ctx, tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		upgraded, rewritten := 0, 0
		for _, b := range res.Buckets {
			upgraded += b.Upgraded
			rewritten += b.Rewritten
		}
		if force && (upgraded != 0 || rewritten == 0) {
			t.Errorf("forced: %d files moved up, %d rewritten; want none moved", upgraded, rewritten)
		}
		if !force && upgraded == 0 {
			t.Errorf("not forced: no file moved up: the case tests nothing")
		}
		if got := mergedRows(t, tbl); !sameRows(got, want) {
			t.Fatalf("force=%v: rows changed: %d, want %d", force, len(got), len(want))
		}
		sources := topSources(t, tbl)
		if force && sources[meta.FileSourceAppend] > 0 {
			t.Errorf("forced: %d APPEND files at the top level", sources[meta.FileSourceAppend])
		}
		again, err := tableops.Compact(ctx, tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, n := range sources {
			files += n
		}
		rewritten = 0
		for _, b := range again.Buckets {
			rewritten += b.Rewritten
		}
		if force && rewritten != files {
			t.Errorf("forced: the second full compaction rewrote %d of %d files", rewritten, files)
		}
		if !force && again.Snapshot != nil {
			t.Errorf("not forced: the second full compaction committed snapshot %d", again.Snapshot.ID)
		}
		if got := mergedRows(t, tbl); !sameRows(got, want) {
			t.Fatalf("force=%v: rows changed by the second compaction", force)
		}
	}
}

// topSources counts the latest snapshot's data files by file source.
func topSources(t *testing.T, tbl *table.Table) map[meta.FileSource]int {
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
	out := map[meta.FileSource]int{}
	for _, b := range c.Buckets {
		for _, f := range b.DataFiles {
			if f.FileSource != nil {
				out[*f.FileSource]++
			}
		}
	}
	return out
}
