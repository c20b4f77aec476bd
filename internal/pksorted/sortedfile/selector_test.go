package sortedfile

import (
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// metaFile is a file that is never opened, with the meta first..last (nil, nil: only nulls).
func metaFile(t *testing.T, typ types.DataType, name string, first, last any, hasNulls bool) File {
	t.Helper()
	ser := serializer(t, typ)
	m := filemeta.Meta{HasNulls: hasNulls}
	var err error
	if first != nil {
		if m.FirstKey, err = ser.Encode(first); err != nil {
			t.Fatal(err)
		}
		if m.LastKey, err = ser.Encode(last); err != nil {
			t.Fatal(err)
		}
	}
	return File{Name: name, Size: 1, Meta: m.Encode()}
}

// selected returns the names of the files p visits, or nil when p is left unanswered.
func selected(t *testing.T, r *Reader, op pred.Op, lits ...any) []string {
	t.Helper()
	pl, err := r.plan(pred.Predicate{Op: op, Literals: lits})
	if err != nil {
		t.Fatalf("%s %v: %v", op, lits, err)
	}
	if !pl.answered {
		return nil
	}
	names := []string{}
	for _, f := range pl.files {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

func expectFiles(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: files %v, want %v", what, got, want)
	}
}

// TestMetaSelector is SortedFileMetaSelectorTest#testMetaSelector: six INT files (1..10 with
// nulls, 15..20, 21..30 with nulls, 1..5, 19..25 with nulls, only nulls) selected by ranges and
// their boundaries, null tests, in / not in, between and null literals. Java calls the selector
// directly; here the reader's plan shows the files it would visit.
func TestMetaSelector(t *testing.T) {
	typ := types.Int()
	files := []File{
		metaFile(t, typ, "file1", int32(1), int32(10), true),
		metaFile(t, typ, "file2", int32(15), int32(20), false),
		metaFile(t, typ, "file3", int32(21), int32(30), true),
		metaFile(t, typ, "file4", int32(1), int32(5), false),
		metaFile(t, typ, "file5", int32(19), int32(25), true),
		metaFile(t, typ, "file6", nil, nil, true),
	}
	for _, indexType := range []string{btree.Identifier, bitmap.Identifier} {
		r := newReader(t, indexType, typ, btree.DefaultFallbackScanMaxSize, 1, files, newStore().open)
		sel := func(op pred.Op, lits ...int32) []string {
			anys := make([]any, len(lits))
			for i, l := range lits {
				anys[i] = l
			}
			return selected(t, r, op, anys...)
		}
		all := []string{"file1", "file2", "file3", "file4", "file5"}
		expectFiles(t, "< 8", sel(pred.LessThan, 8), "file1", "file4")
		expectFiles(t, "<= 20", sel(pred.LessOrEqual, 20), "file1", "file2", "file4", "file5")
		expectFiles(t, "> 20", sel(pred.GreaterThan, 20), "file3", "file5")
		expectFiles(t, ">= 5", sel(pred.GreaterOrEqual, 5), all...)
		expectFiles(t, "= 22", sel(pred.Equal, 22), "file3", "file5")
		expectFiles(t, "!= 22", sel(pred.NotEqual, 22), all...)
		expectFiles(t, "< 15", sel(pred.LessThan, 15), "file1", "file4")
		expectFiles(t, "<= 15", sel(pred.LessOrEqual, 15), "file1", "file2", "file4")
		expectFiles(t, ">= 20", sel(pred.GreaterOrEqual, 20), "file2", "file3", "file5")
		expectFiles(t, "= 30", sel(pred.Equal, 30), "file3")
		expectFiles(t, "< 1", sel(pred.LessThan, 1))
		expectFiles(t, "> 30", sel(pred.GreaterThan, 30))
		expectFiles(t, "is null", sel(pred.IsNull), "file1", "file3", "file5", "file6")
		expectFiles(t, "is not null", sel(pred.IsNotNull), all...)
		expectFiles(t, "in", sel(pred.In, 1, 2, 3, 26, 27, 28), "file1", "file4", "file3")
		expectFiles(t, "not in", sel(pred.NotIn, 1, 7, 19, 30, 31), all...)
		expectFiles(t, "between 0 15", sel(pred.Between, 0, 15), "file1", "file2", "file4")
		expectFiles(t, "between 0 30", sel(pred.Between, 0, 30), all...)
		expectFiles(t, "between 40 50", sel(pred.Between, 40, 50))
		expectFiles(t, "= null", selected(t, r, pred.Equal, nil))
		expectFiles(t, "!= null", selected(t, r, pred.NotEqual, nil))
		expectFiles(t, "in null, 22", selected(t, r, pred.In, nil, int32(22)), "file3", "file5")
		expectFiles(t, "in null, null", selected(t, r, pred.In, nil, nil))
		expectFiles(t, "not in 1, null", selected(t, r, pred.NotIn, int32(1), nil))
		expectFiles(t, "between 20 10", sel(pred.Between, 20, 10))
	}
}

// TestStringPrefixSelector is SortedFileMetaSelectorTest#testStringPrefixSelector: a prefix
// selects the files whose key range can hold it (every file with a key for the empty prefix);
// contains selects every file with a key. A null prefix, which Java's selector maps to no file,
// is left unanswered by the reader before selection, as Java's reader leaves it.
func TestStringPrefixSelector(t *testing.T) {
	typ := types.String()
	files := []File{
		metaFile(t, typ, "file1", "alpha", "azalea", true),
		metaFile(t, typ, "file2", "beta", "delta", false),
		metaFile(t, typ, "file3", "tag-001", "tag-999", false),
		metaFile(t, typ, "file4", nil, nil, true),
	}
	r := newReader(t, bitmap.Identifier, typ, bitmap.DefaultFallbackScanMaxSize, 1, files, newStore().open)
	expectFiles(t, "starts with a", selected(t, r, pred.StartsWith, "a"), "file1")
	expectFiles(t, "starts with tag-", selected(t, r, pred.StartsWith, "tag-"), "file3")
	expectFiles(t, "starts with empty", selected(t, r, pred.StartsWith, ""), "file1", "file2", "file3")
	if got := selected(t, r, pred.StartsWith, nil); got != nil {
		t.Errorf("starts with null: %v, want unanswered", got)
	}
	expectFiles(t, "contains a", selected(t, r, pred.Contains, "a"), "file1", "file2", "file3")
	expectFiles(t, "starts with \\xff", selected(t, r, pred.StartsWith, "\xff\xff"))
}

// TestStartsWithUsesKeyComparatorForMetaPruning is
// SortedFileMetaSelectorTest#testStartsWithUsesKeyComparatorForMetaPruning: a file of the keys
// "b".."bb" is pruned for the prefix "aa" (the range ["aa", "ab") lies before "b"). Java builds the
// meta with a length-prefixed serializer, whose byte order would overlap the prefix range, to
// show that pruning compares decoded keys; Go's one string serializer orders as its comparator,
// so the same inputs check the same outcome, with the keys decoded from the meta (prefixFiles).
func TestStartsWithUsesKeyComparatorForMetaPruning(t *testing.T) {
	typ := types.String()
	files := []File{metaFile(t, typ, "file1", "b", "bb", false)}
	for _, indexType := range []string{btree.Identifier, bitmap.Identifier} {
		r := newReader(t, indexType, typ, btree.DefaultFallbackScanMaxSize, 1, files, newStore().open)
		got := selected(t, r, pred.StartsWith, "aa")
		if got == nil {
			t.Fatalf("%s: starts with aa left unanswered, want an answer with no file", indexType)
		}
		expectFiles(t, indexType+": starts with aa", got)
		expectFiles(t, indexType+": starts with b", selected(t, r, pred.StartsWith, "b"), "file1")
	}
}

// TestEmptyStringKeyDoesNotThrowNPE is SortedFileMetaSelectorTest#testEmptyStringKeyDoesNotThrowNPE:
// a file whose first key is the empty string is a file with keys, selected by equality, ranges
// and in like any other.
func TestEmptyStringKeyDoesNotThrowNPE(t *testing.T) {
	typ := types.String()
	files := []File{
		metaFile(t, typ, "file_empty", "", "www.example.com", false),
		metaFile(t, typ, "file_normal", "aaa.com", "zzz.com", false),
		metaFile(t, typ, "file_nulls", nil, nil, true),
	}
	r := newReader(t, btree.Identifier, typ, btree.DefaultFallbackScanMaxSize, 1, files, newStore().open)
	expectFiles(t, "equal", selected(t, r, pred.Equal, "www.example.com"), "file_empty", "file_normal")
	expectFiles(t, "less than", selected(t, r, pred.LessThan, "bbb.com"), "file_empty", "file_normal")
	expectFiles(t, "greater than", selected(t, r, pred.GreaterThan, "www.example.com"), "file_normal")
	expectFiles(t, "in", selected(t, r, pred.In, "www.example.com", "zzz.com"), "file_empty", "file_normal")
	expectFiles(t, "between", selected(t, r, pred.Between, "", "zzz.com"), "file_empty", "file_normal")
}
