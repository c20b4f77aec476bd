package pkfulltext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// memReader is a TextReader over texts held in memory (nil = null).
type memReader struct {
	texts  []*string
	pos    int
	closed int
	failAt int // Next fails at this position when > 0
}

func (m *memReader) RowCount() int64 { return int64(len(m.texts)) }

func (m *memReader) Next(ctx context.Context) (textreader.Row, error) {
	if m.failAt > 0 && m.pos == m.failAt {
		return textreader.Row{}, errors.New("disk on fire")
	}
	if m.pos >= len(m.texts) {
		return textreader.Row{}, io.EOF
	}
	t := m.texts[m.pos]
	row := textreader.Row{Pos: int64(m.pos), Null: t == nil}
	if t != nil {
		row.Text = []byte(*t)
	}
	m.pos++
	return row, nil
}

func (m *memReader) Close() error { m.closed++; return nil }

func texts(ss ...string) []*string {
	out := make([]*string, len(ss))
	for i := range ss {
		if ss[i] != "<null>" {
			out[i] = &ss[i]
		}
	}
	return out
}

// recordingEngine records what a build hands the engine and writes a fixed archive; it can be
// told to fail at writer creation or mid-write.
type recordingEngine struct {
	rowIDs      []int64
	values      []string
	options     []fulltext.Option
	failOpen    bool
	failWriteAt int // WriteTo fails after writing this many bytes when > 0
}

func (e *recordingEngine) NewWriter(options []fulltext.Option) (fulltext.Writer, error) {
	if e.failOpen {
		return nil, errors.New("no full-text indexer")
	}
	e.options = options
	return &recordingWriter{e: e}, nil
}

func (e *recordingEngine) OpenReader(context.Context, io.ReaderAt, int64) (fulltext.Reader, error) {
	return nil, errors.New("not used")
}

type recordingWriter struct{ e *recordingEngine }

func (w *recordingWriter) Add(rowID int64, text string) error {
	w.e.rowIDs = append(w.e.rowIDs, rowID)
	w.e.values = append(w.e.values, text)
	return nil
}

func (w *recordingWriter) WriteTo(_ context.Context, out io.Writer) (int64, error) {
	if w.e.failWriteAt > 0 {
		n, _ := out.Write(bytes.Repeat([]byte{1}, w.e.failWriteAt))
		return int64(n), errors.New("engine failed mid-write")
	}
	n, err := out.Write([]byte{1})
	return int64(n), err
}

func (w *recordingWriter) Close() error { return nil }

// dirPaths is an IndexPathFactory over one directory.
type dirPaths struct {
	dir string
	n   int
}

func (d *dirPaths) NewPath() string {
	d.n++
	return filepath.Join(d.dir, fmt.Sprintf("index-test-%d", d.n))
}
func (d *dirPaths) ToPath(name string) string { return filepath.Join(d.dir, name) }
func (d *dirPaths) ToPathOf(name, external string) string {
	if external != "" {
		return external
	}
	return d.ToPath(name)
}
func (d *dirPaths) IsExternalPath() bool { return false }

func compactFile(name string, rows int64, level int32) *meta.DataFileMeta {
	src := meta.FileSourceCompact
	return &meta.DataFileMeta{FileName: name, RowCount: rows, Level: level, FileSource: &src}
}

func newIndexFile(t *testing.T, e fulltext.Engine) (*IndexFile, string) {
	dir := t.TempDir()
	return &IndexFile{FileIO: fileio.NewLocal(), Paths: &dirPaths{dir: dir}, Engine: e}, dir
}

func dirEntries(t *testing.T, dir string) []string {
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

// Java: PkFullTextIndexFileTest#testWritesEveryPhysicalOrdinalAndDataLevelMetadata.
func TestIndexFile_WritesEveryPhysicalOrdinalAndDataLevelMetadata(t *testing.T) {
	e := &recordingEngine{}
	f, dir := newIndexFile(t, e)
	r := &memReader{texts: texts("first", "<null>", "third")}
	archive, err := f.Build(context.Background(), []Source{{compactFile("data-1", 3, 3), r}}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Nulls occupy their row id but are not handed to the engine.
	if !slices.Equal(e.rowIDs, []int64{0, 2}) || !slices.Equal(e.values, []string{"first", "third"}) {
		t.Errorf("engine got rows %v values %q", e.rowIDs, e.values)
	}
	if archive.IndexType != "full-text" || archive.RowCount != 3 || archive.FileSize != 1 {
		t.Errorf("archive %+v", archive)
	}
	g := archive.GlobalIndex
	if g.RowRangeStart != 0 || g.RowRangeEnd != 2 || g.IndexFieldID != 7 || g.ExtraFieldIDs != nil || string(g.IndexMeta) != "{}" {
		t.Errorf("global index meta %+v", g)
	}
	if !bytes.HasPrefix(g.SourceMeta, []byte{0, 0, 0, 1}) {
		t.Errorf("source meta does not start with version 1: %x", g.SourceMeta)
	}
	sm, err := pkindex.DecodeSourceMeta(g.SourceMeta)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := sm.SourceFile()
	if err != nil {
		t.Fatal(err)
	}
	if sm.DataLevel() != 3 || sf.FileName() != "data-1" || sf.RowCount() != 3 {
		t.Errorf("source meta level %d file %s rows %d", sm.DataLevel(), sf.FileName(), sf.RowCount())
	}
	if r.closed == 0 {
		t.Error("reader not closed")
	}
	if got := dirEntries(t, dir); !slices.Equal(got, []string{archive.FileName}) {
		t.Errorf("directory holds %v, want just %s", got, archive.FileName)
	}
}

// Java: PkFullTextIndexFileTest#testBuildsMultiSourceArchiveWithContinuousRowIds.
func TestIndexFile_BuildsMultiSourceArchiveWithContinuousRowIds(t *testing.T) {
	e := &recordingEngine{}
	f, _ := newIndexFile(t, e)
	archive, err := f.Build(context.Background(), []Source{
		{compactFile("data-1", 2, 3), &memReader{texts: texts("first", "second")}},
		{compactFile("data-2", 1, 3), &memReader{texts: texts("third")}},
	}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.rowIDs, []int64{0, 1, 2}) || !slices.Equal(e.values, []string{"first", "second", "third"}) {
		t.Errorf("engine got rows %v values %q", e.rowIDs, e.values)
	}
	if archive.RowCount != 3 || archive.GlobalIndex.RowRangeEnd != 2 {
		t.Errorf("archive %+v", archive)
	}
	sm, err := pkindex.DecodeSourceMeta(archive.GlobalIndex.SourceMeta)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sm.SourceFiles() {
		got = append(got, fmt.Sprintf("%s:%d", s.FileName(), s.RowCount()))
	}
	if !slices.Equal(got, []string{"data-1:2", "data-2:1"}) {
		t.Errorf("source files %v", got)
	}
}

// recordingFactory opens memReaders and records the files asked for.
type recordingFactory struct {
	readers map[string]*memReader
	opened  []string
	failOn  string
}

func (r *recordingFactory) Open(_ context.Context, f *meta.DataFileMeta) (TextReader, error) {
	if f.FileName == r.failOn {
		return nil, errors.New("cannot open")
	}
	r.opened = append(r.opened, f.FileName)
	return r.readers[f.FileName], nil
}

// Java: PkFullTextIndexFileTest#testBuilderOpensTheFileReaderAndDelegatesEffectiveOptions and
// #testBuilderDelegatesOrderedSources.
func TestBuilder_OpensReadersInOrderAndDelegatesOptions(t *testing.T) {
	e := &recordingEngine{}
	f, _ := newIndexFile(t, e)
	first, second := &memReader{texts: texts("a", "b")}, &memReader{texts: texts("c")}
	factory := &recordingFactory{readers: map[string]*memReader{"data-1": first, "data-2": second}}
	opts := AnalyzerOptions{{Key: "tokenizer", Value: "ngram"}}
	b := &Builder{IndexFile: f, Readers: factory, FieldID: 7, Options: opts}
	archive, err := b.Build(context.Background(), []*meta.DataFileMeta{compactFile("data-1", 2, 2), compactFile("data-2", 1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(factory.opened, []string{"data-1", "data-2"}) {
		t.Errorf("opened %v", factory.opened)
	}
	if !slices.Equal(e.options, []fulltext.Option(opts)) || string(archive.GlobalIndex.IndexMeta) != `{"tokenizer":"ngram"}` {
		t.Errorf("options %v, index meta %s", e.options, archive.GlobalIndex.IndexMeta)
	}
	if first.closed == 0 || second.closed == 0 {
		t.Error("readers not closed")
	}
}

func TestBuilder_ClosesOpenedReadersWhenAnotherFailsToOpen(t *testing.T) {
	f, dir := newIndexFile(t, &recordingEngine{})
	first := &memReader{texts: texts("a")}
	factory := &recordingFactory{readers: map[string]*memReader{"data-1": first}, failOn: "data-2"}
	b := &Builder{IndexFile: f, Readers: factory, FieldID: 7}
	if _, err := b.Build(context.Background(), []*meta.DataFileMeta{compactFile("data-1", 1, 2), compactFile("data-2", 1, 2)}); err == nil {
		t.Fatal("build succeeded")
	}
	if first.closed == 0 {
		t.Error("first reader left open")
	}
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("files left behind: %v", got)
	}
}

// Java: PkFullTextIndexFileTest#testClosesReaderWhenIndexerCreationFails.
func TestIndexFile_ClosesReaderWhenWriterCreationFails(t *testing.T) {
	f, _ := newIndexFile(t, &recordingEngine{failOpen: true})
	r := &memReader{texts: texts("a")}
	if _, err := f.Build(context.Background(), []Source{{compactFile("data-1", 1, 1), r}}, 7, nil); err == nil {
		t.Fatal("build succeeded")
	}
	if r.closed == 0 {
		t.Error("reader not closed")
	}
}

func TestIndexFile_RejectsBadSources(t *testing.T) {
	cases := map[string]struct {
		sources []Source
		err     string
	}{
		"no sources":   {nil, "a full-text archive must reference source files"},
		"level 0":      {[]Source{{compactFile("d", 1, 0), &memReader{texts: texts("a")}}}, "a full-text archive requires a positive data level"},
		"mixed levels": {[]Source{{compactFile("d1", 1, 1), &memReader{texts: texts("a")}}, {compactFile("d2", 1, 2), &memReader{texts: texts("b")}}}, "cannot mix data levels 1 and 2"},
		"empty file":   {[]Source{{compactFile("d", 0, 1), &memReader{}}}, "full-text source file must contain rows"},
		"reader rows":  {[]Source{{compactFile("d", 2, 1), &memReader{texts: texts("a")}}}, "text row count 1 does not match source file d row count 2"},
		"read failure": {[]Source{{compactFile("d", 2, 1), &memReader{texts: texts("a", "b"), failAt: 1}}}, "read text of d"},
		"row count overflow": {[]Source{{compactFile("d1", math.MaxInt64-1, 1), &memReader{}}, {compactFile("d2", 2, 1), &memReader{}}},
			"full-text source row count overflows"},
		// Rows summing to exactly MaxInt64 do not overflow; the reader then has fewer rows.
		"row count at the limit": {[]Source{{compactFile("d1", math.MaxInt64-2, 1), &memReader{}}, {compactFile("d2", 2, 1), &memReader{}}},
			"text row count 0 does not match source file d1 row count 9223372036854775805"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, dir := newIndexFile(t, &recordingEngine{})
			if _, err := f.Build(context.Background(), c.sources, 7, nil); err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("build: %v, want an error with %q", err, c.err)
			}
			for _, s := range c.sources {
				if s.Reader.(*memReader).closed == 0 {
					t.Error("reader left open")
				}
			}
			if got := dirEntries(t, dir); len(got) != 0 {
				t.Errorf("files left behind: %v", got)
			}
		})
	}
}

func TestIndexFile_FailureAfterPartialWriteLeavesNoFile(t *testing.T) {
	f, dir := newIndexFile(t, &recordingEngine{failWriteAt: 4096})
	_, err := f.Build(context.Background(), []Source{{compactFile("d", 1, 1), &memReader{texts: texts("a")}}}, 7, nil)
	if err == nil {
		t.Fatal("build succeeded")
	}
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("files left behind after a failed write: %v", got)
	}
}

// TestIndexFile_NativeArchiveSearchesByConcatenatedRowIds builds a real archive from two
// sources and checks each hit maps back to the text at that position.
func TestIndexFile_NativeArchiveSearchesByConcatenatedRowIds(t *testing.T) {
	lib := nativeLib(t)
	f, _ := newIndexFile(t, nativeEngine(lib))
	one := texts("apache paimon", "<null>", "lake house")
	two := texts("paimon stream", "batch", "paimon lake")
	archive, err := f.Build(context.Background(), []Source{
		{compactFile("data-1", 3, 2), &memReader{texts: one}},
		{compactFile("data-2", 3, 2), &memReader{texts: two}},
	}, 3, AnalyzerOptions{{Key: "tokenizer", Value: "whitespace"}})
	if err != nil {
		t.Fatal(err)
	}
	path := f.Paths.ToPath(archive.FileName)
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, err := lib.OpenReader(context.Background(), file, archive.FileSize)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(context.Background(), `{"match":{"query":"paimon"}}`, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.RowID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int64{0, 3, 5}) {
		t.Errorf("paimon hits rows %v, want 0, 3, 5", ids)
	}
	allowed := roaring64.BitmapOf(5)
	filtered, err := r.SearchFiltered(context.Background(), `{"match":{"query":"lake"}}`, 10, allowed)
	if err != nil || len(filtered) != 1 || filtered[0].RowID != 5 {
		t.Errorf("filtered lake hits %v, err %v", filtered, err)
	}
}

func TestIndexFile_DeleteIndexFile(t *testing.T) {
	f, dir := newIndexFile(t, &recordingEngine{})
	archive, err := f.Build(context.Background(), []Source{{compactFile("d", 1, 1), &memReader{texts: texts("a")}}}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.DeleteIndexFile(context.Background(), archive); err != nil {
		t.Fatal(err)
	}
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("after delete: %v", got)
	}
	if err := f.DeleteIndexFile(context.Background(), archive); err != nil {
		t.Errorf("deleting a missing archive: %v", err)
	}
}
