package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/compat/internal/pickdiff"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// TestBucketCommand: bucket answers one bucket per row of the table's latest schema, by the
// table's function or the one the request names (mod: the key's floor modulo the bucket count),
// and refuses by name a function the key type does not take, a row naming no column and an
// object-store path.
func TestBucketCommand(t *testing.T) {
	wh := t.TempDir()
	path := filepath.Join(wh, "db.db", "t")
	rows := []protocol.Object{}
	for _, k := range []int64{0, 1, 12, 13, 27, -1, -14, 2147483647, -2147483648} {
		rows = append(rows, protocol.Object{"k": k, "v": "x"})
	}
	resps := session(t,
		[2]any{"create-table", protocol.CreateTableRequest{Warehouse: wh, Database: "db", Table: "t",
			Fields:      []protocol.CreateTableRequestField{{Name: "k", Type: "INT NOT NULL"}, {Name: "v", Type: "STRING"}},
			PrimaryKeys: []string{"k"}, PartitionKeys: []string{}, Options: map[string]string{"bucket": "13"}}},
		[2]any{"bucket", protocol.BucketRequest{Path: path, Rows: rows}},
		[2]any{"bucket", protocol.BucketRequest{Path: path, Rows: rows, Function: new("mod")}},
		[2]any{"bucket", protocol.BucketRequest{Path: path, Rows: []protocol.Object{}, Function: new("no-such")}},
		[2]any{"bucket", protocol.BucketRequest{Path: path, Rows: []protocol.Object{{"k": 1, "w": "x"}}}},
		[2]any{"bucket", protocol.BucketRequest{Path: "s3://b/t", Rows: rows}},
	)
	for i, r := range resps[:3] {
		if !r.OK {
			t.Fatalf("request %d: %s", i+1, errText(r))
		}
	}
	buckets := func(r protocol.EnvelopeResponse) []int64 {
		var res protocol.BucketResponse
		if result(t, "bucket", r, &res); len(res.Buckets) != len(rows) {
			t.Fatalf("bucket: %s: want %d buckets", r.Result, len(rows))
		}
		return res.Buckets
	}
	byDefault, byMod := buckets(resps[1]), buckets(resps[2])
	distinct := map[int64]bool{}
	for i, r := range rows {
		k := r["k"].(int64)
		if want := ((k % 13) + 13) % 13; byMod[i] != want {
			t.Errorf("mod bucket of %d: %d, want %d", k, byMod[i], want)
		}
		if byDefault[i] < 0 || byDefault[i] >= 13 {
			t.Errorf("default bucket of %d: %d, not in [0, 13)", k, byDefault[i])
		}
		distinct[byDefault[i]] = true
	}
	if len(distinct) < 3 {
		t.Errorf("default buckets %v: the keys fell into %d buckets", byDefault, len(distinct))
	}
	for i, want := range []string{"no-such", "no column w", "local file system only"} {
		if r := resps[3+i]; r.OK || !strings.Contains(errText(r), want) {
			t.Errorf("request %d: %+v, want an error with %q", 4+i, r, want)
		}
	}
}

// TestPickCommand: pick answers every layout in the Java runner's form, each equal to Go's
// mergetree picking it with the clocks the runner reported (pickdiff.Compare), with units,
// empty picks and update steps among them; a step of no known mode is refused by name.
func TestPickCommand(t *testing.T) {
	now := time.Now()
	var layouts []pickdiff.Layout
	for seed := int64(1); seed <= 60; seed++ {
		layouts = append(layouts, pickdiff.Generate(seed, now))
	}
	bad := pickdiff.Generate(1, now)
	bad.Steps[0].Mode = "minor"
	resps := session(t,
		[2]any{"pick", pickRequest(t, layouts...)},
		[2]any{"pick", pickRequest(t, bad)},
	)
	// The protocol leaves the layouts' results free-form; compat/internal/pickdiff reads them.
	var res pickdiff.Result
	result(t, "pick", resps[0], &res)
	if res.Zone == "" || len(res.Layouts) != len(layouts) {
		t.Fatalf("pick: zone %q, %d layouts for %d", res.Zone, len(res.Layouts), len(layouts))
	}
	var st pickdiff.Stats
	for i, l := range layouts {
		if err := pickdiff.Compare(l, pickdiff.Go(l, res.Layouts[i], time.Local), res.Layouts[i], &st); err != nil {
			t.Errorf("seed %d: %v", l.Seed, err)
		}
	}
	if st.Units == 0 || st.None == 0 || st.Updates == 0 || st.Tasks == 0 {
		t.Errorf("the layouts exercised too little: %+v", st)
	}
	if r := resps[1]; r.OK || !strings.Contains(errText(r), `mode "minor"`) {
		t.Errorf("pick with mode minor: %+v", r)
	}
}

// pickRequest is pick's request of layouts, which the protocol leaves free-form.
func pickRequest(t *testing.T, layouts ...pickdiff.Layout) protocol.PickRequest {
	t.Helper()
	var req protocol.PickRequest
	if err := reshape(struct {
		Layouts []pickdiff.Layout `json:"layouts"`
	}{layouts}, &req, true); err != nil {
		t.Fatal(err)
	}
	return req
}
