package mergetree

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// puSchema is id (key), a, s1, b, s2, c: s1 and s2 can order sequence groups.
func puSchema(opts map[string]string) *schema.TableSchema {
	o := map[string]string{"merge-engine": "partial-update"}
	for k, v := range opts {
		o[k] = v
	}
	return &schema.TableSchema{PrimaryKeys: []string{"id"}, Options: o,
		Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "a", types.String()),
			types.Field(2, "s1", types.Int()), types.Field(3, "b", types.String()), types.Field(4, "s2", types.BigInt()),
			types.Field(5, "c", types.String()), types.Field(6, "m", types.Map(types.Int(), types.Int()))}}
}

func puMerge(t *testing.T, opts map[string]string) *Merge {
	t.Helper()
	m, err := ParseMerge(puSchema(opts), false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Engine != PartialUpdate || m.Engine.String() != "partial-update" {
		t.Fatalf("engine %v", m.Engine)
	}
	return m
}

// pu is a record of key 1: a, s1, b, s2, c (nil for null; s1 an int32, s2 an int64).
func pu(seq int64, kind types.RowKind, a, s1, b, s2, c any) *kvfile.KeyValue {
	return &kvfile.KeyValue{Key: []any{int32(1)}, Seq: seq, Kind: kind, Value: []any{int32(1), a, s1, b, s2, c, nil}}
}

func reduceAll(t *testing.T, m *Merge, kvs ...*kvfile.KeyValue) (*kvfile.KeyValue, error) {
	t.Helper()
	recs := make([]Record, len(kvs))
	for i, kv := range kvs {
		recs[i] = Record{KV: kv, Level: -1}
	}
	return m.Reduce(recs)
}

func wantKV(t *testing.T, name string, got *kvfile.KeyValue, err error, want *kvfile.KeyValue) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: merged record (-want +got):\n%s", name, d)
	}
}

// TestPartialUpdateMerge checks PartialUpdateMergeFunction's merge: non-null fields overwrite and
// nulls keep the old values; retractions are Java's error without options, ignored under
// ignore-delete (a first retraction still fills the row), remove the row under
// remove-record-on-delete (-D only); sequence groups take a record's group only when its group
// sequence orders at or after the row's (all-null sequences skip the group, nulls order first,
// protected fields take nulls too), retractions clear a group, and remove-record-on-sequence-group
// removes the row on a -D of a listed group.
func TestPartialUpdateMerge(t *testing.T) {
	i32 := func(v int32) any { return v }
	i64 := func(v int64) any { return v }

	plain := puMerge(t, nil)
	got, err := reduceAll(t, plain, pu(1, types.Insert, "x", i32(1), "p", nil, "c1"), pu(2, types.UpdateAfter, nil, nil, "q", i64(4), nil),
		pu(3, types.Insert, "y", nil, nil, nil, nil))
	wantKV(t, "non-null overwrite", got, err, pu(3, types.Insert, "y", i32(1), "q", i64(4), "c1"))
	// A single record is the result as it is (ReducerMergeFunctionWrapper), retraction or not.
	single := pu(4, types.Delete, nil, nil, nil, nil, nil)
	if got, err := reduceAll(t, plain, single); err != nil || got != single {
		t.Errorf("single record: %v, %v", got, err)
	}
	if _, err := reduceAll(t, plain, pu(1, types.Insert, "x", nil, nil, nil, nil), pu(2, types.UpdateBefore, "x", nil, nil, nil, nil)); !errors.Is(err, ErrPartialUpdateDelete) ||
		!strings.HasPrefix(err.Error(), "By default, Partial update can not accept delete records, you can choose one of the following solutions:\n1. Configure 'ignore-delete'") {
		t.Errorf("a retraction without options: %v", err)
	}
	notNull := pu(2, types.Insert, nil, nil, nil, nil, nil)
	notNull.Value[0] = nil
	if _, err := reduceAll(t, plain, pu(1, types.Insert, "x", nil, nil, nil, nil), notNull); err == nil || err.Error() != "Field 0 can not be null" {
		t.Errorf("a null NOT NULL field: %v", err)
	}

	ignore := puMerge(t, map[string]string{"partial-update.ignore-delete": "true"})
	got, err = reduceAll(t, ignore, pu(1, types.Insert, "x", nil, nil, nil, nil), pu(5, types.Delete, "d", nil, nil, nil, nil))
	wantKV(t, "ignore-delete", got, err, pu(1, types.Insert, "x", nil, nil, nil, nil))
	got, err = reduceAll(t, ignore, pu(1, types.Delete, "d", i32(3), nil, nil, "dc"), pu(2, types.Insert, nil, nil, "b", nil, nil))
	wantKV(t, "ignore-delete, a first retraction fills the row", got, err, pu(2, types.Insert, "d", i32(3), "b", nil, "dc"))
	got, err = reduceAll(t, ignore, pu(1, types.Delete, "d", nil, nil, nil, nil), pu(2, types.UpdateBefore, "e", nil, nil, nil, nil))
	wantKV(t, "ignore-delete, retractions only", got, err, pu(0, types.Delete, "d", nil, nil, nil, nil))

	remove := puMerge(t, map[string]string{"partial-update.remove-record-on-delete": "true"})
	got, err = reduceAll(t, remove, pu(1, types.Insert, "x", nil, "p", nil, nil), pu(2, types.Delete, "d", nil, nil, nil, nil))
	wantKV(t, "remove-record-on-delete", got, err, pu(2, types.Delete, "d", nil, nil, nil, nil))
	got, err = reduceAll(t, remove, pu(1, types.Insert, "x", nil, "p", nil, nil), pu(2, types.UpdateBefore, "u", nil, nil, nil, nil))
	wantKV(t, "remove-record-on-delete ignores -U", got, err, pu(2, types.Insert, "x", nil, "p", nil, nil))
	got, err = reduceAll(t, remove, pu(1, types.Insert, "x", nil, "p", nil, nil), pu(2, types.Delete, "d", nil, nil, nil, nil),
		pu(3, types.Insert, nil, nil, "q", nil, nil))
	wantKV(t, "an insert after a removal", got, err, pu(3, types.Insert, "d", nil, "q", nil, nil))

	groups := puMerge(t, map[string]string{"fields.s1.sequence-group": "a", "fields.s2.sequence-group": "b"})
	got, err = reduceAll(t, groups,
		pu(1, types.Insert, "x", i32(1), "p", i64(5), "c1"),
		pu(2, types.Insert, "y", i32(0), "q", i64(6), nil), // group s1 older: a kept; group s2 newer
		pu(3, types.Insert, "z", nil, nil, i64(7), "c3"),   // s1 null: group skipped; b takes the null
		pu(4, types.Insert, "w", i32(1), "r", i64(2), nil)) // s1 equal: taken; s2 older
	wantKV(t, "sequence groups", got, err, pu(4, types.Insert, "w", i32(1), nil, i64(7), "c3"))
	got, err = reduceAll(t, groups, pu(1, types.Insert, "x", i32(1), "p", i64(5), "c1"), pu(2, types.Delete, "ignored", i32(2), "b", nil, "dc"),
		pu(3, types.UpdateBefore, nil, nil, "b2", i64(4), nil))
	wantKV(t, "a retraction clears its group", got, err, pu(3, types.Insert, nil, i32(2), "p", i64(5), "c1"))

	onGroup := puMerge(t, map[string]string{"fields.s1.sequence-group": "a", "fields.s2.sequence-group": "b",
		"partial-update.remove-record-on-sequence-group": "s1"})
	got, err = reduceAll(t, onGroup, pu(1, types.Insert, "x", i32(1), "p", i64(5), "c1"), pu(2, types.Delete, "d", i32(2), nil, nil, "dc"))
	wantKV(t, "remove-record-on-sequence-group", got, err, pu(2, types.Delete, "d", i32(2), nil, nil, "dc"))
	got, err = reduceAll(t, onGroup, pu(1, types.Insert, "x", i32(1), "p", i64(5), "c1"), pu(2, types.Delete, "d", i32(0), "b", i64(9), "dc"))
	wantKV(t, "an older -D of the listed group, a newer one of the other", got, err, pu(2, types.Insert, "x", i32(1), nil, i64(9), "c1"))
	got, err = reduceAll(t, onGroup, pu(1, types.Insert, "x", i32(1), "p", i64(5), "c1"), pu(2, types.UpdateBefore, "d", i32(2), nil, nil, nil))
	wantKV(t, "a -U of the listed group only retracts", got, err, pu(2, types.Insert, nil, i32(2), "p", i64(5), "c1"))

	// A group of two sequence fields orders them in turn, a null first.
	two := puMerge(t, map[string]string{"fields.s1,s2.sequence-group": "a"})
	got, err = reduceAll(t, two, pu(1, types.Insert, "x", i32(1), nil, i64(3), nil), pu(2, types.Insert, "y", i32(1), nil, nil, nil),
		pu(3, types.Insert, "z", nil, nil, nil, nil), pu(4, types.Insert, "v", nil, nil, i64(9), nil))
	wantKV(t, "two sequence fields", got, err, pu(4, types.Insert, "x", i32(1), nil, i64(3), nil))
	got, err = reduceAll(t, two, pu(1, types.Insert, "x", i32(1), nil, i64(3), nil), pu(2, types.Insert, "y", i32(1), nil, i64(3), nil))
	wantKV(t, "two sequence fields, equal", got, err, pu(2, types.Insert, "y", i32(1), nil, i64(3), nil))

	// LookupMergeFunction: only level-0 records and the record of the lowest level above 0
	// merge; a looked-up record joins in merge order.
	lk := puMerge(t, nil)
	lk.LookupWrapped = true
	got, err = lk.Reduce([]Record{{pu(1, types.Insert, "old", nil, "p2", nil, "c2"), 2}, {pu(2, types.Insert, "l1", nil, nil, nil, "c1"), 1},
		{pu(3, types.Insert, nil, nil, "n", nil, nil), 0}})
	wantKV(t, "lookup-wrapped", got, err, pu(3, types.Insert, "l1", nil, "n", nil, "c1"))
	got, err = lk.LookupMerge([]Record{{pu(3, types.Insert, nil, nil, "n", nil, nil), 0}}, pu(1, types.Insert, "found", nil, "p", nil, "c"))
	wantKV(t, "looked-up record", got, err, pu(3, types.Insert, "found", nil, "n", nil, "c"))
	got, err = lk.LookupMerge([]Record{{pu(3, types.Insert, nil, nil, "n", nil, nil), 0}}, nil)
	wantKV(t, "no looked-up record", got, err, pu(3, types.Insert, nil, nil, "n", nil, nil))
}

// TestParsePartialUpdate checks the partial-update configurations Java refuses, with its
// messages, and those pkft refuses by name.
func TestParsePartialUpdate(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"fields.nope.sequence-group": "a"}, "Field nope can not be found in table schema."},
		{map[string]string{"fields.s1.sequence-group": "a,nope"}, "Field nope can not be found in table schema"},
		{map[string]string{"fields.s1.sequence-group": "id"}, "The sequence-group 'fields.s1.sequence-group' contains primary key field 'id', which is not allowed."},
		{map[string]string{"fields.s1.sequence-group": "a", "fields.s2.sequence-group": "a"}, "Field a is defined repeatedly by multiple groups: fields.s2.sequence-group"},
		{map[string]string{"fields.s1.sequence-group": "a", "fields.s2.sequence-group": "s1"}, "field s1 is also protected by fields.s2.sequence-group"},
		{map[string]string{"fields.m.sequence-group": "a"}, "sequence field m of type MAP: Go does not order values of this type"},
		{map[string]string{"ignore-delete": "true", "partial-update.remove-record-on-delete": "true"},
			"ignore-delete and partial-update.remove-record-on-delete have conflicting behavior so should not be enabled at the same time."},
		{map[string]string{"partial-update.ignore-delete": "true", "fields.s1.sequence-group": "a", "partial-update.remove-record-on-sequence-group": "s1"},
			"ignore-delete and partial-update.remove-record-on-sequence-group have conflicting behavior"},
		{map[string]string{"fields.s1.sequence-group": "a", "partial-update.remove-record-on-delete": "true"},
			"sequence-group and partial-update.remove-record-on-delete have conflicting behavior"},
		{map[string]string{"fields.s1.sequence-group": "a", "partial-update.remove-record-on-sequence-group": "s1,a"},
			"field 's1,a' defined in 'partial-update.remove-record-on-sequence-group' option must be part of sequence groups"},
		{map[string]string{"partial-update.remove-record-on-delete": "maybe"}, "partial-update.remove-record-on-delete"},
		{map[string]string{"fields.c.aggregate-function": "sum"}, "Must use sequence group for aggregation functions but not found for field c."},
		{map[string]string{"fields.c.aggregate-function": "last_non_null_value"}, "option fields.c.aggregate-function = \"last_non_null_value\": field aggregate functions are not yet wired for partial-update"},
		{map[string]string{"fields.s1.sequence-group": "a", "fields.default-aggregate-function": "sum"},
			"Must use sequence group for aggregation functions but not found for field b."},
		{map[string]string{"fields.s1.sequence-group": "a", "fields.a.aggregate-function": "sum"}, "option fields.a.aggregate-function = \"sum\": field aggregate functions are not yet wired for partial-update"},
	} {
		_, err := ParseMerge(puSchema(c.opts), false)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: error %v, want %q", c.opts, err, c.err)
		}
	}
	// A sequence group may list its own sequence field; other engines ignore the groups.
	if _, err := ParseMerge(puSchema(map[string]string{"fields.s1.sequence-group": "s1,a", "fields.s2.sequence-group": "b,c"}), true); err != nil {
		t.Error(err)
	}
	ded := puSchema(map[string]string{"fields.s1.sequence-group": "a"})
	ded.Options["merge-engine"] = "deduplicate"
	if m, err := ParseMerge(ded, false); err != nil || m.Partial != nil {
		t.Errorf("deduplicate with a sequence group: %v, %v", m, err)
	}
}
