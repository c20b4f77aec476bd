package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-pkft/pkft"
)

// The values of rows and search keys are rendered as the Java runner's Values.java renders
// them: strings, booleans and numbers as they are, DATE as yyyy-mm-dd, DECIMAL as its plain
// string, TIME as the text of its milliseconds of the day (Java's Integer#toString), TIMESTAMP
// as an ISO local date-time without trailing fractional zeros, BINARY and VARBINARY as base64.

// renderGo renders v, a value in the Go form package pkft gives a column of type t (Hit's
// documented forms), as Values.java renders it.
func renderGo(t pkft.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case bool, string, float64:
		return x, nil
	case float32:
		return x, nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		if t.Kind == pkft.KindTime {
			return strconv.FormatInt(int64(x), 10), nil
		}
		if t.Kind == pkft.KindDate {
			return time.Unix(int64(x)*86400, 0).UTC().Format(time.DateOnly), nil
		}
		return int64(x), nil
	case int64:
		return x, nil
	case []byte:
		return base64.StdEncoding.EncodeToString(x), nil
	case time.Time:
		if t.Kind == pkft.KindDate {
			return x.UTC().Format(time.DateOnly), nil
		}
		return javaTimestamp(x), nil
	}
	return nil, fmt.Errorf("a value of Go type %T for a column of type %s has no rendering", v, t)
}

// javaTimestamp renders t's UTC wall clock as Java's LocalDateTime is rendered by Values.java:
// yyyy-MM-dd'T'HH:mm:ss, then the nanoseconds without trailing zeros when not zero.
func javaTimestamp(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
	}
	return s
}

// renderArrow renders row i of a, a column of type t as Table.Scan gives it, as Values.java
// renders it.
func renderArrow(t pkft.DataType, a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch c := a.(type) {
	case *array.Boolean:
		return c.Value(i), nil
	case *array.Int8:
		return int64(c.Value(i)), nil
	case *array.Int16:
		return int64(c.Value(i)), nil
	case *array.Int32:
		return int64(c.Value(i)), nil
	case *array.Int64:
		return c.Value(i), nil
	case *array.Float32:
		return c.Value(i), nil
	case *array.Float64:
		return c.Value(i), nil
	case *array.String:
		return c.Value(i), nil
	case *array.Binary:
		return base64.StdEncoding.EncodeToString(c.Value(i)), nil
	case *array.Decimal128:
		dt := c.DataType().(*arrow.Decimal128Type)
		return plainDecimal(c.Value(i).BigInt(), int(dt.Scale)), nil
	case *array.Date32:
		return time.Unix(int64(c.Value(i))*86400, 0).UTC().Format(time.DateOnly), nil
	case *array.Time32:
		return strconv.FormatInt(int64(c.Value(i)), 10), nil
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		return javaTimestamp(c.Value(i).ToTime(unit)), nil
	}
	return nil, fmt.Errorf("column of type %s: Arrow array %s has no rendering", t, a.DataType())
}

// plainDecimal renders the unscaled value n of scale scale as BigDecimal#toPlainString does.
func plainDecimal(n *big.Int, scale int) string {
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// parseValue converts v, a JSON value of a write request's row (decoded with UseNumber) in the
// form read renders it, into the Go form Writer.Write takes for a column of type t.
func parseValue(t pkft.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if t.Kind == pkft.KindTime {
		// Values.java renders TIME as the text of its milliseconds of the day.
		if s, ok := v.(string); ok {
			ms, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("TIME value %q: want milliseconds of the day", s)
			}
			return int32(ms), nil
		}
	}
	return pkft.ParseValue(t, v)
}

// compareRendered orders two rendered values as the Java runner's read sorts rows: null first,
// numbers by value, anything else by its text.
func compareRendered(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x.Cmp(y)
		}
	}
	return strings.Compare(text(a), text(b))
}

// number is v as an exact number when it is one.
func number(v any) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float32:
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		s = x.String()
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// text is v as Jackson's asText gives it for the value types rendered here.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}
