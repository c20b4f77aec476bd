package aggregate

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// step is one input of a fold: a value added or retracted.
type step struct {
	retract bool
	v       any
}

func add(v any) step     { return step{v: v} }
func retract(v any) step { return step{retract: true, v: v} }

// fold runs steps through a new aggregator from a null accumulator and returns the result or
// the first error.
func fold(t *testing.T, name string, dt types.DataType, o Options, steps ...step) (any, error) {
	t.Helper()
	a, err := New(name, dt, o)
	if err != nil {
		t.Fatalf("New(%s, %s): %v", name, dt, err)
	}
	a.Reset()
	var acc any
	for _, s := range steps {
		if s.retract {
			acc, err = a.Retract(acc, s.v)
		} else {
			acc, err = a.Agg(acc, s.v)
		}
		if err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func dec(s string, scale int) binrow.Decimal {
	d, err := binrow.ParseDecimal(s, scale)
	if err != nil {
		panic(err)
	}
	return d
}

func same(a, b any) bool {
	if x, ok := a.(binrow.Decimal); ok {
		y, ok := b.(binrow.Decimal)
		return ok && x.Equal(y)
	}
	if x, ok := a.(float64); ok && math.IsNaN(x) {
		y, ok := b.(float64)
		return ok && math.IsNaN(y)
	}
	return a == b
}

// TestFunctions checks each function against the values FieldXxxAgg computes for the same
// inputs (derived from the Java code at release-2.0.0).
func TestFunctions(t *testing.T) {
	def := DefaultOptions()
	for _, c := range []struct {
		name  string
		fn    string
		dt    types.DataType
		o     Options
		steps []step
		want  any
		err   string
	}{
		// sum: nulls skipped; a retraction subtracts, from null it negates.
		{"sum int", Sum, types.Int(), def, []step{add(int32(3)), add(nil), add(int32(4))}, int32(7), ""},
		{"sum all null", Sum, types.Int(), def, []step{add(nil), add(nil)}, nil, ""},
		{"sum retract", Sum, types.BigInt(), def, []step{add(int64(10)), retract(int64(4)), retract(nil)}, int64(6), ""},
		{"sum retract from null", Sum, types.SmallInt(), def, []step{retract(int16(5)), add(int16(2))}, int16(-3), ""},
		{"sum tinyint overflow", Sum, types.TinyInt(), def, []step{add(int8(100)), add(int8(100))}, nil, "byte overflow: 100 + 100 = 200"},
		{"sum int overflow", Sum, types.Int(), def, []step{add(int32(math.MaxInt32)), add(int32(1))}, nil, "int overflow: 2147483647 + 1"},
		{"sum long negate overflow", Sum, types.BigInt(), def, []step{retract(int64(math.MinInt64))}, nil, "long overflow: -"},
		{"sum double", Sum, types.Double(), def, []step{add(0.1), add(0.2)}, 0.30000000000000004, ""},
		{"sum float", Sum, types.Float(), def, []step{add(float32(0.1)), add(float32(0.2))}, float32(0.1) + float32(0.2), ""},
		{"sum decimal", Sum, types.Decimal(10, 2), def, []step{add(dec("1.25", 2)), add(dec("2.50", 2)), retract(dec("0.05", 2))}, dec("3.70", 2), ""},
		{"sum decimal retract from null", Sum, types.Decimal(10, 2), def, []step{retract(dec("1.25", 2))}, dec("-1.25", 2), ""},
		// A compact decimal past its precision: Java keeps it unchecked; pkft refuses.
		{"sum compact decimal past precision", Sum, types.Decimal(5, 2), def, []step{add(dec("999.99", 2)), add(dec("0.01", 2))}, nil, "more than the precision"},
		// A non-compact decimal past its precision: Decimal.fromBigDecimal gives null.
		{"sum wide decimal past precision", Sum, types.Decimal(20, 0), def, []step{add(dec("99999999999999999999", 0)), add(dec("1", 0))}, nil, ""},
		{"sum no retract error with ignore", Sum, types.Int(), Options{IgnoreRetract: true}, []step{add(int32(3)), retract(int32(3))}, int32(3), ""},

		// product: a retraction divides; null accumulator or input keeps the accumulator.
		{"product int", Product, types.Int(), def, []step{add(int32(3)), add(nil), add(int32(-4))}, int32(-12), ""},
		{"product retract", Product, types.BigInt(), def, []step{add(int64(12)), retract(int64(5))}, int64(2), ""},
		{"product retract from null", Product, types.BigInt(), def, []step{retract(int64(5)), add(int64(7))}, int64(7), ""},
		{"product tinyint retract overflow", Product, types.TinyInt(), def, []step{add(int8(-128)), retract(int8(-1))}, nil, "byte overflow: -128 / -1 = 128"},
		{"product int retract overflow", Product, types.Int(), def, []step{add(int32(math.MinInt32)), retract(int32(-1))}, nil, "int overflow: -2147483648 / -1"},
		{"product long overflow", Product, types.BigInt(), def, []step{add(int64(math.MaxInt64)), add(int64(2))}, nil, "long overflow: 9223372036854775807 * 2"},
		{"product int retract truncates", Product, types.Int(), def, []step{add(int32(-7)), retract(int32(2))}, int32(-3), ""},
		{"sum float retract", Sum, types.Float(), def, []step{add(float32(1.5)), retract(float32(0.25))}, float32(1.25), ""},
		{"sum smallint retract overflow", Sum, types.SmallInt(), def, []step{add(int16(math.MinInt16)), retract(int16(1))}, nil, "short overflow: -32768 - 1 = -32769"},
		{"product retract by zero", Product, types.Int(), def, []step{add(int32(3)), retract(int32(0))}, nil, "/ by zero"},
		{"product smallint overflow", Product, types.SmallInt(), def, []step{add(int16(300)), add(int16(300))}, nil, "short overflow: 300 * 300 = 90000"},
		{"product decimal rounds half up", Product, types.Decimal(10, 2), def, []step{add(dec("1.25", 2)), add(dec("1.10", 2))}, dec("1.38", 2), ""},
		{"product decimal negative rounds away", Product, types.Decimal(10, 2), def, []step{add(dec("-1.25", 2)), add(dec("1.10", 2))}, dec("-1.38", 2), ""},
		{"product decimal past precision", Product, types.Decimal(4, 2), def, []step{add(dec("50.00", 2)), add(dec("3.00", 2))}, nil, ""},
		{"product decimal retract", Product, types.Decimal(10, 2), def, []step{add(dec("1.00", 2)), retract(dec("8.00", 2))}, dec("0.13", 2), ""},
		{"product decimal retract non-terminating", Product, types.Decimal(10, 2), def, []step{add(dec("1.00", 2)), retract(dec("3.00", 2))}, nil, "Non-terminating decimal expansion"},
		{"product decimal retract zero", Product, types.Decimal(10, 2), def, []step{add(dec("1.00", 2)), retract(dec("0.00", 2))}, nil, "Division by zero"},
		{"product double retract", Product, types.Double(), def, []step{add(1.5), add(4.0), retract(2.0)}, 3.0, ""},

		// min / max: nulls skipped; no retraction.
		{"min int", Min, types.Int(), def, []step{add(int32(5)), add(nil), add(int32(-2)), add(int32(7))}, int32(-2), ""},
		{"max string", Max, types.String(), def, []step{add("b"), add("ab"), add("c")}, "c", ""},
		{"max double nan", Max, types.Double(), def, []step{add(1.0), add(math.NaN())}, math.NaN(), ""},
		{"min negative zero", Min, types.Double(), def, []step{add(0.0), add(math.Copysign(0, -1))}, math.Copysign(0, -1), ""},
		{"max timestamp", Max, types.Timestamp(6), def, []step{add(binrow.Timestamp{Millis: 5, NanoOfMilli: 1}), add(binrow.Timestamp{Millis: 5, NanoOfMilli: 9})}, binrow.Timestamp{Millis: 5, NanoOfMilli: 9}, ""},
		{"max decimal", Max, types.Decimal(10, 2), def, []step{add(dec("-1.00", 2)), add(dec("0.50", 2))}, dec("0.50", 2), ""},
		{"min boolean", Min, types.Boolean(), def, []step{add(true), add(false)}, nil, "Incomparable type: BOOLEAN"},
		{"min one boolean", Min, types.Boolean(), def, []step{add(true), add(nil)}, true, ""},
		{"max retract", Max, types.Int(), def, []step{add(int32(1)), retract(int32(1))}, nil, "Aggregate function 'max' does not support retraction"},
		{"max ignore retract", Max, types.Int(), Options{IgnoreRetract: true}, []step{add(int32(1)), retract(int32(1))}, int32(1), ""},

		// last_value / last_non_null_value.
		{"last_value", LastValue, types.Int(), def, []step{add(int32(1)), add(nil)}, nil, ""},
		{"last_value retract", LastValue, types.Int(), def, []step{add(int32(1)), retract(int32(2))}, nil, ""},
		{"last_value retract then add", LastValue, types.Int(), def, []step{retract(int32(2)), add(int32(3))}, int32(3), ""},
		{"last_non_null", LastNonNullValue, types.Int(), def, []step{add(int32(1)), add(nil)}, int32(1), ""},
		{"last_non_null retract value", LastNonNullValue, types.Int(), def, []step{add(int32(1)), retract(int32(9))}, nil, ""},
		{"last_non_null retract null", LastNonNullValue, types.Int(), def, []step{add(int32(1)), retract(nil)}, int32(1), ""},

		// first_value / first_non_null_value (and its legacy name): no retraction.
		{"first_value null first", FirstValue, types.Int(), def, []step{add(nil), add(int32(2))}, nil, ""},
		{"first_value", FirstValue, types.Int(), def, []step{add(int32(1)), add(int32(2))}, int32(1), ""},
		{"first_non_null", FirstNonNullValue, types.Int(), def, []step{add(nil), add(int32(2)), add(int32(3))}, int32(2), ""},
		{"first_not_null legacy", FirstNotNullValue, types.Int(), def, []step{add(nil), add(int32(2)), add(int32(3))}, int32(2), ""},
		{"first_value retract", FirstValue, types.Int(), def, []step{add(int32(1)), retract(int32(1))}, nil, "Aggregate function 'first_value' does not support retraction"},
		{"first_non_null legacy retract names legacy", FirstNotNullValue, types.Int(), def, []step{retract(int32(1))}, nil, "'first_not_null_value'"},

		// listagg: blanks skipped, the delimiter, distinct tokens.
		{"listagg", ListAgg, types.String(), def, []step{add("a"), add(nil), add(" \t"), add("b")}, "a,b", ""},
		{"listagg blank first", ListAgg, types.String(), def, []step{add(" "), add("x")}, "x", ""},
		{"listagg only blank", ListAgg, types.String(), def, []step{add(" ")}, nil, ""},
		{"listagg nbsp is not blank", ListAgg, types.String(), def, []step{add("a"), add("\u00a0")}, "a,\u00a0", ""},
		{"listagg delimiter", ListAgg, types.String(), Options{Delimiter: " | "}, []step{add("a"), add("b")}, "a | b", ""},
		{"listagg distinct", ListAgg, types.String(), Options{Delimiter: ";", Distinct: true}, []step{add("a;b"), add("b;c;;a;d"), add("c")}, "a;b;c;d", ""},
		{"listagg distinct keeps accumulator duplicates", ListAgg, types.String(), Options{Delimiter: ",", Distinct: true}, []step{add("a,a"), add("a,b,b")}, "a,a,b", ""},
		{"listagg distinct empty delimiter splits at spaces", ListAgg, types.String(), Options{Delimiter: "", Distinct: true}, []step{add("a b"), add("b c")}, "a bc", ""},
		{"listagg retract", ListAgg, types.String(), def, []step{add("a"), retract("a")}, nil, "'listagg' does not support retraction"},

		// bool_and / bool_or.
		{"bool_and", BoolAnd, types.Boolean(), def, []step{add(true), add(nil), add(false), add(true)}, false, ""},
		{"bool_or", BoolOr, types.Boolean(), def, []step{add(nil), add(false), add(true), add(false)}, true, ""},
		{"bool_or null", BoolOr, types.Boolean(), def, []step{add(nil)}, nil, ""},
		{"bool_and retract", BoolAnd, types.Boolean(), def, []step{retract(true)}, nil, "'bool_and' does not support retraction"},

		// primary-key: the input, added or retracted.
		{"primary-key", PrimaryKey, types.Int(), def, []step{add(int32(1)), retract(int32(2))}, int32(2), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := fold(t, c.fn, c.dt, c.o, c.steps...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %v, %v; want error %q", got, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !same(got, c.want) {
				t.Fatalf("got %#v, want %#v", got, c.want)
			}
			if x, ok := got.(float64); ok && x == 0 && math.Signbit(x) != math.Signbit(c.want.(float64)) {
				t.Fatalf("got %v, want %v (sign of zero)", got, c.want)
			}
		})
	}
}

// TestReset checks first_value starts again for each key (FieldFirstValueAgg#reset).
func TestReset(t *testing.T) {
	a, err := New(FirstValue, types.Int(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := a.Agg(nil, int32(1))
	acc, _ = a.Agg(acc, int32(2))
	a.Reset()
	if got, _ := a.Agg(nil, int32(3)); got != int32(3) || acc != int32(1) {
		t.Errorf("after reset %v (before %v)", got, acc)
	}
}

// TestNewErrors checks the factories' type checks (Java's messages), unknown names and the
// functions pkft refuses by name.
func TestNewErrors(t *testing.T) {
	for _, c := range []struct {
		fn  string
		dt  types.DataType
		err string
	}{
		{Sum, types.String(), "Data type for sum column must be 'NumericType' but was 'STRING'."},
		{Product, types.Date(), "Data type for product column must be 'NumericType' but was 'DATE'."},
		{ListAgg, types.Int(), "Data type for list agg column must be 'VarCharType' but was 'INT'."},
		{ListAgg, types.VarChar(10), "Data type for list agg column must be STRING (unbounded VARCHAR), but was VARCHAR(10)."},
		{ListAgg, types.Char(3), "must be 'VarCharType'"},
		{BoolAnd, types.Int(), "Data type for bool and column must be 'BooleanType' but was 'INT'."},
		{BoolOr, types.String(), "Data type for bool or column must be 'BooleanType' but was 'STRING'."},
		{"count", types.Int(), "Use unsupported aggregation: count or spell aggregate function incorrectly!"},
	} {
		if _, err := New(c.fn, c.dt, DefaultOptions()); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s over %s: %v, want %q", c.fn, c.dt, err, c.err)
		}
	}
	for fn := range Unimplemented() {
		_, err := New(fn, types.Bytes(), DefaultOptions())
		if !errors.Is(err, ErrUnimplemented) || !strings.Contains(err.Error(), fn) {
			t.Errorf("%s: %v", fn, err)
		}
		if !Known(fn) {
			t.Errorf("%s is a function Paimon ships", fn)
		}
	}
	if Known("count") {
		t.Error("Paimon 2.0.0 ships no count")
	}
}

// TestFieldOptions checks the per-field options and their defaults.
func TestFieldOptions(t *testing.T) {
	o, err := FieldOptions(map[string]string{"fields.a.list-agg-delimiter": ";", "fields.a.distinct": "TRUE", "fields.a.ignore-retract": "false",
		"fields.b.distinct": "true"}, "a")
	if err != nil || o != (Options{Delimiter: ";", Distinct: true}) {
		t.Errorf("%+v, %v", o, err)
	}
	if o, _ := FieldOptions(nil, "a"); o.Delimiter != "," || o.Distinct || o.IgnoreRetract {
		t.Errorf("defaults %+v", o)
	}
	if _, err := FieldOptions(map[string]string{"fields.a.ignore-retract": "yes"}, "a"); err == nil || !strings.Contains(err.Error(), "fields.a.ignore-retract") {
		t.Errorf("bad boolean: %v", err)
	}
}

// TestDecimalHelpers checks the exact division test and HALF_UP rounding.
func TestDecimalHelpers(t *testing.T) {
	for _, c := range []struct {
		n, d int64
		ok   bool
	}{{1, 8, true}, {1, 3, false}, {6, 3, true}, {7, 40, true}, {-1, 6, false}, {3, -6, true}} {
		if got := terminates(big.NewInt(c.n), big.NewInt(c.d)); got != c.ok {
			t.Errorf("terminates(%d/%d) = %v", c.n, c.d, got)
		}
	}
	for _, c := range []struct{ n, d, want int64 }{{5, 2, 3}, {-5, 2, -3}, {4, 3, 1}, {-4, 3, -1}, {5, -2, -3}, {1, 4, 0}} {
		if got := roundHalfUp(big.NewInt(c.n), big.NewInt(c.d)); got.Int64() != c.want {
			t.Errorf("roundHalfUp(%d/%d) = %v, want %d", c.n, c.d, got, c.want)
		}
	}
}
