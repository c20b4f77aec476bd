package convert

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/types"
)

// ParseValue converts a JSON value (json.Number, string, bool or nil, as a decoder with
// UseNumber gives them) or a text value (a string, such as a CSV cell) into the facade's Go form
// of type t (the form pkft's Writer.Write takes; nil stays nil): integers as Paimon's JSON and
// CSV readers take them (digits with an optional sign), FLOAT and DOUBLE any float syntax,
// BOOLEAN true/false (or a JSON bool), CHAR and VARCHAR a string (not a JSON number), DECIMAL a
// number or a string (left as text: the writer checks precision and scale), DATE yyyy-mm-dd or
// a day number, TIME hh:mm:ss[.fff] or milliseconds of the day, TIMESTAMP and TIMESTAMP_LTZ
// "yyyy-mm-dd hh:mm:ss[.fffffffff]" (or with a T; cut to t's precision, as Paimon's cast does)
// or a JSON number of epoch milliseconds, BINARY and VARBINARY base64. NOT NULL is not checked.
func ParseValue(t types.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	text := ""
	switch x := v.(type) {
	case json.Number:
		text = x.String()
	case string:
		text = x
	case bool:
		if t.Root != types.RootBoolean {
			return nil, fmt.Errorf("boolean %v for type %s", x, t.SQLString())
		}
		return x, nil
	case map[string]any:
		return nil, fmt.Errorf("a JSON object cannot be a %s", t.SQLString())
	case []any:
		return nil, fmt.Errorf("a JSON array cannot be a %s", t.SQLString())
	default:
		return nil, fmt.Errorf("value %v (%T) cannot be a %s", v, v, t.SQLString())
	}
	_, isNum := v.(json.Number)
	parseInt := func(bits int) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, bits)
		if err != nil {
			// Paimon's JSON reader parses an integer column's text with Long.parseLong (and
			// Byte/Short/Integer), its CSV reader with the same digits-only rule: 1.0 and 1e3 are
			// refused there too.
			return 0, fmt.Errorf("%q is not a %d-bit integer (digits with an optional sign, as Paimon's JSON and CSV readers take an integer)", text, bits)
		}
		return n, nil
	}
	switch t.Root {
	case types.RootChar, types.RootVarChar:
		if isNum {
			return nil, fmt.Errorf("number %s for a string column", text)
		}
		return text, nil
	case types.RootBoolean:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", text)
		}
		return b, nil
	case types.RootTinyInt:
		n, err := parseInt(8)
		return int8(n), err
	case types.RootSmallInt:
		n, err := parseInt(16)
		return int16(n), err
	case types.RootInt:
		n, err := parseInt(32)
		return int32(n), err
	case types.RootBigInt:
		return parseInt(64)
	case types.RootFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a float", text)
		}
		return float32(f), nil
	case types.RootDouble:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a double", text)
		}
		return f, nil
	case types.RootDecimal:
		// The writer parses the plain notation and checks precision and scale.
		return strings.TrimSpace(text), nil
	case types.RootDate:
		if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 32); err == nil {
			return int32(n), nil
		}
		d, err := time.Parse("2006-01-02", strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("%q is not a date (yyyy-mm-dd or a day number)", text)
		}
		return int32(d.Unix() / 86400), nil
	case types.RootTime:
		if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 32); err == nil {
			return int32(n), nil
		}
		d, err := time.Parse("15:04:05.999999999", strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("%q is not a time (hh:mm:ss[.fff] or milliseconds)", text)
		}
		return int32((d.Hour()*3600+d.Minute()*60+d.Second())*1000 + d.Nanosecond()/1e6), nil
	case types.RootTimestamp, types.RootTimestampLTZ:
		if isNum {
			ms, err := parseInt(64)
			return time.UnixMilli(ms).UTC(), err
		}
		s := strings.Replace(strings.TrimSpace(text), "T", " ", 1)
		ts, err := time.Parse("2006-01-02 15:04:05.999999999", s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a timestamp (yyyy-mm-dd hh:mm:ss[.fffffffff])", text)
		}
		// Keep the precision of the column, as Paimon's cast does.
		unit := int(math.Pow10(9 - min(t.Precision, 9)))
		return ts.Add(-time.Duration(ts.Nanosecond() % unit)), nil
	case types.RootBinary, types.RootVarBinary:
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not base64", text)
		}
		return b, nil
	}
	return nil, fmt.Errorf("type %s is not supported by pkft write", t.SQLString())
}
