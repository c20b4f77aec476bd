package tableops

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/table"
)

// TestCompactionPlansABucketAgain: planning buckets again (as the commit does after another
// writer changed them) deletes what their earlier plan wrote and plans them anew from the
// contents given; aborting then deletes what the new plan wrote.
func TestCompactionPlansABucketAgain(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "two-levels")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "tables", "java", "two-levels"))); err != nil {
		t.Fatal(err)
	}
	tbl := table.Open(fileio.NewLocal(), root)
	r, err := restoreWritable(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCompaction(tbl, r, nil, layout, maintainConfig{parallelism: 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	contents, err := commit.LatestContents(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	written := func(changes []*commit.Change) (keys []commit.BucketKey, files []string) {
		for _, ch := range changes {
			if ch.Empty() {
				continue
			}
			keys = append(keys, ch.Key())
			for _, f := range ch.CompactAfter {
				if !slices.ContainsFunc(ch.CompactBefore, func(b *meta.DataFileMeta) bool { return b.FileName == f.FileName }) {
					files = append(files, f.FileName)
				}
			}
		}
		return keys, files
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(root, "bucket-0", name))
		return err == nil
	}

	first, err := c.Plan(ctx, contents, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, files := written(first)
	if len(keys) == 0 || len(files) == 0 {
		t.Fatalf("the first plan compacted %d buckets into %d new files", len(keys), len(files))
	}
	again, err := c.Plan(ctx, contents, keys)
	if err != nil {
		t.Fatal(err)
	}
	againKeys, againFiles := written(again)
	if !slices.Equal(againKeys, keys) || len(againFiles) != len(files) {
		t.Fatalf("planned again: buckets %v into %v; the first plan: %v into %v", againKeys, againFiles, keys, files)
	}
	for _, f := range files {
		if exists(f) {
			t.Errorf("%s, written by the first plan, is left after planning its bucket again", f)
		}
	}
	for _, f := range againFiles {
		if !exists(f) {
			t.Errorf("%s, written by the second plan, is missing", f)
		}
	}
	if err := c.abort(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range againFiles {
		if exists(f) {
			t.Errorf("%s is left after the compaction was aborted", f)
		}
	}
}
