package convert

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestFromGo checks the facade's Go forms become Paimon values: a DECIMAL string, a DATE
// time.Time (its calendar date, whatever its zone), a TIMESTAMP time.Time; other values pass
// through for the writer to check.
func TestFromGo(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		t    types.DataType
		in   any
		want any
	}{
		{types.Decimal(10, 2), " -12.5 ", binrow.Decimal{Unscaled: big.NewInt(-1250), Scale: 2}},
		{types.Decimal(3, 0), "999", binrow.Decimal{Unscaled: big.NewInt(999), Scale: 0}},
		{types.Date(), time.Date(1970, 1, 2, 0, 30, 0, 0, paris), int32(1)},
		{types.Date(), time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC), int32(-1)},
		{types.Timestamp(3), time.Date(2030, 5, 6, 7, 8, 9, 35_000_000, time.UTC),
			binrow.Timestamp{Millis: time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC).UnixMilli() + 35}},
		{types.TimestampLTZ(9), time.Unix(0, -1).UTC(), binrow.Timestamp{Millis: -1, NanoOfMilli: 999_999}},
		{types.Date(), int32(7), int32(7)},
		{types.BigInt(), int64(7), int64(7)},
		{types.Decimal(10, 2), 1.5, 1.5},
		{types.String(), nil, nil},
	} {
		got, err := FromGo(c.t, c.in)
		if d, ok := c.want.(binrow.Decimal); ok {
			if g, ok := got.(binrow.Decimal); err != nil || !ok || !g.Equal(d) {
				t.Errorf("%s from %v: %v, %v; want %v", c.t.SQLString(), c.in, got, err, d)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s from %#v: %#v, %v; want %#v", c.t.SQLString(), c.in, got, err, c.want)
		}
	}
	ts := time.Date(2030, 5, 6, 7, 8, 9, 35_000_000, time.UTC)
	for _, c := range []struct {
		t    types.DataType
		in   any
		want string
	}{
		{types.Decimal(10, 2), "1.234", `parse decimal "1.234": more than 2 fraction digits`},
		{types.Decimal(10, 2), "123456789.12", "123456789.12 has more than 10 digits"},
		{types.Decimal(10, 2), "1.x", `parse decimal "1.x": not a plain decimal number`},
		{types.Timestamp(3), ts.Add(time.Microsecond), "2030-05-06T07:08:09.035001Z has more fractional-second digits than TIMESTAMP(3)"},
		{types.Timestamp(0), ts, "2030-05-06T07:08:09.035Z has more fractional-second digits than TIMESTAMP(0)"},
	} {
		if _, err := FromGo(c.t, c.in); err == nil || err.Error() != c.want {
			t.Errorf("%s from %v: %v, want %q", c.t.SQLString(), c.in, err, c.want)
		}
	}
}

// TestToGo checks the read paths' Paimon values become the facade's Go forms, and that FromGo
// takes those forms back to the same values.
func TestToGo(t *testing.T) {
	day := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	ts := time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC)
	for _, c := range []struct {
		t    types.DataType
		in   any
		want any
	}{
		{types.Date(), int32(day.Unix() / 86400), day},
		{types.Date(), day.Unix() / 86400, day},
		{types.Int(), int64(-4), int32(-4)},
		{types.BigInt(), int64(-4), int64(-4)},
		{types.Decimal(5, 2), binrow.DecimalFromInt64(-5, 2), "-0.05"},
		{types.Decimal(5, 2), binrow.Decimal{Scale: 2}, "0"},
		{types.Timestamp(9), binrow.Timestamp{Millis: -1, NanoOfMilli: 999_999}, ts},
		{types.String(), "x", "x"},
		{types.String(), nil, nil},
	} {
		got := ToGo(c.in, c.t)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ToGo(%#v) = %#v, want %#v", c.t.SQLString(), c.in, got, c.want)
		}
		if d, ok := c.in.(binrow.Decimal); ok && d.Unscaled == nil {
			continue // no value: "0", of no scale
		}
		back, err := FromGo(c.t, got)
		if again := ToGo(back, c.t); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%s: ToGo(FromGo(%#v)) = %#v, %v", c.t.SQLString(), got, again, err)
		}
	}
	got := ToGoValues([]any{int32(0), binrow.DecimalFromInt64(1, 1), "extra"}, []types.DataType{types.Date(), types.Decimal(2, 1)})
	if want := []any{time.Unix(0, 0).UTC(), "0.1", "extra"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ToGoValues: %#v, want %#v", got, want)
	}
}
