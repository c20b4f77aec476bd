package pkft_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
)

// TestRemoveOrphanFiles writes a table twice, leaves the files of an aborted write behind, and
// checks that RemoveOrphanFiles lists them in a dry run (deleting nothing), deletes exactly them,
// and leaves a table that scans as before.
func TestRemoveOrphanFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	tbl, err := pkft.Create(ctx, dir, pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			if err := w.Write(ctx, pkft.Insert, []any{int64(i), "row"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	orphans := []string{
		"bucket-0/data-5d1c0a6e-8f0b-4a57-9e51-2f1b6c3d4e5f-0.parquet",
		"manifest/manifest-5d1c0a6e-8f0b-4a57-9e51-2f1b6c3d4e5f-0",
		"snapshot/.snapshot-3.5d1c0a6e.tmp",
	}
	for _, rel := range orphans {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte("aborted"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := rowCount(t, tbl)

	// Everything is new: the default threshold (a day ago) keeps it all.
	res, err := tbl.RemoveOrphanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 0 {
		t.Fatalf("default threshold deleted new files: %v", res.Deleted)
	}
	if _, err := tbl.RemoveOrphanFiles(ctx, pkft.WithOlderThan(time.Now().Add(time.Hour))); err == nil {
		t.Fatal("a threshold in the future was accepted")
	}
	if _, err := tbl.RemoveOrphanFiles(ctx, pkft.WithParallelism(-1)); err == nil {
		t.Fatal("a negative parallelism was accepted")
	}

	age := time.Now().Add(-48 * time.Hour)
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, age, age)
	}); err != nil {
		t.Fatal(err)
	}
	dry, err := tbl.RemoveOrphanFiles(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	if got := orphanPaths(dry); !dry.DryRun || !slices.Equal(got, orphans) {
		t.Fatalf("dry run listed %v, want %v", got, orphans)
	}
	for _, rel := range orphans {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatalf("dry run deleted %s", rel)
		}
	}
	res, err = tbl.RemoveOrphanFiles(ctx, pkft.WithParallelism(2))
	if err != nil {
		t.Fatal(err)
	}
	if got := orphanPaths(res); res.DryRun || !slices.Equal(got, orphans) || res.DeletedBytes != int64(len(orphans)*len("aborted")) {
		t.Fatalf("deleted %v (%d bytes), want %v", got, res.DeletedBytes, orphans)
	}
	for _, rel := range orphans {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); !os.IsNotExist(err) {
			t.Fatalf("%s not deleted (%v)", rel, err)
		}
	}
	if after := rowCount(t, tbl); after != before || after != 10 {
		t.Fatalf("scan returns %d rows after the cleaning, %d before, want 10", after, before)
	}
}

func orphanPaths(r *pkft.OrphanFilesResult) []string {
	var out []string
	for _, f := range r.Deleted {
		out = append(out, f.Path)
	}
	return out
}

func rowCount(t *testing.T, tbl *pkft.Table) int64 {
	t.Helper()
	rr, err := tbl.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
