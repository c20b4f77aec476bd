package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// appendRows commits n rows with ids from `from` as a concurrent write-only writer does (one
// APPEND snapshot of level-0 files, no compaction at commit).
func appendRows(ctx context.Context, tbl *table.Table, eng fulltext.Engine, from, n int) error {
	w, err := tableops.OpenWriter(ctx, tbl, eng, tableops.WithWriteOnly())
	if err != nil {
		return err
	}
	for i := from; i < from+n; i++ {
		if err := w.Write(ctx, types.Insert, []any{"eu", int32(19753), int32(i), fmt.Sprintf("concurrent %d", i)}); err != nil {
			return errors.Join(err, w.Abort(ctx))
		}
	}
	_, err = w.Commit(ctx)
	return err
}

// TestCompactRebasesOnConcurrentAppend lets another writer commit between the compaction's
// preparation and its publication: an append of level-0 files leaves the compaction valid (it is
// rebased and published after it, the appended rows kept); a concurrent compaction that
// replaced the same files makes it fail with ErrCommitConflict, leaving no generated file.
func TestCompactRebasesOnConcurrentAppend(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()

	root := copyGolden(t, "ft-default-partitioned")
	tbl := table.Open(fileio.NewLocal(), root)
	if err := appendRows(ctx, tbl, eng, 5000, 30); err != nil {
		t.Fatal(err)
	}
	fired := false
	res, err := tableops.Compact(ctx, tbl, eng, tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
		if fired {
			return nil
		}
		fired = true
		return appendRows(ctx, tbl, eng, 7000, 10)
	}))
	if err != nil {
		t.Fatal(err)
	}
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.ID != latest.ID || latest.CommitKind != snapshot.CommitCompact {
		t.Fatalf("compaction published %d, latest is %d (%s)", res.Snapshot.ID, latest.ID, latest.CommitKind)
	}
	// Level-0 files are not what the compaction planned on (fingerprintCommit): the append
	// is a conflict the commit rebases over, never a reason to plan a bucket again.
	if res.Commit.Conflicts != 1 || res.Commit.Replans != 0 {
		t.Errorf("compaction over a concurrent append: %+v, want one conflict and no bucket planned again", res.Commit)
	}
	rows := mergedRows(t, tbl)
	n := 0
	for k := range rows {
		if slices.ContainsFunc([]string{"7000", "7009", "5000", "5029"}, func(id string) bool { return len(k) > 4 && k[len(k)-len(id)-1:] == id+"]" }) {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d of the 4 sampled rows of both appends survive the rebased compaction", n)
	}
	checkNoOrphanFiles(t, tbl, root)

	// A concurrent compaction of the same files: every bucket is compacted again from the new
	// snapshot (and needs nothing there), nothing is left behind.
	root = copyGolden(t, "ft-default-partitioned")
	tbl = table.Open(fileio.NewLocal(), root)
	if err := appendRows(ctx, tbl, eng, 5000, 30); err != nil {
		t.Fatal(err)
	}
	concurrent := false
	res, err = tableops.Compact(ctx, tbl, eng, tableops.WithMaxRetries(3), tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
		if concurrent {
			return nil
		}
		concurrent = true
		_, err := tableops.Compact(ctx, tbl, eng)
		return err
	}))
	if err != nil {
		t.Fatalf("compaction over a concurrent compaction: %v", err)
	}
	if res.Snapshot != nil || res.Commit.Replans == 0 || res.Commit.Conflicts != 1 {
		t.Fatalf("compaction over a concurrent compaction committed %v after %+v, want nothing after re-planning", res.Snapshot, res.Commit)
	}
	checkNoOrphanFiles(t, tbl, root)

	// Without retries, a lost race is a named conflict, and nothing is left behind.
	root = copyGolden(t, "ft-default-partitioned")
	tbl = table.Open(fileio.NewLocal(), root)
	if err := appendRows(ctx, tbl, eng, 5000, 30); err != nil {
		t.Fatal(err)
	}
	concurrent = false
	_, err = tableops.Compact(ctx, tbl, eng, tableops.WithMaxRetries(0), tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
		if concurrent {
			return nil
		}
		concurrent = true
		return appendRows(ctx, tbl, eng, 7000, 10)
	}))
	if !errors.Is(err, tableops.ErrCompactConflict) || !errors.Is(err, tableops.ErrCommitConflict) {
		t.Fatalf("compaction losing its only attempt: %v, want %v", err, tableops.ErrCompactConflict)
	}
	checkNoOrphanFiles(t, tbl, root)

	// Without WithMaxRetries, the table's commit.max-retries decides: 0 is one attempt.
	root = copyGolden(t, "ft-default-partitioned")
	setOptions(t, root, map[string]string{commit.CommitMaxRetriesOption: "0"})
	tbl = table.Open(fileio.NewLocal(), root)
	if err := appendRows(ctx, tbl, eng, 5000, 30); err != nil {
		t.Fatal(err)
	}
	concurrent = false
	_, err = tableops.Compact(ctx, tbl, eng, tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
		if concurrent {
			return nil
		}
		concurrent = true
		return appendRows(ctx, tbl, eng, 7000, 10)
	}))
	if !errors.Is(err, tableops.ErrCompactConflict) {
		t.Fatalf("compaction of a table whose %s is 0, losing its attempt: %v, want %v", commit.CommitMaxRetriesOption, err, tableops.ErrCompactConflict)
	}
	checkNoOrphanFiles(t, tbl, root)
}

// checkNoOrphanFiles is checkNoOrphans for every file: manifests, index files (in index/ or in
// bucket directories) and data files must be referenced by some snapshot.
func checkNoOrphanFiles(t *testing.T, tbl *table.Table, root string) {
	t.Helper()
	checkNoOrphans(t, tbl, root)
	ctx := context.Background()
	refs := referenced(t, tbl)
	ids, err := tbl.Snapshots.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		s, err := tbl.Snapshots.Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tbl.Read(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Entries {
			refs[e.File.FileName] = true
		}
	}
	for _, f := range listFiles(t, root) {
		name := filepath.Base(f)
		if (strings.HasPrefix(name, "data-") || strings.HasPrefix(name, "index-") || strings.HasPrefix(name, ".")) && !refs[name] {
			t.Errorf("file %s is referenced by no snapshot", f)
		}
	}
}

// TestWriteRowKindFilter checks ignore-delete drops -D and -U rows and ignore-update-before drops
// -U rows, as Java's RowKindFilter does, so the keys they name survive the compaction.
func TestWriteRowKindFilter(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, c := range []struct {
		option    string
		survivors []types.RowKind
	}{
		{"ignore-delete", []types.RowKind{types.Delete, types.UpdateBefore}},
		{"ignore-update-before", []types.RowKind{types.UpdateBefore}},
	} {
		root := copyJavaTableWith(t, "two-levels", map[string]string{c.option: "true"})
		tbl := table.Open(fileio.NewLocal(), root)
		before := mergedRows(t, tbl)
		var keys []string
		for k := range before {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w, err := tableops.OpenWriter(ctx, tbl, eng)
		if err != nil {
			t.Fatal(err)
		}
		kinds := []types.RowKind{types.Delete, types.UpdateBefore}
		for i, kind := range kinds {
			if err := w.Write(ctx, kind, before[keys[i]]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := tableops.Compact(ctx, tbl, eng); err != nil {
			t.Fatal(err)
		}
		after := mergedRows(t, tbl)
		for i, kind := range kinds {
			_, kept := after[keys[i]]
			if want := slices.Contains(c.survivors, kind); kept != want {
				t.Errorf("%s: row deleted by %v kept = %v, want %v", c.option, kind, kept, want)
			}
		}
	}
}

// TestWriteTakesTheTableMaxRetries: without WithMaxRetries, a writer retries a lost race as
// often as the table's commit.max-retries says (as Java's FileStoreCommitImpl reads it): with 0
// its one attempt lost to a concurrent append is ErrWriteConflict, with nothing left behind; with
// 1 the same race is retried and the write commits.
func TestWriteTakesTheTableMaxRetries(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, retries := range []string{"0", "1"} {
		root := copyGolden(t, "ft-default-partitioned")
		setOptions(t, root, map[string]string{commit.CommitMaxRetriesOption: retries})
		tbl := table.Open(fileio.NewLocal(), root)
		concurrent := false
		w, err := tableops.OpenWriter(ctx, tbl, eng, tableops.WithWriteOnly(), tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
			if concurrent {
				return nil
			}
			concurrent = true
			return appendRows(ctx, tbl, eng, 7000, 10)
		}))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, types.Insert, []any{"eu", int32(19753), int32(6000), "the writer's row"}); err != nil {
			t.Fatal(err)
		}
		_, err = w.Commit(ctx)
		if retries == "0" {
			if !errors.Is(err, tableops.ErrWriteConflict) {
				t.Errorf("a write losing its one attempt (%s = 0): %v, want %v", commit.CommitMaxRetriesOption, err, tableops.ErrWriteConflict)
			}
			checkNoOrphanFiles(t, tbl, root)
			continue
		}
		if err != nil {
			t.Errorf("a write losing its first attempt (%s = 1): %v", commit.CommitMaxRetriesOption, err)
		}
	}
}

// TestWriteCommitPhaseCountsItsSnapshots: a writer's PhaseCommit reports count the snapshots it
// commits: one for a write-only commit (no compaction at commit), two when a compaction at
// commit adds its COMPACT snapshot; each ends at Done = Total.
func TestWriteCommitPhaseCountsItsSnapshots(t *testing.T) {
	for _, c := range []struct {
		writeOnly bool
		want      int
	}{{true, 1}, {false, 2}} {
		tbl, _ := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"})
		if err := writeRows(t, tbl, []any{types.Insert, int32(1), "first", int32(1)}); err != nil {
			t.Fatal(err)
		}
		var commits []tableops.Progress
		opts := []tableops.MaintainOption{tableops.WithProgress(func(p tableops.Progress) {
			if p.Phase == tableops.PhaseCommit {
				commits = append(commits, p)
			}
		})}
		if c.writeOnly {
			opts = append(opts, tableops.WithWriteOnly())
		}
		if err := writeRowsWith(tbl, nil, opts, []any{types.Insert, int32(1), "second", int32(2)}); err != nil {
			t.Fatal(err)
		}
		if len(commits) == 0 {
			t.Fatalf("write-only=%v: no PhaseCommit report", c.writeOnly)
		}
		for _, p := range commits {
			if p.Total != c.want {
				t.Errorf("write-only=%v: PhaseCommit report %d of %d, want %d snapshots", c.writeOnly, p.Done, p.Total, c.want)
			}
		}
		if last := commits[len(commits)-1]; last.Done != last.Total {
			t.Errorf("write-only=%v: the last PhaseCommit report is %d of %d", c.writeOnly, last.Done, last.Total)
		}
	}
}

// TestWriteCompactionReplannedLeavesNoOrphan: a compaction at commit whose bucket a concurrent
// compaction changed between the write's APPEND and COMPACT publications is planned again on the
// new snapshot; what its first plan generated (data, deletion-vector and archive files) is
// deleted, so no file is left that no snapshot references.
func TestWriteCompactionReplannedLeavesNoOrphan(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyGolden(t, "ft-default-partitioned")
	tbl := table.Open(fileio.NewLocal(), root)
	publications := 0
	w, err := tableops.OpenWriter(ctx, tbl, eng, tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
		if publications++; publications != 2 {
			return nil
		}
		// Just before the COMPACT publication, another compaction rewrites every bucket.
		_, err := tableops.Compact(ctx, tbl, eng)
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	writeUpdates(t, w)
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if publications < 2 || res.Commit.Replans == 0 {
		t.Fatalf("%d publications, %d re-plans: the COMPACT snapshot was not planned again", publications, res.Commit.Replans)
	}
	// The concurrent compaction left the buckets nothing to compact: none is reported compacted.
	for _, bc := range res.Compactions {
		if len(bc.Before)+len(bc.After) == 0 {
			t.Errorf("bucket %d reported compacted with no file changed", bc.Bucket)
		}
	}
	checkNoOrphanFiles(t, tbl, root)
}

// TestEmptyCommitReportsNoPhase: a writer that wrote nothing commits nothing and reports no
// phase (no flush or compaction of no bucket); a write whose compaction at commit has nothing to
// do commits its APPEND snapshot alone.
func TestEmptyCommitReportsNoPhase(t *testing.T) {
	ctx := context.Background()
	tbl, _ := newTable(t, map[string]string{"bucket": "1"})
	var reports []tableops.Progress
	w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithProgress(func(p tableops.Progress) { reports = append(reports, p) }))
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot != nil || len(reports) != 0 {
		t.Errorf("an empty write committed %v and reported %+v", res.Snapshot, reports)
	}
	if err := writeRows(t, tbl, []any{types.Insert, int32(1), "a", int32(1)}); err != nil {
		t.Fatal(err)
	}
	w, err = tableops.OpenWriter(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, types.Insert, []any{int32(2), "b", int32(2)}); err != nil {
		t.Fatal(err)
	}
	if res, err = w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || res.CompactSnapshot != nil || len(res.Compactions) != 0 {
		t.Errorf("a write with nothing to compact: snapshot %v, compact snapshot %v, compactions %d; want the APPEND alone",
			res.Snapshot, res.CompactSnapshot, len(res.Compactions))
	}
}
