package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/impl/binrow"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/types"
)

// rowKindField is the optional input field carrying a row's kind.
const rowKindField = "_rowKind"

func writeCommand() *cobra.Command {
	var (
		format string
		asJSON bool
		user   string
	)
	cmd := &cobra.Command{
		Use:   "write TABLE_PATH",
		Short: "Write rows from stdin into a primary-key table as one snapshot",
		Long: `Read rows from stdin and commit them to the table as one APPEND snapshot, as a Java batch
writer does (Java's bucket of each row, level-0 data files, the full-text maintainers run).

--format jsonl (default): one JSON object per line, keys are column names.
--format csv: a header line naming the columns, then one row per line; \N is NULL, and so is an
empty cell of a non-string column.

Values are typed by the table schema: integers, floats, booleans; DECIMAL as a number or a
string; DATE as yyyy-mm-dd or a day number; TIME as hh:mm:ss[.fff] or milliseconds of the day;
TIMESTAMP as "yyyy-mm-dd hh:mm:ss[.fffffffff]" (or with a T) or epoch milliseconds; BINARY as
base64. Missing columns are NULL. A row's kind is the optional field _rowKind: +I (default), -U,
+U or -D. A bad row is reported with its line number and nothing is committed.`,
		Example: `  printf '{"id":1,"content":"hello"}\n{"id":2,"content":"bye","_rowKind":"-D"}\n' | pkft write /data/db.db/docs
  pkft write /data/db.db/docs --format csv < rows.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if format != "jsonl" && format != "csv" {
				return fmt.Errorf("--format %q: want jsonl or csv", format)
			}
			ctx := cmd.Context()
			tbl, err := pkft.Open(ctx, args[0])
			if err != nil {
				return err
			}
			var opts []pkft.MaintainOption
			if user != "" {
				opts = append(opts, pkft.WithCommitUser(user))
			}
			w, err := tbl.NewWriter(ctx, opts...)
			if err != nil {
				return err
			}
			defer func() {
				if err != nil {
					err = errors.Join(err, w.Abort(ctx))
				}
			}()
			sch := w.Schema()
			rows := 0
			emit := func(line int, rec map[string]any) error {
				kind, row, err := typedRow(sch, rec)
				if err != nil {
					return fmt.Errorf("line %d: %w", line, err)
				}
				if err := w.Write(ctx, kind, row); err != nil {
					return fmt.Errorf("line %d: %w", line, err)
				}
				rows++
				return nil
			}
			if format == "csv" {
				err = readCSV(cmd.InOrStdin(), sch, emit)
			} else {
				err = readJSONLines(cmd.InOrStdin(), emit)
			}
			if err != nil {
				return err
			}
			res, err := w.Commit(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"snapshotId": res.SnapshotID, "rowsRead": rows,
					"files": res.Files, "records": res.Rows, "archivesBuilt": res.ArchivesBuilt, "archivesRetired": res.ArchivesRetired, "commit": res.Commit})
			}
			if res.SnapshotID == 0 {
				_, err = fmt.Fprintln(cmd.OutOrStdout(), "no rows; nothing committed")
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "committed snapshot %d: %d rows read, %d records in %d files, %d archives built, %d retired\n",
				res.SnapshotID, rows, res.Rows, res.Files, res.ArchivesBuilt, res.ArchivesRetired)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "jsonl", "input format: jsonl or csv")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.StringVar(&user, "commit-user", "", "the snapshot's commit user (default: a random UUID)")
	return cmd
}

// readJSONLines calls emit for each non-blank line of r, parsed as a JSON object.
func readJSONLines(r io.Reader, emit func(line int, rec map[string]any) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			return fmt.Errorf("line %d: not a JSON object: %w", line, err)
		}
		if dec.More() {
			return fmt.Errorf("line %d: more than one JSON value", line)
		}
		if err := emit(line, rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stdin after line %d: %w", line, err)
	}
	return nil
}

// readCSV calls emit for each row of a CSV with a header line.
func readCSV(r io.Reader, sch *schema.TableSchema, emit func(line int, rec map[string]any) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("line 1: %w", err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if len(rec) != len(header) {
			return fmt.Errorf("line %d: %d cells, the header has %d", line, len(rec), len(header))
		}
		m := map[string]any{}
		for i, name := range header {
			cell := rec[i]
			switch {
			case cell == `\N`:
				m[name] = nil
			case cell == "":
				f, ok := sch.FieldByName(name)
				if ok && (f.Type.Root == types.RootChar || f.Type.Root == types.RootVarChar) {
					m[name] = ""
				} else {
					m[name] = nil
				}
			default:
				m[name] = cell
			}
		}
		if err := emit(line, m); err != nil {
			return err
		}
	}
}

// typedRow converts a record (column name -> JSON or text value) to a row of the schema.
func typedRow(sch *schema.TableSchema, rec map[string]any) (pkft.RowKind, []any, error) {
	kind := pkft.Insert
	if v, ok := rec[rowKindField]; ok && v != nil {
		s, _ := v.(string)
		k, err := types.ParseRowKind(s)
		if err != nil {
			return 0, nil, fmt.Errorf("%s %v: want +I, -U, +U or -D", rowKindField, v)
		}
		kind = pkft.RowKind(k)
	}
	for k := range rec {
		if k == rowKindField {
			continue
		}
		if _, ok := sch.FieldByName(k); !ok {
			return 0, nil, fmt.Errorf("unknown column %q", k)
		}
	}
	row := make([]any, len(sch.Fields))
	for i, f := range sch.Fields {
		v, err := typedValue(f.Type, rec[f.Name])
		if err != nil {
			return 0, nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		if v == nil && f.Type.NotNull {
			return 0, nil, fmt.Errorf("column %s is NOT NULL", f.Name)
		}
		row[i] = v
	}
	return kind, row, nil
}

// typedValue converts a JSON value (json.Number, string, bool, nil) or CSV text to the Go form
// of t.
func typedValue(t types.DataType, v any) (any, error) {
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
	default:
		return nil, fmt.Errorf("value %v (%T) cannot be a %s", v, v, t.SQLString())
	}
	_, isNum := v.(json.Number)
	integer := func(bits int) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, bits)
		if err != nil {
			return 0, fmt.Errorf("%q is not a %d-bit integer", text, bits)
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
		n, err := integer(8)
		return int8(n), err
	case types.RootSmallInt:
		n, err := integer(16)
		return int16(n), err
	case types.RootInt:
		n, err := integer(32)
		return int32(n), err
	case types.RootBigInt:
		return integer(64)
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
		d, err := binrow.ParseDecimal(strings.TrimSpace(text), t.Scale)
		if err != nil {
			return nil, err
		}
		if len(strings.TrimLeft(strings.TrimPrefix(d.Unscaled.String(), "-"), "0")) > t.Precision {
			return nil, fmt.Errorf("%s has more than %d digits", text, t.Precision)
		}
		return d, nil
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
			ms, err := integer(64)
			return binrow.Timestamp{Millis: ms}, err
		}
		s := strings.Replace(strings.TrimSpace(text), "T", " ", 1)
		ts, err := time.Parse("2006-01-02 15:04:05.999999999", s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a timestamp (yyyy-mm-dd hh:mm:ss[.fffffffff])", text)
		}
		nanos := ts.Nanosecond()
		// Keep the precision of the column, as Paimon's cast does.
		unit := int(math.Pow10(9 - min(t.Precision, 9)))
		nanos -= nanos % unit
		return binrow.Timestamp{Millis: ts.Unix()*1000 + int64(nanos/1e6), NanoOfMilli: int32(nanos % 1e6)}, nil
	case types.RootBinary, types.RootVarBinary:
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not base64", text)
		}
		return b, nil
	}
	return nil, fmt.Errorf("type %s is not supported by pkft write", t.SQLString())
}
