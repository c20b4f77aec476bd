package pkfulltext_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestJavaGoldenArchives checks Go against the full-text archives Paimon's own writer and
// compaction built into the Java golden tables (testdata/tables/java, written by make golden;
// Java's outputs in compat/golden/java/<table>.json and <table>.fulltext.json). No Java is
// needed. For every table with full-text expectations and every bucket of its latest snapshot:
//
//   - Go classifies the bucket's archives as Java's recorded dump does (current per level,
//     stale, next plan); internal/inspect compares the whole dump;
//   - Go's native engine, searching each Java archive with the recorded queries, returns Java's
//     recorded row ids with scores equal within 1e-5 relative;
//   - Go's own build of each level that has a current Java archive (IndexFile over the
//     production DataFileReaders and the native engine, the level's files in the archive's
//     source order) yields the same GlobalIndexMeta as Java's archive: row range, field id,
//     extra field ids, index meta bytes, source meta bytes, and the same row count.
func TestJavaGoldenArchives(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, err := goldengen.JavaGoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for _, name := range names {
		exp, ok, err := goldengen.ReadJavaFullTextExpected(root, name)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		tables++
		t.Run(name, func(t *testing.T) {
			lib := testenv.Native(t)
			checkJavaGoldenArchives(t, root, name, exp, native.Engine{Lib: lib})
		})
	}
	if tables == 0 {
		t.Fatalf("no Java golden table under %s has full-text expectations: run make golden", goldengen.JavaTablesDir)
	}
}

// TestJavaCorpusSize keeps the checked-in Java corpus (tables and Java's outputs) under
// goldengen.MaxJavaCorpusBytes, as make golden does when it writes it.
func TestJavaCorpusSize(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, dir := range []string{goldengen.JavaTablesDir, goldengen.JavaExpectedDir} {
		n, err := goldengen.DirSize(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total > goldengen.MaxJavaCorpusBytes {
		t.Errorf("the Java corpus takes %d bytes, more than %d", total, goldengen.MaxJavaCorpusBytes)
	}
}

func checkJavaGoldenArchives(t *testing.T, root, name string, exp *goldengen.JavaFullTextExpected, engine fulltext.Engine) {
	ctx := context.Background()
	g, err := goldengen.OpenJavaGolden(ctx, root, name)
	if err != nil {
		t.Fatal(err)
	}
	dir, tb, sch, contents, javaDump := g.Dir, g.Table, g.Schema, g.Contents, g.JavaDump
	cols := pkfulltext.IndexColumns(sch.Options)
	if len(cols) != 1 {
		t.Fatalf("the latest snapshot's schema indexes %v, want one column", cols)
	}
	field, ok := sch.FieldByName(cols[0])
	if !ok {
		t.Fatalf("no column %s", cols[0])
	}
	fieldID := int32(field.ID)
	analyzer, err := pkfulltext.ResolveAnalyzerOptions(sch.Options, cols[0])
	if err != nil {
		t.Fatal(err)
	}
	restorer, err := restore.NewRestorer(ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]goldengen.JavaArchiveHits{}
	for _, a := range exp.Archives {
		recorded[a.FileName] = a
	}
	fieldName := func(schemaID int64, id int32) (string, error) {
		s, err := tb.Schema(ctx, schemaID)
		if err != nil {
			return "", err
		}
		f, ok := s.FieldByID(int(id))
		if !ok {
			return "", fmt.Errorf("schema %d field %d: %w", schemaID, id, textreader.ErrFieldNotInSchema)
		}
		return f.Name, nil
	}
	out := t.TempDir()
	searched, built := 0, 0
	for i, b := range contents.Buckets {
		jb := javaDump.Buckets[i]
		where := fmt.Sprintf("partition %v bucket %d", jb.Partition, b.Bucket)
		if jb.Bucket != b.Bucket {
			t.Fatalf("%s: Java's dump has bucket %d at this position", where, jb.Bucket)
		}
		view, err := pkfulltext.InspectBucket(fieldID, b.DataFiles, b.IndexFiles)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		// Classification: Go's current and stale archives are Java's.
		if jb.State == nil {
			t.Fatalf("%s: Java's dump records no full-text state", where)
		}
		current := map[string]string{}
		for _, p := range view.State.CurrentPayloads() {
			sm, err := pkindex.DecodeSourceMeta(p.GlobalIndex.SourceMeta)
			if err != nil {
				t.Fatal(err)
			}
			current[strconv.Itoa(int(sm.DataLevel()))] = p.FileName
		}
		var stale []string
		for _, p := range view.State.StalePayloads() {
			stale = append(stale, p.FileName)
		}
		sort.Strings(stale)
		if d := cmp.Diff(jb.State.Current, current); d != "" {
			t.Errorf("%s: current archives differ (-java +go):\n%s", where, d)
		}
		if !slices.Equal(jb.State.Stale, stale) && len(jb.State.Stale)+len(stale) > 0 {
			t.Errorf("%s: stale archives: Java %v, Go %v", where, jb.State.Stale, stale)
		}
		switch {
		case jb.Plan == nil && view.Plan != nil:
			t.Errorf("%s: Go plans level %d, Java plans nothing", where, view.Plan.DataLevel())
		case jb.Plan != nil && view.Plan == nil:
			t.Errorf("%s: Java plans level %d, Go plans nothing", where, jb.Plan.Level)
		case jb.Plan != nil && view.Plan.DataLevel() != jb.Plan.Level:
			t.Errorf("%s: Go plans level %d, Java level %d", where, view.Plan.DataLevel(), jb.Plan.Level)
		}

		rb, err := restorer.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*meta.DataFileMeta{}
		for _, f := range b.DataFiles {
			byName[f.FileName] = f
		}
		for _, f := range b.IndexFiles {
			if f.IndexType != pkfulltext.IndexType {
				continue
			}
			a, ok := recorded[f.FileName]
			if !ok {
				t.Errorf("%s: archive %s has no recorded hits", where, f.FileName)
				continue
			}
			delete(recorded, f.FileName)
			ext := ""
			if f.ExternalPath != nil {
				ext = *f.ExternalPath
			}
			path := rb.IndexPaths.ToPathOf(f.FileName, ext)
			if want := filepath.Join(dir, filepath.FromSlash(a.Path)); filepath.Clean(path) != want {
				t.Errorf("%s: Go resolves archive %s to %s, Java wrote it at %s", where, f.FileName, path, want)
			}
			searchArchive(t, engine, path, exp, a)
			searched++

			if !slices.Contains(view.State.CurrentPayloads(), f) {
				continue
			}
			sm, err := pkindex.DecodeSourceMeta(f.GlobalIndex.SourceMeta)
			if err != nil {
				t.Fatal(err)
			}
			var files []*meta.DataFileMeta
			for _, s := range sm.SourceFiles() {
				df := byName[s.FileName()]
				if df == nil {
					t.Fatalf("%s: archive %s names %s, which the bucket lacks", where, f.FileName, s.FileName())
				}
				files = append(files, df)
			}
			builder := &pkfulltext.Builder{
				IndexFile: &pkfulltext.IndexFile{FileIO: tb.FileIO, Paths: paths.NewDirIndexPathFactory(out), Engine: engine},
				Readers:   &pkfulltext.DataFileReaders{FileIO: tb.FileIO, Paths: rb.DataPaths, FieldID: fieldID, FieldName: fieldName},
				FieldID:   fieldID,
				Options:   analyzer,
			}
			got, err := builder.Build(ctx, files)
			if err != nil {
				t.Fatalf("%s: Go's build of level %d: %v", where, sm.DataLevel(), err)
			}
			if err := sameGlobalIndex(got, f); err != nil {
				t.Errorf("%s, level %d: Go's archive differs from Java's %s: %v", where, sm.DataLevel(), f.FileName, err)
			}
			built++
		}
	}
	for n := range recorded {
		t.Errorf("recorded archive %s is not in the table's latest snapshot", n)
	}
	if searched == 0 || built == 0 {
		t.Fatalf("%d archives searched, %d levels built: the table checks nothing", searched, built)
	}
}

// searchArchive runs the recorded queries on the archive at path with Go's engine and compares
// the hits with Java's: the same row ids, scores equal within 1e-5 relative.
func searchArchive(t *testing.T, engine fulltext.Engine, path string, exp *goldengen.JavaFullTextExpected, a goldengen.JavaArchiveHits) {
	t.Helper()
	ctx := context.Background()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.OpenReader(ctx, f, info.Size())
	if err != nil {
		t.Fatalf("open Java's archive %s: %v", a.FileName, err)
	}
	defer r.Close()
	for i, q := range exp.Queries {
		hits, err := r.Search(ctx, q, exp.Limit)
		if err != nil {
			t.Fatalf("archive %s, query %s: %v", a.FileName, q, err)
		}
		want := a.Hits[i]
		if err := sameScoredRows(hits, want); err != nil {
			t.Errorf("archive %s (level %d), query %s: %v", a.FileName, a.Level, q, err)
		}
	}
}

// sameScoredRows compares Go's hits with Java's recorded ones as scored row sets (every hit is
// recorded, the limit being above the hit count; the order of equal scores is not compared).
func sameScoredRows(got []fulltext.Hit, want goldengen.JavaArchiveSearch) error {
	if len(got) != len(want.RowIDs) {
		return fmt.Errorf("%d hits, Java recorded %d", len(got), len(want.RowIDs))
	}
	scores := map[int64]float32{}
	for i, id := range want.RowIDs {
		scores[id] = want.Scores[i]
	}
	for _, h := range got {
		w, ok := scores[h.RowID]
		if !ok {
			return fmt.Errorf("row %d is a hit, Java's hits are %v", h.RowID, want.RowIDs)
		}
		a, b := float64(h.Score), float64(w)
		if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
			return fmt.Errorf("row %d: score %v, Java %v", h.RowID, a, b)
		}
	}
	return nil
}

// sameGlobalIndex compares the archive metadata of Go's build with Java's archive.
func sameGlobalIndex(got, want *meta.IndexFileMeta) error {
	g, w := got.GlobalIndex, want.GlobalIndex
	switch {
	case g == nil || w == nil:
		return fmt.Errorf("global index meta: Go %v, Java %v", g, w)
	case got.IndexType != want.IndexType:
		return fmt.Errorf("index type %s, Java %s", got.IndexType, want.IndexType)
	case got.RowCount != want.RowCount:
		return fmt.Errorf("row count %d, Java %d", got.RowCount, want.RowCount)
	case g.RowRangeStart != w.RowRangeStart || g.RowRangeEnd != w.RowRangeEnd:
		return fmt.Errorf("row range [%d, %d], Java [%d, %d]", g.RowRangeStart, g.RowRangeEnd, w.RowRangeStart, w.RowRangeEnd)
	case g.IndexFieldID != w.IndexFieldID:
		return fmt.Errorf("field id %d, Java %d", g.IndexFieldID, w.IndexFieldID)
	case !slices.Equal(g.ExtraFieldIDs, w.ExtraFieldIDs) || (g.ExtraFieldIDs == nil) != (w.ExtraFieldIDs == nil):
		return fmt.Errorf("extra field ids %v, Java %v", g.ExtraFieldIDs, w.ExtraFieldIDs)
	case !bytes.Equal(g.IndexMeta, w.IndexMeta):
		return fmt.Errorf("index meta %q, Java %q", g.IndexMeta, w.IndexMeta)
	case !bytes.Equal(g.SourceMeta, w.SourceMeta):
		return fmt.Errorf("source meta %x, Java %x", g.SourceMeta, w.SourceMeta)
	case (got.ExternalPath == nil) != (want.ExternalPath == nil):
		return fmt.Errorf("external path %v, Java %v", got.ExternalPath, want.ExternalPath)
	}
	return nil
}
