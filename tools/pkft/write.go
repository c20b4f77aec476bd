package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

// rowKindField is the optional input field carrying a row's kind.
const rowKindField = "_rowKind"

func writeCommand() *cobra.Command {
	var (
		format       string
		asJSON       bool
		user         string
		writeOnly    bool
		quiet        bool
		progressFlag string
		indexNew     bool
	)
	cmd := &cobra.Command{
		Use:   "write TABLE_PATH [FILE...]",
		Short: "Write rows from stdin into a primary-key table, compacting at commit as Java's writer",
		Long: `Read rows from stdin and commit them to the table as a Java batch writer does: Java's bucket of
each row, level-0 data files committed as an APPEND snapshot, then the compaction Java's writer
runs at commit (on a deletion-vector table every commit moves level 0 up, looking the keys up in
the higher levels and marking the rows they replace in deletion vectors) committed as a COMPACT
snapshot, with the full-text archives of the changed levels built and the stale ones retired.
So the rows are read at once, but not necessarily searched: archives cover only files a
compaction rewrote above level 0, as in Java Paimon, and the compaction at commit moves level-0
files up unchanged where it can (always for a first write into an empty table, unless the table
sets compaction.force-rewrite-all-files); pkft state, and a notice of pkft search, count the rows
not searched and say why, and pkft compact --strategy uncovered indexes them later.
--index-new-rows (an option of this write, not of the table) makes the compaction at commit
rewrite those level-0 files instead, so the rows are searched from the write's commit on, at the
cost of rewriting what was written. --write-only skips the compaction (Paimon's write-only),
leaving the rows on level 0 for a dedicated compaction (pkft compact).

--format jsonl (default): one JSON object per line, keys are column names.
--format csv: a header line naming the columns, then one row per line; \N is NULL, and so is an
empty cell of a non-string column.
--format parquet FILE...: the Parquet files named after the table, streamed record batch by
record batch (Writer.WriteRecord: columns by name, Arrow types as the table's or narrower
integers and float32 for DOUBLE, widened; an optional _rowKind column of +I/-U/+U/-D strings or
int8 kinds).

Values are typed by the table schema: integers, floats, booleans; DECIMAL as a number or a
string; DATE as yyyy-mm-dd or a day number; TIME as hh:mm:ss[.fff] or milliseconds of the day;
TIMESTAMP as "yyyy-mm-dd hh:mm:ss[.fffffffff]" (or with a T) or epoch milliseconds; BINARY as
base64. Missing columns are NULL. A row's kind is the optional field _rowKind: +I (default), -U,
+U or -D. A bad row is reported with its line number and nothing is committed.`,
		Example: `  printf '{"id":1,"content":"hello"}\n{"id":2,"content":"bye","_rowKind":"-D"}\n' | pkft write /data/db.db/docs
  pkft write /data/db.db/docs --format csv < rows.csv
  pkft write /data/db.db/docs --format parquet part-0.parquet part-1.parquet`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if format != "jsonl" && format != "csv" && format != "parquet" {
				return usagef("--format %q: want jsonl, csv or parquet", format)
			}
			if format == "parquet" && len(args) < 2 {
				return usagef("--format parquet: name the Parquet files after the table")
			}
			if format != "parquet" && len(args) > 1 {
				return usagef("--format %s reads stdin: unexpected arguments %v", format, args[1:])
			}
			mode, err := parseProgressMode(progressFlag)
			if err != nil {
				return err
			}
			if quiet {
				if cmd.Flags().Changed("progress") && mode != progressNever {
					return usagef("--quiet and --progress %s contradict each other", mode)
				}
				mode = progressNever
			}
			if format == "parquet" {
				for _, file := range args[1:] {
					if err := checkParquetFile(file); err != nil {
						return err
					}
				}
			}
			ctx := cmd.Context()
			tbl, err := pkft.Open(ctx, args[0], fsOptions(ctx)...)
			if err != nil {
				return err
			}
			var opts []pkft.WriteOption
			if user != "" {
				opts = append(opts, pkft.WithCommitUser(user))
			}
			if writeOnly && indexNew {
				return usagef("--index-new-rows needs the compaction at commit that --write-only skips")
			}
			if writeOnly {
				opts = append(opts, pkft.WithWriteOnly())
			}
			if indexNew {
				opts = append(opts, pkft.WithIndexNewRows())
			}
			meter := newReadMeter(cmd.ErrOrStderr(), mode)
			if o := meter.option(); o != nil {
				opts = append(opts, o)
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
			in := newCtxReader(ctx, cmd.InOrStdin())
			emit := func(line int, rec map[string]any) error {
				kind, row, err := typedRow(sch, rec)
				if err != nil {
					return fmt.Errorf("line %d: %w", line, err)
				}
				if err := w.Write(ctx, kind, row); err != nil {
					return fmt.Errorf("line %d: %w", line, err)
				}
				rows++
				meter.update(rows, in.bytes)
				return nil
			}
			var readBytes int64
			switch format {
			case "parquet":
				var read int64
				for _, file := range args[1:] {
					n, size, err := writeParquet(ctx, w, file, func(n int) { meter.update(rows+n, read) })
					rows += n
					read += size
					if err != nil {
						return err
					}
				}
				meter.finish(rows, read)
				readBytes = read
			case "csv":
				err = readCSV(stdinOf(in, format), sch, emit)
				meter.finish(rows, in.bytes)
				readBytes = in.bytes
			default:
				err = readJSONLines(stdinOf(in, format), maxLineBytes, emit)
				meter.finish(rows, in.bytes)
				readBytes = in.bytes
			}
			if err != nil {
				return err
			}
			meter.committing(rows, readBytes)
			res, err := w.Commit(ctx)
			meter.committed(err == nil)
			if err != nil {
				if res != nil {
					// The append committed; its compaction did not. Nothing is left to abort.
					return fmt.Errorf("rows committed as snapshot %d, not compacted: %w", res.SnapshotID, err)
				}
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					RowsRead int `json:"rowsRead"`
					*pkft.WriteResult
				}{rows, res})
			}
			if res.SnapshotID == 0 {
				_, err = fmt.Fprintln(cmd.OutOrStdout(), "no rows; nothing committed")
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "committed snapshot %d: %d rows read, %d records in %d files, %d archives built, %d retired\n",
				res.SnapshotID, rows, res.Rows, res.Files, res.ArchivesBuilt-res.CompactArchivesBuilt, res.ArchivesRetired-res.CompactArchivesRetired)
			if err == nil && res.CompactSnapshotID != 0 {
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "committed snapshot %d: compaction at commit of %d bucket(s), %d archives built, %d retired\n",
					res.CompactSnapshotID, len(res.Compactions), res.CompactArchivesBuilt, res.CompactArchivesRetired)
			}
			if notice := writeCoverageNotice(res); err == nil && notice != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), notice)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "jsonl", "input format `jsonl|csv|parquet`: jsonl and csv on stdin, parquet from the FILE arguments")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.StringVar(&user, "commit-user", "", "the snapshot's commit `USER` (default: a random UUID)")
	f.BoolVar(&indexNew, "index-new-rows", false, "rewrite the level-0 files at commit instead of moving them up, so the rows are searched at commit")
	f.BoolVar(&quiet, "quiet", false, "draw no progress (same as --progress never)")
	f.StringVar(&progressFlag, "progress", string(progressAuto), "progress on stderr, rows and bytes read with their rate, then each phase of the commit (level-0 files, compaction at commit and archive builds, snapshots): `auto|always|never|json` (auto: when stderr is a terminal; json: a JSON object a line)")
	f.BoolVar(&writeOnly, "write-only", false, "commit level-0 files without the compaction at commit (Paimon's write-only)")
	return cmd
}

// writeCoverageNotice says how many of the rows a write committed no archive covers, why, and
// what covers them; "" when every one is covered (or the table has no full-text index).
func writeCoverageNotice(res *pkft.WriteResult) string {
	c := res.Coverage
	if c == nil || c.UncoveredRows == 0 && c.UncoveredFiles == 0 {
		return ""
	}
	last := res.SnapshotID
	if res.CompactSnapshotID != 0 {
		last = res.CompactSnapshotID
	}
	notice := fmt.Sprintf("notice: %s this write committed %s not searchable at snapshot %d: no full-text archive covers them (%s)",
		rowsInFiles(c.UncoveredRows, c.UncoveredFiles), isOrAre(c.UncoveredRows), last, formatUncovered(c.Uncovered))
	var fixes []string
	for _, u := range c.Uncovered {
		switch u.Reason {
		case pkft.UncoveredLevel0:
			fixes = append(fixes, "`pkft compact` rewrites level 0")
		case pkft.UncoveredMovedUp:
			fixes = append(fixes, "the compaction at commit moved them up without rewriting them: `pkft compact --strategy uncovered` indexes them (next time: `write --index-new-rows`)")
		case pkft.UncoveredNoArchive, pkft.UncoveredDuplicateArchives:
			fixes = append(fixes, "`pkft maintain` builds their archives")
		}
	}
	if len(fixes) > 0 {
		notice += "; " + strings.Join(fixes, "; ")
	}
	return notice
}

// maxLineBytes bounds one input line of pkft write.
const maxLineBytes = 256 << 20

// utf8BOM is the UTF-8 byte-order mark some editors put at the start of a text file.
const utf8BOM = "\ufeff"

// skipBOM drops a UTF-8 byte-order mark at the start of r. Java's readers do not name the
// columns from the input (Paimon's CSV reader skips the header line, its JSON reader keys by
// the schema), so a mark before the header must not become part of a column name.
func skipBOM(r io.Reader) *bufio.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	return br
}

// readJSONLines calls emit for each non-blank line of r, parsed as a JSON object; a line
// longer than maxLine bytes is an error.
func readJSONLines(r io.Reader, maxLine int, emit func(line int, rec map[string]any) error) error {
	tr := &readErrReader{r: r}
	sc := bufio.NewScanner(skipBOM(tr))
	sc.Buffer(make([]byte, min(1<<20, maxLine)), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			if tr.err != nil {
				// The input failed (an interrupt) within this line: the line is cut, not wrong.
				return fmt.Errorf("read stdin after line %d: %w", line-1, tr.err)
			}
			return fmt.Errorf("line %d: not a JSON object: %w", line, err)
		}
		rec, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("line %d: not a JSON object but %s (a row is an object of column names and values)", line, jsonKind(v))
		}
		if dec.More() {
			return fmt.Errorf("line %d: more than one JSON value", line)
		}
		if err := emit(line, rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("line %d: longer than the maximum of %d bytes", line+1, maxLine)
	} else if err != nil {
		return fmt.Errorf("line %d: read stdin: %w", line+1, err)
	}
	return nil
}

// jsonKind names the kind of a decoded JSON value other than an object.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

// readErrReader remembers the error other than io.EOF its reader returned: a line the scanner
// hands over after it was cut by that error is no line of the input.
type readErrReader struct {
	r   io.Reader
	err error
}

func (t *readErrReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// readCSV calls emit for each row of a CSV with a header line.
func readCSV(r io.Reader, sch *pkft.Schema, emit func(line int, rec map[string]any) error) error {
	cr := csv.NewReader(skipBOM(r))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("line 1: %w", err)
	}
	seen := map[string]bool{}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
		if err := checkColumn(sch, header[i]); err != nil {
			return fmt.Errorf("line 1: header: %w", err)
		}
		if seen[header[i]] {
			return fmt.Errorf("line 1: header: column %q given twice", header[i])
		}
		seen[header[i]] = true
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
				c, ok := sch.Column(name)
				if ok && (c.Type.Kind == pkft.KindChar || c.Type.Kind == pkft.KindVarChar) {
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
func typedRow(sch *pkft.Schema, rec map[string]any) (pkft.RowKind, []any, error) {
	kind := pkft.Insert
	if v, ok := rec[rowKindField]; ok && v != nil {
		s, _ := v.(string)
		k, err := pkft.ParseRowKind(s)
		if err != nil {
			return 0, nil, fmt.Errorf("%s %v: want +I, -U, +U or -D", rowKindField, v)
		}
		kind = k
	}
	for k := range rec {
		if err := checkColumn(sch, k); err != nil {
			return 0, nil, err
		}
	}
	row := make([]any, len(sch.Columns))
	for i, f := range sch.Columns {
		v, err := pkft.ParseValue(f.Type, rec[f.Name])
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

// checkColumn refuses an input column the schema does not have, naming invisible characters.
func checkColumn(sch *pkft.Schema, name string) error {
	if name == rowKindField {
		return nil
	}
	if _, ok := sch.Column(name); ok {
		return nil
	}
	if strings.ContainsRune(name, '\ufeff') {
		return fmt.Errorf("unknown column %q: it holds a byte-order mark (U+FEFF)", name)
	}
	return fmt.Errorf("unknown column %q", name)
}

// stdinOf returns stdin for the text format named by --format, refusing Parquet bytes there.
func stdinOf(in io.Reader, format string) io.Reader {
	return &formatCheck{r: bufio.NewReader(in), format: format}
}

// formatCheck refuses, on its first read, an input that starts as a Parquet file.
type formatCheck struct {
	r       *bufio.Reader
	format  string
	checked bool
	err     error
}

// Read implements io.Reader.
func (f *formatCheck) Read(p []byte) (int, error) {
	if !f.checked {
		f.checked = true
		if head, _ := f.r.Peek(len(parquetMagic)); string(head) == parquetMagic {
			f.err = fmt.Errorf("stdin is not %s (--format %s)%s", strings.ToUpper(f.format), f.format, looksLike(head))
		}
	}
	if f.err != nil {
		return 0, f.err
	}
	return f.r.Read(p)
}
