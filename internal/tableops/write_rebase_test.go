package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// concurrentWriter opens a write-only writer on tbl whose first publication lets another write
// of rows commit first (so that its commit loses the race and is rebased); fail, when not nil,
// is the error of its second publication.
func concurrentWriter(t *testing.T, tbl *table.Table, other [][]any, fail error) *tableops.Writer {
	t.Helper()
	publications := 0
	w, err := tableops.OpenWriter(context.Background(), tbl, nil, tableops.WithWriteOnly(),
		tableops.WithBeforePublish(func(ctx context.Context, _ *snapshot.Snapshot) error {
			switch publications++; publications {
			case 1:
				return writeRowsWith(tbl, nil, []tableops.MaintainOption{tableops.WithWriteOnly()}, other...)
			case 2:
				return fail
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRebasedWriteIsRenumbered: a write that loses the race to a write of the same bucket is
// rebased (the bucket's largest sequence number changed), and its rows are numbered again after
// the other write's, as a writer restored on that snapshot would number them: its update of a
// key wins.
func TestRebasedWriteIsRenumbered(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	tbl, _ := newTable(t, map[string]string{"bucket": "1"})
	if err := writeRows(t, tbl, []any{I, int32(1), "first", int32(0)}); err != nil {
		t.Fatal(err)
	}
	w := concurrentWriter(t, tbl, [][]any{{I, int32(1), "other", int32(1)}}, nil)
	if err := w.Write(ctx, I, []any{int32(1), "rebased", int32(2)}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit.Replans == 0 {
		t.Fatalf("commit %+v: the write was not rebased", res.Commit)
	}
	var seqs []string
	for _, b := range res.Buckets {
		for _, f := range b.NewFiles {
			seqs = append(seqs, fmt.Sprintf("%d..%d", f.MinSequenceNumber, f.MaxSequenceNumber))
		}
	}
	// The first write numbered its row 0, the other write 1: the rebased row is 2.
	if len(seqs) != 1 || seqs[0] != "2..2" {
		t.Errorf("the rebased write's files have sequence numbers %v, want [2..2]", seqs)
	}
	if got := mergedRows(t, tbl); len(got) != 1 {
		t.Fatalf("rows %v, want key 1 once", got)
	} else {
		for _, row := range got {
			if row[1] != "rebased" {
				t.Errorf("key 1 reads %v, want the rebased write's row", row)
			}
		}
	}
}

// TestRebasedWriteAbortLeavesNoFile: a rebased write whose files were renumbered (written again)
// and whose publication then fails deletes the renumbered files too.
func TestRebasedWriteAbortLeavesNoFile(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	tbl, root := newTable(t, map[string]string{"bucket": "1"})
	if err := writeRows(t, tbl, []any{I, int32(1), "first", int32(0)}); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("the rebased publication fails")
	w := concurrentWriter(t, tbl, [][]any{{I, int32(2), "other", int32(1)}}, stop)
	for id := range int32(20) {
		if err := w.Write(ctx, I, []any{id, "rebased", id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); !errors.Is(err, stop) {
		t.Fatalf("commit: %v, want %v", err, stop)
	}
	checkNoOrphanFiles(t, tbl, root)
}

// TestRebaseAfterConcurrentCompaction: a write whose compaction at commit was planned on levels
// a concurrent compaction has since rewritten is rebased (its bucket's levels above 0 are part of
// what the write depends on, with or without a primary-key index): it commits, every key is live
// once with the write's value, and no file is left that no snapshot references.
func TestRebaseAfterConcurrentCompaction(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	tbl, root := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"})
	want := map[int32]string{}
	var rows [][]any
	for id := range int32(100) {
		rows = append(rows, []any{I, id, "old", id})
		want[id] = fmt.Sprintf("old/%d", id)
	}
	if err := writeRows(t, tbl, rows...); err != nil {
		t.Fatal(err)
	}
	// A level-0 file the concurrent full compaction takes up.
	if err := writeRowsWith(tbl, nil, []tableops.MaintainOption{tableops.WithWriteOnly()}, []any{I, int32(500), "level 0", int32(500)}); err != nil {
		t.Fatal(err)
	}
	want[500] = "level 0/500"
	publications := 0
	w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithBeforePublish(func(ctx context.Context, _ *snapshot.Snapshot) error {
		if publications++; publications != 1 {
			return nil
		}
		_, err := tableops.Compact(ctx, tbl, nil)
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	for id := int32(0); id < 100; id += 10 {
		if err := w.Write(ctx, I, []any{id, "new", id}); err != nil {
			t.Fatal(err)
		}
		want[id] = fmt.Sprintf("new/%d", id)
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit.Replans == 0 || res.CompactSnapshot == nil {
		t.Errorf("commit %+v, compact snapshot %v: want the write rebased and its compaction committed", res.Commit, res.CompactSnapshot)
	}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Errorf("live records after the rebased write: %d keys, key 0 %q, key 500 %q; want %d, %q, %q", len(got), got[0], got[500], len(want), want[0], want[500])
	}
	checkNoOrphanFiles(t, tbl, root)
}

// TestRebaseRefusesARescaledBucket: a write that loses the race to a commit that wrote its
// bucket with another bucket count (the table rescaled meanwhile) cannot be rebased: its commit
// fails with ErrWriteConflict naming the bucket and both counts, and nothing of it is left.
func TestRebaseRefusesARescaledBucket(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	tbl, root := newTable(t, map[string]string{"bucket": "1"})
	publications := 0
	w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithWriteOnly(), tableops.WithBeforePublish(func(ctx context.Context, _ *snapshot.Snapshot) error {
		if publications++; publications != 1 {
			return nil
		}
		setOptions(t, root, map[string]string{"bucket": "2"})
		var rows [][]any
		for id := range int32(20) {
			rows = append(rows, []any{I, id, "rescaled", id})
		}
		return writeRowsWith(tbl, nil, []tableops.MaintainOption{tableops.WithWriteOnly()}, rows...)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, I, []any{int32(1), "one bucket", int32(1)}); err != nil {
		t.Fatal(err)
	}
	// The rebase refuses the bucket by name before the commit's own check of the partition's
	// bucket count (Java's "Total buckets of partition ... changed") would.
	_, err = w.Commit(ctx)
	if want := "bucket 0: a concurrent commit wrote it with 2 buckets, the write has 1"; !errors.Is(err, tableops.ErrWriteConflict) || !contains(err.Error(), want) {
		t.Fatalf("a write into a bucket rescaled meanwhile: %v, want %v naming it (%q)", err, tableops.ErrWriteConflict, want)
	}
	checkNoOrphanFiles(t, tbl, root)
}
