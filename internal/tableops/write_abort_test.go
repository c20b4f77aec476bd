package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/crashpoint"
	"github.com/paimon-pkft/pkft/internal/testing/faultio"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestWriteAndCompactFailuresLeaveNoFile fails every file creation and every publication of a
// write (and then of a compaction) in turn: each failed operation returns an error, commits
// nothing and leaves exactly the files the table had.
func TestWriteAndCompactFailuresLeaveNoFile(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	write := func(tbl *table.Table) error {
		w, err := tableops.OpenWriter(ctx, tbl, eng)
		if err != nil {
			return err
		}
		for i := 0; i < 40; i++ {
			kind := types.Insert
			if i%9 == 4 {
				kind = types.Delete
			}
			row := []any{[]string{"eu", "中国"}[i%2], int32(19753 + 29*(i%2)), int32(i * 3), fmt.Sprintf("fault text %d", i)}
			if err := w.Write(ctx, kind, row); err != nil {
				return errors.Join(err, w.Abort(ctx))
			}
		}
		_, err = w.Commit(ctx)
		return err
	}
	compact := func(tbl *table.Table) error {
		_, err := tableops.Compact(ctx, tbl, eng)
		return err
	}
	for _, step := range []struct {
		name    string
		prepare func(tbl *table.Table) error
		run     func(tbl *table.Table) error
	}{
		{"write", nil, write},
		{"compact", write, compact},
	} {
		for _, op := range []faultio.Op{faultio.OpWrite, faultio.OpRename} {
			t.Run(step.name+"/"+op.String(), func(t *testing.T) {
				fs := faultio.New(fileio.NewLocal())
				points, err := faultio.Enumerate(fs, op, faultio.Fail, 200, func(p faultio.Point) error {
					fs.Disarm()
					root := copyJavaTable(t, "ft-default-partitioned")
					if step.prepare != nil {
						if err := step.prepare(table.Open(fileio.NewLocal(), root)); err != nil {
							return err
						}
					}
					plain := table.Open(fileio.NewLocal(), root)
					before, err := plain.Latest(ctx)
					if err != nil {
						return err
					}
					files := listFiles(t, root)
					fs.Arm(p)
					runErr := step.run(table.Open(fs, root))
					if !fs.Fired() {
						return nil // past the last operation of this kind
					}
					if runErr == nil {
						// Only a best-effort step (the LATEST hint) may fail without failing the
						// operation; then it committed.
						if after, err := plain.Latest(ctx); err != nil || after.ID <= before.ID {
							return fmt.Errorf("%v: the operation succeeded despite the failure but committed no snapshot", p)
						}
						return nil
					}
					var uncertain *tableops.UncertainCommitError
					if errors.As(runErr, &uncertain) {
						return nil // the files are kept on purpose
					}
					after, err := plain.Latest(ctx)
					if err != nil {
						return err
					}
					if errors.Is(runErr, tableops.ErrCompactionAtCommit) {
						// The append landed, its compaction did not: exactly one APPEND
						// snapshot, and nothing of the compaction left behind.
						if after.ID != before.ID+1 || after.CommitKind != snapshot.CommitAppend {
							return fmt.Errorf("%v: write whose compaction failed ends at snapshot %d (%s), want the append %d", p, after.ID, after.CommitKind, before.ID+1)
						}
						refs, err := crashpoint.Referenced(ctx, root)
						if err != nil {
							return err
						}
						for _, name := range added(files, listFiles(t, root)) {
							if !refs[filepath.Base(name)] && !strings.HasSuffix(name, "LATEST") {
								return fmt.Errorf("%v (%v): file %s left behind", p, runErr, name)
							}
						}
						return nil
					}
					if after.ID != before.ID {
						return fmt.Errorf("%v: snapshot %d committed despite %v", p, after.ID, runErr)
					}
					if now := listFiles(t, root); !slices.Equal(now, files) {
						return fmt.Errorf("%v (%v): files left behind: %v", p, runErr, added(files, now))
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(points) == 0 {
					t.Fatal("no failure was injected")
				}
				t.Logf("%d failure points", len(points))
			})
		}
	}
}

// TestUncertainAppendDiscardsTheCompactions: when the outcome of a write's APPEND publication is
// uncertain, the files it would reference stay (it may have landed), but what the compactions at
// commit generated for the COMPACT snapshot that never came (rewritten data files,
// deletion-vector files, their buckets' archives) is deleted: every file the write left is one a
// snapshot references.
func TestUncertainAppendDiscardsTheCompactions(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "ft-default-partitioned")
	before := listFiles(t, root)
	tbl := table.Open(fileio.NewLocal(), root)
	published := 0
	w, err := tableops.OpenWriter(ctx, tbl, eng, tableops.WithAfterPublish(func(context.Context, *snapshot.Snapshot) error {
		published++
		return errors.New("injected: the publication's outcome is unknown")
	}))
	if err != nil {
		t.Fatal(err)
	}
	writeUpdates(t, w)
	if err := w.PrepareCommit(ctx); err != nil {
		t.Fatal(err)
	}
	generated := len(added(before, listFiles(t, root)))
	_, err = w.Commit(ctx)
	var uncertain *tableops.UncertainCommitError
	if !errors.As(err, &uncertain) || published != 1 {
		t.Fatalf("commit whose publication is uncertain: %v after %d publications, want an UncertainCommitError after one", err, published)
	}
	checkNoOrphanFiles(t, tbl, root)
	if left := added(before, listFiles(t, root)); len(left) >= generated {
		t.Errorf("%d files generated before the commit, %d left: the compactions' files were not deleted", generated, len(left))
	}
}

// writeUpdates writes 40 updates of rows the ft-default-partitioned table holds (a compaction at
// commit rewrites them through the lookup), aborting the writer when one fails.
func writeUpdates(t *testing.T, w *tableops.Writer) {
	t.Helper()
	ctx := context.Background()
	for i := range 40 {
		row := []any{[]string{"eu", "中国"}[i%2], int32(19753 + 29*(i%2)), int32(i * 3), fmt.Sprintf("updated text %d", i)}
		if err := w.Write(ctx, types.Insert, row); err != nil {
			t.Fatal(errors.Join(err, w.Abort(ctx)))
		}
	}
}
