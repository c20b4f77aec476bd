package pkft_test

import (
	"context"
	"encoding/json"
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
