package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// sortedOption is the option giving a golden table a sorted (B-tree) index on content, which
// Maintain builds without a full-text engine.
const sortedOption = "pk-btree.index.columns"

// copySortedTable copies the Java-written two-levels table and commits a next schema adding a
// B-tree index on content and the options opts.
func copySortedTable(t *testing.T, opts map[string]string) string {
	t.Helper()
	all := map[string]string{sortedOption: "content"}
	maps.Copy(all, opts)
	return copyGoldenWith(t, "two-levels", append([]string{sortedOption}, slices.Sorted(maps.Keys(opts))...), all)
}

// snapshotFiles lists the snapshot files of the table at root.
func snapshotFiles(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "snapshot-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestMaintainEngineRequirement: a table with only sorted indexes is maintained without a
// full-text engine (its B-tree payloads built and committed, every bucket reporting a change,
// then nothing left to do); a full-text table without an engine is refused with nothing written.
func TestMaintainEngineRequirement(t *testing.T) {
	ctx := context.Background()
	t.Run("sorted index", func(t *testing.T) {
		tbl := table.Open(fileio.NewLocal(), copySortedTable(t, nil))
		res, err := tableops.Maintain(ctx, tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Snapshot == nil || len(res.Buckets) == 0 {
			t.Fatalf("nothing committed: %+v", res)
		}
		for _, b := range res.Buckets {
			if len(b.Built) == 0 || !b.Changed() {
				t.Errorf("bucket %d: built %d, retired %d, changed %v", b.Bucket, len(b.Built), len(b.Retired), b.Changed())
			}
		}
		again, err := tableops.Maintain(ctx, tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		if again.Snapshot != nil {
			t.Errorf("second maintenance committed snapshot %d", again.Snapshot.ID)
		}
		for _, b := range again.Buckets {
			if b.Changed() || len(b.Unchanged) == 0 {
				t.Errorf("second maintenance, bucket %d: changed %v, %d unchanged", b.Bucket, b.Changed(), len(b.Unchanged))
			}
		}
	})
	t.Run("full-text index", func(t *testing.T) {
		root := copyJavaTable(t, "two-levels")
		before := listFiles(t, root)
		_, err := tableops.Maintain(ctx, table.Open(fileio.NewLocal(), root), nil)
		if err == nil || !strings.Contains(err.Error(), "no engine") {
			t.Fatalf("got %v, want the missing engine refused", err)
		}
		if diff := added(before, listFiles(t, root)); len(diff) != 0 {
			t.Errorf("refused maintenance left %v", diff)
		}
	})
}

// TestMaintainParallelism: a parallelism of 0 or less maintains one bucket at a time (the
// deadline only ends a maintenance that waits forever for a worker).
func TestMaintainParallelism(t *testing.T) {
	for _, n := range []int{-3, 0} {
		t.Run(fmt.Sprintf("parallelism %d", n), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tbl := table.Open(fileio.NewLocal(), copySortedTable(t, nil))
			res, err := tableops.Maintain(ctx, tbl, nil, tableops.WithParallelism(n))
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Error("nothing committed")
			}
		})
	}
}

// TestMaintainCommitRetries: a maintenance that loses every race for the next snapshot retries
// commit.max-retries times (the table option, as Java's FileStoreCommitImpl reads it) and then
// fails with a conflict, pausing before retry n at least commit.min-retry-wait (10 ms) doubled
// n times, as Java's RetryWaiter does.
func TestMaintainCommitRetries(t *testing.T) {
	ctx := context.Background()
	const maxRetries = 4
	tbl := table.Open(fileio.NewLocal(), copySortedTable(t, map[string]string{tableops.CommitMaxRetriesOption: "4"}))
	var entered, left []time.Time
	_, err := tableops.Maintain(ctx, tbl, nil, tableops.WithBeforePublish(func(ctx context.Context, _ *snapshot.Snapshot) error {
		entered = append(entered, time.Now())
		_, err := tableops.RewriteMetadata(ctx, tbl, "other-writer")
		left = append(left, time.Now())
		return err
	}))
	if !errors.Is(err, tableops.ErrCommitConflict) {
		t.Fatalf("got %v, want a conflict", err)
	}
	if len(entered) != maxRetries+1 {
		t.Fatalf("%d publication attempts, want %d (commit.max-retries = %d)", len(entered), maxRetries+1, maxRetries)
	}
	for n := range maxRetries {
		wait := entered[n+1].Sub(left[n])
		if least := 10 * time.Millisecond << n; wait < least {
			t.Errorf("retry %d came %v after the lost race, want at least %v", n, wait, least)
		}
	}
}

// TestExpiryAfterCommit: the snapshot expiry after a commit (Java's TableCommitImpl#maintain)
// expires the snapshots the retention lets go, unless the table or the writer is write-only
// (Java then builds no expiry); when it fails, the maintenance returns its committed result and
// an error matching ErrExpireAfterCommit.
func TestExpiryAfterCommit(t *testing.T) {
	ctx := context.Background()
	later := tableops.WithClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	retain := map[string]string{"snapshot.num-retained.min": "1"}
	retainWriteOnly := map[string]string{"snapshot.num-retained.min": "1", "write-only": "true"}
	for _, c := range []struct {
		name    string
		opts    map[string]string
		write   bool // commit a written row with WithWriteOnly instead of maintaining
		expires bool
	}{
		{"maintain", retain, false, true},
		{"write-only table", retainWriteOnly, false, false},
		{"write-only writer", retain, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := copySortedTable(t, c.opts)
			tbl := table.Open(fileio.NewLocal(), root)
			before := len(snapshotFiles(t, root))
			var expired int
			if c.write {
				w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithWriteOnly(), later)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(ctx, types.Insert, []any{int32(9001), "write-only writer"}); err != nil {
					t.Fatal(errors.Join(err, w.Abort(ctx)))
				}
				res, err := w.Commit(ctx)
				if err != nil {
					t.Fatal(err)
				}
				expired = res.ExpiredSnapshots
			} else {
				res, err := tableops.Maintain(ctx, tbl, nil, later)
				if err != nil {
					t.Fatal(err)
				}
				if res.Snapshot == nil {
					t.Fatal("nothing committed")
				}
				expired = res.ExpiredSnapshots
			}
			after := len(snapshotFiles(t, root))
			if after != before+1-expired {
				t.Errorf("%d snapshots before, %d after, %d reported expired", before, after, expired)
			}
			if (expired > 0) != c.expires {
				t.Errorf("%d snapshots expired, want expiry %v", expired, c.expires)
			}
		})
	}
	for _, write := range []bool{false, true} {
		t.Run(fmt.Sprintf("expiry fails, write=%v", write), func(t *testing.T) {
			root := copySortedTable(t, retain)
			// A consumer file that is not one: Java's ConsumerManager fails to read it as well.
			if err := os.MkdirAll(filepath.Join(root, "consumer"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "consumer", "consumer-broken"), []byte("not json"), 0o644); err != nil {
				t.Fatal(err)
			}
			tbl := table.Open(fileio.NewLocal(), root)
			before, err := tbl.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var committed *snapshot.Snapshot
			if write {
				var w *tableops.Writer
				if w, err = tableops.OpenWriter(ctx, tbl, nil, later); err != nil {
					t.Fatal(err)
				}
				if err := w.Write(ctx, types.Insert, []any{int32(9001), "a writer's commit"}); err != nil {
					t.Fatal(errors.Join(err, w.Abort(ctx)))
				}
				var res *tableops.WriteResult
				if res, err = w.Commit(ctx); res != nil {
					committed = res.Snapshot
				}
			} else {
				var res *tableops.MaintainResult
				if res, err = tableops.Maintain(ctx, tbl, nil, later); res != nil {
					committed = res.Snapshot
				}
			}
			if !errors.Is(err, tableops.ErrExpireAfterCommit) {
				t.Fatalf("got %v, want the expiry failure", err)
			}
			latest, lerr := tbl.Latest(ctx)
			if lerr != nil {
				t.Fatal(lerr)
			}
			// The result holds the committed snapshot (a writer's APPEND one, a COMPACT one of
			// its compaction at commit after it).
			if committed == nil || committed.ID <= before.ID || committed.ID > latest.ID {
				t.Errorf("result's snapshot %+v, want one committed after %d, up to the latest %d", committed, before.ID, latest.ID)
			}
		})
	}
}

// TestMaintainPlansEachBucketOnce: a maintenance no other writer races plans each bucket once
// (no bucket planned again, one finished-bucket report per bucket) and publishes once.
func TestMaintainPlansEachBucketOnce(t *testing.T) {
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copySortedTable(t, nil))
	var runs int
	res, err := tableops.Maintain(ctx, tbl, nil, tableops.WithProgress(func(p tableops.Progress) {
		if p.Bucket != nil {
			runs++
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Buckets) == 0 {
		t.Fatalf("nothing committed: %+v", res)
	}
	if res.Commit.Replans != 0 || res.Commit.Attempts != 1 || res.Attempts != 1 {
		t.Errorf("commit stats %+v, attempts %d: want no bucket planned again and one attempt", res.Commit, res.Attempts)
	}
	if runs != len(res.Buckets) {
		t.Errorf("%d finished-bucket reports for %d buckets", runs, len(res.Buckets))
	}
}

// TestMaintainKeepsUnchangedPayloads: after another writer removes the only file of a level, the
// maintenance retires that level's B-tree payload alone; the other level's payload is reported
// unchanged and stays in the index manifest.
func TestMaintainKeepsUnchangedPayloads(t *testing.T) {
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copySortedTable(t, nil))
	if _, err := tableops.Maintain(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	removeLevelFile(t, tbl, 4)
	res, err := tableops.Maintain(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Buckets) != 1 {
		t.Fatalf("result %+v", res)
	}
	b := res.Buckets[0]
	if len(b.Retired) != 1 || len(b.Built) != 0 || len(b.Unchanged) == 0 {
		t.Fatalf("retired %d, built %d, unchanged %d: want the stale payload retired alone", len(b.Retired), len(b.Built), len(b.Unchanged))
	}
	names := indexNames(t, tbl, res.Snapshot)
	for _, f := range b.Unchanged {
		if slices.ContainsFunc(b.Retired, func(r *meta.IndexFileMeta) bool { return r.FileName == f.FileName }) {
			t.Errorf("unchanged payload %s retired", f.FileName)
		}
		if !slices.Contains(names, f.FileName) {
			t.Errorf("unchanged payload %s left out of the index manifest", f.FileName)
		}
	}
	if slices.Contains(names, b.Retired[0].FileName) {
		t.Errorf("retired payload %s still in the index manifest", b.Retired[0].FileName)
	}
}

// TestMaintainFailureReportsOnlyItsError: a maintenance its publication hook fails returns the
// hook's error alone, every planned bucket aborted without an error of its own.
func TestMaintainFailureReportsOnlyItsError(t *testing.T) {
	ctx := context.Background()
	root := copySortedTable(t, nil)
	before := listFiles(t, root)
	stop := errors.New("harness stops")
	_, err := tableops.Maintain(ctx, table.Open(fileio.NewLocal(), root), nil,
		tableops.WithBeforePublish(func(context.Context, *snapshot.Snapshot) error { return stop }))
	if !errors.Is(err, stop) {
		t.Fatalf("got %v, want the hook's error", err)
	}
	if strings.Contains(err.Error(), "abort") {
		t.Errorf("got %q, want no abort failure reported", err)
	}
	if diff := added(before, listFiles(t, root)); len(diff) != 0 {
		t.Errorf("aborted maintenance left %v", diff)
	}
}
