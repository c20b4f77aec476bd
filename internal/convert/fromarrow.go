package convert

import (
	"bytes"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// ColumnConverter writes the Paimon values of an Arrow column's rows 0, 1, 2, ... into dst[0],
// dst[stride], dst[2*stride], ... (leaving the slots of NULL rows alone), so that the columns
// of a batch fill the rows of one slice; dst must hold (rows-1)*stride+1 slots when the column
// has rows. It fails on a value the column's Paimon type cannot hold.
type ColumnConverter func(dst []any, stride int) error

// NewColumnConverter returns the converter of an Arrow column into values of Paimon type t, or
// an error when the column's Arrow type does not fit t or the column has a NULL and t is NOT
// NULL. The Arrow types that fit are those [FromArrowType] maps to t's root, and: the safe
// widenings Paimon's casts allow (int8 for SMALLINT; int8 and int16 for INT; int8, int16 and
// int32 for BIGINT; float32 for DOUBLE); for a DECIMAL a decimal128 of the same scale and no
// larger precision; for a TIMESTAMP a timestamp of no finer unit than its precision (TIMESTAMP
// without a time zone, TIMESTAMP_LTZ with or without); for TIME a time32 of no finer unit; for
// BINARY and VARBINARY also fixed_size_binary. The converter copies what it keeps: the column
// is not retained.
func NewColumnConverter(t types.DataType, col arrow.Array) (ColumnConverter, error) {
	conv, err := converterOfType(t, col)
	if err != nil {
		return nil, err
	}
	if t.NotNull && col.NullN() > 0 {
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				return nil, fmt.Errorf("row %d: NULL in a NOT NULL column", i)
			}
		}
	}
	return conv, nil
}

// RowKinds returns the row kind of each row of an Arrow column called name: a string column of
// short forms (+I, -U, +U, -D, as [types.ParseRowKind] reads them) or an int8 column of Paimon's
// byte values (0 +I, 1 -U, 2 +U, 3 -D). A column with NULLs or of another type is an error.
func RowKinds(col arrow.Array, name string) (func(int) (types.RowKind, error), error) {
	if col.NullN() > 0 {
		return nil, fmt.Errorf("%s has NULLs", name)
	}
	switch a := col.(type) {
	case *array.String:
		return func(i int) (types.RowKind, error) { return types.ParseRowKind(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) (types.RowKind, error) { return types.ParseRowKind(a.Value(i)) }, nil
	case *array.Int8:
		return func(i int) (types.RowKind, error) {
			v := a.Value(i)
			if v < int8(types.Insert) || v > int8(types.Delete) {
				return 0, fmt.Errorf("%s %d is not a row kind (0..3)", name, v)
			}
			return types.RowKind(v), nil
		}, nil
	}
	return nil, fmt.Errorf("%s has Arrow type %s, want utf8 or int8", name, col.DataType())
}

// typed is the converter of an array whose values need no check: get(i) of every non-null row.
func typed[A interface {
	arrow.Array
}](a A, get func(i int) any) ColumnConverter {
	return func(dst []any, stride int) error {
		for i, n := 0, a.Len(); i < n; i++ {
			if a.IsValid(i) {
				dst[i*stride] = get(i)
			}
		}
		return nil
	}
}

// integer is the converter of an integer array into a column of the Go integer type T, which
// has bits bits: arrays of T's width or a narrower one (a safe widening); nil for other arrays.
func integer[T int8 | int16 | int32 | int64](col arrow.Array, bits int) ColumnConverter {
	switch a := col.(type) {
	case *array.Int8:
		return typed(a, func(i int) any { return T(a.Value(i)) })
	case *array.Int16:
		if bits >= 16 {
			return typed(a, func(i int) any { return T(a.Value(i)) })
		}
	case *array.Int32:
		if bits >= 32 {
			return typed(a, func(i int) any { return T(a.Value(i)) })
		}
	case *array.Int64:
		if bits >= 64 {
			return typed(a, func(i int) any { return T(a.Value(i)) })
		}
	}
	return nil
}

func mismatch(t types.DataType, col arrow.Array) error {
	return fmt.Errorf("Arrow type %s does not fit %s", col.DataType(), t.SQLString())
}

func converterOfType(t types.DataType, col arrow.Array) (ColumnConverter, error) {
	var conv ColumnConverter
	switch t.Root {
	case types.RootBoolean:
		if a, ok := col.(*array.Boolean); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootTinyInt:
		conv = integer[int8](col, 8)
	case types.RootSmallInt:
		conv = integer[int16](col, 16)
	case types.RootInt:
		conv = integer[int32](col, 32)
	case types.RootBigInt:
		conv = integer[int64](col, 64)
	case types.RootFloat:
		if a, ok := col.(*array.Float32); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootDouble:
		switch a := col.(type) {
		case *array.Float64:
			return typed(a, func(i int) any { return a.Value(i) }), nil
		case *array.Float32:
			return typed(a, func(i int) any { return float64(a.Value(i)) }), nil
		}
	case types.RootChar, types.RootVarChar:
		switch a := col.(type) {
		case *array.String:
			// One copy of the column's bytes; every value is a substring of it.
			data, offs := string(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any { return data[offs[i]-offs[0] : offs[i+1]-offs[0]] }), nil
		case *array.LargeString:
			data, offs := string(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any { return data[offs[i]-offs[0] : offs[i+1]-offs[0]] }), nil
		case *array.StringView:
			return typed(a, func(i int) any { return string([]byte(a.Value(i))) }), nil
		}
	case types.RootBinary, types.RootVarBinary:
		switch a := col.(type) {
		case *array.Binary:
			data, offs := bytes.Clone(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any {
				lo, hi := offs[i]-offs[0], offs[i+1]-offs[0]
				return data[lo:hi:hi]
			}), nil
		case *array.LargeBinary:
			data, offs := bytes.Clone(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any {
				lo, hi := offs[i]-offs[0], offs[i+1]-offs[0]
				return data[lo:hi:hi]
			}), nil
		case *array.FixedSizeBinary:
			return typed(a, func(i int) any { return bytes.Clone(a.Value(i)) }), nil
		case *array.BinaryView:
			return typed(a, func(i int) any { return bytes.Clone(a.Value(i)) }), nil
		}
	case types.RootDecimal:
		if a, ok := col.(*array.Decimal128); ok {
			return decimalConverter(t, a)
		}
	case types.RootDate:
		if a, ok := col.(*array.Date32); ok {
			return typed(a, func(i int) any { return int32(a.Value(i)) }), nil
		}
	case types.RootTime:
		if a, ok := col.(*array.Time32); ok {
			unit := a.DataType().(*arrow.Time32Type).Unit
			if unit == arrow.Second {
				return typed(a, func(i int) any { return int32(a.Value(i)) * 1000 }), nil
			}
			if t.Precision < 3 {
				return nil, fmt.Errorf("Arrow type %s is finer than %s", a.DataType(), t.SQLString())
			}
			return typed(a, func(i int) any { return int32(a.Value(i)) }), nil
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		if a, ok := col.(*array.Timestamp); ok {
			return timestampConverter(t, a)
		}
	}
	if conv == nil {
		return nil, mismatch(t, col)
	}
	return conv, nil
}

// decimalConverter converts a decimal128 column of t's scale and no larger precision, refusing
// a value with more digits than t's precision.
func decimalConverter(t types.DataType, a *array.Decimal128) (ColumnConverter, error) {
	dt := a.DataType().(*arrow.Decimal128Type)
	if int(dt.Scale) != t.Scale || int(dt.Precision) > t.Precision {
		return nil, fmt.Errorf("Arrow type %s does not fit %s (same scale and at most its precision)", dt, t.SQLString())
	}
	prec := int32(t.Precision)
	return func(dst []any, stride int) error {
		for i, n := 0, a.Len(); i < n; i++ {
			if !a.IsValid(i) {
				continue
			}
			v := a.Value(i)
			if !v.FitsInPrecision(prec) {
				return fmt.Errorf("row %d: %s has more than %d digits", i, v.ToString(int32(t.Scale)), prec)
			}
			dst[i*stride] = binrow.Decimal{Unscaled: v.BigInt(), Scale: t.Scale}
		}
		return nil
	}, nil
}

// timestampConverter converts a timestamp column of no finer unit than t's precision (with a
// time zone only for TIMESTAMP_LTZ).
func timestampConverter(t types.DataType, a *array.Timestamp) (ColumnConverter, error) {
	dt := a.DataType().(*arrow.TimestampType)
	if t.Root == types.RootTimestamp && dt.TimeZone != "" {
		return nil, fmt.Errorf("Arrow type %s has a time zone; %s has none (use TIMESTAMP_LTZ)", dt, t.SQLString())
	}
	if unitPrecision(dt.Unit) > t.Precision {
		return nil, fmt.Errorf("Arrow type %s is finer than %s", dt, t.SQLString())
	}
	switch dt.Unit {
	case arrow.Second:
		return func(dst []any, stride int) error {
			for i, n := 0, a.Len(); i < n; i++ {
				if a.IsValid(i) {
					s := int64(a.Value(i))
					if s > math.MaxInt64/1000 || s < math.MinInt64/1000 {
						return fmt.Errorf("row %d: timestamp %d s out of range", i, s)
					}
					dst[i*stride] = binrow.Timestamp{Millis: s * 1000}
				}
			}
			return nil
		}, nil
	case arrow.Millisecond:
		return typed(a, func(i int) any { return binrow.Timestamp{Millis: int64(a.Value(i))} }), nil
	}
	var perMilli, nanosPer int64
	switch dt.Unit {
	case arrow.Microsecond:
		perMilli, nanosPer = 1000, 1000
	case arrow.Nanosecond:
		perMilli, nanosPer = 1_000_000, 1
	default:
		return nil, mismatch(t, a)
	}
	return typed(a, func(i int) any {
		v := int64(a.Value(i))
		ms, rem := v/perMilli, v%perMilli
		if rem < 0 {
			ms, rem = ms-1, rem+perMilli
		}
		return binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem * nanosPer)}
	}), nil
}
