package convert

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-pkft/pkft/internal/binrow"
)

var bigTen = big.NewInt(10)

// AppendValue appends a Paimon value to the builder of a column of the Arrow type [ArrowType]
// gives the value's Paimon type; nil appends NULL. A DECIMAL is rescaled to the builder's scale;
// a timestamp is cut to the builder's unit (rounding down). A value of another Go type than the
// builder's column holds is an error.
func AppendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		if x, ok := v.(bool); ok {
			b.Append(x)
			return nil
		}
	case *array.Int8Builder:
		if x, ok := v.(int8); ok {
			b.Append(x)
			return nil
		}
	case *array.Int16Builder:
		if x, ok := v.(int16); ok {
			b.Append(x)
			return nil
		}
	case *array.Int32Builder:
		if x, ok := v.(int32); ok {
			b.Append(x)
			return nil
		}
	case *array.Int64Builder:
		if x, ok := v.(int64); ok {
			b.Append(x)
			return nil
		}
	case *array.Float32Builder:
		if x, ok := v.(float32); ok {
			b.Append(x)
			return nil
		}
	case *array.Float64Builder:
		if x, ok := v.(float64); ok {
			b.Append(x)
			return nil
		}
	case *array.StringBuilder:
		if x, ok := v.(string); ok {
			b.Append(x)
			return nil
		}
	case *array.BinaryBuilder:
		if x, ok := v.([]byte); ok {
			b.Append(x)
			return nil
		}
	case *array.Decimal128Builder:
		if d, ok := v.(binrow.Decimal); ok && d.Unscaled != nil {
			u := d.Unscaled
			scale := b.Type().(*arrow.Decimal128Type).Scale
			if int32(d.Scale) != scale {
				u = new(big.Int).Mul(u, new(big.Int).Exp(bigTen, big.NewInt(int64(scale)-int64(d.Scale)), nil))
			}
			b.Append(decimal128.FromBigInt(u))
			return nil
		}
	case *array.Date32Builder:
		if x, ok := v.(int32); ok {
			b.Append(arrow.Date32(x))
			return nil
		}
	case *array.Time32Builder:
		if x, ok := v.(int32); ok {
			b.Append(arrow.Time32(x))
			return nil
		}
	case *array.TimestampBuilder:
		if ts, ok := v.(binrow.Timestamp); ok {
			switch b.Type().(*arrow.TimestampType).Unit {
			case arrow.Second:
				b.Append(arrow.Timestamp(floorDiv(ts.Millis, 1000)))
			case arrow.Millisecond:
				b.Append(arrow.Timestamp(ts.Millis))
			case arrow.Microsecond:
				b.Append(arrow.Timestamp(ts.Millis*1000 + int64(ts.NanoOfMilli)/1000))
			default:
				b.Append(arrow.Timestamp(ts.Millis*1_000_000 + int64(ts.NanoOfMilli)))
			}
			return nil
		}
	default:
		return fmt.Errorf("no Arrow builder for %T", v)
	}
	return fmt.Errorf("value %v (%T) does not fit an Arrow %s column", v, v, b.Type())
}

// floorDiv is a / b rounded toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
