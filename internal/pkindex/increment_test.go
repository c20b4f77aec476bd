package pkindex

import (
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

func incPayload(name string) *meta.IndexFileMeta {
	return &meta.IndexFileMeta{
		IndexType: "btree", FileName: name, FileSize: 1, RowCount: 3,
		GlobalIndex: &meta.GlobalIndexMeta{RowRangeEnd: 2, IndexFieldID: 7, SourceMeta: []byte{1}},
	}
}

func TestSameIndexFileFollowsJavaEquals(t *testing.T) {
	a, b := incPayload("p"), incPayload("p")
	if !SameIndexFile(a, b) {
		t.Fatal("equal values differ")
	}
	b.GlobalIndex.IndexMeta = []byte{}
	if SameIndexFile(a, b) {
		t.Fatal("null and empty index meta compare equal")
	}
	a.GlobalIndex.IndexMeta = []byte{}
	one, two := int64(1), int64(1)
	a.DVRanges = []meta.DeletionVectorMeta{{DataFileName: "x", Cardinality: &one}, {DataFileName: "y"}}
	b.DVRanges = []meta.DeletionVectorMeta{{DataFileName: "y"}, {DataFileName: "x", Cardinality: &two}}
	if !SameIndexFile(a, b) {
		t.Fatal("deletion-vector ranges compared by order or pointer")
	}
	path := "ext"
	b.ExternalPath = &path
	if SameIndexFile(a, b) || SameIndexFile(a, nil) {
		t.Fatal("external path ignored")
	}
}

func TestRemoveIndexFileRemovesFirstEqual(t *testing.T) {
	x, y := incPayload("x"), incPayload("y")
	list := []*meta.IndexFileMeta{x, y, incPayload("x")}
	got, ok := RemoveIndexFile(list, incPayload("x"))
	if !ok || len(got) != 2 || got[0] != y || got[1].FileName != "x" {
		t.Fatalf("RemoveIndexFile = %v, %v", got, ok)
	}
	if list[0] != x {
		t.Fatal("the input list was modified")
	}
	if _, ok := RemoveIndexFile(list, incPayload("z")); ok {
		t.Fatal("removed a missing file")
	}
}

func TestApplyCompactTransition(t *testing.T) {
	compact := meta.FileSourceCompact
	file := func(name string, level int32) *meta.DataFileMeta {
		return &meta.DataFileMeta{FileName: name, Level: level, RowCount: 1, FileSource: &compact}
	}
	active := map[string]*meta.DataFileMeta{"a": file("a", 1), "b": file("b", 1)}
	ApplyCompactTransition(active, CompactIncrement{
		CompactBefore: []*meta.DataFileMeta{file("a", 1), file("b", 1)},
		CompactAfter:  []*meta.DataFileMeta{file("b", 2), file("c", 0)},
	})
	if len(active) != 1 || active["b"] == nil || active["b"].Level != 2 {
		t.Fatalf("active = %v, want only b on level 2", active)
	}
	if !(CompactIncrement{CompactAfter: []*meta.DataFileMeta{file("c", 0)}}).HasDataTransition() || (CompactIncrement{}).HasDataTransition() {
		t.Fatal("HasDataTransition")
	}
}

func TestIndexColumnsSplitsAsJava(t *testing.T) {
	opts := map[string]string{"pk-btree.index.columns": " a ,,b\t"}
	if got := IndexColumns(opts, "pk-btree.index.columns"); !slices.Equal(got, []string{"a", "", "b"}) {
		t.Fatalf("IndexColumns = %q", got)
	}
	if got := IndexColumns(opts, "pk-bitmap.index.columns"); got != nil {
		t.Fatalf("unset option gave %q", got)
	}
}
