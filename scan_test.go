package pkft_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-pkft/pkft"
)

// TestScanGoldenTables scans every golden table (written by Java, by Go and by pypaimon) and
// checks that Go's rows equal the rows the other implementation recorded reading it
// (compat/golden/<writer>/<table>.json), value by value.
func TestScanGoldenTables(t *testing.T) {
	ctx := context.Background()
	for _, writer := range []string{"java", "go", "pypaimon"} {
		dirs, err := filepath.Glob(filepath.Join("testdata", "tables", writer, "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no %s golden tables: %v", writer, err)
		}
		for _, dir := range dirs {
			name := filepath.Base(dir)
			t.Run(writer+"/"+name, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join("compat", "golden", writer, name+".json"))
				if err != nil {
					t.Fatal(err)
				}
				var golden struct {
					Rows []map[string]json.RawMessage `json:"rows"`
				}
				if err := json.Unmarshal(data, &golden); err != nil {
					t.Fatal(err)
				}
				tbl, err := pkft.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				rr, err := tbl.Scan(ctx)
				if name == "pk-partitioned" && writer == "pypaimon" {
					// pypaimon 2.0.0 names a DATE partition's directory by its formatted value
					// (day=2024-03-01); Java's path factory (partition.legacy-name=true, the
					// default) and Go's name it by its day number, so neither finds the files.
					if err == nil || !strings.Contains(err.Error(), "day=19783") {
						t.Fatalf("scan: %v, want the missing day=19783 directory reported", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer rr.Release()
				var got []string
				for rr.Next() {
					got = append(got, canonicalRows(t, rr.RecordBatch())...)
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, r := range golden.Rows {
					want = append(want, canonicalGolden(t, rr.Schema(), r))
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("Go's scan has %d rows, the recorded read %d; first differences:\n%s", len(got), len(want), firstDiffs(got, want))
				}
			})
		}
	}
}

func firstDiffs(got, want []string) string {
	var sb strings.Builder
	n := 0
	for _, g := range got {
		if !slices.Contains(want, g) && n < 5 {
			fmt.Fprintf(&sb, "  only in Go:   %s\n", g)
			n++
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) && n < 10 {
			fmt.Fprintf(&sb, "  only in read: %s\n", w)
			n++
		}
	}
	return sb.String()
}

// canonicalRows renders each row of rec as "col=value|..." in one canonical text per type.
func canonicalRows(t *testing.T, rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for r := range out {
		parts := make([]string, rec.NumCols())
		for c := range parts {
			col := rec.Column(c)
			v := "null"
			if col.IsValid(r) {
				switch a := col.(type) {
				case *array.Decimal128:
					v = ratText(a.Value(r).ToString(a.DataType().(*arrow.Decimal128Type).Scale))
				case *array.Timestamp:
					unit := a.DataType().(*arrow.TimestampType).Unit
					v = fmt.Sprint(a.Value(r).ToTime(unit).UnixNano())
				case *array.Date32:
					v = a.Value(r).FormattedString()
				case *array.Binary:
					b, _ := json.Marshal(a.Value(r))
					v = string(b)
				case *array.String:
					b, _ := json.Marshal(a.Value(r))
					v = string(b)
				default:
					v = col.ValueStr(r)
				}
			}
			parts[c] = rec.ColumnName(c) + "=" + v
		}
		out[r] = strings.Join(parts, "|")
	}
	return out
}

func ratText(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "bad decimal " + s
	}
	return r.RatString()
}

// canonicalGolden renders a recorded row (JSON by column name) as canonicalRows does.
func canonicalGolden(t *testing.T, sch *arrow.Schema, row map[string]json.RawMessage) string {
	parts := make([]string, sch.NumFields())
	for c, f := range sch.Fields() {
		raw, ok := row[f.Name]
		v := "null"
		if ok && string(raw) != "null" {
			var s string
			_ = json.Unmarshal(raw, &s)
			switch dt := f.Type.(type) {
			case *arrow.Decimal128Type:
				if s == "" {
					s = string(raw)
				}
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
					t.Fatalf("column %s: timestamp %s: %v", f.Name, raw, err)
				}
				v = fmt.Sprint(tm.UnixNano())
				_ = dt
			case *arrow.Date32Type:
				v = s
			case *arrow.StringType:
				b, _ := json.Marshal(s)
				v = string(b)
			case *arrow.BinaryType:
				var b bytes.Buffer
				_ = json.Compact(&b, raw)
				v = b.String()
			default:
				v = string(raw)
				if s != "" {
					v = s
				}
			}
		}
		parts[c] = f.Name + "=" + v
	}
	return strings.Join(parts, "|")
}
