package inspect

import (
	"encoding/base64"
	"reflect"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/pksortedtest"
	"github.com/paimon-pkft/pkft/internal/types"
)

func sortedDataFile(name string, level int32, rows int64) *meta.DataFileMeta {
	return pksortedtest.DataFile(name, rows, level)
}

// sortedPayload is a payload over files whose index meta is a decodable SortedIndexFileMeta.
func sortedPayload(t *testing.T, typ, name string, field int32, level int32, files ...*meta.DataFileMeta) *meta.IndexFileMeta {
	t.Helper()
	var rows int64
	for _, f := range files {
		rows += f.RowCount
	}
	p := pksortedtest.Payload(t, typ, name, field, level, rows, files...)
	p.GlobalIndex.IndexMeta = filemeta.Meta{FirstKey: []byte{1}, HasNulls: true}.Encode()
	return p
}

// TestSortedStates: each sorted definition of the schema, in field order, classifies only its own
// payloads (type and field) and plans the next rebuild with the shared planner.
func TestSortedStates(t *testing.T) {
	s := &schema.TableSchema{
		Fields:  []types.DataField{{ID: 0, Name: "id"}, {ID: 3, Name: "status"}, {ID: 5, Name: "price"}},
		Options: map[string]string{"pk-btree.index.columns": "price", "pk-bitmap.index.columns": "status"},
	}
	a, b, c := sortedDataFile("a", 1, 2), sortedDataFile("b", 1, 3), sortedDataFile("c", 2, 4)
	b1 := sortedPayload(t, "btree", "btree-l1", 5, 1, a, b)
	m1 := sortedPayload(t, "bitmap", "bitmap-partial", 3, 1, a)
	other := sortedPayload(t, "btree", "other-field", 9, 2, c)
	bucket := &table.Bucket{DataFiles: []*meta.DataFileMeta{c, b, a}, IndexFiles: []*meta.IndexFileMeta{other, m1, b1}}

	got := sortedStates(s, bucket)
	want := []SortedDump{{
		IndexType: "bitmap", Column: "status", FieldID: 3,
		Groups: []SortedGroupDump{}, Covered: []string{}, Uncovered: []string{"a", "b", "c"}, Rejected: []string{"bitmap-partial"},
		Plan: &PlanDump{Level: 1, Input: []string{}, Files: []string{"a", "b"}},
	}, {
		IndexType: "btree", Column: "price", FieldID: 5,
		Groups:  []SortedGroupDump{{Level: 1, Sources: []string{"a", "b"}, Payloads: []string{"btree-l1"}}},
		Covered: []string{"a", "b"}, Uncovered: []string{"c"}, Rejected: []string{},
		Plan: &PlanDump{Level: 2, Input: []string{}, Files: []string{"c"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sortedStates =\n%+v\nwant\n%+v", got, want)
	}
	if d := sortedStates(&schema.TableSchema{Fields: s.Fields}, bucket); d != nil {
		t.Fatalf("a table without sorted indexes: %+v", d)
	}
}

func TestSortedIndexMetaInDump(t *testing.T) {
	d := dumpIndexFile(sortedPayload(t, "btree", "p", 5, 1, sortedDataFile("a", 1, 2)))
	want := map[string]any{"firstKey": base64.StdEncoding.EncodeToString([]byte{1}), "lastKey": nil, "hasNulls": true}
	if !reflect.DeepEqual(d.GlobalIndex.IndexMeta, want) {
		t.Fatalf("index meta %#v, want %#v", d.GlobalIndex.IndexMeta, want)
	}
	bad := sortedPayload(t, "bitmap", "q", 5, 1, sortedDataFile("a", 1, 2))
	bad.GlobalIndex.IndexMeta = []byte{1, 2}
	if got := dumpIndexFile(bad).GlobalIndex.IndexMeta; !reflect.DeepEqual(got, map[string]any{"error": Unparsable}) {
		t.Fatalf("truncated index meta dumped as %#v", got)
	}
}
