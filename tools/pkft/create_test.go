package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestCreate_BothSchemaForms creates a table from pkft's JSON form and another from a Java
// schema file; both schema-0 files agree up to the creation time, and creating over an existing
// table fails with status 1 and leaves it as it was.
func TestCreate_BothSchemaForms(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own.json")
	if err := os.WriteFile(own, []byte(`{"columns": [{"name": "region", "type": "STRING"}, {"name": "dt", "type": "DATE"},
	  {"name": "id", "type": "INT"}, {"name": "content", "type": "STRING"}],
	  "primaryKeys": ["region", "dt", "id"], "partitionKeys": ["region", "dt"],
	  "options": {"deletion-vectors.enabled": "true", "bucket": "2"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	java := filepath.Join("..", "..", "testdata", "tables", "java", "partitioned-dv", "schema", "schema-0")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, c := range [][2]string{{a, own}, {b, java}} {
		if code, out, errOut := pkftRun(t, "create", c[0], "--schema", c[1]); code != 0 {
			t.Fatalf("create %s: status %d, stderr %s", c[1], code, errOut)
		} else if !strings.Contains(out, `"STRING NOT NULL"`) {
			t.Errorf("create printed %s, want the schema with the keys NOT NULL", out)
		} else {
			var printed pkft.TableDefinition
			if err := json.Unmarshal([]byte(out), &printed); err != nil {
				t.Fatalf("create printed %s: %v", out, err)
			}
			if printed.Options["bucket"] != "2" || printed.Options["deletion-vectors.enabled"] != "true" ||
				strings.Join(printed.PartitionKeys, ",") != "region,dt" {
				t.Errorf("create printed %s, want the schema with its partition keys and options", out)
			}
		}
	}
	read := func(p string) []byte {
		data, err := os.ReadFile(filepath.Join(p, "schema", "schema-0"))
		if err != nil {
			t.Fatal(err)
		}
		return data[:bytes.LastIndex(data, []byte(`"timeMillis"`))]
	}
	want, err := os.ReadFile(java)
	if err != nil {
		t.Fatal(err)
	}
	want = want[:bytes.LastIndex(want, []byte(`"timeMillis"`))]
	if !bytes.Equal(read(a), want) || !bytes.Equal(read(b), want) {
		t.Errorf("schema-0 differs from Java's:\n%s\n%s\nwant\n%s", read(a), read(b), want)
	}
	code, _, errOut := pkftRun(t, "create", a, "--schema", own)
	if code != 1 || !strings.Contains(errOut, "creation is not allowed") {
		t.Errorf("create over an existing table: status %d, stderr %q", code, errOut)
	}
	if code, _, _ := pkftRun(t, "create", filepath.Join(dir, "c")); code == 0 {
		t.Error("create without --schema succeeded")
	}
}

// TestScan_Where prints a Java table's rows of one partition, filters by a predicate on other
// columns, and refuses an unknown column and unsupported syntax.
func TestScan_Where(t *testing.T) {
	table := filepath.Join("..", "..", "testdata", "tables", "java", "partitioned-dv")
	code, out, errOut := pkftRun(t, "scan", table, "--where", "region=eu", "--json", "--limit", "2")
	if code != 0 {
		t.Fatalf("scan: status %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"region":"eu"`) {
		t.Errorf("scan printed %q, want 2 rows of region eu", out)
	}
	code, out, errOut = pkftRun(t, "scan", table, "--where", "region=eu", "--where", "id = 1 AND content IS NOT NULL", "--json")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"id":1,`) || !strings.Contains(lines[1], `"id":1,`) {
		t.Errorf("scan --where region=eu --where 'id = 1 AND ...': status %d, stderr %q, printed %q, want the 2 rows of id 1 in region eu", code, errOut, out)
	}
	// --explain prints one JSON object per data file: id > 25 rules out the small files by their
	// key statistics and reads the others whole (the table has no sorted index).
	code, out, errOut = pkftRun(t, "scan", table, "--where", "id > 25", "--explain")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) < 2 || !strings.Contains(out, `"how":"pruned"`) || !strings.Contains(out, `"how":"whole"`) {
		t.Errorf("scan --where 'id > 25' --explain: status %d, stderr %q, printed %q", code, errOut, out)
	}
	for _, l := range lines {
		var f struct {
			File, How string
			Level     int
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil || f.File == "" || f.Level == 0 {
			t.Errorf("--explain line %q: %v", l, err)
		}
	}
	for _, c := range []struct{ where, want string }{
		{"nosuch=1", "nosuch (offset 0) is not a column of the table"},
		{"id = 'x'", "takes a number"},
		{"NOT id = 1", "NOT at offset 0 is not supported"},
		{"id BETWEEN 1 AND 2", "BETWEEN at offset 3 is not supported"},
		{"id = NULL", "use IS NULL"},
	} {
		if code, _, errOut := pkftRun(t, "scan", table, "--where", c.where); code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("scan --where %q: status %d, stderr %q, want %q", c.where, code, errOut, c.want)
		}
	}
	code, all, _ := pkftRun(t, "scan", table, "--json")
	// Snapshot 2 is the table's first compaction: fewer rows than the latest; each output has
	// the rows the library's scan of that snapshot has.
	code1, first, _ := pkftRun(t, "scan", table, "--json", "--snapshot", "2")
	n, m := strings.Count(first, "\n"), strings.Count(all, "\n")
	if code != 0 || code1 != 0 || n != libraryRows(t, table, 2) || m != libraryRows(t, table, 0) || n == m {
		t.Errorf("scan --snapshot 2: status %d, %d rows; latest: status %d, %d rows", code1, n, code, m)
	}
	if code, out, _ := pkftRun(t, "--version"); code != 0 || !strings.Contains(out, "pkft version") {
		t.Errorf("--version: status %d, output %q", code, out)
	}
}

// TestExitCodes checks the documented exit statuses: 0 ok, 1 an error, 2 a usage error; every
// error is one line on stderr.
func TestExitCodes(t *testing.T) {
	table := filepath.Join("..", "..", "testdata", "tables", "java", "partitioned-dv")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"dump", table}, 0},
		{[]string{"--version"}, 0},
		{[]string{"dump", filepath.Join(t.TempDir(), "none")}, 1},
		{[]string{"scan", table, "--where", "nosuch=1"}, 1},
		{[]string{"nosuch"}, 2},
		{[]string{"dump"}, 2},
		{[]string{"dump", table, "--bogus"}, 2},
		{[]string{"create", filepath.Join(t.TempDir(), "x")}, 2},
		{[]string{"scan", table, "--limit", "x"}, 2},
	} {
		code, _, errOut := pkftRun(t, c.args...)
		if code != c.want {
			t.Errorf("pkft %v: status %d, want %d (stderr %q)", c.args, code, c.want, errOut)
		}
		if lines := strings.Count(errOut, "\n"); (code == 0 && errOut != "") || (code != 0 && lines != 1) {
			t.Errorf("pkft %v: stderr %q, want one line per error", c.args, errOut)
		}
	}
}

// libraryRows counts the rows of pkft.Table.Scan of snapshot id (0: the latest).
func libraryRows(t *testing.T, path string, id int64) int {
	t.Helper()
	ctx := context.Background()
	tbl, err := pkft.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var opts []pkft.ScanOption
	if id > 0 {
		opts = append(opts, pkft.WithScanSnapshot(id))
	}
	rr, err := tbl.Scan(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	return n
}
