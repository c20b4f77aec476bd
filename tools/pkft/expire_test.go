package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
