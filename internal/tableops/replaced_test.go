package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// replaceSnapshot does what a racing Java commit on a local file system can do to a snapshot Go
// just published (LocalFileIO#rename checks the target is absent, then moves over it): another
// writer's commit, planned on the previous snapshot, takes snapshot id next.ID. Here the other
// writer is other, run after next's file is taken away.
func replaceSnapshot(ctx context.Context, tbl *table.Table, next *snapshot.Snapshot, other func() error) error {
	if err := os.Remove(tbl.Snapshots.Path(next.ID)); err != nil {
		return err
	}
	if err := tbl.Snapshots.CommitLatestHint(ctx, next.ID-1); err != nil {
		return err
	}
	if err := other(); err != nil {
		return fmt.Errorf("the replacing commit: %w", err)
	}
	got, err := tbl.Snapshots.Snapshot(ctx, next.ID)
	if err != nil {
		return err
	}
	if got.CommitUser == next.CommitUser {
		return fmt.Errorf("snapshot %d was not replaced", next.ID)
	}
	return nil
}

// rowsWithIDs counts the merged rows whose id (the last key field) is in [from, from+n).
func rowsWithIDs(t *testing.T, tbl *table.Table, from, n int) int {
	t.Helper()
	found := 0
	for k := range mergedRows(t, tbl) {
		for i := from; i < from+n; i++ {
			if strings.HasSuffix(k, fmt.Sprintf("[%d]", i)) || strings.HasSuffix(k, fmt.Sprintf(" %d]", i)) {
				found++
			}
		}
	}
	return found
}

// TestWriteSnapshotReplacedBeforeVerification replaces the snapshot a Go write published before
// the write reads it back: the write must not report that commit; with retries it rebases onto
// the replacing snapshot (renumbering its rows after the other writer's) and commits once; with
// none it fails with ErrWriteConflict and ErrSnapshotReplaced and leaves no file behind.
func TestWriteSnapshotReplacedBeforeVerification(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, retries := range []int{3, 0} {
		t.Run(fmt.Sprintf("retries=%d", retries), func(t *testing.T) {
			root := copyGolden(t, "ft-default-partitioned")
			tbl := table.Open(fileio.NewLocal(), root)
			base, err := tbl.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Write-only: the case is the APPEND snapshot's replacement and rebase (the
			// compaction at commit has its own snapshot and cases).
			w, err := tableops.OpenWriter(ctx, tbl, eng, tableops.WithCommitUser("go-writer"), tableops.WithMaxRetries(retries), tableops.WithWriteOnly(),
				tableops.WithAfterPublish(func(ctx context.Context, next *snapshot.Snapshot) error {
					if next.ID != base.ID+1 {
						return nil
					}
					return replaceSnapshot(ctx, tbl, next, func() error { return appendRows(ctx, tbl, eng, 9000, 20) })
				}))
			if err != nil {
				t.Fatal(err)
			}
			for i := 5000; i < 5030; i++ {
				if err := w.Write(ctx, types.Insert, []any{"eu", int32(19753), int32(i), fmt.Sprintf("replaced %d", i)}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Commit(ctx)
			latest, lerr := tbl.Latest(ctx)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if retries == 0 {
				if !errors.Is(err, tableops.ErrWriteConflict) || !errors.Is(err, tableops.ErrSnapshotReplaced) || !errors.Is(err, tableops.ErrCommitConflict) {
					t.Fatalf("write whose only snapshot was replaced: %v, want %v and %v", err, tableops.ErrWriteConflict, tableops.ErrSnapshotReplaced)
				}
				if latest.ID != base.ID+1 || latest.CommitUser == "go-writer" {
					t.Fatalf("latest snapshot %d by %s, want the replacing commit %d", latest.ID, latest.CommitUser, base.ID+1)
				}
				if n := rowsWithIDs(t, tbl, 5000, 30); n != 0 {
					t.Errorf("%d rows of the failed write are visible", n)
				}
			} else {
				if err != nil {
					t.Fatalf("write whose first snapshot was replaced: %v", err)
				}
				if res.Snapshot.ID != base.ID+2 || latest.ID != res.Snapshot.ID || latest.CommitUser != "go-writer" {
					t.Fatalf("write reported snapshot %d, latest %d by %s; want %d by go-writer", res.Snapshot.ID, latest.ID, latest.CommitUser, base.ID+2)
				}
				if res.Commit.Replaced != 1 || res.Commit.Attempts != 2 || res.Commit.Replans == 0 {
					t.Errorf("commit stats %+v, want one replaced snapshot, two attempts and a rebase", res.Commit)
				}
				if n := rowsWithIDs(t, tbl, 5000, 30); n != 30 {
					t.Errorf("%d of the write's 30 rows are visible", n)
				}
				// Rebased: in each bucket the write's rows are numbered after every other row.
				c, err := tbl.Read(ctx, latest)
				if err != nil {
					t.Fatal(err)
				}
				for _, bw := range res.Buckets {
					ownMin := int64(1 << 62)
					own := map[string]bool{}
					for _, f := range bw.NewFiles {
						own[f.FileName] = true
						ownMin = min(ownMin, f.MinSequenceNumber)
					}
					for _, b := range c.Buckets {
						if b.Bucket != bw.Bucket || string(b.Partition) != string(bw.Partition) {
							continue
						}
						for _, f := range b.DataFiles {
							if !own[f.FileName] && f.MaxSequenceNumber >= ownMin {
								t.Errorf("bucket %d: %s has sequence numbers up to %d, the write's rows start at %d", b.Bucket, f.FileName, f.MaxSequenceNumber, ownMin)
							}
						}
					}
				}
				// Exactly once: the write's files are live once, in one snapshot's delta.
				ids, err := tbl.Snapshots.IDs(ctx)
				if err != nil {
					t.Fatal(err)
				}
				mine := 0
				for _, id := range ids {
					s, err := tbl.Snapshots.Snapshot(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if s.CommitUser == "go-writer" {
						mine++
					}
				}
				if mine != 1 {
					t.Errorf("%d snapshots by the write, want 1", mine)
				}
			}
			if n := rowsWithIDs(t, tbl, 9000, 20); n != 20 {
				t.Errorf("%d of the replacing commit's 20 rows are visible", n)
			}
			checkNoOrphanFiles(t, tbl, root)
		})
	}
}

// TestMaintainSnapshotReplacedBeforeVerification is the same for Maintain (the replacing commit
// is a metadata rewrite of the previous snapshot): Maintain does not report its replaced snapshot and, retrying, commits
// its archives once on the new base (every archive current); without retries it fails with
// ErrMaintainConflict and ErrSnapshotReplaced, its archives deleted.
func TestMaintainSnapshotReplacedBeforeVerification(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, retries := range []int{3, 0} {
		t.Run(fmt.Sprintf("retries=%d", retries), func(t *testing.T) {
			root := copyJavaTableWith(t, "two-levels", map[string]string{pkfulltext.ColumnsOption: "content"})
			tbl := table.Open(fileio.NewLocal(), root)
			base, err := tbl.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tableops.Maintain(ctx, tbl, eng, tableops.WithCommitUser("go-maintainer"), tableops.WithMaxRetries(retries),
				tableops.WithAfterPublish(func(ctx context.Context, next *snapshot.Snapshot) error {
					if next.ID != base.ID+1 {
						return nil
					}
					return replaceSnapshot(ctx, tbl, next, func() error {
						_, err := tableops.RewriteMetadata(ctx, tbl, "other-writer")
						return err
					})
				}))
			if retries == 0 {
				if !errors.Is(err, tableops.ErrMaintainConflict) || !errors.Is(err, tableops.ErrSnapshotReplaced) {
					t.Fatalf("maintain whose only snapshot was replaced: %v", err)
				}
			} else {
				if err != nil {
					t.Fatalf("maintain whose first snapshot was replaced: %v", err)
				}
				if res.Snapshot == nil || res.Snapshot.ID != base.ID+2 || res.Commit.Replaced != 1 {
					t.Fatalf("maintain committed %v after %+v, want %d after one replaced snapshot", res.Snapshot, res.Commit, base.ID+2)
				}
				checkAllCurrent(t, tbl, fieldID(t, tbl))
			}
			checkNoOrphanFiles(t, tbl, root)
		})
	}
}
