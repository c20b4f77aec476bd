package tableops_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/mergetree/aggregate"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestAggregationMergeEngine checks merge-engine = aggregation through Go's writer and
// compaction on a deletion-vector table: the write buffer folds a key's records, the lookup
// compaction at commit folds the level-0 record into the key's row from the higher levels,
// retractions subtract (sum) or are ignored (listagg with ignore-retract), a full compaction
// keeps the rows; a retraction reaching a function without one fails the commit and a function
// over a type it does not take fails before writing, with no file left.
func TestAggregationMergeEngine(t *testing.T) {
	ctx := context.Background()
	I, D, UB, UA := types.Insert, types.Delete, types.UpdateBefore, types.UpdateAfter
	tbl, root := newTable(t, map[string]string{"bucket": "1", "merge-engine": "aggregation", "deletion-vectors.enabled": "true",
		"fields.content.aggregate-function": "listagg", "fields.content.ignore-retract": "true", "fields.content.list-agg-delimiter": " ",
		"fields.v.aggregate-function": "sum"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writeRows(t, tbl, []any{I, int32(1), "a", int32(1)}, []any{I, int32(2), "x", int32(10)}, []any{I, int32(1), "b", int32(2)}))
	want := map[int32]string{1: "a b/3", 2: "x/10"}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after the first write: %v, want %v", got, want)
	}
	must(writeRows(t, tbl, []any{UB, int32(1), "a", int32(1)}, []any{UA, int32(1), "c", int32(5)}, []any{D, int32(2), "x", int32(4)},
		[]any{I, int32(3), nil, nil}))
	want = map[int32]string{1: "a b c/7", 2: "x/6", 3: "<nil>/<nil>"}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after the retractions: %v, want %v", got, want)
	}
	must(writeRows(t, tbl, []any{D, int32(4), "gone", int32(3)}))
	want[4] = "<nil>/-3"
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after a lone DELETE of a new key: %v, want %v", got, want)
	}
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after the full compaction: %v, want %v", got, want)
	}

	setOptions(t, root, map[string]string{"fields.v.aggregate-function": "max"})
	before := listFiles(t, root)
	err := writeRows(t, tbl, []any{UB, int32(1), nil, int32(7)})
	if !errors.Is(err, aggregate.ErrNoRetract) {
		t.Errorf("max over a retraction: %v", err)
	}
	if got := listFiles(t, root); !slices.Equal(got, before) {
		t.Errorf("the failed commit left files %v", added(before, got))
	}

	setOptions(t, root, map[string]string{"fields.v.aggregate-function": "bool_or"})
	before = listFiles(t, root)
	_, werr := tableops.OpenWriter(ctx, tbl, nil)
	_, cerr := tableops.Compact(ctx, tbl, nil)
	for _, err := range []error{werr, cerr} {
		if err == nil || !contains(err.Error(), "Data type for bool or column must be 'BooleanType' but was 'INT'.") {
			t.Errorf("bool_or over INT: %v", err)
		}
	}
	if !slices.Equal(listFiles(t, root), before) {
		t.Error("bool_or over INT: files changed")
	}
	setOptions(t, root, map[string]string{"fields.v.aggregate-function": "hll_sketch"})
	before = listFiles(t, root)
	if err := writeRows(t, tbl, []any{I, int32(9), "z", int32(1)}); err == nil || !contains(err.Error(), "hll_sketch") {
		t.Errorf("hll_sketch: %v", err)
	}
	if !slices.Equal(listFiles(t, root), before) {
		t.Error("refused tables: files changed")
	}
}
