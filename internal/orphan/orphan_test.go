package orphan_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/orphan"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
)

var (
	now       = time.Now()
	old       = now.Add(-48 * time.Hour)
	threshold = now.Add(-24 * time.Hour).UnixMilli()
)

func testdataDir(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "tables", "java", name)
}

// copyOld copies a golden table and dates every file and directory two days back.
func copyOld(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(testdataDir(t, name))); err != nil {
		t.Fatal(err)
	}
	ageTree(t, dst)
	return dst
}

func ageTree(t *testing.T, root string) {
	t.Helper()
	var all []string
	if err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		all = append(all, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Deepest first, so that dating a file does not refresh its directory afterwards.
	slices.Reverse(all)
	for _, p := range all {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists every file under root, relative, sorted.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	if err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// put writes a file (and its directories) dated at mod; the directories keep their age.
func put(t *testing.T, root, rel string, mod time.Time) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("orphan "+rel), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(p); len(d) > len(root); d = filepath.Dir(d) {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func rels(t *testing.T, root string, files []orphan.File) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		rel, err := filepath.Rel(root, filepath.FromSlash(f.Path))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

const bucketDir = "region=eu/dt=19753/bucket-0/"

// orphansOfEveryKind are unreferenced files in every directory the cleaning lists, in the names
// Paimon gives them.
var orphansOfEveryKind = []string{
	"manifest/manifest-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0",
	"manifest/manifest-list-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-1",
	"manifest/index-manifest-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0",
	"manifest/.manifest-0b1e2f44-3b1d-4e0e-9a57-4b1c2d3e4f50-0.tmp",
	"index/index-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0",
	"statistics/stat-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0",
	bucketDir + "data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet",
	bucketDir + "data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet.index",
	"region=中国/dt=19753/bucket-1/changelog-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet",
	"snapshot/.snapshot-8.0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11.tmp",
	// A hint's temporary file, left by a kill while an expiry or a commit moved the hint: Java's
	// expiry keeps it, its orphan cleaning (nonSnapshotFileFilter) deletes it.
	"snapshot/.EARLIEST.0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11.tmp",
	"snapshot/.LATEST.0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11.tmp",
	"changelog/.changelog-3.0b1e2f44.tmp",
}

// kept are files the cleaning never touches whatever their age: outside the listed
// directories, or hints and snapshot files.
var keptAlways = []string{
	"schema/.schema-1.tmp",
	"unknown/file",
	bucketDir + "nested/data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-9.parquet",
	"region=eu/dt=19753/stray-file",
}

func setup(t *testing.T) (root string, original []string) {
	t.Helper()
	root = copyOld(t, "ft-default-partitioned")
	original = tree(t, root)
	for _, rel := range orphansOfEveryKind {
		put(t, root, rel, old)
		// The same kind of file, written a moment ago: kept.
		put(t, root, fresh(rel), now)
	}
	for _, rel := range keptAlways {
		put(t, root, rel, old)
	}
	return root, original
}

func fresh(rel string) string {
	return strings.Replace(rel, "0b1e2f44", "7c3d9a01", 1)
}

func clean(t *testing.T, root string, dry bool) *orphan.Result {
	t.Helper()
	res, err := orphan.Clean(context.Background(), fileio.NewLocal(), root, orphan.Options{OlderThanMillis: threshold, DryRun: dry, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

func TestCleanRemovesOrphansOfEveryKindAndNothingElse(t *testing.T) {
	root, original := setup(t)
	before := tree(t, root)

	dry := clean(t, root, true)
	if got, want := rels(t, root, dry.Deleted), sorted(orphansOfEveryKind); !slices.Equal(got, want) {
		t.Fatalf("dry run lists\n%v\nwant\n%v", got, want)
	}
	if after := tree(t, root); !slices.Equal(after, before) {
		t.Fatalf("dry run changed the tree")
	}

	res := clean(t, root, false)
	if got, want := rels(t, root, res.Deleted), sorted(orphansOfEveryKind); !slices.Equal(got, want) {
		t.Fatalf("deleted\n%v\nwant\n%v", got, want)
	}
	var size int64
	for _, f := range res.Deleted {
		size += f.Size
	}
	if res.DeletedBytes != size || size == 0 {
		t.Fatalf("DeletedBytes %d, sizes sum to %d", res.DeletedBytes, size)
	}
	var want []string
	want = append(want, original...)
	for _, rel := range orphansOfEveryKind {
		want = append(want, fresh(rel))
	}
	want = append(want, keptAlways...)
	if got := tree(t, root); !slices.Equal(got, sorted(want)) {
		t.Fatalf("remaining tree\n%v\nwant\n%v", got, sorted(want))
	}
	// A second cleaning finds nothing.
	if again := clean(t, root, false); len(again.Deleted) != 0 {
		t.Fatalf("second cleaning deleted %v", rels(t, root, again.Deleted))
	}
}

func TestCleanRemovesOldEmptyDirectories(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	for _, d := range []string{"region=eu/dt=19753/bucket-7", "statistics"} {
		p := filepath.Join(root, filepath.FromSlash(d))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	freshDir := filepath.Join(root, "region=eu", "dt=19753", "bucket-8")
	if err := os.MkdirAll(freshDir, 0o755); err != nil {
		t.Fatal(err)
	}
	res := clean(t, root, false)
	if len(res.Deleted) != 0 {
		t.Fatalf("deleted files %v", res.Deleted)
	}
	if len(res.DeletedDirs) != 2 {
		t.Fatalf("deleted dirs %v, want bucket-7 and statistics", res.DeletedDirs)
	}
	for _, d := range []string{"region=eu/dt=19753/bucket-7", "statistics"} {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d))); !os.IsNotExist(err) {
			t.Fatalf("%s still exists (%v)", d, err)
		}
	}
	if _, err := os.Stat(freshDir); err != nil {
		t.Fatalf("fresh empty directory removed: %v", err)
	}
}

func TestCleanRemovesEmptiedBucketAndPartitionDirectories(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	put(t, root, "region=eu/dt=20000/bucket-0/data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet", old)
	res := clean(t, root, false)
	if len(res.Deleted) != 1 {
		t.Fatalf("deleted %v", res.Deleted)
	}
	if _, err := os.Stat(filepath.Join(root, "region=eu", "dt=20000")); !os.IsNotExist(err) {
		t.Fatalf("emptied partition directory kept (%v); deleted dirs %v", err, res.DeletedDirs)
	}
	if _, err := os.Stat(filepath.Join(root, "region=eu")); err != nil {
		t.Fatalf("non-empty partition directory removed: %v", err)
	}
}

// snapshotOnlyFiles are the manifest lists of snapshot 1, which no other snapshot references.
func snapshotOnlyFiles(t *testing.T, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "snapshot", "snapshot-1"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"manifest/" + s.BaseManifestList, "manifest/" + s.DeltaManifestList}
}

func moveSnapshot1(t *testing.T, root, to string) {
	t.Helper()
	dst := filepath.Join(root, filepath.FromSlash(to))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "snapshot", "snapshot-1"), dst); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "snapshot", "EARLIEST"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFilesOfAnExpiredSnapshotAreOrphans(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	want := snapshotOnlyFiles(t, root)
	moveSnapshot1(t, root, "elsewhere/snapshot-1")
	res := clean(t, root, true)
	got := rels(t, root, res.Deleted)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("%s, referenced only by the expired snapshot, not listed: %v", w, got)
		}
	}
}

func TestFilesReferencedByATagAreKept(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	moveSnapshot1(t, root, "tag/tag-first")
	if res := clean(t, root, false); len(res.Deleted) != 0 {
		t.Fatalf("deleted files the tag references: %v", rels(t, root, res.Deleted))
	}
}

func TestFilesReferencedByABranchAreKept(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	moveSnapshot1(t, root, "branch/branch-b1/snapshot/snapshot-1")
	// A branch without a schema stops the cleaning before anything is deleted.
	put(t, root, bucketDir+"data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet", old)
	before := tree(t, root)
	if _, err := orphan.Clean(context.Background(), fileio.NewLocal(), root, orphan.Options{OlderThanMillis: threshold}); err == nil || !strings.Contains(err.Error(), "b1") {
		t.Fatalf("branch without schema: err = %v", err)
	}
	if after := tree(t, root); !slices.Equal(after, before) {
		t.Fatal("a refused cleaning changed the tree")
	}
	schema, err := os.ReadFile(filepath.Join(root, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "branch", "branch-b1", "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "branch", "branch-b1", "schema", "schema-0"), schema, 0o644); err != nil {
		t.Fatal(err)
	}
	res := clean(t, root, false)
	if got := rels(t, root, res.Deleted); !slices.Equal(got, []string{bucketDir + "data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet"}) {
		t.Fatalf("deleted %v, want only the orphan data file", got)
	}
}

func TestUnreadableMetadataStopsTheCleaning(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	put(t, root, bucketDir+"data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet", old)
	lists := snapshotOnlyFiles(t, root)
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(lists[0])), []byte("not avro"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageTree(t, root)
	before := tree(t, root)
	if _, err := orphan.Clean(context.Background(), fileio.NewLocal(), root, orphan.Options{OlderThanMillis: threshold}); err == nil {
		t.Fatal("a corrupt manifest list did not stop the cleaning")
	}
	if after := tree(t, root); !slices.Equal(after, before) {
		t.Fatal("a failed cleaning deleted files")
	}
}

func TestCleanListsExternalDataPaths(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	ext := filepath.Join(t.TempDir(), "ext")
	data, err := os.ReadFile(filepath.Join(root, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s.ID = 1
	s.Options["data-file.external-paths"] = "file://" + filepath.ToSlash(ext)
	s.OptionOrder = append(s.OptionOrder, "data-file.external-paths")
	if err := os.WriteFile(filepath.Join(root, "schema", "schema-1"), s.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	ageTree(t, root)
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(bucketDir)))
	if err != nil || len(entries) == 0 {
		t.Fatalf("bucket listing: %v", err)
	}
	referenced := bucketDir + entries[0].Name()
	orphanFile := bucketDir + "data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet"
	put(t, ext, referenced, old)
	put(t, ext, orphanFile, old)
	put(t, ext, fresh(orphanFile), now)
	res := clean(t, root, false)
	if len(res.Deleted) != 1 || res.Deleted[0].Path != "file://"+filepath.ToSlash(filepath.Join(ext, filepath.FromSlash(orphanFile))) {
		t.Fatalf("deleted %v, want only the external orphan", res.Deleted)
	}
	if got := tree(t, ext); !slices.Equal(got, sorted([]string{referenced, fresh(orphanFile)})) {
		t.Fatalf("external tree %v", got)
	}
}

func TestFilesReferencedByALongLivedChangelogAreKept(t *testing.T) {
	root := copyOld(t, "ft-default-partitioned")
	moveSnapshot1(t, root, "changelog/changelog-1")
	if res := clean(t, root, false); len(res.Deleted) != 0 {
		t.Fatalf("deleted files the changelog references: %v", rels(t, root, res.Deleted))
	}
}

// TestEveryGoldenTableKeepsItsFiles cleans every Java-written golden table (deletion vectors,
// full-text archives, pk-btree and pk-bitmap files, index files in bucket directories, several
// levels) with an orphan added beside its files: only the orphan goes.
func TestEveryGoldenTableKeepsItsFiles(t *testing.T) {
	var tables []string
	for _, kind := range []string{"java", "go", "pypaimon"} {
		entries, err := os.ReadDir(filepath.Join(testdataDir(t, ""), "..", kind))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := filepath.Join("..", kind, e.Name())
			// A golden directory is a table when it has a schema directory (the corpus also
			// keeps a few non-table directories beside the tables).
			if _, err := os.Stat(filepath.Join(testdataDir(t, name), "schema")); e.IsDir() && err == nil {
				tables = append(tables, name)
			}
		}
	}
	if len(tables) < 10 {
		t.Fatalf("only %d golden tables", len(tables))
	}
	for _, name := range tables {
		t.Run(strings.TrimPrefix(filepath.ToSlash(name), "../"), func(t *testing.T) {
			root := copyOld(t, name)
			original := tree(t, root)
			var bucket string
			for _, f := range original {
				if dir := filepath.ToSlash(filepath.Dir(f)); strings.HasPrefix(filepath.Base(dir), "bucket-") {
					bucket = dir
					break
				}
			}
			if bucket == "" {
				t.Fatal("no bucket directory")
			}
			orphans := []string{bucket + "/data-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0.parquet", "index/index-0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11-0"}
			for _, o := range orphans {
				put(t, root, o, old)
			}
			res := clean(t, root, false)
			if got := rels(t, root, res.Deleted); !slices.Equal(got, sorted(orphans)) {
				t.Fatalf("deleted %v, want %v", got, sorted(orphans))
			}
			if got := tree(t, root); !slices.Equal(got, original) {
				t.Fatalf("remaining tree differs from the table's")
			}
		})
	}
}
