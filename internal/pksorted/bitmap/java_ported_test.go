package bitmap

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

func openRows(t *testing.T, typ types.DataType, rows []sortkeytest.Row, opts Options) *Reader {
	t.Helper()
	ser, err := sortkey.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(rows, func(a, b sortkeytest.Row) int { return ser.CompareNullsFirst(a.Key, b.Key) })
	data, _, _ := writeFile(t, ser, rows, opts)
	rd, err := Open(bytes.NewReader(data), int64(len(data)), ser)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

func rowsOf(t *testing.T, rd *Reader, op pred.Op, lits ...any) []uint64 {
	t.Helper()
	bm, err := rd.Evaluate(pred.Predicate{Op: op, Literals: lits})
	if err != nil {
		t.Fatalf("%s %v: %v", op, lits, err)
	}
	out := bm.ToArray()
	if out == nil {
		out = []uint64{}
	}
	return out
}

func want(ids ...uint64) []uint64 {
	if ids == nil {
		return []uint64{}
	}
	return ids
}

// TestEqualityFamilyPredicates is the lookup part of
// LazyFilteredBitmapIndexReaderTest#testEqualityFamilyPredicates on the single-file reader; the
// whole Java test, with the fallback budget disabled and like, is TestBitmapEqualityFamilyPredicates
// in internal/pksorted/sortedfile (the multi-file reader, which answers like and leaves the range
// and substring predicates unanswered without a budget). This reader refuses like: the
// multi-file reader rewrites it or matches keys with MatchKeys.
func TestEqualityFamilyPredicates(t *testing.T) {
	rd := openRows(t, types.String(), []sortkeytest.Row{
		{Key: "A", RowID: 0}, {Key: "B", RowID: 1}, {RowID: 2}, {Key: "B", RowID: 3}, {Key: "C", RowID: 4}, {Key: "A", RowID: 5},
	}, Options{DictionaryBlockSize: DefaultDictionaryBlockSize})
	for _, tc := range []struct {
		op   pred.Op
		lits []any
		want []uint64
	}{
		{pred.Equal, []any{"A"}, want(0, 5)},
		{pred.Equal, []any{nil}, want()},
		{pred.Equal, []any{"missing"}, want()},
		{pred.In, []any{"B", "C"}, want(1, 3, 4)},
		{pred.In, []any{"A", nil}, want(0, 5)},
		{pred.StartsWith, []any{"A"}, want(0, 5)},
		{pred.StartsWith, []any{""}, want(0, 1, 3, 4, 5)},
		{pred.NotEqual, []any{"A"}, want(1, 3, 4)},
		{pred.NotEqual, []any{nil}, want()},
		{pred.NotIn, []any{"B", "C"}, want(0, 5)},
		{pred.NotIn, []any{"B", nil}, want()},
		{pred.IsNull, nil, want(2)},
		{pred.IsNotNull, nil, want(0, 1, 3, 4, 5)},
	} {
		if got := rowsOf(t, rd, tc.op, tc.lits...); !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.op, tc.lits, got, tc.want)
		}
	}
	if _, err := rd.Evaluate(pred.Predicate{Op: pred.Like, Literals: []any{"A%"}}); err == nil {
		t.Error("like was answered; Go's bitmap reader refuses it")
	}
}

// TestFlushesCompletedBitmapBeforeFinish is LazyFilteredBitmapIndexReaderTest#testFlushesCompletedBitmapBeforeFinish:
// a key's bitmap is written as soon as a greater key arrives.
func TestFlushesCompletedBitmapBeforeFinish(t *testing.T) {
	ser, _ := sortkey.New(types.String())
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, ser, Options{DictionaryBlockSize: DefaultDictionaryBlockSize})
	if err := w.Write("A", 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Write("B", 1); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("nothing written before finish")
	}
	if _, _, err := w.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestLogicalOrderForNumericKeys is LazyFilteredBitmapIndexReaderTest#testLogicalOrderForNumericKeys:
// with one key per dictionary block, lookup follows the keys' order, not their little-endian
// bytes (-1 serializes above 0).
func TestLogicalOrderForNumericKeys(t *testing.T) {
	rd := openRows(t, types.Int(), []sortkeytest.Row{{Key: int32(-1), RowID: 0}, {Key: int32(0), RowID: 1}}, Options{DictionaryBlockSize: 1})
	if got := rowsOf(t, rd, pred.Equal, int32(0)); !slices.Equal(got, want(1)) {
		t.Fatalf("equal 0: %v", got)
	}
}

// TestCompressedDictionaryBlocks is LazyFilteredBitmapIndexReaderTest#testCompressedDictionaryBlocks.
func TestCompressedDictionaryBlocks(t *testing.T) {
	prefix := "very-long-common-prefix-for-bitmap-dictionary-compression-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"
	var rows []sortkeytest.Row
	for i := range 300 {
		rows = append(rows, sortkeytest.Row{Key: fmt.Sprintf("%s%05d", prefix, i), RowID: int64(i)})
	}
	ser, _ := sortkey.New(types.String())
	lz4, _ := blockcodec.NewCodec("lz4", 1)
	compressed, _, _ := writeFile(t, ser, rows, Options{DictionaryBlockSize: 256 << 10, Codec: lz4})
	plain, _, _ := writeFile(t, ser, rows, Options{DictionaryBlockSize: 256 << 10})
	if len(compressed) >= len(plain) {
		t.Fatalf("compressed %d bytes, plain %d", len(compressed), len(plain))
	}
	rd, err := Open(bytes.NewReader(compressed), int64(len(compressed)), ser)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, rd, pred.Equal, prefix+"00123"); !slices.Equal(got, want(123)) {
		t.Fatalf("equal: %v", got)
	}
	if got := rowsOf(t, rd, pred.StartsWith, prefix+"0012"); !slices.Equal(got, want(120, 121, 122, 123, 124, 125, 126, 127, 128, 129)) {
		t.Fatalf("starts with: %v", got)
	}
}

// TestStartsWithAcrossDictionaryBlockBoundary is LazyFilteredBitmapIndexReaderTest#testStartsWithAcrossDictionaryBlockBoundary.
func TestStartsWithAcrossDictionaryBlockBoundary(t *testing.T) {
	rd := openRows(t, types.String(), []sortkeytest.Row{
		{Key: "tag", RowID: 1}, {Key: "tag-000", RowID: 2}, {Key: "tag-001", RowID: 3}, {Key: "tag.", RowID: 4}, {Key: "zzz", RowID: 5},
	}, Options{DictionaryBlockSize: 32})
	if got := rowsOf(t, rd, pred.StartsWith, "tag-"); !slices.Equal(got, want(2, 3)) {
		t.Fatalf("starts with tag-: %v", got)
	}
}

// countingReader counts the reads a Reader makes (Java's CountingGlobalIndexFileReader counts
// seeks, one per block read).
type countingReader struct {
	r     *bytes.Reader
	reads int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

func countingOpen(t *testing.T, rows []sortkeytest.Row, opts Options) (*Reader, *countingReader) {
	t.Helper()
	ser, _ := sortkey.New(types.String())
	data, _, _ := writeFile(t, ser, rows, opts)
	c := &countingReader{r: bytes.NewReader(data)}
	rd, err := Open(c, int64(len(data)), ser)
	if err != nil {
		t.Fatal(err)
	}
	return rd, c
}

// TestNullChecksDoNotReadDictionary is LazyFilteredBitmapIndexReaderTest#testNullChecksDoNotReadDictionary.
func TestNullChecksDoNotReadDictionary(t *testing.T) {
	rd, c := countingOpen(t, []sortkeytest.Row{{RowID: 2}, {Key: "A", RowID: 0}, {Key: "B", RowID: 1}}, Options{DictionaryBlockSize: DefaultDictionaryBlockSize})
	if got := rowsOf(t, rd, pred.IsNull); !slices.Equal(got, want(2)) {
		t.Fatalf("is null: %v", got)
	}
	if c.reads > 2 {
		t.Fatalf("%d reads, want footer and null bitmap at most", c.reads)
	}
}

// TestEqualDoesNotReadAllDictionaryBlocks is LazyFilteredBitmapIndexReaderTest#testEqualDoesNotReadAllDictionaryBlocks.
func TestEqualDoesNotReadAllDictionaryBlocks(t *testing.T) {
	var rows []sortkeytest.Row
	for i := range 100 {
		rows = append(rows, sortkeytest.Row{Key: fmt.Sprintf("tag-%03d", i), RowID: int64(i)})
	}
	rd, c := countingOpen(t, rows, Options{DictionaryBlockSize: 32})
	if got := rowsOf(t, rd, pred.Equal, "tag-050"); !slices.Equal(got, want(50)) {
		t.Fatalf("equal: %v", got)
	}
	if c.reads > 4 {
		t.Fatalf("%d reads, want footer, index, one dictionary block and one bitmap at most", c.reads)
	}
}

// TestStartsWithReadsOnlyMatchingDictionaryBlocks is
// LazyFilteredBitmapIndexReaderTest#testStartsWithReadsOnlyMatchingDictionaryBlocks.
func TestStartsWithReadsOnlyMatchingDictionaryBlocks(t *testing.T) {
	var rows []sortkeytest.Row
	for i := range 50 {
		rows = append(rows, sortkeytest.Row{Key: fmt.Sprintf("other-%03d", i), RowID: int64(i)})
	}
	for i := range 3 {
		rows = append(rows, sortkeytest.Row{Key: fmt.Sprintf("tag-match-%03d", i), RowID: int64(100 + i)})
	}
	for i := range 50 {
		rows = append(rows, sortkeytest.Row{Key: fmt.Sprintf("zzz-%03d", i), RowID: int64(200 + i)})
	}
	rd, c := countingOpen(t, rows, Options{DictionaryBlockSize: 32})
	if got := rowsOf(t, rd, pred.StartsWith, "tag-match"); !slices.Equal(got, want(100, 101, 102)) {
		t.Fatalf("starts with: %v", got)
	}
	if c.reads > 9 {
		t.Fatalf("%d reads, want footer, index, matching dictionary blocks and bitmaps (at most 9)", c.reads)
	}
}
