package pkft_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
)

// TestWriter_Values writes a DECIMAL(10, 2) and TIMESTAMP(3) key in the facade's plain Go forms
// (a string, a time.Time), refuses values that do not fit the column, and reads the row back
// through search in Java's forms.
func TestWriter_Values(t *testing.T) {
	ctx := context.Background()
	tbl, _ := openExample(t, "composite-key")
	w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("values-test"))
	if err != nil {
		t.Fatal(err)
	}
	s := w.Schema()
	if !slices.Equal(s.PrimaryKeys, []string{"price", "ts"}) || len(s.Columns) != 4 {
		t.Fatalf("schema %+v", s)
	}
	if c, ok := s.Column("price"); !ok || c.Type.Kind != pkft.KindDecimal || c.Type.Precision != 10 || c.Type.Scale != 2 ||
		!c.Type.NotNull || c.Type.String() != "DECIMAL(10, 2) NOT NULL" {
		t.Errorf("price column %+v", c)
	}
	if c, ok := s.Column("ts"); !ok || c.Type.Kind != pkft.KindTimestamp || c.Type.Precision != 3 {
		t.Errorf("ts column %+v", c)
	}
	ts := time.Date(2030, 5, 6, 7, 8, 9, 35_000_000, time.UTC)
	for name, row := range map[string][]any{
		"more fraction digits than the scale":    {"1.234", ts, "zzyzx", nil},
		"more digits than the precision":         {"123456789.12", ts, "zzyzx", nil},
		"not a decimal":                          {"1.2.3", ts, "zzyzx", nil},
		"more fractional seconds than TIMESTAMP": {"1.23", ts.Add(time.Microsecond), "zzyzx", nil},
		"too few values":                         {"1.23", ts},
	} {
		if err := w.Write(ctx, pkft.Insert, row); err == nil {
			t.Errorf("%s: %v written", name, row)
		}
	}
	if err := w.Write(ctx, pkft.Insert, []any{"-12.5", ts, "zzyzx", "7"}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID == 0 || res.Rows != 1 || len(res.Buckets) != 1 {
		t.Fatalf("write result %+v", res)
	}
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	hits, err := tbl.Search(ctx, "zzyzx")
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Hits) != 1 {
		t.Fatalf("hits %+v", hits.Hits)
	}
	h := hits.Hits[0]
	if h.Key[0] != "-12.50" || !h.Key[1].(time.Time).Equal(ts) {
		t.Errorf("key %v, want -12.50 and %v", h.Key, ts)
	}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"key":["-12.50","2030-05-06T07:08:09.035"]`) {
		t.Errorf("hit JSON %s", data)
	}
}

// TestParseValue parses text and JSON values for the columns of a table's schema and for
// hand-made types, in the Go forms Writer.Write takes.
func TestParseValue(t *testing.T) {
	tbl, _ := openExample(t, "composite-key")
	s, err := tbl.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	price, _ := s.Column("price")
	ts, _ := s.Column("ts")
	for _, c := range []struct {
		t    pkft.DataType
		in   any
		want any
	}{
		{price.Type, json.Number("12.5"), "12.5"},
		{ts.Type, "2030-05-06T07:08:09.0351", time.Date(2030, 5, 6, 7, 8, 9, 35_000_000, time.UTC)},
		{pkft.DataType{Kind: pkft.KindBigInt}, json.Number("-9"), int64(-9)},
		{pkft.DataType{Kind: pkft.KindTimestamp, Precision: 6}, "2030-05-06 07:08:09.1234567", time.Date(2030, 5, 6, 7, 8, 9, 123_456_000, time.UTC)},
		{pkft.DataType{Kind: pkft.KindVarBinary}, "AQI=", []byte{1, 2}},
		{price.Type, nil, nil},
	} {
		got, err := pkft.ParseValue(c.t, c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v from %#v: %#v, %v; want %#v", c.t, c.in, got, err, c.want)
		}
	}
	if _, err := pkft.ParseValue(price.Type, true); err == nil || err.Error() != "boolean true for type DECIMAL(10, 2) NOT NULL" {
		t.Errorf("a bool for a DECIMAL: %v", err)
	}
	if _, err := pkft.ParseValue(pkft.DataType{}, "1"); err == nil {
		t.Error("a value parsed for the zero DataType")
	}
}
