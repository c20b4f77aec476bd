package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// evaluateWith is env.evaluate with the table options opts.
func (e *env) evaluateWith(opts map[string]string, expr string, b Bucket) []FileResult {
	e.t.Helper()
	ip, ok := IndexFilter(parse(e.t, expr), fields, defs)
	if !ok {
		e.t.Fatalf("%s: no indexed part", expr)
	}
	res, err := Evaluate(context.Background(), ip, fields, defs, opts, b, e.open)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func outcomes(res []FileResult) string {
	var s string
	for _, r := range res {
		s += fmt.Sprintf("%s:%s%v ", r.File.FileName, r.Outcome, positions(r))
	}
	return s
}

// TestFallbackBudgetOption: a level's payload is read through the multi-file reader with the
// fallback budget of the index's options (LazyFilteredBTreeReader / LazyFilteredBitmapReader
// under PrimaryKeySortedIndexScan): at Java's default a range narrows; with the table's
// btree-index.fallback-scan-max-size at 0, or a column's pk-btree options setting
// fallback-scan-max-size below the payload's size, the range is left unanswered and the files
// are read whole while an equality still narrows; an AND keeps its answered child. The bitmap
// budget is its own option. A budget that is no memory size makes the files fall back.
func TestFallbackBudgetOption(t *testing.T) {
	e := newEnv(t)
	l := twoFileLevel()
	price, tag := e.payload(l, 0, "btree"), e.payload(l, 1, "bitmap")
	b := Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{price, tag}}
	narrowed := "data-1:narrowed[2] data-2:narrowed[1] "
	if got := outcomes(e.evaluateWith(nil, "price < 6", b)); got != narrowed {
		t.Fatalf("default budget: %s", got)
	}
	whole := "data-1:not-narrowed[] data-2:not-narrowed[] "
	for _, opts := range []map[string]string{
		{"btree-index.fallback-scan-max-size": "0"},
		{"fields.price.pk-btree.index.options": fmt.Sprintf(`{"fallback-scan-max-size": "%d b"}`, price.FileSize-1)},
	} {
		if got := outcomes(e.evaluateWith(opts, "price < 6", b)); got != whole {
			t.Errorf("%v: range: %s", opts, got)
		}
		if got := outcomes(e.evaluateWith(opts, "price = 10", b)); got != "data-1:narrowed[0] data-2:narrowed[0] " {
			t.Errorf("%v: equal: %s", opts, got)
		}
		if got := outcomes(e.evaluateWith(opts, "price < 6 AND tag = 'x'", b)); got != "data-1:narrowed[0] data-2:narrowed[1] " {
			t.Errorf("%v: and: %s", opts, got)
		}
		if got := outcomes(e.evaluateWith(opts, "price < 6 OR tag = 'x'", b)); got != whole {
			t.Errorf("%v: or: %s", opts, got)
		}
		if got := outcomes(e.evaluateWith(opts, "tag > 'w'", b)); got != "data-1:narrowed[0 1] data-2:narrowed[0 1] " {
			t.Errorf("%v: bitmap range under the btree budget: %s", opts, got)
		}
	}
	if got := outcomes(e.evaluateWith(map[string]string{"bitmap-index.fallback-scan-max-size": "0"}, "tag > 'w'", b)); got != whole {
		t.Errorf("bitmap budget 0: %s", got)
	}
	if got := outcomes(e.evaluateWith(map[string]string{"btree-index.fallback-scan-max-size": fmt.Sprint(price.FileSize)}, "price < 6", b)); got != narrowed {
		t.Errorf("budget of exactly the payload's size: %s", got)
	}
	for _, r := range e.evaluateWith(map[string]string{"btree-index.fallback-scan-max-size": "lots"}, "price = 10", b) {
		if r.Outcome != NotNarrowed || r.Reason == "" {
			t.Errorf("bad budget: %s %s %q", r.File.FileName, r.Outcome, r.Reason)
		}
	}
}
