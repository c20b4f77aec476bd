package sortedfile

import (
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// bitmapFile writes one bitmap file of string keys: rows are given unsorted, as the Java test
// gives them, and sorted here nulls first.
func bitmapFile(t *testing.T, s *store, rows ...sortkeytest.Row) File {
	t.Helper()
	ser := serializer(t, types.String())
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b sortkeytest.Row) int { return ser.CompareNullsFirst(a.Key, b.Key) })
	return s.write(t, bitmap.Identifier, ser, sorted, 0)
}

func row(key any, id int64) sortkeytest.Row { return sortkeytest.Row{Key: key, RowID: id} }

// TestBitmapEqualityFamilyPredicates is LazyFilteredBitmapIndexReaderTest#testEqualityFamilyPredicates:
// with the fallback budget at 0, the lookups (equal, in, startsWith, their complements, the
// null tests, like patterns that rewrite to equal or startsWith) are answered, and ranges,
// endsWith, contains and a like suffix pattern are left unanswered.
func TestBitmapEqualityFamilyPredicates(t *testing.T) {
	s := newStore()
	f := bitmapFile(t, s, row("A", 0), row("B", 1), row(nil, 2), row("B", 3), row("C", 4), row("A", 5))
	r := newReader(t, bitmap.Identifier, types.String(), 0, 1, []File{f}, s.open)
	for _, tc := range []struct {
		op   pred.Op
		lits []any
		want []int64
	}{
		{pred.Equal, []any{"A"}, []int64{0, 5}},
		{pred.Equal, []any{nil}, []int64{}},
		{pred.Equal, []any{"missing"}, []int64{}},
		{pred.In, []any{"B", "C"}, []int64{1, 3, 4}},
		{pred.In, []any{"A", nil}, []int64{0, 5}},
		{pred.StartsWith, []any{"A"}, []int64{0, 5}},
		{pred.StartsWith, []any{""}, []int64{0, 1, 3, 4, 5}},
		{pred.Like, []any{"A"}, []int64{0, 5}},
		{pred.Like, []any{"A%"}, []int64{0, 5}},
		{pred.NotEqual, []any{"A"}, []int64{1, 3, 4}},
		{pred.NotEqual, []any{nil}, []int64{}},
		{pred.NotIn, []any{"B", "C"}, []int64{0, 5}},
		{pred.NotIn, []any{"B", nil}, []int64{}},
		{pred.IsNull, nil, []int64{2}},
		{pred.IsNotNull, nil, []int64{0, 1, 3, 4, 5}},
	} {
		expectRows(t, tc.op.String(), answer(t, r, tc.op, tc.lits...), tc.want)
	}
	unanswered(t, r, pred.LessThan, "B")
	unanswered(t, r, pred.Between, "A", "C")
	unanswered(t, r, pred.EndsWith, "A")
	unanswered(t, r, pred.Contains, "A")
	unanswered(t, r, pred.Like, "%A")
}

// TestBitmapFallbackScanPredicates is LazyFilteredBitmapIndexReaderTest#testFallbackScanPredicates:
// with the default budget, suffix, substring, like and range predicates are answered by a
// dictionary scan.
func TestBitmapFallbackScanPredicates(t *testing.T) {
	s := newStore()
	f := bitmapFile(t, s, row("alpha", 0), row("beta", 1), row("alphabet", 2), row("delta", 3), row(nil, 4))
	r := newReader(t, bitmap.Identifier, types.String(), bitmap.DefaultFallbackScanMaxSize, 1, []File{f}, s.open)
	for _, tc := range []struct {
		op   pred.Op
		lits []any
		want []int64
	}{
		{pred.EndsWith, []any{"ta"}, []int64{1, 3}},
		{pred.Contains, []any{"ph"}, []int64{0, 2}},
		{pred.Like, []any{"%ha%"}, []int64{0, 2}},
		{pred.LessThan, []any{"delta"}, []int64{0, 1, 2}},
		{pred.LessOrEqual, []any{"beta"}, []int64{0, 1, 2}},
		{pred.GreaterThan, []any{"beta"}, []int64{3}},
		{pred.GreaterOrEqual, []any{"beta"}, []int64{1, 3}},
		{pred.Between, []any{"beta", "delta"}, []int64{1, 3}},
	} {
		expectRows(t, tc.op.String(), answer(t, r, tc.op, tc.lits...), tc.want)
	}
}

// TestBitmapLikePatternScan: a like pattern no rewrite covers ('_', inner '%', escapes) is a
// fallback dictionary scan with Paimon's LIKE semantics; a malformed escape fails.
func TestBitmapLikePatternScan(t *testing.T) {
	s := newStore()
	f := bitmapFile(t, s, row("alpha", 0), row("beta", 1), row("alphabet", 2), row("a_b", 3), row("a%b", 4), row(nil, 5))
	r := newReader(t, bitmap.Identifier, types.String(), bitmap.DefaultFallbackScanMaxSize, 1, []File{f}, s.open)
	for pattern, want := range map[string][]int64{
		"a%a":    {0},
		"_eta":   {1},
		"a%b%t":  {2},
		`a\_b`:   {3},
		`a\%b`:   {4},
		"a_b":    {3, 4},
		"%":      {0, 1, 2, 3, 4},
		"":       {},
		"alpha_": {},
	} {
		expectRows(t, "like "+pattern, answer(t, r, pred.Like, pattern), want)
	}
	if _, _, err := r.Evaluate(t.Context(), pred.Predicate{Op: pred.Like, Literals: []any{`a\x_`}}); err == nil {
		t.Error("a malformed escape was answered")
	}
	unanswered(t, newReader(t, bitmap.Identifier, types.String(), 0, 1, []File{f}, s.open), pred.Like, "a_b")
}

// TestBitmapFallbackScanDisabledByBudget is LazyFilteredBitmapIndexReaderTest#testFallbackScanDisabledByBudget:
// a budget of one byte, smaller than the file, leaves the fallback predicates unanswered while
// an equality lookup is still answered.
func TestBitmapFallbackScanDisabledByBudget(t *testing.T) {
	s := newStore()
	f := bitmapFile(t, s, row("alpha", 0), row("beta", 1))
	r := newReader(t, bitmap.Identifier, types.String(), 1, 1, []File{f}, s.open)
	unanswered(t, r, pred.EndsWith, "ta")
	unanswered(t, r, pred.Contains, "ph")
	unanswered(t, r, pred.Like, "%ha%")
	unanswered(t, r, pred.LessThan, "beta")
	expectRows(t, "equal", answer(t, r, pred.Equal, "beta"), []int64{1})
}

// TestBitmapMultiFileComplementsUsePerFileOwnedRows is LazyFilteredBitmapIndexReaderTest#testMultiFileComplementsUsePerFileOwnedRows:
// each file answers a complement over its own rows, so a key of one file never leaks into the
// other file's complement and a null row of one file is in no complement.
func TestBitmapMultiFileComplementsUsePerFileOwnedRows(t *testing.T) {
	s := newStore()
	first := bitmapFile(t, s, row("A", 0), row("B", 1), row(nil, 2))
	second := bitmapFile(t, s, row("B", 3), row("C", 4), row("A", 5))
	r := newReader(t, bitmap.Identifier, types.String(), bitmap.DefaultFallbackScanMaxSize, 1, []File{first, second}, s.open)
	expectRows(t, "equal B", answer(t, r, pred.Equal, "B"), []int64{1, 3})
	expectRows(t, "not equal A", answer(t, r, pred.NotEqual, "A"), []int64{1, 3, 4})
	expectRows(t, "not in B", answer(t, r, pred.NotIn, "B"), []int64{0, 4, 5})
	expectRows(t, "is not null", answer(t, r, pred.IsNotNull), []int64{0, 1, 3, 4, 5})
}

// TestBitmapManifestMetaPrunesFilesBeforeLookup is LazyFilteredBitmapIndexReaderTest#testManifestMetaPrunesFilesBeforeLookup:
// the files' first and last keys keep an equality and a prefix lookup from opening the file
// that cannot match, and a null complement opens nothing.
func TestBitmapManifestMetaPrunesFilesBeforeLookup(t *testing.T) {
	s := newStore()
	first := bitmapFile(t, s, row("A", 0), row("B", 1))
	second := bitmapFile(t, s, row("Y", 2), row("Z", 3))
	r := newReader(t, bitmap.Identifier, types.String(), bitmap.DefaultFallbackScanMaxSize, 1, []File{first, second}, s.open)
	expectRows(t, "equal Z", answer(t, r, pred.Equal, "Z"), []int64{3})
	if n := s.openCount(); n != 1 {
		t.Fatalf("equal opened %d files, want 1 (the first file's key range excludes Z)", n)
	}
	expectRows(t, "starts with Z", answer(t, r, pred.StartsWith, "Z"), []int64{3})
	if n := s.openCount(); n != 1 {
		t.Fatalf("after starts with: %d opens, want 1", n)
	}
	expectRows(t, "not equal null", answer(t, r, pred.NotEqual, nil), []int64{})
	if n := s.openCount(); n != 1 {
		t.Fatalf("after not equal null: %d opens, want 1", n)
	}
}

// TestBitmapFallbackBudgetUsesSelectedFiles is LazyFilteredBitmapIndexReaderTest#testFallbackBudgetUsesSelectedFiles:
// the budget counts only the files a predicate selects: a range selecting the second file alone
// fits a budget of that file's size; a substring test selecting both does not.
func TestBitmapFallbackBudgetUsesSelectedFiles(t *testing.T) {
	s := newStore()
	first := bitmapFile(t, s, row("A", 0), row("B", 1))
	second := bitmapFile(t, s, row("Y", 2), row("Z", 3))
	r := newReader(t, bitmap.Identifier, types.String(), second.Size, 1, []File{first, second}, s.open)
	expectRows(t, "greater or equal Y", answer(t, r, pred.GreaterOrEqual, "Y"), []int64{2, 3})
	unanswered(t, r, pred.Contains, "Z")
}

// TestBitmapStringPredicatesOnNumbers: prefix and pattern predicates on a column that is no
// string are left unanswered whatever the budget, as Java's reader leaves them.
func TestBitmapStringPredicatesOnNumbers(t *testing.T) {
	s := newStore()
	ser := serializer(t, types.Int())
	f := s.write(t, bitmap.Identifier, ser, []sortkeytest.Row{{Key: int32(1), RowID: 0}, {Key: int32(2), RowID: 1}}, 0)
	r := newReader(t, bitmap.Identifier, types.Int(), bitmap.DefaultFallbackScanMaxSize, 1, []File{f}, s.open)
	unanswered(t, r, pred.StartsWith, int32(1))
	unanswered(t, r, pred.Like, "1%")
	unanswered(t, r, pred.EndsWith, int32(1))
	expectRows(t, "less than", answer(t, r, pred.LessThan, int32(2)), []int64{0})
	if s.openCount() != 1 {
		t.Fatalf("%d opens", s.openCount())
	}
}
