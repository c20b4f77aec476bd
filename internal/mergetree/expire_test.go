package mergetree

import (
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

func expireSchema(opts map[string]string) *schema.TableSchema {
	return &schema.TableSchema{ID: 3, PrimaryKeys: []string{"id"}, Options: opts,
		Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "ms", types.BigInt()),
			types.Field(2, "at", types.Timestamp(3)), types.Field(3, "s", types.String())}}
}

// TestRecordExpire checks RecordLevelExpire's field getters (BIGINT seconds, or milliseconds
// from 10^12; timestamps by epoch milliseconds / 1000), its keep rule (now <= time + expiry, null
// kept), its file rule over value statistics (all columns, or dense columns) and its errors.
func TestRecordExpire(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"record-level.expire-time": "1 h"}, ErrNoRecordTimeField.Error()},
		{map[string]string{"record-level.expire-time": "1 h", "record-level.time-field": "nope"}, "Can not find time field nope for record level expire."},
		{map[string]string{"record-level.time-field": "s"}, "but field type is STRING"},
		{map[string]string{"record-level.expire-time": "soon", "record-level.time-field": "ms"}, "record-level.expire-time"},
	} {
		if _, err := ParseRecordExpire(expireSchema(c.opts)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.opts, err, c.err)
		}
	}
	if e, err := ParseRecordExpire(expireSchema(nil)); e != nil || err != nil {
		t.Errorf("no expiry: %v %v", e, err)
	}
	const now = int64(2_000_000_000)
	ms, err := ParseRecordExpire(expireSchema(map[string]string{"record-level.expire-time": "100 s", "record-level.time-field": "ms"}))
	if err != nil {
		t.Fatal(err)
	}
	for v, keep := range map[any]bool{now - 100: true, now - 101: false, (now - 100) * 1000: true, (now-101)*1000 + 999: false, nil: true} {
		if got := ms.Keep([]any{int32(1), v, nil, nil}, now); got != keep {
			t.Errorf("BIGINT %v: keep %v, want %v", v, got, keep)
		}
	}
	at, err := ParseRecordExpire(expireSchema(map[string]string{"record-level.expire-time": "100 s", "record-level.time-field": "at"}))
	if err != nil {
		t.Fatal(err)
	}
	if !at.Keep([]any{int32(1), nil, binrow.Timestamp{Millis: (now - 100) * 1000}, nil}, now) || at.Keep([]any{int32(1), nil, binrow.Timestamp{Millis: (now - 101) * 1000}, nil}, now) {
		t.Error("TIMESTAMP keep rule")
	}

	s := expireSchema(nil)
	stats := func(cols []types.DataField, vals ...any) []byte {
		row, err := binrow.NewBinaryRow(types.Row(cols...), vals)
		if err != nil {
			t.Fatal(err)
		}
		return row.Serialize()
	}
	all := &meta.DataFileMeta{FileName: "all", SchemaID: 3, ValueStats: meta.SimpleStats{MinValues: stats(s.Fields, int32(1), now-101, nil, "x")}}
	if ok, err := ms.FileExpired(all, s, now); err != nil || !ok {
		t.Errorf("all columns, expired minimum: %v %v", ok, err)
	}
	dense := &meta.DataFileMeta{FileName: "dense", SchemaID: 3, ValueStatsCols: []string{"ms"},
		ValueStats: meta.SimpleStats{MinValues: stats(s.Fields[1:2], now-50)}}
	if ok, err := ms.FileExpired(dense, s, now); err != nil || ok {
		t.Errorf("dense columns, fresh minimum: %v %v", ok, err)
	}
	none := &meta.DataFileMeta{FileName: "none", SchemaID: 3, ValueStatsCols: []string{"id"}, ValueStats: meta.SimpleStats{MinValues: stats(s.Fields[:1], int32(1))}}
	if ok, err := ms.FileExpired(none, s, now); err != nil || ok {
		t.Errorf("no statistics of the field: %v %v", ok, err)
	}
	older := &schema.TableSchema{ID: 1, Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull())}}
	if ok, err := ms.FileExpired(&meta.DataFileMeta{FileName: "old", SchemaID: 1, ValueStats: meta.SimpleStats{MinValues: stats(older.Fields, int32(1))}}, older, now); err != nil || ok {
		t.Errorf("a file from before the field existed: %v %v", ok, err)
	}
	changed := &schema.TableSchema{ID: 2, Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "ms", types.Int())}}
	if _, err := ms.FileExpired(&meta.DataFileMeta{FileName: "int", SchemaID: 2, ValueStats: meta.SimpleStats{MinValues: stats(changed.Fields, int32(1), int32(5))}}, changed, now); err == nil {
		t.Error("a time field of another type when written: no error")
	}
}
