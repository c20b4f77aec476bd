package indexfile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

func field() types.DataField { return types.DataField{ID: 7, Name: "indexed", Type: types.Int()} }

func entries(es ...Entry) func(func(Entry, error) bool) {
	return func(yield func(Entry, error) bool) {
		for _, e := range es {
			if !yield(e, nil) {
				return
			}
		}
	}
}

func source(t *testing.T, name string, rows int64) pkindex.SourceFile {
	t.Helper()
	s, err := pkindex.NewSourceFile(name, rows)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newIndexFile(dir string) *IndexFile {
	return &IndexFile{FileIO: fileio.NewLocal(), Paths: paths.NewDirIndexPathFactory(dir)}
}

// TestHasSingleBuildEntryPoint is PkSortedIndexFileTest#testHasSingleBuildEntryPoint: IndexFile
// has exactly one build method, returning the payload's IndexFileMeta.
func TestHasSingleBuildEntryPoint(t *testing.T) {
	typ := reflect.TypeOf(&IndexFile{})
	var builds []reflect.Method
	for i := range typ.NumMethod() {
		if strings.Contains(typ.Method(i).Name, "Build") {
			builds = append(builds, typ.Method(i))
		}
	}
	if len(builds) != 1 || builds[0].Type.Out(0) != reflect.TypeOf(&meta.IndexFileMeta{}) {
		t.Fatalf("build methods %v", builds)
	}
}

// TestBuildsSingleBTreeAndBitmapPayload is PkSortedIndexFileTest#testBuildsSingleBTreeAndBitmapPayload,
// and reads each payload back.
func TestBuildsSingleBTreeAndBitmapPayload(t *testing.T) {
	for _, typ := range []string{TypeBTree, TypeBitmap} {
		dir := filepath.Join(t.TempDir(), typ)
		src := source(t, "data-file", 3)
		p, err := newIndexFile(dir).Build(context.Background(), 1, []pkindex.SourceFile{src}, field(), typ, nil,
			entries(Entry{nil, 1}, Entry{int32(10), 2}, Entry{int32(20), 0}))
		if err != nil {
			t.Fatal(err)
		}
		gm := p.GlobalIndex
		if p.IndexType != typ || p.RowCount != 3 || gm.RowRangeStart != 0 || gm.RowRangeEnd != 2 || gm.IndexFieldID != 7 || len(gm.IndexMeta) == 0 {
			t.Fatalf("%s: payload %+v %+v", typ, p, gm)
		}
		sm, err := pkindex.SourceMetaFromIndexFile(p.FileName, gm.SourceMeta)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := sm.SourceFile(); err != nil || got != src {
			t.Fatalf("%s: source %v (%v)", typ, got, err)
		}
		data, err := os.ReadFile(filepath.Join(dir, p.FileName))
		if err != nil {
			t.Fatalf("%s: payload file: %v", typ, err)
		}
		if int64(len(data)) != p.FileSize {
			t.Fatalf("%s: size %d, file %d", typ, p.FileSize, len(data))
		}
		ser, _ := sortkey.New(types.Int())
		fm, err := filemeta.Decode(gm.IndexMeta)
		if err != nil {
			t.Fatal(err)
		}
		var eq func(pred.Predicate) ([]uint64, error)
		if typ == TypeBTree {
			rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, fm)
			if err != nil {
				t.Fatal(err)
			}
			eq = func(p pred.Predicate) ([]uint64, error) { b, err := rd.Evaluate(p); return b.ToArray(), err }
		} else {
			rd, err := bitmap.Open(bytes.NewReader(data), int64(len(data)), ser)
			if err != nil {
				t.Fatal(err)
			}
			eq = func(p pred.Predicate) ([]uint64, error) { b, err := rd.Evaluate(p); return b.ToArray(), err }
		}
		got, err := eq(pred.Predicate{Op: pred.Equal, Literals: []any{int32(10)}})
		if err != nil || !slices.Equal(got, []uint64{2}) {
			t.Fatalf("%s: equal 10 -> %v (%v)", typ, got, err)
		}
		got, err = eq(pred.Predicate{Op: pred.IsNull})
		if err != nil || !slices.Equal(got, []uint64{1}) {
			t.Fatalf("%s: is null -> %v (%v)", typ, got, err)
		}
	}
}

// TestBuildsMultiSourcePayloadsInOneOrdinalDomain is
// PkSortedIndexFileTest#testBuildsMultiSourcePayloadsInOneOrdinalDomain.
func TestBuildsMultiSourcePayloadsInOneOrdinalDomain(t *testing.T) {
	sources := []pkindex.SourceFile{source(t, "data-a", 2), source(t, "data-b", 3)}
	p, err := newIndexFile(t.TempDir()).Build(context.Background(), 1, sources, field(), TypeBTree, nil,
		entries(Entry{nil, 3}, Entry{int32(10), 1}, Entry{int32(20), 4}, Entry{int32(30), 0}, Entry{int32(40), 2}))
	if err != nil {
		t.Fatal(err)
	}
	if p.RowCount != 5 || p.GlobalIndex.RowRangeStart != 0 || p.GlobalIndex.RowRangeEnd != 4 {
		t.Fatalf("%+v %+v", p, p.GlobalIndex)
	}
	sm, err := pkindex.SourceMetaFromIndexFile(p.FileName, p.GlobalIndex.SourceMeta)
	if err != nil || !slices.Equal(sm.SourceFiles(), sources) {
		t.Fatalf("sources %v (%v)", sm.SourceFiles(), err)
	}
}

// TestFailedBuildLeavesNoFile covers PkSortedIndexFileTest#testRejectsMultiplePayloadsAndDeletesWholeGroup
// and #testClosesWriterAfterFailedBuild in Go's terms (Go's writers cannot produce two files):
// a row id outside the group's range, a row count short of the sources', and keys out of order
// each fail the build with the reason and leave the index directory empty.
func TestFailedBuildLeavesNoFile(t *testing.T) {
	for name, tc := range map[string]struct {
		typ  string
		in   []Entry
		want string
	}{
		"outside range": {TypeBitmap, []Entry{{int32(10), 1}}, "outside sorted index group row range"},
		"short":         {TypeBTree, []Entry{{int32(10), 0}}, "does not match source row count"},
		"unordered":     {TypeBTree, []Entry{{int32(20), 0}}, ""},
	} {
		dir := t.TempDir()
		rows := int64(len(tc.in))
		if name == "short" {
			rows = 2
		}
		in := tc.in
		if name == "unordered" {
			in = []Entry{{int32(20), 0}, {int32(10), 1}}
			rows = 2
		}
		_, err := newIndexFile(dir).Build(context.Background(), 1, []pkindex.SourceFile{source(t, "data-file", rows)}, field(), tc.typ, nil, entries(in...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
		left, _ := os.ReadDir(dir)
		if len(left) != 0 {
			t.Errorf("%s: files left behind: %v", name, left)
		}
	}
}

// TestRefusesUnsupportedOptions: a btree-index option the writer does not honour fails the build
// by name with nothing written.
func TestRefusesUnsupportedOptions(t *testing.T) {
	dir := t.TempDir()
	_, err := newIndexFile(dir).Build(context.Background(), 1, []pkindex.SourceFile{source(t, "d", 1)}, field(), TypeBTree,
		map[string]string{"btree-index.compression": "lzo"}, entries(Entry{int32(1), 0}))
	if err == nil || !strings.Contains(err.Error(), "lzo") {
		t.Fatalf("error %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}
