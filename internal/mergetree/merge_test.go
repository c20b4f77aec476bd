package mergetree

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

func mergeSchema(opts map[string]string) *schema.TableSchema {
	return &schema.TableSchema{PrimaryKeys: []string{"id"}, Options: opts,
		Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "ts", types.BigInt()),
			types.Field(2, "v", types.String()), types.Field(3, "m", types.Map(types.Int(), types.Int()))}}
}

func kv(seq int64, kind types.RowKind, ts any, v string) *kvfile.KeyValue {
	return &kvfile.KeyValue{Key: []any{int32(1)}, Seq: seq, Kind: kind, Value: []any{int32(1), ts, v, nil}}
}

func TestParseMerge(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"sequence.field": "nope"}, "Sequence field: 'nope' can not be found in table schema."},
		{map[string]string{"sequence.field": "ts, ts"}, "Sequence field 'ts' is defined repeatedly."},
		{map[string]string{"sequence.field": "m"}, "option sequence.field = \"m\": field m of type MAP"},
		{map[string]string{"sequence.field": "ts", "merge-engine": "first-row"}, "Do not support use sequence field on FIRST_ROW merge engine."},
		{map[string]string{"merge-engine": "first-row", "deletion-vectors.enabled": "true"}, "First row merge engine does not need deletion vectors"},
		{map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "count"}, "Use unsupported aggregation: count or spell aggregate function incorrectly!"},
		{map[string]string{"sequence.field.sort-order": "up"}, "sequence.field.sort-order"},
	} {
		_, err := ParseMerge(mergeSchema(c.opts), false)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: error %v, want %q", c.opts, err, c.err)
		}
	}
	m, err := ParseMerge(mergeSchema(map[string]string{"sequence.field": " ts ,v", "sequence.field.sort-order": "DESCENDING", "first-row.ignore-delete": "true"}), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.SeqFields) != 2 || m.SeqFields[0] != 1 || m.SeqFields[1] != 2 || !m.SeqDescending || !m.IgnoreDelete || !m.LookupWrapped {
		t.Errorf("parsed %+v", m)
	}
}

// TestMergeOrderAndFunctions checks the order of one key's records (UserDefinedSeqComparator:
// null first in both orders, then the sequence number) and the merge functions over it.
func TestMergeOrderAndFunctions(t *testing.T) {
	asc := &Merge{SeqFields: []int{1}}
	desc := &Merge{SeqFields: []int{1}, SeqDescending: true}
	a, b, n := kv(5, types.Insert, int64(10), "a"), kv(1, types.Insert, int64(20), "b"), kv(9, types.Insert, nil, "n")
	if asc.Compare(a, b) >= 0 || desc.Compare(a, b) <= 0 {
		t.Error("sequence field order")
	}
	if asc.Compare(n, a) >= 0 || desc.Compare(n, a) >= 0 {
		t.Error("a null sequence field must sort first in both orders")
	}
	same := kv(7, types.Insert, int64(10), "c")
	if asc.Compare(a, same) >= 0 || desc.Compare(a, same) >= 0 {
		t.Error("equal sequence fields: the sequence number decides")
	}

	recs := func(kvs ...*kvfile.KeyValue) []Record {
		out := make([]Record, len(kvs))
		for i, x := range kvs {
			out[i] = Record{KV: x, Level: -1}
		}
		return out
	}
	del := kv(11, types.Delete, int64(30), "d")
	dedup := &Merge{}
	if got, _ := dedup.Reduce(recs(a, b, del)); got != del {
		t.Errorf("deduplicate keeps the last record, got %v", got)
	}
	if got, _ := (&Merge{IgnoreDelete: true}).Reduce(recs(a, b, del)); got != b {
		t.Errorf("deduplicate with ignore-delete skips the retraction, got %v", got)
	}
	if got, _ := (&Merge{IgnoreDelete: true}).Reduce(recs(del)); got != del {
		t.Errorf("a single record is the result as it is (ReducerMergeFunctionWrapper), got %v", got)
	}
	first := &Merge{Engine: FirstRow}
	if got, _ := first.Reduce(recs(a, b)); got != a {
		t.Errorf("first-row keeps the first record, got %v", got)
	}
	if _, err := first.Reduce(recs(a, del)); !errors.Is(err, ErrFirstRowRetract) {
		t.Errorf("first-row over a retraction: %v", err)
	}
	if got, _ := (&Merge{Engine: FirstRow, IgnoreDelete: true}).Reduce(recs(del, b)); got != b {
		t.Errorf("first-row with ignore-delete skips the retraction, got %v", got)
	}

	// LookupMergeFunction: level-0 records and the first record of the lowest level above 0.
	l := &Merge{LookupWrapped: true}
	hi1, hi2 := kv(2, types.Insert, nil, "l1"), kv(1, types.Insert, nil, "l2")
	got, _ := l.Reduce([]Record{{hi2, 2}, {hi1, 1}})
	if got != hi1 {
		t.Errorf("lookup-wrapped merge of two high levels: %v, want the level-1 record", got)
	}
	lvl0 := kv(3, types.Insert, nil, "l0")
	if got, _ := l.LookupMerge([]Record{{lvl0, 0}}, hi1); got != lvl0 {
		t.Errorf("looked-up older record: %v", got)
	}
	newer := kv(8, types.Insert, nil, "new")
	if got, _ := l.LookupMerge([]Record{{lvl0, 0}}, newer); got != newer {
		t.Errorf("looked-up newer record: %v", got)
	}
	seqL := &Merge{LookupWrapped: true, SeqFields: []int{1}}
	if got, _ := seqL.LookupMerge([]Record{{a, 0}}, b); got != b {
		t.Errorf("looked-up record with the larger sequence field: %v", got)
	}

	yes := func() (bool, error) { return true, nil }
	no := func() (bool, error) { return false, nil }
	if got, _ := first.FirstRowLookup([]Record{{a, 0}}, yes); got != nil {
		t.Errorf("first-row: a key the higher levels hold is dropped, got %v", got)
	}
	if got, _ := first.FirstRowLookup([]Record{{a, 0}}, no); got != a {
		t.Errorf("first-row: a new key is kept, got %v", got)
	}
	if got, _ := first.FirstRowLookup([]Record{{b, 3}, {a, 0}}, yes); got != b {
		t.Errorf("first-row: with a high-level record no lookup, first kept, got %v", got)
	}
}
