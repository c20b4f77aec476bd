package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// createEmpty creates a table with no snapshot and returns its path.
func createEmpty(t *testing.T) string {
	t.Helper()
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(contractSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "empty")
	if code, _, errs := pkftRun(t, "create", dir, "--schema", schema); code != 0 {
		t.Fatalf("create: exit %d: %s", code, errs)
	}
	return dir
}

// Issue 36: state and dump failed on a table with no snapshot and refused --json. They say the
// table has none and exit 0; dump accepts --json (JSON is its only form).
func TestDumpAndStateOfATableWithNoSnapshot(t *testing.T) {
	dir := createEmpty(t)
	for _, args := range [][]string{{"dump", dir}, {"dump", dir, "--json"}, {"state", dir, "--json"}} {
		code, out, errs := pkftRun(t, args...)
		var got struct {
			SnapshotID *int64 `json:"snapshotId"`
			Note       string `json:"note"`
			Buckets    []any  `json:"buckets"`
		}
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || errs != "" {
			t.Fatalf("pkft %v: exit %d, %v, stdout %q, stderr %q", args, code, err, out, errs)
		}
		if got.SnapshotID == nil || *got.SnapshotID != 0 || got.Note != noSnapshotNote || got.Buckets == nil || len(got.Buckets) != 0 {
			t.Errorf("pkft %v: %s", args, out)
		}
	}
	code, out, errs := pkftRun(t, "state", dir)
	if code != 0 || out != noSnapshotNote+"\n" || errs != "" {
		t.Errorf("state: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// An explicit snapshot the table does not have is an error.
	if code, _, errs := pkftRun(t, "state", dir, "--snapshot", "1"); code != exitFailed || !strings.HasPrefix(errs, "pkft: ") {
		t.Errorf("state --snapshot 1 of an empty table: exit %d, stderr %q", code, errs)
	}
}

// dump and state take --snapshot: an earlier snapshot's dump and state.
func TestDumpAndStateSnapshotFlag(t *testing.T) {
	table := filepath.Join("..", "..", "testdata", "tables", "java", "partitioned-dv")
	for _, cmd := range []string{"dump", "state"} {
		latest, earlier := -1, -1
		for _, c := range []struct {
			args []string
			id   *int
		}{{[]string{cmd, table, "--json"}, &latest}, {[]string{cmd, table, "--json", "--snapshot", "3"}, &earlier}} {
			code, out, errs := pkftRun(t, c.args...)
			var got struct {
				SnapshotID int `json:"snapshotId"`
			}
			if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
				t.Fatalf("pkft %v: exit %d, %v, stderr %q", c.args, code, err, errs)
			}
			*c.id = got.SnapshotID
		}
		if latest != 7 || earlier != 3 {
			t.Errorf("%s: latest snapshot %d, --snapshot 3 gave %d", cmd, latest, earlier)
		}
		if code, _, errs := pkftRun(t, cmd, table, "--snapshot", "99"); code != exitFailed || !strings.Contains(errs, "snapshot 99") {
			t.Errorf("%s --snapshot 99: exit %d, stderr %q", cmd, code, errs)
		}
	}
}

// Issue 36: {"fuzzy":...} or {"match":{"qury":...}} gave 0 hits on a table with no archives and
// an engine error on one with archives. Both are refused by name before the table is read, the
// same way, as usage errors.
func TestQueriesCheckedBeforeTheData(t *testing.T) {
	noArchives := goldenTable(t, "partitioned-dv", true)
	archives := goldenTable(t, "ft-default-partitioned", false)
	for _, c := range []struct{ query, want string }{
		{`{"fuzzy":{"query":"lake"}}`, `unknown query type "fuzzy"`},
		{`{"match":{"qury":"lake"}}`, `unknown field "qury"`},
		{`{"match":{"query":"lake","opertor":"and"}}`, `unknown field "opertor"`},
		{`{"match_phrase":{"slop":1}}`, `missing required field "query"`},
	} {
		var first string
		for _, dir := range []string{noArchives, archives} {
			code, out, errs := pkftRun(t, "search", dir, "-q", c.query)
			if code != exitUsage || out != "" || !strings.HasPrefix(errs, "pkft: --query: ") || !strings.Contains(errs, c.want) {
				t.Errorf("search %s -q %s: exit %d, stdout %q, stderr %q; want exit 2 naming %s", filepath.Base(dir), c.query, code, out, errs, c.want)
			}
			if first == "" {
				first = errs
			} else if errs != first {
				t.Errorf("-q %s: with archives %q, without %q: want the same refusal", c.query, errs, first)
			}
		}
	}
}

// search --explain prints the engine query and what a plain string means, and searches nothing.
func TestSearchExplain(t *testing.T) {
	dir := goldenTable(t, "ft-default-partitioned", false)
	code, out, errs := pkftRun(t, "search", dir, "-q", `lake "format"`, "--explain")
	if code != 0 || errs != "" || !strings.HasPrefix(out, `engine query: {"match":{"query":"lake \"format\""}}`+"\ncolumn: content\n") ||
		!strings.Contains(out, "no phrase search") || !strings.Contains(out, "stem") || !strings.Contains(out, "stop words") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	q := `{"match_phrase":{"query":"lake format"}}`
	code, out, _ = pkftRun(t, "search", dir, "-q", q, "--explain", "--json")
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got["engineQuery"] != q || got["meaning"] != jsonQueryMeaning {
		t.Errorf("--explain --json: exit %d, %v, %s", code, err, out)
	}
}

// Issue 36: scan printed line breaks, tabs and ESC of values raw to the terminal and a huge
// value whole. Its table escapes them and cuts long values as search does (the same cellText);
// --full prints them whole.
func TestScanCellsEscapedAndCut(t *testing.T) {
	dir := createEmpty(t)
	long := strings.Repeat("lake ", 100000)
	rows, _ := json.Marshal(map[string]any{"id": 1, "content": "a\nb\tc\x1b[31mred\r"})
	rows2, _ := json.Marshal(map[string]any{"id": 2, "content": long})
	if _, err := pkftRunIn(t, string(rows)+"\n"+string(rows2)+"\n", "write", dir); err != nil {
		t.Fatal(err)
	}
	code, out, errs := pkftRun(t, "scan", dir)
	if code != 0 {
		t.Fatalf("scan: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || strings.ContainsAny(out, "\t\r\x1b") {
		t.Fatalf("scan printed %d lines (want a header and 2 rows), raw control characters: %q", len(lines), out[:min(len(out), 600)])
	}
	if !strings.Contains(lines[1], `a\nb\tc\x1b[31mred\r`) {
		t.Errorf("row 1: %q", lines[1])
	}
	wantCut := strings.Repeat("lake ", maxCellRunes/5) + fmt.Sprintf("… (%d more bytes; --full)", len(long)-maxCellRunes)
	if !strings.HasSuffix(strings.TrimRight(lines[2], " "), wantCut) {
		t.Errorf("row 2 is %d bytes, want it cut to %q", len(lines[2]), wantCut)
	}
	if got := cellText(long, false); !strings.HasSuffix(got, wantCut) || len(got) > 2*maxCellRunes {
		t.Errorf("cellText of the long value: %q", got)
	}
	code, out, _ = pkftRun(t, "scan", dir, "--full")
	if code != 0 || !strings.Contains(out, strings.TrimSpace(long)) {
		t.Errorf("scan --full: exit %d, %d bytes; want the value whole", code, len(out))
	}
	// Invalid UTF-8 and bidi controls are escaped too.
	if got := cellText("x\xffy\u202ez", false); got != `x\xffy\u202ez` {
		t.Errorf("cellText = %q", got)
	}
}

// Issue 36: the compact bar showed (0/-, 0 rows/hr). It counts the buckets it compacts.
func TestCompactProgressCountsBuckets(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", false)
	code, out, errs := pkftRun(t, "compact", dir, "--progress", "always", "--parallel", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Buckets []any `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Buckets) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	want := fmt.Sprintf("/%d, ", len(res.Buckets))
	if !strings.Contains(errs, want) || !strings.Contains(errs, "buckets/") || strings.Contains(errs, "/-") || strings.Contains(errs, "rows/") {
		t.Errorf("progress on stderr %q: want buckets counted out of %d", errs, len(res.Buckets))
	}
}

// Issue 36: write printed nothing for 20 s on 400k rows. It shows rows and bytes read with their
// rate on stderr when that is a terminal (--progress always here, stderr being a buffer), and
// nothing with --quiet or when stderr is no terminal.
func TestWriteProgress(t *testing.T) {
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, `{"id":%d,"content":"row %d"}`+"\n", i, i)
	}
	for _, c := range []struct {
		args []string
		want bool
	}{{[]string{"--progress", "always"}, true}, {nil, false}, {[]string{"--quiet"}, false}} {
		dir := createEmpty(t)
		var out, errb strings.Builder
		code := runWith(t.Context(), append([]string{"write", dir}, c.args...), strings.NewReader(in.String()), &out, &errb)
		if code != 0 {
			t.Fatalf("write %v: exit %d: %s", c.args, code, errb.String())
		}
		final := fmt.Sprintf("read 3000 rows, %s (", formatBytes(int64(in.Len())))
		if got := strings.Contains(errb.String(), final) && strings.Contains(errb.String(), " rows/s, "); got != c.want {
			t.Errorf("write %v: stderr %q; want progress ending in %q: %v", c.args, errb.String(), final, c.want)
		}
		if !c.want && errb.Len() != 0 {
			t.Errorf("write %v: stderr %q, want nothing", c.args, errb.String())
		}
	}
}

// Issue 36: a multi-line refusal came out as one log record with escaped quotes and literal \n.
// It is printed as lines, the first "pkft: ...", quotes as they are.
func TestMultiLineRefusalPrintedAsLines(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(`{"columns": [{"name": "id", "type": "INT"}, {"name": "content", "type": "STRING"}],
	  "primaryKeys": ["id"], "options": {"bucket": "1", "merge-engine": "partial-update"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "partial")
	if code, _, errs := pkftRun(t, "create", dir, "--schema", schema); code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var out, errb strings.Builder
	code := runWith(t.Context(), []string{"write", dir}, strings.NewReader(`{"id":1,"content":"x"}`+"\n"+`{"id":1,"content":"x","_rowKind":"-D"}`+"\n"), &out, &errb)
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if code != exitFailed || len(lines) < 2 || !strings.HasPrefix(lines[0], "pkft: ") || strings.Contains(errb.String(), `\n`) ||
		strings.Contains(errb.String(), `\"`) || strings.Contains(errb.String(), "level=") {
		t.Errorf("exit %d, stderr:\n%s\nwant several plain lines, the first 'pkft: ...'", code, errb.String())
	}
}

// Issue 36: `--format parquet rows.jsonl` said "file is smaller than indicated metadata size".
// An input that is not what --format says is named as such, and nothing is committed.
func TestWriteNamesAnInputOfTheWrongFormat(t *testing.T) {
	dir := createEmpty(t)
	before := tableFiles(t, dir)
	jsonl := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"id":1,"content":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := pkftRun(t, "write", dir, "--format", "parquet", jsonl)
	if code != exitFailed || !strings.Contains(errs, jsonl+" is not a Parquet file (--format parquet)") || !strings.Contains(errs, "it looks like JSON lines") {
		t.Errorf("--format parquet rows.jsonl: exit %d, stderr %q", code, errs)
	}
	parquet, err := filepath.Glob(filepath.Join("..", "..", "testdata", "tables", "java", "two-levels", "bucket-0", "*.parquet"))
	if err != nil || len(parquet) == 0 {
		t.Fatalf("no Parquet file of two-levels: %v", err)
	}
	data, err := os.ReadFile(parquet[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"jsonl", "csv"} {
		var out, errb strings.Builder
		code := runWith(t.Context(), []string{"write", dir, "--format", format}, strings.NewReader(string(data)), &out, &errb)
		if code != exitFailed || !strings.Contains(errb.String(), "stdin is not "+strings.ToUpper(format)+" (--format "+format+"); it looks like Parquet") {
			t.Errorf("Parquet on stdin as %s: exit %d, stderr %q", format, code, errb.String())
		}
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Error("a refused input changed the table")
	}
}
