package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/types"
)

// A BIGINT takes what Paimon's JSON reader (Long.parseLong of the node's text) and CSV reader
// (digits with an optional sign) take: 1.0, 1.5 and 1e3 are refused, as there.
func TestBigIntParsedAsPaimonsReaders(t *testing.T) {
	bigint := types.BigInt()
	for _, ok := range []struct {
		in   any
		want int64
	}{{json.Number("42"), 42}, {"-7", -7}, {"+9", 9}, {json.Number("9223372036854775807"), math.MaxInt64}} {
		got, err := ParseValue(bigint, ok.in)
		if err != nil || got != ok.want {
			t.Errorf("%v: %v, %v; want %d", ok.in, got, err, ok.want)
		}
	}
	for _, bad := range []any{json.Number("1.0"), json.Number("1.5"), json.Number("1e3"), "1.0", json.Number("9223372036854775808")} {
		_, err := ParseValue(bigint, bad)
		want := fmt.Sprintf("%q is not a 64-bit integer (digits with an optional sign, as Paimon's JSON and CSV readers take an integer)", fmt.Sprint(bad))
		if err == nil || err.Error() != want {
			t.Errorf("%v: error %v, want %q", bad, err, want)
		}
	}
}

// TestParseValue checks the text and JSON forms of every type pkft write reads, in the Go forms
// the writer takes.
func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		t    types.DataType
		in   any
		want any
	}{
		{types.String(), "a b ", "a b "},
		{types.Char(2), "", ""},
		{types.Boolean(), true, true},
		{types.Boolean(), " false", false},
		{types.TinyInt(), json.Number("-128"), int8(-128)},
		{types.SmallInt(), " 300 ", int16(300)},
		{types.Int(), json.Number("2147483647"), int32(math.MaxInt32)},
		{types.Float(), "1.5", float32(1.5)},
		{types.Double(), json.Number("1e300"), 1e300},
		{types.Decimal(10, 2), json.Number("12.5"), "12.5"},
		{types.Decimal(10, 2), " -3 ", "-3"},
		{types.Date(), "2024-01-31", int32(19753)},
		{types.Date(), json.Number("-1"), int32(-1)},
		{types.Time(3), "01:02:03.456", int32(3_723_456)},
		{types.Time(0), json.Number("1000"), int32(1000)},
		{types.Timestamp(3), "2024-01-31 08:30:00.123456", time.Date(2024, 1, 31, 8, 30, 0, 123_000_000, time.UTC)},
		{types.Timestamp(9), "2024-01-31T08:30:00.123456789", time.Date(2024, 1, 31, 8, 30, 0, 123_456_789, time.UTC)},
		{types.TimestampLTZ(0), "2024-01-31 08:30:00.9", time.Date(2024, 1, 31, 8, 30, 0, 0, time.UTC)},
		{types.Timestamp(3), json.Number("-1"), time.UnixMilli(-1).UTC()},
		{types.Bytes(), "AAH/", []byte{0, 1, 255}},
		{types.Binary(1), "", []byte{}},
		{types.BigInt().AsNotNull(), nil, nil},
		{types.Array(types.Int()), nil, nil},
	} {
		got, err := ParseValue(c.t, c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s from %#v: %#v, %v; want %#v", c.t.SQLString(), c.in, got, err, c.want)
		}
	}
}

// TestParseValueRefuses checks the error of each value that does not parse as its type.
func TestParseValueRefuses(t *testing.T) {
	for _, c := range []struct {
		t    types.DataType
		in   any
		want string
	}{
		{types.Int(), true, "boolean true for type INT"},
		{types.Int(), 1.5, "value 1.5 (float64) cannot be a INT"},
		{types.String(), json.Number("1"), "number 1 for a string column"},
		{types.Boolean(), "yes", `"yes" is not a boolean`},
		{types.TinyInt(), "128", `"128" is not a 8-bit integer (digits with an optional sign, as Paimon's JSON and CSV readers take an integer)`},
		{types.Int(), json.Number("1.0"), `"1.0" is not a 32-bit integer (digits with an optional sign, as Paimon's JSON and CSV readers take an integer)`},
		{types.Float(), "x", `"x" is not a float`},
		{types.Double(), "1,5", `"1,5" is not a double`},
		{types.Date(), "2024-02-30", `"2024-02-30" is not a date (yyyy-mm-dd or a day number)`},
		{types.Time(0), "25:00:00", `"25:00:00" is not a time (hh:mm:ss[.fff] or milliseconds)`},
		{types.Timestamp(6), "2024-01-31", `"2024-01-31" is not a timestamp (yyyy-mm-dd hh:mm:ss[.fffffffff])`},
		{types.Timestamp(6), json.Number("1.5"), `"1.5" is not a 64-bit integer (digits with an optional sign, as Paimon's JSON and CSV readers take an integer)`},
		{types.Bytes(), "***", `"***" is not base64`},
		{types.Array(types.Int()), "[1]", "type ARRAY<INT> is not supported by pkft write"},
	} {
		if got, err := ParseValue(c.t, c.in); err == nil || err.Error() != c.want {
			t.Errorf("%s from %#v: %#v, %v; want the error %q", c.t.SQLString(), c.in, got, err, c.want)
		}
	}
}
