package predicate

import (
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

var testFields = []types.DataField{
	{ID: 0, Name: "id", Type: types.DataType{Root: types.RootInt, NotNull: true}},
	{ID: 1, Name: "price", Type: types.Int()},
	{ID: 2, Name: "tag", Type: types.String()},
	{ID: 3, Name: "day", Type: types.Date()},
	{ID: 4, Name: "amount", Type: types.Decimal(10, 2)},
	{ID: 5, Name: "ts", Type: types.Timestamp(3)},
	{ID: 6, Name: "ok", Type: types.Boolean()},
	{ID: 7, Name: "score", Type: types.Double()},
	{ID: 8, Name: "n", Type: types.BigInt()},
	{ID: 9, Name: "Mixed Case", Type: types.Int()},
}

func mustParse(t *testing.T, expr string) *Predicate {
	t.Helper()
	p, err := Parse(expr, testFields)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return p
}

func row(id, price int32, tag any) []any {
	r := make([]any, len(testFields))
	r[0], r[1], r[2] = id, price, tag
	return r
}

// TestRowSemantics checks Test as Paimon's LeafFunction#test: comparisons with a null value are
// false, IS NULL is the only test a null passes, NOT IN and <> reject nulls too.
func TestRowSemantics(t *testing.T) {
	nullPrice := row(3, 0, "x")
	nullPrice[1] = nil
	rows := [][]any{row(1, 10, "x"), row(2, 5, nil), nullPrice, row(4, 10, "y")}
	for _, c := range []struct {
		expr string
		want []int32 // ids
	}{
		{"price = 10", []int32{1, 4}},
		{"price <> 10", []int32{2}},
		{"price != 10", []int32{2}},
		{"price < 10", []int32{2}},
		{"price <= 10", []int32{1, 2, 4}},
		{"price > 5", []int32{1, 4}},
		{"price >= 5", []int32{1, 2, 4}},
		{"price IN (5, 7)", []int32{2}},
		{"price NOT IN (5, 7)", []int32{1, 4}},
		{"price IS NULL", []int32{3}},
		{"price IS NOT NULL", []int32{1, 2, 4}},
		{"tag = 'x' OR price IS NULL", []int32{1, 3}},
		{"tag = 'x' AND price = 10", []int32{1}},
		{"(tag = 'y' OR tag IS NULL) AND price >= 5", []int32{2, 4}},
		{"price = 10 and tag in ('y') or id = 2", []int32{2, 4}},
	} {
		p := mustParse(t, c.expr)
		var got []int32
		for _, r := range rows {
			if p.Test(r) {
				got = append(got, r[0].(int32))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ids %v, want %v", c.expr, got, c.want)
		}
	}
}

func ptr(n int64) *int64 { return &n }

// TestStatsSemantics checks TestStats as Paimon's LeafPredicate#test on statistics: bounds
// decide comparisons, null counts decide null tests, unknown bounds keep a file that is not all
// null, an all-null file fails every comparison.
func TestStatsSemantics(t *testing.T) {
	stats := func(lo, hi any, nulls *int64, rows int64) Stats {
		s := Stats{RowCount: rows, Min: make([]any, len(testFields)), Max: make([]any, len(testFields)), NullCounts: make([]*int64, len(testFields))}
		s.Min[1], s.Max[1], s.NullCounts[1] = lo, hi, nulls
		return s
	}
	in := stats(int32(3), int32(7), ptr(1), 10)
	allNull := stats(nil, nil, ptr(10), 10)
	unknown := stats(nil, nil, nil, 10)
	single := stats(int32(5), int32(5), ptr(0), 10)
	for _, c := range []struct {
		expr                         string
		in, allNull, unknown, single bool
	}{
		{"price = 5", true, false, true, true},
		{"price = 8", false, false, true, false},
		{"price <> 5", true, false, true, false},
		{"price < 3", false, false, true, false},
		{"price < 4", true, false, true, false},
		{"price <= 3", true, false, true, false},
		{"price > 7", false, false, true, false},
		{"price >= 7", true, false, true, false},
		{"price IN (1, 2, 8)", false, false, true, false},
		{"price IN (1, 5)", true, false, true, true},
		{"price NOT IN (5)", true, false, true, false},
		{"price IS NULL", true, true, true, false},
		{"price IS NOT NULL", true, false, true, true},
		{"price = 8 OR price IS NULL", true, true, true, false},
		{"price = 5 AND price IS NULL", true, false, true, false},
	} {
		p := mustParse(t, c.expr)
		for _, s := range []struct {
			name string
			st   Stats
			want bool
		}{{"in", in, c.in}, {"allNull", allNull, c.allNull}, {"unknown", unknown, c.unknown}, {"single", single, c.single}} {
			if got := p.TestStats(s.st); got != s.want {
				t.Errorf("%s on %s stats: %v, want %v", c.expr, s.name, got, s.want)
			}
		}
	}
	// Statistics of fewer columns than the row: the missing ones are unknown.
	if !mustParse(t, "n = 1").TestStats(Stats{RowCount: 3}) {
		t.Error("no statistics pruned a file")
	}
}

// TestProject checks Project as PredicateProjectionConverter: AND keeps the projectable
// children, OR needs all of them, a single survivor is returned alone.
func TestProject(t *testing.T) {
	keep := map[int]int{1: 1, 2: 2}
	for _, c := range []struct{ expr, want string }{
		{"price = 1 AND id = 2", "price = 1"},
		{"price = 1 AND tag = 'a'", "price = 1 AND tag = 'a'"},
		{"price = 1 OR id = 2", ""},
		{"(price = 1 OR tag = 'a') AND id = 2", "price = 1 OR tag = 'a'"},
		{"(price = 1 AND id = 3) OR tag = 'a'", "price = 1 OR tag = 'a'"},
		{"id = 2", ""},
	} {
		got, ok := mustParse(t, c.expr).Project(keep)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s projects to %s, want nothing", c.expr, got)
		case c.want != "" && (!ok || got.String() != c.want):
			t.Errorf("%s projects to %v (%v), want %s", c.expr, got, ok, c.want)
		}
	}
	p := mustParse(t, "price = 1 AND (tag = 'a' AND id = 2)")
	if n := len(p.SplitAnd()); n != 3 {
		t.Errorf("SplitAnd: %d conjuncts, want 3", n)
	}
}

// TestParseLiterals checks literals are typed by their column and String reads back.
func TestParseLiterals(t *testing.T) {
	for _, c := range []struct {
		expr string
		want any
	}{
		{"day = '2024-01-31'", int32(19753)},
		{"day = '1969-12-31'", int32(-1)},
		{"amount = 12.5", binrow.DecimalFromInt64(1250, 2)},
		{"amount = -0.01", binrow.DecimalFromInt64(-1, 2)},
		{"ts = '2024-01-31 10:00:00.123'", binrow.Timestamp{Millis: 1706695200123}},
		{"ts = '1970-01-01T00:00:00.000001'", binrow.Timestamp{NanoOfMilli: 1000}},
		{"ok = TRUE", true},
		{"score >= 1.5e3", 1500.0},
		{"n < -9223372036854775808", int64(-9223372036854775808)},
		{`"Mixed Case" = 3`, int32(3)},
		{"tag = 'it''s'", "it's"},
	} {
		p := mustParse(t, c.expr)
		if len(p.Literals) != 1 || !sameValue(p.Literals[0], c.want) {
			t.Errorf("%s: literal %#v, want %#v", c.expr, p.Literals, c.want)
			continue
		}
		back, err := Parse(p.String(), testFields)
		if err != nil || back.String() != p.String() || !sameValue(back.Literals[0], c.want) {
			t.Errorf("%s: String %q does not read back: %v", c.expr, p.String(), err)
		}
	}
}

func sameValue(a, b any) bool {
	if d, ok := a.(binrow.Decimal); ok {
		e, ok := b.(binrow.Decimal)
		return ok && d.Equal(e)
	}
	return a == b
}

// TestParseRefusals checks every unsupported input is refused with a message naming it.
func TestParseRefusals(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"", "empty predicate"},
		{"nosuch = 1", "nosuch (offset 0) is not a column of the table"},
		{"price = 'x'", "takes a number"},
		{"price = 1.5", "not an integer"},
		{"price = 99999999999", "not an integer in the range of INT"},
		{"tag = 3", "takes a quoted string"},
		{"day = '2024-13-01'", "not a date"},
		{"amount = 1.234", "at most 2 fraction digits"},
		{"amount = 123456789.5", "precision 10"},
		{"price = NULL", "use IS NULL"},
		{"price IN (1, NULL)", "use IS NULL"},
		{"NOT price = 1", "NOT at offset 0 is not supported"},
		{"price BETWEEN 1 AND 2", "BETWEEN at offset 6 is not supported"},
		{"tag LIKE 'a%'", "LIKE at offset 4 is not supported"},
		{"price = 1 AND", "expected a column name"},
		{"price = 1 garbage", "unexpected"},
		{"(price = 1", "expected ')'"},
		{"price IN ()", "literal"},
		{"price IS 1", "expected NULL"},
		{"tag = 'open", "unterminated string"},
		{"price ! 1", "NOT is not supported"},
		{"price ~ 1", "unexpected character"},
		{"upper(tag) = 'A'", "function call upper(...) at offset 0 is not supported"},
		{"ok = 1", "TRUE or FALSE"},
	} {
		_, err := Parse(c.expr, testFields)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want an error containing %q", c.expr, err, c.want)
		}
	}
}

// FuzzParse: no input panics; what parses renders to text that parses to the same predicate.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"price = 1", "tag IN ('a', 'b') OR price IS NULL", "(price >= -3 AND day < '2024-01-01') OR ts > '2024-01-01 00:00:00'", "amount <> 1.50", "\"Mixed Case\" NOT IN (1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s, testFields)
		if err != nil {
			return
		}
		back, err := Parse(p.String(), testFields)
		if err != nil {
			t.Fatalf("%q renders as %q, which does not parse: %v", s, p.String(), err)
		}
		if back.String() != p.String() {
			t.Fatalf("%q: %q reads back as %q", s, p.String(), back.String())
		}
	})
}
