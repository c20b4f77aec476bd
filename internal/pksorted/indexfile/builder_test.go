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

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/datafile"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

type arrayReaders map[string][]any

type arrayReader struct {
	values []any
	pos    int
}

func (a arrayReaders) Open(_ context.Context, f *meta.DataFileMeta) (EntryReader, error) {
	return &arrayReader{values: a[f.FileName]}, nil
}
func (r *arrayReader) RowCount() int64 { return int64(len(r.values)) }
func (r *arrayReader) Close() error    { return nil }
func (r *arrayReader) Next(context.Context) (datafile.Entry, bool, error) {
	if r.pos == len(r.values) {
		return datafile.Entry{}, false, nil
	}
	r.pos++
	return datafile.Entry{Value: r.values[r.pos-1], Position: int64(r.pos - 1)}, true, nil
}

func levelFile(name string, rows int64) *meta.DataFileMeta {
	src := meta.FileSourceCompact
	return &meta.DataFileMeta{FileName: name, RowCount: rows, Level: 3, FileSource: &src}
}

// TestHasSingleBuildReturningIndexFileMeta is PkSortedIndexBuilderTest#testHasSingleBuildReturningIndexFileMeta.
func TestHasSingleBuildReturningIndexFileMeta(t *testing.T) {
	typ := reflect.TypeOf(&Builder{})
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

// TestBuildsQueryableBTreeAndBitmapFromUnsortedPhysicalRows is
// PkSortedIndexBuilderTest#testBuildsQueryableBTreeAndBitmapFromUnsortedPhysicalRows.
func TestBuildsQueryableBTreeAndBitmapFromUnsortedPhysicalRows(t *testing.T) {
	for _, typ := range []string{TypeBTree, TypeBitmap} {
		dir := filepath.Join(t.TempDir(), typ)
		b := &Builder{IndexFile: newIndexFile(dir), Readers: arrayReaders{"data-file": {int32(20), nil, int32(10), int32(20)}}, Field: field(), IndexType: typ}
		p, err := b.Build(context.Background(), []*meta.DataFileMeta{levelFile("data-file", 4)})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, p.FileName))
		if err != nil {
			t.Fatal(err)
		}
		ser, _ := sortkey.New(types.Int())
		fm, _ := filemeta.Decode(p.GlobalIndex.IndexMeta)
		eval := func(pr pred.Predicate) []uint64 {
			if typ == TypeBTree {
				rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, fm)
				if err != nil {
					t.Fatal(err)
				}
				bm, err := rd.Evaluate(pr)
				if err != nil {
					t.Fatal(err)
				}
				return bm.ToArray()
			}
			rd, err := bitmap.Open(bytes.NewReader(data), int64(len(data)), ser)
			if err != nil {
				t.Fatal(err)
			}
			bm, err := rd.Evaluate(pr)
			if err != nil {
				t.Fatal(err)
			}
			return bm.ToArray()
		}
		if got := eval(pred.Predicate{Op: pred.Equal, Literals: []any{int32(20)}}); !slices.Equal(got, []uint64{0, 3}) {
			t.Errorf("%s: equal 20 -> %v", typ, got)
		}
		if got := eval(pred.Predicate{Op: pred.IsNull}); !slices.Equal(got, []uint64{1}) {
			t.Errorf("%s: is null -> %v", typ, got)
		}
		sm, err := pkindex.SourceMetaFromIndexFile(p.FileName, p.GlobalIndex.SourceMeta)
		if err != nil || sm.DataLevel() != 3 {
			t.Errorf("%s: data level %d (%v)", typ, sm.DataLevel(), err)
		}
	}
}

// TestBuildsSeveralSourcesInDeterministicOrdinalOrder is
// PkSortedIndexBuilderTest#testBuildsSeveralSourcesInDeterministicOrdinalOrder: sources in name
// order, row ids continuing across them, entries in value order (read back from the btree file,
// since Go's IndexFile cannot be overridden to capture them).
func TestBuildsSeveralSourcesInDeterministicOrdinalOrder(t *testing.T) {
	dir := t.TempDir()
	b := &Builder{IndexFile: newIndexFile(dir), Readers: arrayReaders{
		"data-a": {int32(3), int32(0)}, "data-b": {int32(1), int32(4), int32(2)},
	}, Field: field(), IndexType: TypeBTree}
	p, err := b.Build(context.Background(), []*meta.DataFileMeta{levelFile("data-b", 3), levelFile("data-a", 2)})
	if err != nil {
		t.Fatal(err)
	}
	sm, _ := pkindex.SourceMetaFromIndexFile(p.FileName, p.GlobalIndex.SourceMeta)
	var names []string
	for _, s := range sm.SourceFiles() {
		names = append(names, s.FileName())
	}
	if !slices.Equal(names, []string{"data-a", "data-b"}) {
		t.Fatalf("sources %v", names)
	}
	data, _ := os.ReadFile(filepath.Join(dir, p.FileName))
	ser, _ := sortkey.New(types.Int())
	fm, _ := filemeta.Decode(p.GlobalIndex.IndexMeta)
	rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, fm)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := rd.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var values []any
	var ids []int64
	for _, e := range entries {
		values = append(values, e.Key)
		ids = append(ids, e.RowIDs...)
	}
	if !slices.Equal(values, []any{int32(0), int32(1), int32(2), int32(3), int32(4)}) || !slices.Equal(ids, []int64{1, 2, 4, 0, 3}) {
		t.Fatalf("values %v row ids %v", values, ids)
	}
}

// TestBuilderRefusesMixedAndZeroLevels: a build over two levels or level 0 is refused.
func TestBuilderRefusesMixedAndZeroLevels(t *testing.T) {
	b := &Builder{IndexFile: newIndexFile(t.TempDir()), Readers: arrayReaders{"a": {int32(1)}, "b": {int32(2)}}, Field: field(), IndexType: TypeBTree}
	other := levelFile("b", 1)
	other.Level = 4
	if _, err := b.Build(context.Background(), []*meta.DataFileMeta{levelFile("a", 1), other}); err == nil {
		t.Error("mixed levels accepted")
	}
	zero := levelFile("a", 1)
	zero.Level = 0
	if _, err := b.Build(context.Background(), []*meta.DataFileMeta{zero}); err == nil {
		t.Error("level 0 accepted")
	}
}
