package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestExpireSnapshotsCommand creates a table, writes to it four times, and expires with the
// procedure's arguments: --retain-max keeps that many, the JSON result counts what expired, and
// a bad --older-than or bound is refused with nothing deleted.
func TestExpireSnapshotsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, []byte(`{"columns":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}],
		"primaryKeys":["id"],"options":{"bucket":"1","write-only":"true"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pkftRunIn(t, "", "create", dir, "--schema", schemaFile); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := pkftRunIn(t, `{"id":`+strconv.Itoa(i+1)+`,"v":"x"}`+"\n", "write", dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range [][]string{{"--older-than", "yesterday"}, {"--retain-min", "0"}, {"--retain-max", "1", "--retain-min", "2"}} {
		if _, err := pkftRunIn(t, "", append([]string{"expire-snapshots", dir}, bad...)...); err == nil {
			t.Errorf("expire-snapshots %v succeeded, want a refusal", bad)
		}
	}
	if got := latestID(t, dir); got != 4 {
		t.Fatalf("latest snapshot %d, want 4", got)
	}
	out, err := pkftRunIn(t, "", "expire-snapshots", dir, "--retain-max", "2", "--retain-min", "1", "--older-than", "2000-01-01 00:00:00")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Expired  int   `json:"expired"`
		Earliest int64 `json:"earliestSnapshotId"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// retain-max expires whatever the time window keeps.
	if res.Expired != 2 || res.Earliest != 3 {
		t.Fatalf("expire-snapshots --retain-max 2: %s, want 2 expired, earliest 3", out)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "EARLIEST LATEST snapshot-3 snapshot-4" {
		t.Fatalf("snapshot directory: %s", got)
	}
}

// TestExpireHelpExamplesRun runs expire-snapshots --help's examples on a table with default
// retention and seven snapshots: each succeeds, the first keeps the latest five. --retain-max 5
// alone is refused as Java's procedure refuses it (the default retain min is 10), naming the
// rule as Java's and the flag that lifts it, not as a limitation of pkft.
func TestExpireHelpExamplesRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, []byte(`{"columns":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}],
		"primaryKeys":["id"],"options":{"bucket":"1"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := pkftRun(t, "create", dir, "--schema", schemaFile); code != exitOK {
		t.Fatal(errOut)
	}
	for i := range 7 {
		if _, err := pkftRunIn(t, `{"id":`+strconv.Itoa(i+1)+`,"v":"x"}`+"\n", "write", dir, "--quiet"); err != nil {
			t.Fatal(err)
		}
	}
	snapshots := func() int {
		entries, err := filepath.Glob(filepath.Join(dir, "snapshot", "snapshot-*"))
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	before := snapshots()
	if before < 7 {
		t.Fatalf("%d snapshots, want at least 7", before)
	}
	code, _, errOut := pkftRun(t, "expire-snapshots", dir, "--retain-max", "5")
	if code != exitFailed || !strings.Contains(errOut, "retain max 5 is less than retain min 10 (the default of snapshot.num-retained.min)") ||
		!strings.Contains(errOut, "Java Paimon's expire_snapshots refuses this too") || !strings.Contains(errOut, "--retain-min") ||
		strings.Contains(errOut, "not supported") || snapshots() != before {
		t.Errorf("--retain-max 5 alone: exit %d, %q", code, errOut)
	}
	cmd, _, err := newRoot(&strings.Builder{}, &logSetup{w: &strings.Builder{}}).Find([]string{"expire-snapshots"})
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(cmd.Example), "\n") {
		args := splitExample(t, line)[1:]
		for j, a := range args {
			args[j] = strings.ReplaceAll(a, "/data/db.db/docs", dir)
		}
		if code, _, errOut := pkftRun(t, args...); code != exitOK {
			t.Errorf("example %q: exit %d, %s", line, code, errOut)
		}
		if i == 0 && snapshots() != 5 {
			t.Errorf("example %q left %d snapshots, want 5", line, snapshots())
		}
	}
}

// TestCreateRefusesRetentionAsJava: snapshot.num-retained.max below the default
// snapshot.num-retained.min, or snapshot.num-retained.min below 1, is refused at creation with
// Java's SchemaValidation rule, not as a limitation of the Go writer; with the min lowered too
// the table is created.
func TestCreateRefusesRetentionAsJava(t *testing.T) {
	for _, c := range []struct {
		options, want string
	}{
		{`{"bucket":"1","snapshot.num-retained.max":"5"}`, "snapshot.num-retained.min should not be larger than snapshot.num-retained.max (snapshot.num-retained.min is 10, its default, snapshot.num-retained.max is 5); Java Paimon's SchemaValidation refuses it too"},
		{`{"bucket":"1","snapshot.num-retained.min":"0"}`, `table option snapshot.num-retained.min = "0": snapshot.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`},
		{`{"bucket":"1","snapshot.num-retained.max":"5","snapshot.num-retained.min":"5"}`, ""},
	} {
		schemaFile := filepath.Join(t.TempDir(), "schema.json")
		if err := os.WriteFile(schemaFile, []byte(`{"columns":[{"name":"id","type":"BIGINT"}],"primaryKeys":["id"],"options":`+c.options+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := pkftRun(t, "create", filepath.Join(t.TempDir(), "t"), "--schema", schemaFile)
		if c.want == "" {
			if code != exitOK {
				t.Errorf("options %s: exit %d, %s", c.options, code, errOut)
			}
			continue
		}
		if code != exitFailed || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "not supported") {
			t.Errorf("options %s: exit %d, %q, want %q", c.options, code, errOut, c.want)
		}
	}
}

// TestSnapshotFlagNamesExpiry: --snapshot of an expired snapshot says it expired and which is
// the earliest, and of one not committed yet which is the latest, for every command taking it;
// never a bare file-system error.
func TestSnapshotFlagNamesExpiry(t *testing.T) {
	testenv.Native(t)
	dir := filepath.Join(t.TempDir(), "docs")
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, []byte(`{"columns":[{"name":"id","type":"BIGINT"},{"name":"content","type":"STRING"}],
		"primaryKeys":["id"],"options":{"bucket":"1","deletion-vectors.enabled":"true","pk-full-text.index.columns":"content",
		"snapshot.num-retained.max":"2","snapshot.num-retained.min":"1"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := pkftRun(t, "create", dir, "--schema", schemaFile); code != exitOK {
		t.Fatal(errOut)
	}
	for i := range 4 {
		if _, err := pkftRunIn(t, `{"id":`+strconv.Itoa(i+1)+`,"content":"x"}`+"\n", "write", dir, "--quiet"); err != nil {
			t.Fatal(err)
		}
	}
	latest := latestID(t, dir)
	earliest := latest - 1
	for _, c := range []struct {
		id   int64
		want string
	}{
		{1, fmt.Sprintf("snapshot 1 has expired; the earliest is %d", earliest)},
		{latest + 5, fmt.Sprintf("snapshot %d does not exist; the latest is %d", latest+5, latest)},
	} {
		for _, cmd := range [][]string{{"scan", dir}, {"dump", dir}, {"state", dir}, {"search", dir, "--query", "x"}} {
			args := append(cmd, "--snapshot", strconv.FormatInt(c.id, 10))
			code, _, errOut := pkftRun(t, args...)
			if code != exitFailed || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "no such file") {
				t.Errorf("pkft %v: exit %d, %q, want %q", args, code, errOut, c.want)
			}
		}
	}
}
