package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// pkftRunIn runs the command line in-process with stdin and returns its stdout and error.
func pkftRunIn(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := newRoot(&out, &logSetup{w: io.Discard})
	root.SetErr(io.Discard)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func latestID(t *testing.T, dir string) int64 {
	t.Helper()
	s, err := table.Open(fileio.NewLocal(), dir).Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// TestWriteAndCompactCommands writes JSON lines and CSV with pkft write, refuses a bad row with
// its line number and commits nothing, and compacts with pkft compact --json.
func TestWriteAndCompactCommands(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "ft-default-partitioned", false)
	before := latestID(t, dir)

	out, err := pkftRunIn(t, `{"region":"eu","dt":"2024-01-31","id":9001,"content":"zebra one"}
{"region":"eu","dt":"2024-01-31","id":9002,"content":"zebra two","_rowKind":"+U"}

{"region":"eu","dt":"2024-01-31","id":9002,"_rowKind":"-D"}
`, "write", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		SnapshotID        int64 `json:"snapshotId"`
		CompactSnapshotID int64 `json:"compactSnapshotId"`
		RowsRead          int   `json:"rowsRead"`
		Records           int64 `json:"records"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// An APPEND snapshot, then the COMPACT snapshot of the compaction at commit.
	if res.SnapshotID != before+1 || res.CompactSnapshotID != before+2 || res.RowsRead != 3 || res.Records != 2 {
		t.Errorf("write result %+v", res)
	}
	written := latestID(t, dir)
	if written != before+2 {
		t.Fatalf("latest snapshot %d after the write, want %d", written, before+2)
	}

	files := tableFiles(t, dir)
	for _, bad := range []struct{ in, format, want string }{
		{`{"region":"eu","dt":"2024-01-31","id":1}` + "\n" + `{"region":"eu","dt":"2024-01-31","id":"x"}` + "\n", "jsonl", "line 2"},
		{`{"region":"eu","dt":"2024-01-31","id":1,"nope":1}` + "\n", "jsonl", "line 1: unknown column"},
		{`{"region":"eu","dt":"2024-01-31","id":1,"_rowKind":"+X"}` + "\n", "jsonl", "line 1"},
		{"region,dt,id,content\neu,2024-01-31,5,ok\neu,2024-13-01,6,bad date\n", "csv", "line 3"},
		{`{"dt":"2024-01-31","id":1}` + "\n", "jsonl", "NOT NULL"},
	} {
		_, err := pkftRunIn(t, bad.in, "write", dir, "--format", bad.format)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.in, err, bad.want)
		}
		if latestID(t, dir) != written {
			t.Fatalf("%q: a snapshot was committed", bad.in)
		}
		if now := tableFiles(t, dir); len(now) != len(files) {
			t.Fatalf("%q: files changed (%d -> %d)", bad.in, len(files), len(now))
		}
	}

	// Write-only: level 0 stays, for the compaction below.
	if _, err := pkftRunIn(t, "region,dt,id,content\neu,2024-01-31,9003,\\N\nus,2024-02-01,9004,zebra csv\n", "write", dir, "--format", "csv", "--write-only"); err != nil {
		t.Fatal(err)
	}
	out, err = pkftRunIn(t, "", "compact", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var cres struct {
		SnapshotID int64 `json:"snapshotId"`
		Buckets    []struct {
			Built []any `json:"built"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(out), &cres); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if cres.SnapshotID != written+2 || len(cres.Buckets) == 0 {
		t.Errorf("compact result %s", out)
	}
	out, err = pkftRunIn(t, "", "search", dir, "--query", "zebra", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "9001") {
		t.Errorf("search after compaction does not find the written row: %s", out)
	}
	// Nothing left to compact.
	if out, err = pkftRunIn(t, "", "compact", dir); err != nil || !strings.Contains(out, "nothing committed") {
		t.Errorf("second compaction: %v %s", err, out)
	}
}

// TestWriteInputMessages: a byte-order mark before the header or the first JSON line is
// accepted (Java's readers never take column names from it), errors name the right line, and
// integers are parsed as Paimon's JSON and CSV readers parse them (1.0 and 1.5 are refused).
func TestWriteInputMessages(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "ft-default-partitioned", false)
	before := latestID(t, dir)
	for _, ok := range []struct{ in, format string }{
		{"\ufeffregion,dt,id,content\neu,2024-01-31,9101,bom csv\n", "csv"},
		{"\ufeff" + `{"region":"eu","dt":"2024-01-31","id":9102,"content":"bom json"}` + "\n", "jsonl"},
	} {
		if _, err := pkftRunIn(t, ok.in, "write", dir, "--format", ok.format); err != nil {
			t.Errorf("%q: %v", ok.in, err)
		}
	}
	if got := latestID(t, dir); got != before+4 {
		t.Fatalf("latest snapshot %d, want %d (two writes, each an APPEND and a COMPACT snapshot)", got, before+4)
	}
	files := tableFiles(t, dir)
	for _, bad := range []struct{ in, format, want string }{
		{"region,dt,id,nope\neu,2024-01-31,5,x\n", "csv", `line 1: header: unknown column "nope"`},
		{"region,dt,id\ufeff,content\neu,2024-01-31,5,x\n", "csv", `line 1: header: unknown column "id\ufeff": it holds a byte-order mark (U+FEFF)`},
		{"region,dt,id,id\neu,2024-01-31,5,6\n", "csv", `line 1: header: column "id" given twice`},
		{"\ufeff\ufeffregion,dt,id,content\neu,2024-01-31,5,x\n", "csv", `line 1: header: unknown column "\ufeffregion": it holds a byte-order mark`},
		{"region,dt,id,content\neu,2024-01-31,1.0,x\n", "csv", `line 2: column id: "1.0" is not a 32-bit integer (digits with an optional sign, as Paimon's JSON and CSV readers take an integer)`},
		{`{"region":"eu","dt":"2024-01-31","id":1.0}` + "\n", "jsonl", `line 1: column id: "1.0" is not a 32-bit integer`},
		{`{"region":"eu","dt":"2024-01-31","id":1.5}` + "\n", "jsonl", `line 1: column id: "1.5" is not a 32-bit integer`},
		{"\n\n" + `{"region":"eu","dt":"2024-01-31","id":2,"x":1}` + "\n", "jsonl", `line 3: unknown column "x"`},
	} {
		_, err := pkftRunIn(t, bad.in, "write", dir, "--format", bad.format)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.in, err, bad.want)
		}
	}
	if latestID(t, dir) != before+4 || len(tableFiles(t, dir)) != len(files) {
		t.Fatal("a refused input changed the table")
	}
}

// An over-long JSON line is reported with its own line number.
func TestReadJSONLinesTooLong(t *testing.T) {
	in := `{"id":1}` + "\n" + `{"id":"` + strings.Repeat("x", 100) + `"}` + "\n"
	for _, c := range []struct {
		in   string
		want string
	}{
		{in, "line 2: longer than the maximum of 64 bytes"},
		{strings.Repeat("y", 100), "line 1: longer than the maximum of 64 bytes"},
	} {
		err := readJSONLines(strings.NewReader(c.in), 64, func(int, map[string]any) error { return nil })
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestWriteInterruptedMidLineBlamesNoLine: SIGINT while write reads a line (its first half
// read, the rest never comes) ends with the interruption, exit 130, naming the last whole line
// read and blaming no line of the input as malformed; nothing is committed.
func TestWriteInterruptedMidLineBlamesNoLine(t *testing.T) {
	dir := goldenTable(t, "ft-default-partitioned", false)
	before := tableFiles(t, dir)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		_, _ = pw.Write([]byte(`{"id": 900, "region": "eu", "dt": "2024-01-31", "content": "whole"}` + "\n" + `{"id": 901, "reg`))
		time.Sleep(200 * time.Millisecond)
		cancel(errors.New("interrupt signal received"))
	}()
	var out, errb bytes.Buffer
	code := runWith(ctx, []string{"write", dir, "--quiet"}, pr, &out, &errb)
	stderr := errb.String()
	if code != exitInterrupted || strings.Contains(stderr, "not a JSON object") || strings.Contains(stderr, "line 2") ||
		!strings.Contains(stderr, "after line 1") || !strings.Contains(stderr, "interrupt signal received") {
		t.Errorf("write interrupted mid-line: exit %d, stderr %q", code, stderr)
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Error("the interrupted write changed the table")
	}
}
