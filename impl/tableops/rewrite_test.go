package tableops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/inspect"
	"github.com/paimon-pkft/pkft/impl/table"
	"github.com/paimon-pkft/pkft/impl/tableops"
)

// copyTable copies a checked-in golden table into a temporary directory.
func copyTable(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "tables", "pypaimon", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRewriteMetadataKeepsTheTableContent(t *testing.T) {
	for _, name := range []string{"pk-unpartitioned", "pk-partitioned", "pk-decimal-timestamp"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			root := copyTable(t, name)
			tbl := table.Open(fileio.NewLocal(), root)
			before, err := inspect.TableDump(ctx, tbl, inspect.FullTextState)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := tableops.RewriteMetadata(ctx, tbl, "test-user")
			if err != nil {
				t.Fatal(err)
			}
			if snap.ID != before.SnapshotID+1 || snap.CommitKind != "COMPACT" || snap.DeltaRecordCount != 0 {
				t.Errorf("new snapshot %d %s delta %d", snap.ID, snap.CommitKind, snap.DeltaRecordCount)
			}
			after, err := inspect.TableDump(ctx, tbl, inspect.FullTextState)
			if err != nil {
				t.Fatal(err)
			}
			if after.SnapshotID != snap.ID || after.CommitKind != "COMPACT" {
				t.Errorf("latest is %d %s", after.SnapshotID, after.CommitKind)
			}
			after.SnapshotID, after.CommitKind = before.SnapshotID, before.CommitKind
			if d := cmp.Diff(before, after); d != "" {
				t.Errorf("content changed (-before +after):\n%s", d)
			}
			contents, err := tbl.Read(ctx, snap)
			if err != nil {
				t.Fatal(err)
			}
			old, err := tbl.Snapshots.Snapshot(ctx, before.SnapshotID)
			if err != nil {
				t.Fatal(err)
			}
			oldContents, err := tbl.Read(ctx, old)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range contents.BaseManifests {
				for _, o := range append(oldContents.BaseManifests, oldContents.DeltaManifests...) {
					if m.FileName == o.FileName {
						t.Errorf("manifest %s was reused, not rewritten", m.FileName)
					}
				}
			}
			if len(contents.DeltaManifests) != 0 {
				t.Errorf("delta manifest list holds %d manifests, want none", len(contents.DeltaManifests))
			}
		})
	}
}

// racingFileIO lets a competing writer publish snapshot path just before this commit does.
type racingFileIO struct {
	fileio.Local
	path, competitor string
}

func (r racingFileIO) WriteFileAtomic(ctx context.Context, path string, data []byte) error {
	if path == r.path {
		if err := r.Local.WriteFileAtomic(ctx, path, []byte(r.competitor)); err != nil {
			return err
		}
	}
	return r.Local.WriteFileAtomic(ctx, path, data)
}

func (r racingFileIO) Create(ctx context.Context, path string) (fileio.AtomicWriter, error) {
	if path == r.path {
		if err := r.Local.WriteFileAtomic(ctx, path, []byte(r.competitor)); err != nil {
			return nil, err
		}
	}
	return r.Local.Create(ctx, path)
}

func TestRewriteMetadataDeletesItsFilesWhenTheCommitLoses(t *testing.T) {
	ctx := context.Background()
	root := copyTable(t, "pk-partitioned")
	latest, err := table.Open(fileio.NewLocal(), root).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	manifestsBefore := listNames(t, filepath.Join(root, "manifest"))
	next := latest.ID + 1
	fio := racingFileIO{
		Local:      fileio.NewLocal(),
		path:       filepath.Join(root, "snapshot", "snapshot-"+strconv.FormatInt(next, 10)),
		competitor: `{"version":3,"id":` + strconv.FormatInt(next, 10) + `,"commitKind":"APPEND"}`,
	}
	_, err = tableops.RewriteMetadata(ctx, table.Open(fio, root), "test-user")
	if err == nil || !errors.Is(err, fileio.ErrExists) {
		t.Fatalf("rewrite losing the race for snapshot %d: %v, want ErrExists", next, err)
	}
	if got := listNames(t, filepath.Join(root, "manifest")); !slices.Equal(got, manifestsBefore) {
		t.Errorf("manifest directory changed:\n got  %v\n want %v", got, manifestsBefore)
	}
}
