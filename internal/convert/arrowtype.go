package convert

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-pkft/pkft/internal/types"
)

// ArrowType is the Arrow type a scan or a search result gives a column of Paimon type t:
// BOOLEAN bool, TINYINT..BIGINT int8..int64, FLOAT float32, DOUBLE float64, CHAR and VARCHAR
// utf8, BINARY and VARBINARY binary, DECIMAL(p, s) decimal128(p, s), DATE date32, TIME
// time32[ms], TIMESTAMP(p) a timestamp with the unit of p's digits (TIMESTAMP_LTZ with time zone
// UTC). Other types have no Arrow form and are an error.
func ArrowType(t types.DataType) (arrow.DataType, error) {
	switch t.Root {
	case types.RootBoolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case types.RootTinyInt:
		return arrow.PrimitiveTypes.Int8, nil
	case types.RootSmallInt:
		return arrow.PrimitiveTypes.Int16, nil
	case types.RootInt:
		return arrow.PrimitiveTypes.Int32, nil
	case types.RootBigInt:
		return arrow.PrimitiveTypes.Int64, nil
	case types.RootFloat:
		return arrow.PrimitiveTypes.Float32, nil
	case types.RootDouble:
		return arrow.PrimitiveTypes.Float64, nil
	case types.RootChar, types.RootVarChar:
		return arrow.BinaryTypes.String, nil
	case types.RootBinary, types.RootVarBinary:
		return arrow.BinaryTypes.Binary, nil
	case types.RootDecimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case types.RootDate:
		return arrow.FixedWidthTypes.Date32, nil
	case types.RootTime:
		return arrow.FixedWidthTypes.Time32ms, nil
	case types.RootTimestamp, types.RootTimestampLTZ:
		tz := ""
		if t.Root == types.RootTimestampLTZ {
			tz = "UTC"
		}
		return &arrow.TimestampType{Unit: timestampUnit(t.Precision), TimeZone: tz}, nil
	}
	return nil, fmt.Errorf("type %s has no Arrow form in pkft", t.SQLString())
}

// ArrowField is the Arrow field of a column called name of Paimon type t ([ArrowType]),
// nullable unless t is NOT NULL.
func ArrowField(name string, t types.DataType) (arrow.Field, error) {
	at, err := ArrowType(t)
	if err != nil {
		return arrow.Field{}, err
	}
	return arrow.Field{Name: name, Type: at, Nullable: !t.NotNull}, nil
}

// FromArrowType is the Paimon type of an Arrow type, nullable: bool BOOLEAN, int8..int64
// TINYINT..BIGINT, float32 FLOAT, float64 DOUBLE, utf8 / large_utf8 / string_view STRING,
// binary / large_binary / binary_view BYTES, fixed_size_binary(n) BINARY(n), decimal128(p, s)
// DECIMAL(p, s), date32 DATE, time32 TIME(0) or TIME(3), timestamp without a time zone
// TIMESTAMP(0/3/6/9) and with one TIMESTAMP_LTZ. Other Arrow types are an error that names them.
func FromArrowType(t arrow.DataType) (types.DataType, error) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return types.Boolean(), nil
	case *arrow.Int8Type:
		return types.TinyInt(), nil
	case *arrow.Int16Type:
		return types.SmallInt(), nil
	case *arrow.Int32Type:
		return types.Int(), nil
	case *arrow.Int64Type:
		return types.BigInt(), nil
	case *arrow.Float32Type:
		return types.Float(), nil
	case *arrow.Float64Type:
		return types.Double(), nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return types.String(), nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return types.Bytes(), nil
	case *arrow.FixedSizeBinaryType:
		return types.Binary(t.ByteWidth), nil
	case *arrow.Decimal128Type:
		return types.Decimal(int(t.Precision), int(t.Scale)), nil
	case *arrow.Date32Type:
		return types.Date(), nil
	case *arrow.Time32Type:
		if t.Unit == arrow.Second {
			return types.Time(0), nil
		}
		return types.Time(3), nil
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return types.TimestampLTZ(unitPrecision(t.Unit)), nil
		}
		return types.Timestamp(unitPrecision(t.Unit)), nil
	}
	return types.DataType{}, fmt.Errorf("Arrow type %s has no Paimon type pkft writes", t)
}

// timestampUnit is the Arrow unit of a TIMESTAMP(precision): the coarsest that holds its
// digits.
func timestampUnit(precision int) arrow.TimeUnit {
	switch {
	case precision == 0:
		return arrow.Second
	case precision <= 3:
		return arrow.Millisecond
	case precision <= 6:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// unitPrecision is the number of fractional-second digits of an Arrow time unit.
func unitPrecision(u arrow.TimeUnit) int {
	switch u {
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond:
		return 6
	case arrow.Nanosecond:
		return 9
	}
	return 0
}
