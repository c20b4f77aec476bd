package tableops_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestPartialUpdateMergeEngine checks merge-engine = partial-update through Go's writer and
// compaction on a deletion-vector table (LookupMergeFunction over PartialUpdateMergeFunction):
// nulls keep the old values in the write buffer and in the compaction at commit; a retraction
// without options fails the commit with Java's error and leaves no file; under
// partial-update.remove-record-on-delete a -D removes the row and a -U changes nothing; a full
// compaction keeps the merged rows; a configuration Java refuses is refused before writing.
func TestPartialUpdateMergeEngine(t *testing.T) {
	ctx := context.Background()
	I, D, UB := types.Insert, types.Delete, types.UpdateBefore
	tbl, root := newTable(t, map[string]string{"bucket": "1", "merge-engine": "partial-update", "deletion-vectors.enabled": "true"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, want map[int32]string) {
		t.Helper()
		if got := liveRecords(t, tbl); !maps.Equal(got, want) {
			t.Fatalf("%s: %v, want %v", step, got, want)
		}
	}
	must(writeRows(t, tbl, []any{I, int32(1), "a", int32(1)}, []any{I, int32(2), "b", int32(2)}))
	check("the first write", map[int32]string{1: "a/1", 2: "b/2"})
	must(writeRows(t, tbl, []any{I, int32(1), nil, int32(5)}, []any{types.UpdateAfter, int32(2), "c", nil},
		[]any{I, int32(3), "x", nil}, []any{I, int32(3), nil, int32(7)}))
	want := map[int32]string{1: "a/5", 2: "c/2", 3: "x/7"}
	check("the partial updates", want)

	before := listFiles(t, root)
	for _, kind := range []types.RowKind{D, UB} {
		err := writeRows(t, tbl, []any{kind, int32(1), nil, nil})
		if !errors.Is(err, mergetree.ErrPartialUpdateDelete) {
			t.Errorf("a %v row: commit error %v, want the partial-update delete error", kind, err)
		}
		if got := listFiles(t, root); !slices.Equal(got, before) {
			t.Errorf("a %v row: the failed commit left files %v", kind, added(before, got))
		}
	}

	setOptions(t, root, map[string]string{"partial-update.remove-record-on-delete": "true"})
	must(writeRows(t, tbl, []any{D, int32(1), nil, nil}, []any{UB, int32(2), nil, nil}, []any{I, int32(3), nil, int32(8)}))
	delete(want, 1)
	want[3] = "x/8"
	check("a -D and a -U under remove-record-on-delete", want)
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	check("the full compaction", want)

	setOptions(t, root, map[string]string{"ignore-delete": "true"})
	before = listFiles(t, root)
	_, werr := tableops.OpenWriter(ctx, tbl, nil)
	_, cerr := tableops.Compact(ctx, tbl, nil)
	for _, err := range []error{werr, cerr} {
		if err == nil || !contains(err.Error(), "ignore-delete and partial-update.remove-record-on-delete have conflicting behavior") {
			t.Errorf("ignore-delete with remove-record-on-delete: %v", err)
		}
	}
	if !slices.Equal(listFiles(t, root), before) {
		t.Error("a refused configuration: files changed")
	}
}
