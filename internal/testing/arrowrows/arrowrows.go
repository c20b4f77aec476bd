// Package arrowrows renders Arrow rows and the Java runner's JSON rows in one canonical text
// per row, so that tests can compare what Go scanned or wrote with what another implementation
// read.
package arrowrows

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Canonical renders each row of rec as "column=value|..." in rec's column order.
func Canonical(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for r := range out {
		parts := make([]string, rec.NumCols())
		for c := range parts {
			parts[c] = rec.ColumnName(c) + "=" + value(rec.Column(c), r)
		}
		out[r] = strings.Join(parts, "|")
	}
	return out
}

func value(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "null"
	}
	switch a := col.(type) {
	case *array.Decimal128:
		return ratText(a.Value(r).ToString(a.DataType().(*arrow.Decimal128Type).Scale))
	case *array.Timestamp:
		return strconv.FormatInt(a.Value(r).ToTime(a.DataType().(*arrow.TimestampType).Unit).UnixNano(), 10)
	case *array.Date32:
		return a.Value(r).FormattedString()
	case *array.Time32:
		ms := int64(a.Value(r))
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			ms *= 1000
		}
		return strconv.FormatInt(ms, 10)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(r)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(r), 'g', -1, 64)
	case *array.Binary:
		b, _ := json.Marshal(a.Value(r))
		return string(b)
	case *array.String:
		b, _ := json.Marshal(a.Value(r))
		return string(b)
	}
	return col.ValueStr(r)
}

func ratText(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "bad decimal " + s
	}
	return r.RatString()
}

// CanonicalJSON renders a row the Java runner's read (or pypaimon's) returned — a JSON object
// by column name: DECIMAL and TIMESTAMP as strings, DATE yyyy-mm-dd, BINARY base64, TIME
// milliseconds — as Canonical renders the row of sch it stands for.
func CanonicalJSON(sch *arrow.Schema, row map[string]json.RawMessage) (string, error) {
	parts := make([]string, sch.NumFields())
	for c, f := range sch.Fields() {
		raw, ok := row[f.Name]
		v := "null"
		if ok && string(raw) != "null" {
			var s string
			isString := json.Unmarshal(raw, &s) == nil
			if !isString {
				s = string(raw)
			}
			switch dt := f.Type.(type) {
			case *arrow.Decimal128Type:
				v = ratText(s)
			case *arrow.TimestampType:
				var tm time.Time
				var err error
				for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", time.RFC3339Nano} {
					if tm, err = time.Parse(layout, s); err == nil {
						break
					}
				}
				if err != nil {
					return "", fmt.Errorf("column %s: timestamp %s: %w", f.Name, raw, err)
				}
				v = strconv.FormatInt(tm.UnixNano(), 10)
			case *arrow.Float32Type, *arrow.Float64Type:
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return "", fmt.Errorf("column %s: %s: %w", f.Name, raw, err)
				}
				bits := 64
				if _, ok := dt.(*arrow.Float32Type); ok {
					bits = 32
				}
				v = strconv.FormatFloat(x, 'g', -1, bits)
			case *arrow.StringType, *arrow.BinaryType:
				b, _ := json.Marshal(s)
				v = string(b)
			default:
				v = s
			}
		}
		parts[c] = f.Name + "=" + v
	}
	return strings.Join(parts, "|"), nil
}
