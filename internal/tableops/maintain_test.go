package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// javaTables are the Java-written golden tables that enable deletion vectors, as Java requires
// of a full-text table.
var javaTables = []string{"two-levels", "partitioned-dv", "composite-key"}

// copyJavaTable copies a Java-written golden table and adds pk-full-text.index.columns = content
// as Java's SchemaManager commits an option change: the next schema file, same fields, the option
// appended. Like in Java, no snapshot is committed.
func copyJavaTable(t *testing.T, name string) string {
	t.Helper()
	return copyJavaTableWith(t, name, nil)
}

// copyJavaTableWith is copyJavaTable adding the options extra as well.
func copyJavaTableWith(t *testing.T, name string, extra map[string]string) string {
	t.Helper()
	keys := []string{pkfulltext.ColumnsOption}
	opts := map[string]string{pkfulltext.ColumnsOption: "content"}
	for k, v := range extra {
		keys = append(keys, k)
		opts[k] = v
	}
	return copyGoldenWith(t, name, keys, opts)
}

// copyGoldenWith copies the Java-written golden table name and commits a next schema adding the
// options opts (in the order of keys), as Java's SchemaManager commits an option change.
func copyGoldenWith(t *testing.T, name string, keys []string, opts map[string]string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "tables", "java", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if len(keys) == 0 {
		return dst
	}
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), dst)
	s, err := tbl.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = map[string]string{}
	for k, v := range s.Options {
		next.Options[k] = v
	}
	next.OptionOrder = slices.Clone(s.OptionOrder)
	for _, k := range keys {
		next.Options[k] = opts[k]
		next.OptionOrder = append(next.OptionOrder, k)
	}
	if err := os.WriteFile(filepath.Join(dst, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func engine(t testing.TB) (fulltext.Engine, *native.Library) {
	lib := testenv.Native(t)
	return native.Engine{Lib: lib}, lib
}

// listFiles lists every regular file under root, relative to it.
func listFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// added returns the files of after that are not in before.
func added(before, after []string) []string {
	var out []string
	for _, f := range after {
		if !slices.Contains(before, f) {
			out = append(out, f)
		}
	}
	return out
}

// referenced collects the names of every manifest list, manifest, index manifest and index
// file that some snapshot of the table references.
func referenced(t *testing.T, tbl *table.Table) map[string]bool {
	t.Helper()
	ctx := context.Background()
	ids, err := tbl.Snapshots.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, id := range ids {
		s, err := tbl.Snapshots.Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out[s.BaseManifestList], out[s.DeltaManifestList] = true, true
		if s.IndexManifest != nil {
			out[*s.IndexManifest] = true
		}
		c, err := tbl.Read(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
			out[m.FileName] = true
		}
		for _, e := range c.IndexEntries {
			out[e.IndexFile.FileName] = true
		}
	}
	return out
}

// checkNoOrphans fails when a file under manifest/ or index/ is referenced by no snapshot.
func checkNoOrphans(t *testing.T, tbl *table.Table, root string) {
	t.Helper()
	refs := referenced(t, tbl)
	for _, f := range listFiles(t, root) {
		dir, name := filepath.Split(f)
		if (dir == "manifest/" || dir == "index/") && !refs[name] {
			t.Errorf("file %s is referenced by no snapshot", f)
		}
	}
}

// checkAllCurrent re-reads the latest snapshot and checks every bucket's full-text state:
// nothing stale, nothing planned, one current archive per level with eligible files.
func checkAllCurrent(t *testing.T, tbl *table.Table, fieldID int32) *table.Contents {
	t.Helper()
	ctx := context.Background()
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Buckets {
		view, err := pkfulltext.InspectBucket(fieldID, b.DataFiles, b.IndexFiles)
		if err != nil {
			t.Fatal(err)
		}
		if view.Plan != nil {
			t.Errorf("bucket %d: still planned: level %d", b.Bucket, view.Plan.DataLevel())
		}
		if n := len(view.State.StalePayloads()); n != 0 {
			t.Errorf("bucket %d: %d stale archives", b.Bucket, n)
		}
		levels := map[int32]bool{}
		for _, f := range view.Eligible {
			levels[f.Level] = true
		}
		if got := len(view.State.CurrentPayloads()); got != len(levels) {
			t.Errorf("bucket %d: %d current archives for %d levels", b.Bucket, got, len(levels))
		}
	}
	return c
}

func nonFullText(entries []meta.IndexManifestEntry) []string {
	var out []string
	for _, e := range entries {
		if e.IndexFile.IndexType != pkfulltext.IndexType {
			out = append(out, fmt.Sprintf("%x/%d/%s/%s/%d", e.Partition, e.Bucket, e.IndexFile.IndexType, e.IndexFile.FileName, e.IndexFile.FileSize))
		}
	}
	sort.Strings(out)
	return out
}

func TestMaintainJavaTables(t *testing.T) {
	eng, lib := engine(t)
	for _, name := range javaTables {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			root := copyJavaTable(t, name)
			tbl := table.Open(fileio.NewLocal(), root)
			base, err := tbl.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			baseContents, err := tbl.Read(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			_, plans, err := tableops.PlanMaintenance(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			var progress atomic.Int32
			var last tableops.Progress
			res, err := tableops.Maintain(ctx, tbl, eng, tableops.WithParallelism(2), tableops.WithCommitUser("go-maintain"),
				tableops.WithProgress(func(p tableops.Progress) {
					if p.Bucket != nil {
						progress.Add(1)
					}
					if p.RowsIndexed < last.RowsIndexed {
						t.Errorf("rows indexed went back from %d to %d", last.RowsIndexed, p.RowsIndexed)
					}
					last = p
				}))
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Fatal("nothing committed on a table without archives")
			}
			if int(progress.Load()) != len(res.Buckets) || len(res.Buckets) != len(baseContents.Buckets) {
				t.Errorf("progress %d, buckets %d, table buckets %d", progress.Load(), len(res.Buckets), len(baseContents.Buckets))
			}
			s := res.Snapshot
			if s.ID != base.ID+1 || s.CommitKind != snapshot.CommitAppend || s.SchemaID != 1 ||
				s.TotalRecordCount != base.TotalRecordCount || s.DeltaRecordCount != 0 ||
				s.CommitUser != "go-maintain" || s.CommitIdentifier != tableops.BatchCommitIdentifier ||
				s.NextRowID == nil || *s.NextRowID != 0 || s.ChangelogManifestList != nil {
				t.Errorf("snapshot fields: %+v", s)
			}
			got, err := tbl.Latest(ctx)
			if err != nil || got.ID != s.ID {
				t.Fatalf("latest %v, %v", got, err)
			}
			c := checkAllCurrent(t, tbl, fieldID(t, tbl))
			if len(c.DeltaManifests) != 0 {
				t.Errorf("delta manifests: %v", c.DeltaManifests)
			}
			if len(c.Entries) != len(baseContents.Entries) {
				t.Errorf("data files changed: %d -> %d", len(baseContents.Entries), len(c.Entries))
			}
			if a, b := nonFullText(baseContents.IndexEntries), nonFullText(c.IndexEntries); !slices.Equal(a, b) {
				t.Errorf("non-full-text index entries changed:\n%v\n%v", a, b)
			}
			var built int
			for _, b := range res.Buckets {
				built += len(b.Built)
				if len(b.Retired) != 0 || len(b.Unchanged) != 0 {
					t.Errorf("bucket %d: retired %d unchanged %d on a table without archives", b.Bucket, len(b.Retired), len(b.Unchanged))
				}
			}
			if built == 0 {
				t.Error("no archive built")
			}
			var plannedRows int64
			for _, p := range plans {
				plannedRows += p.BuildRows
			}
			if last.RowsIndexed != plannedRows || last.RowsPlanned != plannedRows || last.Done != last.Total {
				t.Errorf("last progress %+v, planned rows %d", last, plannedRows)
			}
			for i, p := range plans {
				if len(p.BuildLevels) != len(res.Buckets[i].Built) || p.Bucket != res.Buckets[i].Bucket {
					t.Errorf("bucket %d: planned levels %v, built %d", p.Bucket, p.BuildLevels, len(res.Buckets[i].Built))
				}
				var rows int64
				for _, a := range res.Buckets[i].Built {
					rows += a.RowCount
				}
				if rows != p.BuildRows {
					t.Errorf("bucket %d: planned %d rows, built %d", p.Bucket, p.BuildRows, rows)
				}
			}
			if _, plans, err := tableops.PlanMaintenance(ctx, tbl); err != nil {
				t.Fatal(err)
			} else {
				for _, p := range plans {
					if p.Changed() {
						t.Errorf("after maintenance bucket %d still plans %+v", p.Bucket, p)
					}
				}
			}
			searchEveryArchive(t, tbl, lib, c)
			checkNoOrphans(t, tbl, root)

			// A second maintenance finds everything current and commits nothing.
			before := listFiles(t, root)
			again, err := tableops.Maintain(ctx, tbl, eng)
			if err != nil {
				t.Fatal(err)
			}
			if again.Snapshot != nil {
				t.Errorf("second maintenance committed snapshot %d", again.Snapshot.ID)
			}
			for _, b := range again.Buckets {
				if b.Changed() || len(b.Unchanged) == 0 {
					t.Errorf("second maintenance, bucket %d: %+v", b.Bucket, b)
				}
			}
			if diff := added(before, listFiles(t, root)); len(diff) != 0 {
				t.Errorf("second maintenance wrote %v", diff)
			}
		})
	}
}

// fieldID is the full-text column's field id in the table's latest schema.
func fieldID(t *testing.T, tbl *table.Table) int32 {
	t.Helper()
	r, err := restore.NewRestorer(context.Background(), tbl)
	if err != nil || r.FullText == nil {
		t.Fatalf("restorer: %v", err)
	}
	return r.FullText.FieldID
}

func pkindexDecode(b []byte) ([]sourceFile, error) {
	sm, err := pkindex.DecodeSourceMeta(b)
	if err != nil {
		return nil, err
	}
	var out []sourceFile
	for _, f := range sm.SourceFiles() {
		out = append(out, sourceFile{f.FileName(), f.RowCount()})
	}
	return out, nil
}

// searchEveryArchive opens every full-text archive of c with the native reader and checks a term
// read from the archive's first non-null source row is found at that row id.
func searchEveryArchive(t *testing.T, tbl *table.Table, lib *native.Library, c *table.Contents) {
	t.Helper()
	ctx := context.Background()
	r, err := restore.NewRestorer(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	searched := 0
	defer func() {
		if searched == 0 {
			t.Error("no archive was searched")
		}
	}()
	for _, b := range c.Buckets {
		rb, err := r.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rb.IndexFiles[pkfulltext.IndexType] {
			sm, err := pkindexSource(f)
			if err != nil {
				t.Fatal(err)
			}
			rowID, term := firstTerm(t, r, rb, sm)
			if term == "" {
				continue
			}
			path := rb.IndexPaths.ToPathOf(f.FileName, "")
			af, err := tbl.FileIO.OpenReaderAt(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := lib.OpenReader(ctx, af, af.Size())
			if err != nil {
				af.Close()
				t.Fatal(err)
			}
			hits, err := rd.Search(ctx, fmt.Sprintf(`{"match":{"query":%q,"column":"text"}}`, term), 10000)
			rd.Close()
			af.Close()
			if err != nil {
				t.Fatal(err)
			}
			searched++
			if !slices.ContainsFunc(hits, func(h fulltext.Hit) bool { return h.RowID == rowID }) {
				t.Errorf("archive %s: %q does not find row %d (%d hits)", f.FileName, term, rowID, len(hits))
			}
		}
	}
}

type sourceFile struct {
	name string
	rows int64
}

func pkindexSource(f *meta.IndexFileMeta) ([]sourceFile, error) {
	sm, err := pkindexDecode(f.GlobalIndex.SourceMeta)
	if err != nil {
		return nil, err
	}
	return sm, nil
}

// firstTerm reads the archive's source files through the production reader and returns the row
// id and first word of the first non-null text.
func firstTerm(t *testing.T, r *restore.Restorer, rb *restore.RestoredBucket, files []sourceFile) (int64, string) {
	t.Helper()
	ctx := context.Background()
	readers := &pkfulltext.DataFileReaders{FileIO: r.Table.FileIO, Paths: rb.DataPaths, FieldID: r.FullText.FieldID,
		FieldName: func(schemaID int64, fieldID int32) (string, error) {
			s, err := r.Table.Schema(ctx, schemaID)
			if err != nil {
				return "", err
			}
			f, ok := s.FieldByID(int(fieldID))
			if !ok {
				return "", textreader.ErrFieldNotInSchema
			}
			return f.Name, nil
		}}
	var offset int64
	for _, sf := range files {
		var df *meta.DataFileMeta
		for _, d := range rb.DataFiles {
			if d.FileName == sf.name {
				df = d
			}
		}
		if df == nil {
			t.Fatalf("source %s is not live", sf.name)
		}
		tr, err := readers.Open(ctx, df)
		if err != nil {
			t.Fatal(err)
		}
		for pos := int64(0); pos < sf.rows; pos++ {
			row, err := tr.Next(ctx)
			if err != nil {
				tr.Close()
				t.Fatal(err)
			}
			if word := strings.Fields(string(row.Text)); !row.Null && len(word) > 0 && isWord(word[0]) {
				tr.Close()
				return offset + pos, word[0]
			}
		}
		tr.Close()
		offset += sf.rows
	}
	return 0, ""
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// failingIO fails Create for paths whose name has prefix, after skip successful matches.
type failingIO struct {
	fileio.FileIO
	prefix string
	skip   int32
	seen   atomic.Int32
}

var errInjected = errors.New("injected write failure")

func (f *failingIO) Create(ctx context.Context, path string) (fileio.AtomicWriter, error) {
	if strings.HasPrefix(paths.Name(path), f.prefix) && f.seen.Add(1) > f.skip {
		return nil, errInjected
	}
	return f.FileIO.Create(ctx, path)
}

func TestMaintainFailureLeavesNoFile(t *testing.T) {
	eng, _ := engine(t)
	for _, tc := range []struct {
		prefix string
		skip   int32
	}{
		{"index-manifest-", 0},
		{"manifest-list-", 1},
		{"index-", 1}, // the second archive
	} {
		t.Run(tc.prefix, func(t *testing.T) {
			ctx := context.Background()
			root := copyJavaTable(t, "partitioned-dv")
			before := listFiles(t, root)
			tbl := table.Open(&failingIO{FileIO: fileio.NewLocal(), prefix: tc.prefix, skip: tc.skip}, root)
			_, err := tableops.Maintain(ctx, tbl, eng, tableops.WithParallelism(1))
			if !errors.Is(err, errInjected) {
				t.Fatalf("got %v, want the injected failure", err)
			}
			if diff := added(before, listFiles(t, root)); len(diff) != 0 {
				t.Errorf("failed maintenance left %v", diff)
			}
		})
	}
}

func TestMaintainAbortInHookLeavesNoFile(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "two-levels")
	before := listFiles(t, root)
	tbl := table.Open(fileio.NewLocal(), root)
	stop := errors.New("harness aborts")
	_, err := tableops.Maintain(ctx, tbl, eng, tableops.WithBeforePublish(func(context.Context, *snapshot.Snapshot) error { return stop }))
	if !errors.Is(err, stop) {
		t.Fatalf("got %v", err)
	}
	if diff := added(before, listFiles(t, root)); len(diff) != 0 {
		t.Errorf("aborted maintenance left %v", diff)
	}
}

// TestMaintainConcurrentCommitRebases publishes another snapshot between Go's read and Go's
// publication. A commit that changes no bucket (a manifest rewrite) makes Go retry on the new
// base with the same archives; a commit that maintains the same buckets makes Go plan them again,
// find them current, commit nothing and delete every archive it had built.
func TestMaintainConcurrentCommitRebases(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()

	t.Run("unrelated-commit", func(t *testing.T) {
		root := copyJavaTable(t, "partitioned-dv")
		tbl := table.Open(fileio.NewLocal(), root)
		base, _ := tbl.Latest(ctx)
		calls := 0
		res, err := tableops.Maintain(ctx, tbl, eng, tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
			calls++
			if calls == 1 {
				_, err := tableops.RewriteMetadata(ctx, tbl, "other-writer")
				return err
			}
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Snapshot == nil || res.Snapshot.ID != base.ID+2 || res.Attempts != 2 || res.Base.ID != base.ID+1 {
			t.Fatalf("result: %+v", res)
		}
		checkAllCurrent(t, tbl, fieldID(t, tbl))
		checkNoOrphans(t, tbl, root)
	})

	t.Run("level-0-append", func(t *testing.T) {
		root := copyJavaTable(t, "partitioned-dv")
		tbl := table.Open(fileio.NewLocal(), root)
		base, _ := tbl.Latest(ctx)
		var runs atomic.Int32
		calls := 0
		var first []string
		res, err := tableops.Maintain(ctx, tbl, eng,
			tableops.WithProgress(func(p tableops.Progress) {
				if p.Bucket != nil {
					runs.Add(1)
				}
			}),
			tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
				calls++
				if calls == 1 {
					first = indexNames(t, tbl, next)
					commitLevel0Append(t, tbl)
				}
				return nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Snapshot == nil || res.Snapshot.ID != base.ID+2 || res.Attempts != 2 {
			t.Fatalf("result: %+v", res)
		}
		if int(runs.Load()) != len(res.Buckets) {
			t.Errorf("%d bucket runs for %d buckets: a level-0 append made Go rebuild", runs.Load(), len(res.Buckets))
		}
		if got := indexNames(t, tbl, res.Snapshot); !slices.Equal(first, got) {
			t.Errorf("index manifest changed across the rebase:\n%v\n%v", first, got)
		}
		checkAllCurrent(t, tbl, fieldID(t, tbl))
	})

	t.Run("same-buckets", func(t *testing.T) {
		root := copyJavaTable(t, "partitioned-dv")
		tbl := table.Open(fileio.NewLocal(), root)
		base, _ := tbl.Latest(ctx)
		calls := 0
		var other *tableops.MaintainResult
		res, err := tableops.Maintain(ctx, tbl, eng, tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
			calls++
			if calls == 1 {
				var err error
				other, err = tableops.Maintain(ctx, tbl, eng, tableops.WithCommitUser("other-writer"))
				return err
			}
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		if other == nil || other.Snapshot == nil || other.Snapshot.ID != base.ID+1 {
			t.Fatalf("concurrent maintenance: %+v", other)
		}
		if res.Snapshot != nil {
			t.Errorf("rebased maintenance committed snapshot %d although the other writer made everything current", res.Snapshot.ID)
		}
		latest, _ := tbl.Latest(ctx)
		if latest.ID != base.ID+1 {
			t.Errorf("latest %d", latest.ID)
		}
		checkAllCurrent(t, tbl, fieldID(t, tbl))
		checkNoOrphans(t, tbl, root)
	})

	t.Run("retries-exhausted", func(t *testing.T) {
		root := copyJavaTable(t, "two-levels")
		tbl := table.Open(fileio.NewLocal(), root)
		before := listFiles(t, root)
		var rewrites []string
		_, err := tableops.Maintain(ctx, tbl, eng, tableops.WithMaxRetries(1), tableops.WithBeforePublish(func(ctx context.Context, next *snapshot.Snapshot) error {
			s, err := tableops.RewriteMetadata(ctx, tbl, "other-writer")
			if err == nil {
				rewrites = append(rewrites, s.BaseManifestList)
			}
			return err
		}))
		if !errors.Is(err, tableops.ErrCommitConflict) {
			t.Fatalf("got %v", err)
		}
		// Only the other writer's files may have been added.
		refs := referenced(t, tbl)
		for _, f := range added(before, listFiles(t, root)) {
			if name := filepath.Base(f); !refs[name] && !strings.HasPrefix(f, "snapshot/") {
				t.Errorf("aborted maintenance left %s", f)
			}
		}
	})
}

// TestMaintainRefusesArchiveOutsideTheTable commits an index manifest whose stale full-text
// entry names a file outside the table ("../../victim"): maintenance, which would delete the
// stale archive, must refuse before reading or deleting anything, and the file must survive.
func TestMaintainRefusesArchiveOutsideTheTable(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "two-levels")
	victim := filepath.Join(filepath.Dir(root), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := table.Open(fileio.NewLocal(), root)
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	b := c.Buckets[0]
	entries := append(slices.Clone(c.IndexEntries), meta.IndexManifestEntry{
		Kind: meta.FileKindAdd, Partition: b.Partition, Bucket: b.Bucket,
		IndexFile: meta.IndexFileMeta{IndexType: pkfulltext.IndexType, FileName: "../../victim", FileSize: 7, RowCount: 1,
			GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: 0, RowRangeEnd: 0, IndexFieldID: 1, SourceMeta: []byte{0, 0, 0, 9}}},
	})
	var buf strings.Builder
	if err := manifest.WriteIndexManifest(&buf, entries, manifest.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "manifest", "index-manifest-evil-0"), []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	next := *latest
	next.ID++
	name := "index-manifest-evil-0"
	next.IndexManifest = &name
	if err := tbl.Snapshots.Commit(ctx, &next); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, root)
	_, err = tableops.Maintain(ctx, tbl, eng)
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("got %v", err)
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "keep me" {
		t.Errorf("victim: %q, %v", data, err)
	}
	if diff := added(before, listFiles(t, root)); len(diff) != 0 {
		t.Errorf("refused maintenance left %v", diff)
	}
}

// TestMaintainCarriesSequenceNumberProperty: with write.sequence-number-init-mode = snapshot,
// Java records the largest sequence number in every snapshot's properties; an index-only commit
// carries the latest maximum forward (from the manifests when the latest snapshot has none).
func TestMaintainCarriesSequenceNumberProperty(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTableWith(t, "two-levels", map[string]string{tableops.SequenceNumberInitModeOption: "snapshot"})
	tbl := table.Open(fileio.NewLocal(), root)
	base, _ := tbl.Latest(ctx)
	c, err := tbl.Read(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var want int64 = -1
	for _, mf := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
		entries, err := tbl.ReadManifest(ctx, mf.FileName)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Kind == meta.FileKindAdd {
				want = max(want, e.File.MaxSequenceNumber)
			}
		}
	}
	res, err := tableops.Maintain(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	props := res.Snapshot.Properties
	if len(props) != 1 || props[0].Key != tableops.MaxSequenceNumberProperty || props[0].Value != fmt.Sprint(want) {
		t.Errorf("properties %v, want max sequence number %d", props, want)
	}
}

// TestRestoredBucketMaintainerOnJavaTable is the end-to-end path without test doubles and
// without a commit: on each Java-written table, restore every bucket from the latest snapshot,
// run the full-text maintainer restored from it (production DataFileReaders over the bucket's
// Parquet files, the native engine) with wait and empty increments, and check that each archive
// it builds classifies as current for the bucket and finds a word of the row it came from. The
// bucket's deletion vectors are read back as well.
func TestRestoredBucketMaintainerOnJavaTable(t *testing.T) {
	eng, lib := engine(t)
	ctx := context.Background()
	for _, name := range javaTables {
		t.Run(name, func(t *testing.T) {
			root := copyJavaTable(t, name)
			tbl := table.Open(fileio.NewLocal(), root)
			r, err := restore.NewRestorer(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			latest, _ := tbl.Latest(ctx)
			c, err := tbl.Read(ctx, latest)
			if err != nil {
				t.Fatal(err)
			}
			built := 0
			for _, b := range c.Buckets {
				rb, err := r.RestoreBucket(b)
				if err != nil {
					t.Fatal(err)
				}
				dvs, err := rb.ReadDeletionVectors(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range rb.DeletionVectorFiles() {
					for _, m := range f.DVRanges {
						if v := dvs[m.DataFileName]; v == nil || (m.Cardinality != nil && v.Cardinality() != *m.Cardinality) {
							t.Errorf("deletion vector of %s: %v", m.DataFileName, v)
						}
					}
				}
				mt, err := r.NewFullTextMaintainer(ctx, rb, eng)
				if err != nil {
					t.Fatal(err)
				}
				commit, err := mt.PrepareCommit(ctx, pkfulltext.DataIncrement{}, pkfulltext.CompactIncrement{}, true)
				if err != nil {
					t.Fatal(err)
				}
				state, err := mt.State()
				if err != nil {
					t.Fatal(err)
				}
				if commit.AppendIncrement == nil {
					continue
				}
				for _, a := range commit.AppendIncrement.NewIndexFiles {
					built++
					if !slices.ContainsFunc(state.CurrentPayloads(), func(p *meta.IndexFileMeta) bool { return p.FileName == a.FileName }) {
						t.Errorf("archive %s is not current", a.FileName)
					}
					view, err := pkfulltext.InspectBucket(r.FullText.FieldID, rb.DataFiles, append(slices.Clone(b.IndexFiles), a))
					if err != nil || view.Plan != nil && view.Plan.DataLevel() == sourceLevel(t, a) {
						t.Errorf("archive %s: plan %v, %v", a.FileName, view.Plan, err)
					}
				}
				searchEveryArchive(t, tbl, lib, &table.Contents{Buckets: []*table.Bucket{{
					Partition: b.Partition, Bucket: b.Bucket, DataFiles: b.DataFiles,
					IndexFiles: append(slices.Clone(b.IndexFiles), commit.AppendIncrement.NewIndexFiles...),
				}}})
				// Not committed: abort deletes the archives again.
				if err := commit.Abort(ctx); err != nil {
					t.Fatal(err)
				}
				for _, a := range commit.AppendIncrement.NewIndexFiles {
					if _, err := os.Stat(filepath.Join(root, "index", a.FileName)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("aborted archive %s: %v", a.FileName, err)
					}
				}
			}
			if built == 0 {
				t.Error("no archive built")
			}
		})
	}
}

func sourceLevel(t *testing.T, f *meta.IndexFileMeta) int32 {
	t.Helper()
	sm, err := pkindex.DecodeSourceMeta(f.GlobalIndex.SourceMeta)
	if err != nil {
		t.Fatal(err)
	}
	return sm.DataLevel()
}

// TestMaintainMergesManifestsAsJava: before every commit Java merges the manifests it carries
// forward (ManifestFileMerger): runs of small manifests once there are manifest.merge-min-count of
// them, and a full compaction once the manifests that must change reach
// manifest.full-compaction-threshold-size. The table's live files must not change either way.
func TestMaintainMergesManifestsAsJava(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts map[string]string
		full bool
	}{
		{"minor", map[string]string{tableops.ManifestMergeMinCountOption: "2"}, false},
		{"full", map[string]string{tableops.ManifestFullCompactionSizeOption: "1 b"}, true},
		{"none", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyJavaTableWith(t, "partitioned-dv", tc.opts)
			tbl := table.Open(fileio.NewLocal(), root)
			base, _ := tbl.Latest(ctx)
			before, err := tbl.Read(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tableops.Maintain(ctx, tbl, eng)
			if err != nil {
				t.Fatal(err)
			}
			after, err := tbl.Read(ctx, res.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			n := len(before.BaseManifests) + len(before.DeltaManifests)
			switch {
			case tc.opts == nil && len(after.BaseManifests) != n:
				t.Errorf("merged %d manifests into %d without reason", n, len(after.BaseManifests))
			case tc.opts != nil && len(after.BaseManifests) >= n:
				t.Errorf("%d manifests not merged (%d)", n, len(after.BaseManifests))
			}
			if tc.full {
				for _, m := range after.BaseManifests {
					if m.NumDeletedFiles != 0 {
						t.Errorf("manifest %s keeps %d deletes after a full compaction", m.FileName, m.NumDeletedFiles)
					}
				}
			}
			key := func(c *table.Contents) []string {
				var out []string
				for _, e := range c.Entries {
					out = append(out, fmt.Sprintf("%x/%d/%s/%d", e.Partition, e.Bucket, e.File.FileName, e.File.Level))
				}
				sort.Strings(out)
				return out
			}
			if a, b := key(before), key(after); !slices.Equal(a, b) {
				t.Errorf("live files changed:\n%v\n%v", a, b)
			}
			checkAllCurrent(t, tbl, fieldID(t, tbl))
			checkNoOrphans(t, tbl, root)
		})
	}
}

// indexNames lists the index file names of the index manifest a (possibly unpublished) snapshot
// names.
func indexNames(t *testing.T, tbl *table.Table, s *snapshot.Snapshot) []string {
	t.Helper()
	f, err := tbl.FileIO.Open(context.Background(), tbl.ManifestPath(*s.IndexManifest))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := manifest.ReadIndexManifest(*s.IndexManifest, f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.IndexFile.FileName)
	}
	sort.Strings(out)
	return out
}

// commitLevel0Append commits, as another writer would, a snapshot that appends one level-0 file
// to the first bucket: a change that does not touch any full-text source.
func commitLevel0Append(t *testing.T, tbl *table.Table) {
	t.Helper()
	commitDataChange(t, tbl, func(c *table.Contents) meta.ManifestEntry {
		e := c.Entries[0]
		e.Kind = meta.FileKindAdd
		e.File.FileName = "data-appended-by-other-writer-0.parquet"
		e.File.Level = 0
		src := meta.FileSourceAppend
		e.File.FileSource = &src
		return e
	})
}

// removeLevelFile commits, as another writer would, the removal of the first data file on level
// and returns it.
func removeLevelFile(t *testing.T, tbl *table.Table, level int32) meta.DataFileMeta {
	t.Helper()
	var removed meta.DataFileMeta
	commitDataChange(t, tbl, func(c *table.Contents) meta.ManifestEntry {
		for _, e := range c.Entries {
			if e.File.Level == level {
				e.Kind = meta.FileKindDelete
				removed = e.File
				return e
			}
		}
		t.Fatalf("no level-%d file", level)
		return meta.ManifestEntry{}
	})
	return removed
}

// commitDataChange commits, as another writer would, a snapshot whose delta manifest holds the
// one entry change returns.
func commitDataChange(t *testing.T, tbl *table.Table, change func(*table.Contents) meta.ManifestEntry) {
	t.Helper()
	ctx := context.Background()
	latest, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	e := change(c)
	write := func(name string, enc func(io.Writer) error) int64 {
		var buf strings.Builder
		if err := enc(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tbl.Root, "manifest", name), []byte(buf.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return int64(buf.Len())
	}
	size := write("manifest-other-0", func(w io.Writer) error {
		return manifest.WriteManifestFile(w, []meta.ManifestEntry{e}, manifest.WriteOptions{})
	})
	mf := c.BaseManifests[0]
	mf.FileName, mf.FileSize, mf.NumAddedFiles, mf.NumDeletedFiles = "manifest-other-0", size, 0, 0
	if e.Kind == meta.FileKindAdd {
		mf.NumAddedFiles = 1
	} else {
		mf.NumDeletedFiles = 1
	}
	baseSize := write("manifest-list-other-0", func(w io.Writer) error {
		return manifest.WriteManifestList(w, slices.Concat(c.BaseManifests, c.DeltaManifests), manifest.WriteOptions{})
	})
	deltaSize := write("manifest-list-other-1", func(w io.Writer) error {
		return manifest.WriteManifestList(w, []meta.ManifestFileMeta{mf}, manifest.WriteOptions{})
	})
	next := *latest
	next.ID++
	next.BaseManifestList, next.BaseManifestListSize = "manifest-list-other-0", &baseSize
	next.DeltaManifestList, next.DeltaManifestListSize = "manifest-list-other-1", &deltaSize
	delta := e.File.RowCount
	if e.Kind == meta.FileKindDelete {
		delta = -delta
	}
	next.TotalRecordCount += delta
	next.DeltaRecordCount = delta
	if err := tbl.Snapshots.Commit(ctx, &next); err != nil {
		t.Fatal(err)
	}
}

// TestMaintainIndexFilesInDataFileDir: with index-file-in-data-file-dir, archives are written to
// the bucket directory, found there again, and a failed commit removes them from there.
func TestMaintainIndexFilesInDataFileDir(t *testing.T) {
	eng, lib := engine(t)
	ctx := context.Background()
	opts := map[string]string{paths.OptionIndexFileInDataFileDir: "true"}

	root := copyJavaTableWith(t, "partitioned-dv", opts)
	before := listFiles(t, root)
	failing := table.Open(&failingIO{FileIO: fileio.NewLocal(), prefix: "index-manifest-"}, root)
	if _, err := tableops.Maintain(ctx, failing, eng); !errors.Is(err, errInjected) {
		t.Fatalf("got %v", err)
	}
	if diff := added(before, listFiles(t, root)); len(diff) != 0 {
		t.Errorf("failed maintenance left %v", diff)
	}

	tbl := table.Open(fileio.NewLocal(), root)
	res, err := tableops.Maintain(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	var archives int
	for _, f := range added(before, listFiles(t, root)) {
		if strings.Contains(f, "bucket-") && strings.HasPrefix(filepath.Base(f), "index-") {
			archives++
		} else if strings.HasPrefix(f, "index/") {
			t.Errorf("archive %s written to the table's index directory", f)
		}
	}
	built := 0
	for _, b := range res.Buckets {
		built += len(b.Built)
	}
	if archives != built || built == 0 {
		t.Errorf("%d archive files in bucket directories, %d built", archives, built)
	}
	latest, _ := tbl.Latest(ctx)
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	searchEveryArchive(t, tbl, lib, c)
}

// TestMaintainInheritsStatistics: the next snapshot keeps the latest snapshot's statistics file
// only when the statistics were computed on the writer's schema, as FileStoreCommitImpl decides,
// and always keeps its watermark (the commit carries none of its own).
func TestMaintainInheritsStatistics(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	for _, tc := range []struct {
		statsSchema int
		inherit     bool
	}{{0, false}, {1, true}} {
		t.Run(fmt.Sprint(tc.statsSchema), func(t *testing.T) {
			root := copyJavaTable(t, "two-levels")
			tbl := table.Open(fileio.NewLocal(), root)
			latest, _ := tbl.Latest(ctx)
			if err := os.MkdirAll(filepath.Join(root, "statistics"), 0o755); err != nil {
				t.Fatal(err)
			}
			stats := fmt.Sprintf(`{"snapshotId":%d,"schemaId":%d,"mergedRecordCount":1,"colStats":{}}`, latest.ID, tc.statsSchema)
			if err := os.WriteFile(filepath.Join(root, "statistics", "stat-x-0"), []byte(stats), 0o644); err != nil {
				t.Fatal(err)
			}
			next := *latest
			next.ID++
			name := "stat-x-0"
			next.Statistics = &name
			next.CommitKind = snapshot.CommitAnalyze
			watermark := int64(1_700_000_000_000)
			next.Watermark = &watermark
			if err := tbl.Snapshots.Commit(ctx, &next); err != nil {
				t.Fatal(err)
			}
			res, err := tableops.Maintain(ctx, tbl, eng)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Snapshot.Statistics
			if tc.inherit != (got != nil && *got == name) {
				t.Errorf("statistics %v, inherit %v", got, tc.inherit)
			}
			if w := res.Snapshot.Watermark; w == nil || *w != watermark {
				t.Errorf("watermark %v, want the latest snapshot's %d", w, watermark)
			}
		})
	}
}

// snapshotFailIO makes publishing a snapshot fail with a non-conflict error, optionally after
// the file was written (a lost acknowledgement), and optionally makes re-reading it fail too.
type snapshotFailIO struct {
	fileio.FileIO
	writeAnyway bool
	failRead    atomic.Bool
}

var errPublish = errors.New("injected publication failure")

func (s *snapshotFailIO) WriteFileAtomic(ctx context.Context, p string, data []byte) error {
	if strings.HasPrefix(paths.Name(p), "snapshot-") {
		if s.writeAnyway {
			if err := s.FileIO.WriteFileAtomic(ctx, p, data); err != nil {
				return err
			}
		}
		s.failRead.Store(true)
		return errPublish
	}
	return s.FileIO.WriteFileAtomic(ctx, p, data)
}

// unreadableIO fails every read of a snapshot file once publication failed.
type unreadableIO struct{ *snapshotFailIO }

func (u unreadableIO) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if u.failRead.Load() && strings.HasPrefix(paths.Name(p), "snapshot-") {
		return nil, errors.New("injected read failure")
	}
	return u.snapshotFailIO.ReadFile(ctx, p)
}

func TestMaintainPublicationOutcome(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()

	t.Run("failed-and-absent", func(t *testing.T) {
		root := copyJavaTable(t, "two-levels")
		before := listFiles(t, root)
		tbl := table.Open(&snapshotFailIO{FileIO: fileio.NewLocal()}, root)
		if _, err := tableops.Maintain(ctx, tbl, eng); !errors.Is(err, errPublish) {
			t.Fatalf("got %v", err)
		}
		if diff := added(before, listFiles(t, root)); len(diff) != 0 {
			t.Errorf("failed publication left %v", diff)
		}
	})

	t.Run("failed-but-landed", func(t *testing.T) {
		root := copyJavaTable(t, "two-levels")
		tbl := table.Open(&snapshotFailIO{FileIO: fileio.NewLocal(), writeAnyway: true}, root)
		res, err := tableops.Maintain(ctx, tbl, eng)
		if err != nil {
			t.Fatal(err)
		}
		if res.Snapshot == nil {
			t.Fatal("a snapshot that landed was not reported")
		}
		local := table.Open(fileio.NewLocal(), root)
		checkAllCurrent(t, local, fieldID(t, local))
		checkNoOrphans(t, local, root)
	})

	t.Run("unknown-outcome", func(t *testing.T) {
		root := copyJavaTable(t, "two-levels")
		before := listFiles(t, root)
		tbl := table.Open(unreadableIO{&snapshotFailIO{FileIO: fileio.NewLocal(), writeAnyway: true}}, root)
		_, err := tableops.Maintain(ctx, tbl, eng)
		var unc *tableops.UncertainCommitError
		if !errors.As(err, &unc) {
			t.Fatalf("got %v", err)
		}
		// The snapshot did land: every file it references must still be there.
		local := table.Open(fileio.NewLocal(), root)
		latest, err := local.Latest(ctx)
		if err != nil || latest.ID != unc.ID {
			t.Fatalf("latest %v %v", latest, err)
		}
		checkAllCurrent(t, local, fieldID(t, local))
		if len(added(before, listFiles(t, root))) == 0 {
			t.Error("nothing kept")
		}
	})
}

// TestMaintainCancelledLeavesNoFile cancels the context while archives build: Maintain returns
// the cancellation, and by then every archive it generated, including those of builds still
// running at the time, is deleted.
func TestMaintainCancelledLeavesNoFile(t *testing.T) {
	eng, _ := engine(t)
	root := copyJavaTable(t, "partitioned-dv")
	before := listFiles(t, root)
	tbl := table.Open(fileio.NewLocal(), root)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var buckets atomic.Int32
	_, err := tableops.Maintain(ctx, tbl, eng, tableops.WithParallelism(4), tableops.WithProgress(func(p tableops.Progress) {
		if p.Bucket != nil && buckets.Add(1) == 2 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if diff := added(before, listFiles(t, root)); len(diff) != 0 {
		t.Errorf("cancelled maintenance left %v", diff)
	}
}

// TestMaintainJavaFullTextTables runs maintenance on the Java-written full-text tables. Where
// Java's archives cover every level, Go classifies them current and commits nothing, writing no
// file. The table whose column was renamed and indexed late has a level without an archive: Go
// builds it (reading files written under the old column name) with the analyzer configuration
// Java recorded for its own archive, and the result is current and searchable.
func TestMaintainJavaFullTextTables(t *testing.T) {
	eng, lib := engine(t)
	ctx := context.Background()
	for _, name := range []string{"ft-default-partitioned", "ft-ngram-two-levels", "ft-jieba-renamed-late"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join("..", "..", "testdata", "tables", "java", name)
			root := filepath.Join(t.TempDir(), name)
			if err := os.CopyFS(root, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			tbl := table.Open(fileio.NewLocal(), root)
			_, plans, err := tableops.PlanMaintenance(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			changed := slices.ContainsFunc(plans, func(p tableops.BucketPlan) bool { return p.Changed() })
			before := listFiles(t, root)
			base, _ := tbl.Latest(ctx)
			baseContents, err := tbl.Read(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tableops.Maintain(ctx, tbl, eng)
			if err != nil {
				t.Fatal(err)
			}
			if !changed {
				if res.Snapshot != nil {
					t.Errorf("committed snapshot %d on a table whose archives are current", res.Snapshot.ID)
				}
				if diff := added(before, listFiles(t, root)); len(diff) != 0 {
					t.Errorf("wrote %v", diff)
				}
				return
			}
			if res.Snapshot == nil {
				t.Fatal("nothing committed although levels lack archives")
			}
			c := checkAllCurrent(t, tbl, fieldID(t, tbl))
			searchEveryArchive(t, tbl, lib, c)
			var javaMeta []byte
			for _, e := range baseContents.IndexEntries {
				if e.IndexFile.IndexType == pkfulltext.IndexType {
					javaMeta = e.IndexFile.GlobalIndex.IndexMeta
				}
			}
			for _, b := range res.Buckets {
				for _, a := range b.Built {
					if javaMeta == nil || string(a.GlobalIndex.IndexMeta) != string(javaMeta) {
						t.Errorf("archive %s records analyzer %s, Java's archives %s", a.FileName, a.GlobalIndex.IndexMeta, javaMeta)
					}
				}
			}
		})
	}
}

// TestMaintainSelectedBuckets maintains only the selected buckets; the others keep their state.
func TestMaintainSelectedBuckets(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "partitioned-dv")
	tbl := table.Open(fileio.NewLocal(), root)
	keep := func(part []paths.PartitionKV, bucket int32) bool {
		return len(part) == 2 && part[0].Key == "region" && part[0].Value == "eu" && bucket == 1
	}
	res, err := tableops.Maintain(ctx, tbl, eng, tableops.WithBuckets(keep))
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Buckets) == 0 {
		t.Fatalf("result %+v", res)
	}
	for _, b := range res.Buckets {
		if !keep(b.PartitionSpec, b.Bucket) {
			t.Errorf("maintained unselected bucket %v/%d", b.PartitionSpec, b.Bucket)
		}
	}
	_, plans, err := tableops.PlanMaintenance(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if keep(p.PartitionSpec, p.Bucket) == p.Changed() {
			t.Errorf("bucket %v/%d: selected %v, still needs work %v", p.PartitionSpec, p.Bucket, keep(p.PartitionSpec, p.Bucket), p.Changed())
		}
	}
}

// TestMaintainRetiresStaleArchive: after another writer removes the only file of a level, that
// level's archive is stale; maintenance retires it from the index manifest but leaves the file,
// which older snapshots still reference, in place.
func TestMaintainRetiresStaleArchive(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "two-levels")
	tbl := table.Open(fileio.NewLocal(), root)
	if _, err := tableops.Maintain(ctx, tbl, eng); err != nil {
		t.Fatal(err)
	}
	removed := removeLevelFile(t, tbl, 4)
	res, err := tableops.Maintain(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Buckets) != 1 || len(res.Buckets[0].Retired) != 1 || len(res.Buckets[0].Built) != 0 {
		t.Fatalf("result %+v", res)
	}
	stale := res.Buckets[0].Retired[0]
	srcs, err := pkindexDecode(stale.GlobalIndex.SourceMeta)
	if err != nil || len(srcs) != 1 || srcs[0].name != removed.FileName {
		t.Errorf("retired %s covering %v, want the archive of %s", stale.FileName, srcs, removed.FileName)
	}
	if slices.Contains(indexNames(t, tbl, res.Snapshot), stale.FileName) {
		t.Errorf("retired archive %s still in the index manifest", stale.FileName)
	}
	if _, err := os.Stat(filepath.Join(root, "index", stale.FileName)); err != nil {
		t.Errorf("retired archive deleted although older snapshots reference it: %v", err)
	}
	checkAllCurrent(t, tbl, fieldID(t, tbl))
}

// TestMaintainGivesUpOnOverlappingLevel: Java's commit checks that the files of a level above 0
// do not overlap in key range before committing index changes, and gives up otherwise; so does
// Go, leaving no file behind.
func TestMaintainGivesUpOnOverlappingLevel(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "two-levels")
	tbl := table.Open(fileio.NewLocal(), root)
	// Another writer adds, at level 5, a copy of the level-5 file's metadata under a new name:
	// its key range overlaps the original's.
	commitDataChange(t, tbl, func(c *table.Contents) meta.ManifestEntry {
		for _, e := range c.Entries {
			if e.File.Level == 5 {
				data, err := os.ReadFile(filepath.Join(root, "bucket-0", e.File.FileName))
				if err != nil {
					t.Fatal(err)
				}
				e.File.FileName = "data-overlapping-0.parquet"
				if err := os.WriteFile(filepath.Join(root, "bucket-0", e.File.FileName), data, 0o644); err != nil {
					t.Fatal(err)
				}
				return e
			}
		}
		t.Fatal("no level-5 file")
		return meta.ManifestEntry{}
	})
	before := listFiles(t, root)
	_, err := tableops.Maintain(ctx, tbl, eng)
	if !errors.Is(err, tableops.ErrCommitConflict) || !strings.Contains(err.Error(), "LSM conflicts detected") {
		t.Fatalf("got %v", err)
	}
	if diff := added(before, listFiles(t, root)); len(diff) != 0 {
		t.Errorf("refused maintenance left %v", diff)
	}
}
