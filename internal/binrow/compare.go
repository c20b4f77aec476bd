package binrow

import (
	"bytes"
	"cmp"
	"math"
	"strings"
)

// CompareValues orders two non-null decoded values of one type (as Row.Decode returns them) as
// Paimon's comparators do: strings and bytes by unsigned bytes, numbers numerically, false
// before true, decimals of one scale by unscaled value and timestamps by instant. Floats compare
// as Java's Float.compare and Double.compare (InternalRowUtils#compare): -0.0 before 0.0, and NaN
// after every other value and equal to itself. Values of a type it does not order compare equal
// (0).
func CompareValues(a, b any) int {
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int8:
		return cmp.Compare(x, b.(int8))
	case int16:
		return cmp.Compare(x, b.(int16))
	case int32:
		return cmp.Compare(x, b.(int32))
	case int64:
		return cmp.Compare(x, b.(int64))
	case float32:
		return javaCompareFloat(float64(x), float64(b.(float32)))
	case float64:
		return javaCompareFloat(x, b.(float64))
	case Decimal:
		// Same scale within one column: compare unscaled values.
		return x.Unscaled.Cmp(b.(Decimal).Unscaled)
	case Timestamp:
		y := b.(Timestamp)
		if c := cmp.Compare(x.Millis, y.Millis); c != 0 {
			return c
		}
		return cmp.Compare(x.NanoOfMilli, y.NanoOfMilli)
	}
	return 0
}

// CompareKeys orders two decoded keys of one key type field by field, nulls first, as Paimon's
// generated record comparator does, with CompareValues for non-null fields.
func CompareKeys(a, b []any) int {
	for i := range a {
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return -1
		case b[i] == nil:
			return 1
		}
		if c := CompareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// javaCompareFloat is java.lang.Double#compare (and, for widened floats, Float#compare): numeric
// order, then the bits of the canonical representation, which puts -0.0 before 0.0 and NaN last.
func javaCompareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	bits := func(f float64) int64 {
		if math.IsNaN(f) {
			return 0x7ff8000000000000
		}
		return int64(math.Float64bits(f))
	}
	return cmp.Compare(bits(a), bits(b))
}
