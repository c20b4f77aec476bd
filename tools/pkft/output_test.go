package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
