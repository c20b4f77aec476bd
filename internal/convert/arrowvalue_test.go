package convert

import (
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// column builds an Arrow column of type at with fill.
func column(t *testing.T, at arrow.DataType, fill func(b array.Builder)) arrow.Array {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, at)
	defer b.Release()
	fill(b)
	a := b.NewArray()
	t.Cleanup(a.Release)
	return a
}

// convertColumn converts col into one value per row with NewColumnConverter, through a stride
// of 2 (as a batch of two columns).
func convertColumn(t *testing.T, pt types.DataType, col arrow.Array) ([]any, error) {
	t.Helper()
	conv, err := NewColumnConverter(pt, col)
	if err != nil {
		return nil, err
	}
	dst := make([]any, 2*col.Len())
	if err := conv(dst, 2); err != nil {
		return nil, err
	}
	out := make([]any, col.Len())
	for i := range out {
		out[i] = dst[2*i]
		if dst[2*i+1] != nil {
			t.Fatalf("converter wrote slot %d of the other column", 2*i+1)
		}
	}
	return out, nil
}

// TestArrowRoundTrip appends Paimon values of every type pkft reads out to builders of their
// ArrowType (AppendValue) and converts the columns back (NewColumnConverter): the values come
// back as they were, NULLs included.
func TestArrowRoundTrip(t *testing.T) {
	for _, c := range []struct {
		t      types.DataType
		values []any
	}{
		{types.Boolean(), []any{true, nil, false}},
		{types.TinyInt(), []any{int8(-128), nil, int8(127)}},
		{types.SmallInt(), []any{int16(-3), int16(32767)}},
		{types.Int(), []any{int32(-1 << 31), nil}},
		{types.BigInt(), []any{int64(1 << 62), int64(-5)}},
		{types.Float(), []any{float32(1.5), nil}},
		{types.Double(), []any{-2.25, 1e300}},
		{types.String(), []any{"", "héllo", nil}},
		{types.Bytes(), []any{[]byte{}, []byte{0, 1, 255}, nil}},
		{types.Decimal(12, 3), []any{binrow.DecimalFromInt64(-123456, 3), nil, binrow.DecimalFromInt64(999999999999, 3)}},
		{types.Date(), []any{int32(-1), int32(19753), nil}},
		{types.Time(3), []any{int32(0), int32(86_399_999)}},
		{types.Timestamp(0), []any{binrow.Timestamp{Millis: -3000}, binrow.Timestamp{Millis: 1_700_000_000_000}}},
		{types.Timestamp(3), []any{binrow.Timestamp{Millis: -1}, nil}},
		{types.Timestamp(6), []any{binrow.Timestamp{Millis: -2, NanoOfMilli: 999_000}, binrow.Timestamp{Millis: 5, NanoOfMilli: 1000}}},
		{types.TimestampLTZ(9), []any{binrow.Timestamp{Millis: -1, NanoOfMilli: 1}, binrow.Timestamp{Millis: 7, NanoOfMilli: 999_999}}},
	} {
		at, err := ArrowType(c.t)
		if err != nil {
			t.Fatal(err)
		}
		col := column(t, at, func(b array.Builder) {
			for _, v := range c.values {
				if err := AppendValue(b, v); err != nil {
					t.Fatalf("%s: AppendValue(%v): %v", c.t.SQLString(), v, err)
				}
			}
		})
		got, err := convertColumn(t, c.t, col)
		if err != nil {
			t.Errorf("%s: %v", c.t.SQLString(), err)
			continue
		}
		for i, v := range c.values {
			if d, ok := v.(binrow.Decimal); ok {
				if g, ok := got[i].(binrow.Decimal); !ok || !g.Equal(d) {
					t.Errorf("%s row %d: %v, want %v", c.t.SQLString(), i, got[i], v)
				}
				continue
			}
			if !reflect.DeepEqual(got[i], v) {
				t.Errorf("%s row %d: %#v, want %#v", c.t.SQLString(), i, got[i], v)
			}
		}
	}
}

// TestColumnConverterArrowForms checks the Arrow forms that only the input side takes: the safe
// widenings, large/view/fixed strings and binaries, time32[s], coarser timestamp units and
// decimals of a smaller precision.
func TestColumnConverterArrowForms(t *testing.T) {
	for _, c := range []struct {
		name string
		t    types.DataType
		col  arrow.Array
		want []any
	}{
		{"int8 for SMALLINT", types.SmallInt(), column(t, arrow.PrimitiveTypes.Int8, func(b array.Builder) {
			b.(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
		}), []any{int16(-128), int16(127)}},
		{"int16 for INT", types.Int(), column(t, arrow.PrimitiveTypes.Int16, func(b array.Builder) {
			b.(*array.Int16Builder).AppendValues([]int16{-32768, 5}, []bool{true, false})
		}), []any{int32(-32768), nil}},
		{"int8 for INT", types.Int(), column(t, arrow.PrimitiveTypes.Int8, func(b array.Builder) {
			b.(*array.Int8Builder).Append(-1)
		}), []any{int32(-1)}},
		{"int32 for BIGINT", types.BigInt(), column(t, arrow.PrimitiveTypes.Int32, func(b array.Builder) {
			b.(*array.Int32Builder).AppendValues([]int32{-1 << 31, 1<<31 - 1}, nil)
		}), []any{int64(-1 << 31), int64(1<<31 - 1)}},
		{"int16 for BIGINT", types.BigInt(), column(t, arrow.PrimitiveTypes.Int16, func(b array.Builder) {
			b.(*array.Int16Builder).Append(7)
		}), []any{int64(7)}},
		{"int8 for BIGINT", types.BigInt(), column(t, arrow.PrimitiveTypes.Int8, func(b array.Builder) {
			b.(*array.Int8Builder).Append(-7)
		}), []any{int64(-7)}},
		{"float32 for DOUBLE", types.Double(), column(t, arrow.PrimitiveTypes.Float32, func(b array.Builder) {
			b.(*array.Float32Builder).AppendValues([]float32{0.1, -3.5}, nil)
		}), []any{float64(float32(0.1)), -3.5}},
		{"large_utf8", types.String(), column(t, arrow.BinaryTypes.LargeString, func(b array.Builder) {
			b.(*array.LargeStringBuilder).AppendValues([]string{"a", "bc"}, nil)
		}), []any{"a", "bc"}},
		{"string_view", types.VarChar(5), column(t, arrow.BinaryTypes.StringView, func(b array.Builder) {
			b.(*array.StringViewBuilder).AppendValues([]string{"a much longer string than twelve bytes", "x"}, nil)
		}), []any{"a much longer string than twelve bytes", "x"}},
		{"large_binary", types.Bytes(), column(t, arrow.BinaryTypes.LargeBinary, func(b array.Builder) {
			b.(*array.BinaryBuilder).Append([]byte{1, 2})
		}), []any{[]byte{1, 2}}},
		{"binary_view", types.Bytes(), column(t, arrow.BinaryTypes.BinaryView, func(b array.Builder) {
			b.(*array.BinaryViewBuilder).Append([]byte{3})
		}), []any{[]byte{3}}},
		{"fixed_size_binary", types.Binary(2), column(t, &arrow.FixedSizeBinaryType{ByteWidth: 2}, func(b array.Builder) {
			b.(*array.FixedSizeBinaryBuilder).Append([]byte{4, 5})
		}), []any{[]byte{4, 5}}},
		{"time32[s]", types.Time(0), column(t, arrow.FixedWidthTypes.Time32s, func(b array.Builder) {
			b.(*array.Time32Builder).Append(61)
		}), []any{int32(61_000)}},
		{"timestamp[s] for TIMESTAMP(3)", types.Timestamp(3), column(t, &arrow.TimestampType{Unit: arrow.Second}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(-2)
		}), []any{binrow.Timestamp{Millis: -2000}}},
		{"timestamp[us, tz] for TIMESTAMP_LTZ(9)", types.TimestampLTZ(9), column(t, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(-1)
		}), []any{binrow.Timestamp{Millis: -1, NanoOfMilli: 999_000}}},
		{"decimal(5, 2) for DECIMAL(10, 2)", types.Decimal(10, 2), column(t, &arrow.Decimal128Type{Precision: 5, Scale: 2}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(-12345))
		}), []any{binrow.Decimal{Unscaled: big.NewInt(-12345), Scale: 2}}},
		{"no rows", types.BigInt(), column(t, arrow.PrimitiveTypes.Int64, func(array.Builder) {}), []any{}},
	} {
		got, err := convertColumn(t, c.t, c.col)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %#v, %v; want %#v", c.name, got, err, c.want)
		}
	}
}

// TestColumnConverterRefuses checks the columns that do not fit a type: narrowings and other
// Arrow types, units finer than the precision, a time zone for TIMESTAMP, a decimal of another
// scale or a larger precision, a value beyond the precision, a NULL in a NOT NULL column.
func TestColumnConverterRefuses(t *testing.T) {
	i64 := column(t, arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).Append(1) })
	i32 := column(t, arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).Append(1) })
	i16 := column(t, arrow.PrimitiveTypes.Int16, func(b array.Builder) { b.(*array.Int16Builder).Append(1) })
	f64 := column(t, arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).Append(1) })
	u8 := column(t, arrow.PrimitiveTypes.Uint8, func(b array.Builder) { b.(*array.Uint8Builder).Append(1) })
	nullable := column(t, arrow.PrimitiveTypes.Int64, func(b array.Builder) {
		b.(*array.Int64Builder).AppendValues([]int64{1, 0}, []bool{true, false})
	})
	ms := column(t, arrow.FixedWidthTypes.Time32ms, func(b array.Builder) { b.(*array.Time32Builder).Append(1) })
	ns := column(t, &arrow.TimestampType{Unit: arrow.Nanosecond}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1) })
	zoned := column(t, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1) })
	dec := func(p, s int32, v int64) arrow.Array {
		return column(t, &arrow.Decimal128Type{Precision: p, Scale: s}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		})
	}
	for _, c := range []struct {
		t    types.DataType
		col  arrow.Array
		want string
	}{
		{types.Int(), i64, "Arrow type int64 does not fit INT"},
		{types.SmallInt(), i32, "Arrow type int32 does not fit SMALLINT"},
		{types.TinyInt(), i16, "Arrow type int16 does not fit TINYINT"},
		{types.Float(), f64, "Arrow type float64 does not fit FLOAT"},
		{types.BigInt(), f64, "Arrow type float64 does not fit BIGINT"},
		{types.Double(), i64, "Arrow type int64 does not fit DOUBLE"},
		{types.BigInt(), u8, "Arrow type uint8 does not fit BIGINT"},
		{types.String(), i64, "Arrow type int64 does not fit STRING"},
		{types.BigInt().AsNotNull(), nullable, "row 1: NULL in a NOT NULL column"},
		{types.Time(0), ms, "Arrow type time32[ms] is finer than TIME(0)"},
		{types.Timestamp(6), ns, "Arrow type timestamp[ns] is finer than TIMESTAMP(6)"},
		{types.Timestamp(3), zoned, "Arrow type timestamp[ms, tz=UTC] has a time zone; TIMESTAMP(3) has none (use TIMESTAMP_LTZ)"},
		{types.Decimal(10, 2), dec(10, 3, 1), "Arrow type decimal(10, 3) does not fit DECIMAL(10, 2) (same scale and at most its precision)"},
		{types.Decimal(10, 2), dec(11, 2, 1), "Arrow type decimal(11, 2) does not fit DECIMAL(10, 2) (same scale and at most its precision)"},
	} {
		_, err := NewColumnConverter(c.t, c.col)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s from %s: %v, want %q", c.t.SQLString(), c.col.DataType(), err, c.want)
		}
	}
	// A decimal128(5, 2) column may hold values of more than 5 digits: the converter refuses them.
	_, err := convertColumn(t, types.Decimal(5, 2), dec(5, 2, 1_234_567))
	if want := "row 0: 12345.67 has more than 5 digits"; err == nil || err.Error() != want {
		t.Errorf("decimal beyond its precision: %v, want %q", err, want)
	}
	huge := column(t, &arrow.TimestampType{Unit: arrow.Second}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1 << 62) })
	_, err = convertColumn(t, types.Timestamp(0), huge)
	if want := "row 0: timestamp 4611686018427387904 s out of range"; err == nil || err.Error() != want {
		t.Errorf("timestamp out of range: %v, want %q", err, want)
	}
}

// TestRowKinds checks both forms of a row-kind column and its refusals.
func TestRowKinds(t *testing.T) {
	strs := column(t, arrow.BinaryTypes.String, func(b array.Builder) {
		b.(*array.StringBuilder).AppendValues([]string{"+I", "-u", "+U", "-D"}, nil)
	})
	codes := column(t, arrow.PrimitiveTypes.Int8, func(b array.Builder) {
		b.(*array.Int8Builder).AppendValues([]int8{0, 1, 2, 3}, nil)
	})
	want := []types.RowKind{types.Insert, types.UpdateBefore, types.UpdateAfter, types.Delete}
	for _, col := range []arrow.Array{strs, codes} {
		kinds, err := RowKinds(col, "_rowKind")
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if k, err := kinds(i); err != nil || k != w {
				t.Errorf("%s row %d: %v, %v; want %v", col.DataType(), i, k, err, w)
			}
		}
	}
	bad := column(t, arrow.PrimitiveTypes.Int8, func(b array.Builder) { b.(*array.Int8Builder).AppendValues([]int8{4, -1}, nil) })
	kinds, err := RowKinds(bad, "_rowKind")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kinds(0); err == nil || err.Error() != "_rowKind 4 is not a row kind (0..3)" {
		t.Errorf("kind 4: %v", err)
	}
	badText := column(t, arrow.BinaryTypes.String, func(b array.Builder) { b.(*array.StringBuilder).Append("+X") })
	if kinds, err = RowKinds(badText, "_rowKind"); err != nil {
		t.Fatal(err)
	}
	if _, err := kinds(0); err == nil || !strings.Contains(err.Error(), "'+X'") {
		t.Errorf("kind +X: %v", err)
	}
	nulls := column(t, arrow.BinaryTypes.String, func(b array.Builder) { b.AppendNull() })
	if _, err := RowKinds(nulls, "_rowKind"); err == nil || err.Error() != "_rowKind has NULLs" {
		t.Errorf("NULL kinds: %v", err)
	}
	if _, err := RowKinds(column(t, arrow.PrimitiveTypes.Int32, func(array.Builder) {}), "_rowKind"); err == nil ||
		err.Error() != "_rowKind has Arrow type int32, want utf8 or int8" {
		t.Errorf("int32 kinds: %v", err)
	}
}

// TestAppendValueRefuses checks a value of the wrong Go type and a builder of no Paimon type
// are errors, not panics, and that a DECIMAL is rescaled and a timestamp floored to the
// builder's unit.
func TestAppendValueRefuses(t *testing.T) {
	mem := memory.DefaultAllocator
	i32 := array.NewInt32Builder(mem)
	defer i32.Release()
	if err := AppendValue(i32, int64(1)); err == nil || err.Error() != "value 1 (int64) does not fit an Arrow int32 column" {
		t.Errorf("int64 into int32: %v", err)
	}
	u8 := array.NewUint8Builder(mem)
	defer u8.Release()
	if err := AppendValue(u8, uint8(1)); err == nil || err.Error() != "no Arrow builder for uint8" {
		t.Errorf("uint8 builder: %v", err)
	}
	d := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 3})
	defer d.Release()
	if err := AppendValue(d, binrow.DecimalFromInt64(-125, 1)); err != nil {
		t.Fatal(err)
	}
	if err := AppendValue(d, binrow.Decimal{}); err == nil {
		t.Error("a decimal without a value appended")
	}
	da := d.NewDecimal128Array()
	defer da.Release()
	if got := da.Value(0).ToString(3); got != "-12.500" {
		t.Errorf("rescaled decimal %s, want -12.500", got)
	}
	ts := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second})
	defer ts.Release()
	if err := AppendValue(ts, binrow.Timestamp{Millis: -1}); err != nil {
		t.Fatal(err)
	}
	ta := ts.NewTimestampArray()
	defer ta.Release()
	if ta.Value(0) != -1 {
		t.Errorf("timestamp -1 ms in seconds: %d, want -1", ta.Value(0))
	}
}
