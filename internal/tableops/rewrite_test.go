package tableops_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
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

// TestRewriteMetadataRetriesWhenTheCommitLoses lets a competing writer publish the snapshot id
// the rewrite wants (a copy of the latest snapshot): the rewrite deletes the metadata of the lost
// attempt, rewrites the competitor's metadata and commits after it.
func TestRewriteMetadataRetriesWhenTheCommitLoses(t *testing.T) {
	ctx := context.Background()
	root := copyTable(t, "pk-partitioned")
	tbl := table.Open(fileio.NewLocal(), root)
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	manifestsBefore := listNames(t, filepath.Join(root, "manifest"))
	next := latest.ID + 1
	competitor := *latest
	competitor.ID = next
	data, err := competitor.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	fio := racingFileIO{
		Local:      fileio.NewLocal(),
		path:       filepath.Join(root, "snapshot", "snapshot-"+strconv.FormatInt(next, 10)),
		competitor: string(data),
	}
	snap, err := tableops.RewriteMetadata(ctx, table.Open(fio, root), "test-user")
	if err != nil {
		t.Fatalf("rewrite losing the race for snapshot %d: %v", next, err)
	}
	if snap.ID != next+1 {
		t.Fatalf("rewrite committed snapshot %d, want %d (after the competitor)", snap.ID, next+1)
	}
	// The manifest directory holds what was there and what the committed snapshot references.
	c, err := tbl.Read(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(manifestsBefore)
	want = append(want, snap.BaseManifestList, snap.DeltaManifestList)
	if snap.IndexManifest != nil {
		want = append(want, *snap.IndexManifest)
	}
	for _, m := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
		want = append(want, m.FileName)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if got := listNames(t, filepath.Join(root, "manifest")); !slices.Equal(got, want) {
		t.Errorf("manifest directory after the retried rewrite:\n got  %v\n want %v", got, want)
	}
}

// TestRewriteMetadataKeepsIndexFiles: the rewrite writes the index manifest again under a new
// name with the same entries (here a deletion-vector file), and a snapshot without an index
// manifest stays without one.
func TestRewriteMetadataKeepsIndexFiles(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	for _, dv := range []bool{true, false} {
		tbl, _ := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": strconv.FormatBool(dv)})
		var rows [][]any
		for id := range int32(50) {
			rows = append(rows, []any{I, id, "old", id})
		}
		if err := writeRows(t, tbl, rows...); err != nil {
			t.Fatal(err)
		}
		if dv {
			if err := writeRows(t, tbl, []any{I, int32(3), "new", int32(3)}); err != nil {
				t.Fatal(err)
			}
		}
		old := latestContents(t, tbl)
		if dv != (old.IndexEntries != nil) {
			t.Fatalf("dv=%v: index entries %v before the rewrite", dv, old.IndexEntries)
		}
		snap, err := tableops.RewriteMetadata(ctx, tbl, "test-user")
		if err != nil {
			t.Fatal(err)
		}
		now := latestContents(t, tbl)
		if now.Snapshot.ID != snap.ID {
			t.Fatalf("dv=%v: latest snapshot %d, want the rewrite's %d", dv, now.Snapshot.ID, snap.ID)
		}
		if !dv {
			if snap.IndexManifest != nil {
				t.Errorf("a snapshot without an index manifest rewritten with one: %s", *snap.IndexManifest)
			}
			continue
		}
		if snap.IndexManifest == nil || *snap.IndexManifest == *old.Snapshot.IndexManifest {
			t.Errorf("index manifest %v after the rewrite, want a new one beside %s", snap.IndexManifest, *old.Snapshot.IndexManifest)
		}
		if d := cmp.Diff(old.IndexEntries, now.IndexEntries); d != "" {
			t.Errorf("index entries changed (-before +after):\n%s", d)
		}
	}
}
