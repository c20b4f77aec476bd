package pkft_test

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestScanWhereFallbackBudget: a table whose btree-index.fallback-scan-max-size is 0 is written
// and compacted (the reader option is no format option), and its scans return the same rows as
// with Java's default budget, but a range on the btree column no longer narrows a file (Java's
// lazy btree reader leaves it unanswered), while an equality still narrows and an AND keeps
// its answered bitmap child. A value that is no memory size is refused by name when the table is
// created.
func TestScanWhereFallbackBudget(t *testing.T) {
	ctx := context.Background()
	opts := maps.Clone(bothSortedIndexes)
	opts["btree-index.fallback-scan-max-size"] = "0 b"
	tbl, _ := createSortedTable(t, "budget", "1", opts)
	tags := []string{"red", "green", "blue"}
	for round := range 3 {
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := round; i < 40; i += 3 {
			if err := w.Write(ctx, pkft.Insert, []any{int32(i), int64(i % 7), tags[i%3]}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		expr   string
		keep   func(i int) bool
		narrow bool
	}{
		{"price < 3", func(i int) bool { return i%7 < 3 }, false},
		{"price = 3", func(i int) bool { return i%7 == 3 }, true},
		{"price < 3 AND tag = 'red'", func(i int) bool { return i%7 < 3 && i%3 == 0 }, true},
		{"price < 3 OR tag = 'red'", func(i int) bool { return i%7 < 3 || i%3 == 0 }, false},
		{"tag > 'green'", func(i int) bool { return i%3 == 0 }, true},
	} {
		got, report := scanWhere(t, tbl, c.expr)
		var want []int32
		for i := range 40 {
			if c.keep(i) {
				want = append(want, int32(i))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: ids %v, want %v", c.expr, got, want)
		}
		if narrowed := len(report.Narrowed()) > 0; narrowed != c.narrow {
			t.Errorf("%s: narrowed %v, want narrowing %v (report %+v)", c.expr, report.Narrowed(), c.narrow, report.Files)
		}
	}
	bad := maps.Clone(bothSortedIndexes)
	bad["bitmap-index.fallback-scan-max-size"] = "lots"
	_, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "db.db", "bad"), pkft.TableDefinition{Columns: sortedColumns, PrimaryKeys: []string{"id"}, Options: bad})
	if err == nil || !strings.Contains(err.Error(), "bitmap-index.fallback-scan-max-size") {
		t.Fatalf("a budget that is no memory size: %v, want a refusal naming the key", err)
	}
}
