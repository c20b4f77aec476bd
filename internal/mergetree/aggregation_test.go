package mergetree

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree/aggregate"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// aggSchema is a table (id, ts, total, tags, note) with the aggregation engine and extra options.
func aggSchema(opts map[string]string) *schema.TableSchema {
	o := map[string]string{"merge-engine": "aggregation"}
	for k, v := range opts {
		o[k] = v
	}
	return &schema.TableSchema{PrimaryKeys: []string{"id"}, Options: o,
		Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "ts", types.BigInt()),
			types.Field(2, "total", types.Int()), types.Field(3, "tags", types.String()), types.Field(4, "note", types.String().AsNotNull())}}
}

func aggKV(seq int64, kind types.RowKind, ts, total, tags, note any) *kvfile.KeyValue {
	return &kvfile.KeyValue{Key: []any{int32(1)}, Seq: seq, Kind: kind, Value: []any{int32(1), ts, total, tags, note}}
}

// TestParseAggregation checks the options of the aggregation engine are validated as Java's
// SchemaValidation and FieldAggregatorFactory do, before anything is written.
func TestParseAggregation(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"fields.nope.aggregate-function": "sum"}, "Field nope can not be found in table schema."},
		{map[string]string{"fields.total,nope.sequence-group": "ts"}, "Field nope can not be found in table schema."},
		{map[string]string{"fields.total.aggregate-function": "count"}, "Use unsupported aggregation: count or spell aggregate function incorrectly!"},
		{map[string]string{"fields.default-aggregate-function": "avg"}, "Use unsupported aggregation: avg"},
		{map[string]string{"fields.tags.aggregate-function": "sum"}, "Data type for sum column must be 'NumericType' but was 'STRING'."},
		{map[string]string{"fields.default-aggregate-function": "sum"}, "Data type for sum column must be 'NumericType' but was 'STRING'."},
		{map[string]string{"fields.total.aggregate-function": "rbm32"}, "rbm32"},
		{map[string]string{"sequence.field": "ts", "fields.ts.aggregate-function": "max"}, "Should not define aggregation on sequence field: 'ts'."},
		{map[string]string{"aggregation.remove-record-on-delete": "true", "fields.total.ignore-retract": "true"},
			"aggregation.remove-record-on-delete and fields.total.ignore-retract have conflicting behavior"},
		{map[string]string{"aggregation.remove-record-on-delete": "maybe"}, "aggregation.remove-record-on-delete"},
		{map[string]string{"fields.total.distinct": "maybe"}, "fields.total.distinct"},
	} {
		_, err := ParseMerge(aggSchema(c.opts), true)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: error %v, want %q", c.opts, err, c.err)
		}
	}
	// A primary-key field takes primary-key whatever it sets (getAggFuncName), a sequence
	// field last_value, a default covers the fields without their own.
	m, err := ParseMerge(aggSchema(map[string]string{"fields.id.aggregate-function": "sum", "sequence.field": "ts",
		"fields.default-aggregate-function": "last_value", "fields.total.aggregate-function": "sum"}), true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range m.agg.aggs {
		names = append(names, a.Name())
	}
	if d := cmp.Diff([]string{"primary-key", "last_value", "sum", "last_value", "last_value"}, names); d != "" {
		t.Errorf("functions (-want +got):\n%s", d)
	}
	if m.Engine != Aggregation || m.Engine.String() != "aggregation" || !m.LookupWrapped {
		t.Errorf("parsed %+v", m)
	}
}

// TestAggregationMerge checks AggregateMergeFunction through the table's merge: the write
// buffer's reduce (a single record as it is, several folded), retractions, remove-record-on-delete
// and the lookup merge (level 0 with the looked-up high-level record first).
func TestAggregationMerge(t *testing.T) {
	m, err := ParseMerge(aggSchema(map[string]string{"fields.total.aggregate-function": "sum",
		"fields.tags.aggregate-function": "listagg", "fields.tags.ignore-retract": "true", "fields.tags.list-agg-delimiter": "|"}), true)
	if err != nil {
		t.Fatal(err)
	}
	buf := func(kvs ...*kvfile.KeyValue) []Record {
		out := make([]Record, len(kvs))
		for i, x := range kvs {
			out[i] = Record{KV: x, Level: -1}
		}
		return out
	}
	del := aggKV(3, types.Delete, nil, int32(4), "x", "gone")
	if got, _ := m.Reduce(buf(del)); got != del {
		t.Errorf("a single record is the result as it is, got %v", got)
	}
	got, err := m.Reduce(buf(aggKV(1, types.Insert, int64(5), int32(10), "a", "n1"), aggKV(2, types.Insert, nil, nil, "b", "n2"), del))
	if err != nil {
		t.Fatal(err)
	}
	want := &kvfile.KeyValue{Key: []any{int32(1)}, Seq: 3, Kind: types.Insert, Value: []any{int32(1), int64(5), int32(6), "a|b", nil}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fold (-want +got):\n%s", d)
	}
	// LookupMergeFunction: the looked-up record joins before the level-0 records; even one
	// record goes through the function (a DELETE alone retracts from nothing).
	high := aggKV(1, types.Insert, int64(1), int32(100), "h", "hn")
	got, err = m.LookupMerge([]Record{{aggKV(5, types.Insert, int64(2), int32(1), "l", "ln"), 0}}, high)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]any{int32(1), int64(2), int32(101), "h|l", "ln"}, got.Value); d != "" {
		t.Errorf("lookup merge (-want +got):\n%s", d)
	}
	got, err = m.LookupMerge([]Record{{del, 0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&kvfile.KeyValue{Key: []any{int32(1)}, Seq: 3, Kind: types.Insert, Value: []any{int32(1), nil, int32(-4), nil, nil}}, got); d != "" {
		t.Errorf("lookup merge of a lone DELETE (-want +got):\n%s", d)
	}
	// Two high levels: only the lowest one merges with level 0.
	got, _ = m.Reduce([]Record{{aggKV(1, types.Insert, nil, int32(7), nil, "l2"), 2}, {aggKV(2, types.Insert, nil, int32(5), nil, "l1"), 1},
		{aggKV(3, types.Insert, nil, int32(1), nil, "l0"), 0}})
	if got.Value[2] != int32(6) {
		t.Errorf("lookup-wrapped reduce over two high levels: %v", got.Value)
	}

	// A function without retraction fails the merge with Java's error.
	noRetract, err := ParseMerge(aggSchema(map[string]string{"fields.total.aggregate-function": "max"}), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noRetract.Reduce(buf(aggKV(1, types.Insert, nil, int32(1), nil, "a"), aggKV(2, types.UpdateBefore, nil, int32(1), nil, "a"))); !errors.Is(err, aggregate.ErrNoRetract) {
		t.Errorf("max over a retraction: %v", err)
	}

	// remove-record-on-delete: a DELETE replaces the row and the result is a DELETE; a later
	// record aggregates into the DELETE's values.
	rm, err := ParseMerge(aggSchema(map[string]string{"fields.total.aggregate-function": "sum", "aggregation.remove-record-on-delete": "true"}), false)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = rm.Reduce(buf(aggKV(1, types.Insert, nil, int32(10), "a", "n"), aggKV(2, types.Delete, nil, int32(3), "d", "dn")))
	if got.Kind != types.Delete || got.Value[2] != int32(3) || got.Value[3] != "d" {
		t.Errorf("delete removes: %+v", got)
	}
	got, _ = rm.Reduce(buf(aggKV(1, types.Delete, nil, int32(3), "d", "dn"), aggKV(2, types.Insert, nil, int32(10), nil, "n")))
	if got.Kind != types.Insert || got.Value[2] != int32(13) || got.Value[3] != "d" {
		t.Errorf("insert after delete: %+v", got)
	}
	got, _ = rm.Reduce(buf(aggKV(1, types.Insert, nil, int32(10), nil, "n"), aggKV(2, types.UpdateBefore, nil, int32(4), nil, "n")))
	if got.Kind != types.Insert || got.Value[2] != int32(6) {
		t.Errorf("UPDATE_BEFORE retracts: %+v", got)
	}
	if _, err := rm.Reduce(buf(aggKV(1, types.Insert, nil, int32(10), nil, "n"), aggKV(2, types.Delete, nil, nil, nil, nil))); !errors.Is(err, ErrNullOnDelete) {
		t.Errorf("a DELETE with null in a NOT NULL field: %v", err)
	}
}

// TestAggregationConcurrentMerges checks merges of different keys may run at once (buckets
// compact concurrently) although first_value keeps state for the key it merges.
func TestAggregationConcurrentMerges(t *testing.T) {
	m, err := ParseMerge(aggSchema(map[string]string{"fields.total.aggregate-function": "first_value"}), false)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				first := int32(g*1000 + i)
				got, err := m.Reduce([]Record{{aggKV(1, types.Insert, nil, first, nil, "a"), -1}, {aggKV(2, types.Insert, nil, int32(-1), nil, "b"), -1}})
				if err != nil || got.Value[2] != first {
					errs <- fmt.Errorf("merge %d/%d: %v, %v", g, i, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
