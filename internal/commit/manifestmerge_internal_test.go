package commit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
)

// TestManifestFileMetaMatchesJava recomputes the manifest list entry of every manifest of every
// snapshot of the Java-written golden tables from the manifest's entries and compares it with
// what Java's ManifestEntryWriter recorded (all fields but name and size).
func TestManifestFileMetaMatchesJava(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "testdata", "tables", "java")
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range names {
		tbl := table.Open(fileio.NewLocal(), filepath.Join(dir, n.Name()))
		ids, err := tbl.Snapshots.IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			snap, err := tbl.Snapshots.Snapshot(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			sch, err := tbl.Schema(ctx, snap.SchemaID)
			if err != nil {
				t.Fatal(err)
			}
			c, err := tbl.Read(ctx, snap)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range append(c.BaseManifests, c.DeltaManifests...) {
				entries, err := tbl.ReadManifest(ctx, want.FileName)
				if err != nil {
					t.Fatal(err)
				}
				got, err := manifestFileMeta(sch.PartitionType(), entries)
				if err != nil {
					t.Fatal(err)
				}
				got.FileName, got.FileSize = want.FileName, want.FileSize
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s snapshot %d manifest %s (-java +go):\n%s", n.Name(), id, want.FileName, d)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no manifest checked")
	}
}
