package convert

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// FromGo turns a value in the facade's Go forms (those pkft's Writer.Write documents) into the
// Paimon value of type t: a DECIMAL from a string in plain notation (at most t's scale of
// fraction digits and t's precision of digits), a DATE from a time.Time (its calendar date), a
// TIMESTAMP or TIMESTAMP_LTZ from a time.Time (UTC wall clock, no more fractional digits than
// t's precision). Every other value, and a value of another Go type than these, is returned as
// it is: the writer checks it against t.
func FromGo(t types.DataType, v any) (any, error) {
	switch t.Root {
	case types.RootDecimal:
		s, ok := v.(string)
		if !ok {
			break
		}
		d, err := binrow.ParseDecimal(strings.TrimSpace(s), t.Scale)
		if err != nil {
			return nil, err
		}
		if len(new(big.Int).Abs(d.Unscaled).String()) > t.Precision {
			return nil, fmt.Errorf("%s has more than %d digits", s, t.Precision)
		}
		return d, nil
	case types.RootDate:
		if x, ok := v.(time.Time); ok {
			y, m, d := x.Date()
			return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400), nil
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		if x, ok := v.(time.Time); ok {
			nanos := x.Nanosecond()
			if p := min(t.Precision, 9); p < 9 {
				unit := 1
				for range 9 - p {
					unit *= 10
				}
				if nanos%unit != 0 {
					return nil, fmt.Errorf("%s has more fractional-second digits than TIMESTAMP(%d)", x.Format(time.RFC3339Nano), t.Precision)
				}
			}
			return binrow.Timestamp{Millis: x.UnixMilli(), NanoOfMilli: int32(nanos % 1e6)}, nil
		}
	}
	return v, nil
}

// ToGo turns a Paimon value of type t, as the read paths return it, into the facade's Go form
// (that of pkft's Hit): a DATE a time.Time at midnight UTC, a DECIMAL a string in plain
// notation, a TIMESTAMP a time.Time in UTC; an INT read as an int64 an int32. Other values are
// returned as they are.
func ToGo(v any, t types.DataType) any {
	switch x := v.(type) {
	case int32:
		if t.Root == types.RootDate {
			return time.Unix(int64(x)*86400, 0).UTC()
		}
	case int64:
		if t.Root == types.RootDate {
			return time.Unix(x*86400, 0).UTC()
		}
		if t.Root == types.RootInt {
			return int32(x)
		}
	case binrow.Decimal:
		if x.Unscaled == nil {
			return new(big.Int).String()
		}
		return x.String()
	case binrow.Timestamp:
		return time.UnixMilli(x.Millis).Add(time.Duration(x.NanoOfMilli)).UTC()
	}
	return v
}

// ToGoValues is [ToGo] of each value, vs[i] of type ts[i] (of no type past the end of ts).
func ToGoValues(vs []any, ts []types.DataType) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		var t types.DataType
		if i < len(ts) {
			t = ts[i]
		}
		out[i] = ToGo(v, t)
	}
	return out
}
