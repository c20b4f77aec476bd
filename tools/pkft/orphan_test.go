package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func ageFiles(t *testing.T, root string, age time.Time) {
	t.Helper()
	if err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, age, age)
	}); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveOrphanFiles_DryRunThenDelete(t *testing.T) {
	dir := goldenTable(t, "two-levels", false)
	orphan := "bucket-0/data-5d1c0a6e-8f0b-4a57-9e51-2f1b6c3d4e5f-0.parquet"
	if err := os.WriteFile(filepath.Join(dir, orphan), []byte("aborted write"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, dir, time.Now().Add(-72*time.Hour))
	before := tableFiles(t, dir)

	code, out, errOut := pkftRun(t, "remove-orphan-files", dir, "--dry-run", "--json", "--older-than", "2d")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		DryRun  bool
		Deleted []struct {
			Path string
			Size int64
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !res.DryRun || len(res.Deleted) != 1 || res.Deleted[0].Path != orphan || res.Deleted[0].Size != int64(len("aborted write")) {
		t.Fatalf("dry run result %+v", res)
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Fatal("dry run changed the table")
	}

	code, out, errOut = pkftRun(t, "remove-orphan-files", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, orphan) || !strings.Contains(out, "deleted 1 orphan file(s)") {
		t.Fatalf("summary:\n%s", out)
	}
	delete(before, orphan)
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Fatal("the cleaning deleted more than the orphan")
	}
}

func TestRemoveOrphanFiles_Refusals(t *testing.T) {
	dir := goldenTable(t, "two-levels", false)
	if err := os.WriteFile(filepath.Join(dir, "bucket-0", "data-x-0.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, dir, time.Now().Add(-72*time.Hour))
	before := tableFiles(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "distributed"}, "--mode"},
		{[]string{"--older-than", "tomorrow"}, "--older-than"},
		{[]string{"--older-than", "2999-01-01 00:00:00"}, "not in the past"},
		{[]string{"--parallel", "-1"}, "--parallel"},
	} {
		code, _, errOut := pkftRun(t, append([]string{"remove-orphan-files", dir}, c.args...)...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %s", c.args, code, errOut)
		}
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Fatal("a refused command changed the table")
	}
}

func TestParseOlderThan(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)
	for in, want := range map[string]time.Time{
		"36h":                     now.Add(-36 * time.Hour),
		"2d":                      now.Add(-48 * time.Hour),
		"2026-02-01 10:20:30":     time.Date(2026, 2, 1, 10, 20, 30, 0, time.Local),
		"2026-02-01 10:20:30.123": time.Date(2026, 2, 1, 10, 20, 30, 123e6, time.Local),
		"2026-02-01":              time.Date(2026, 2, 1, 0, 0, 0, 0, time.Local),
		"2026-02-01T10:20:30Z":    time.Date(2026, 2, 1, 10, 20, 30, 0, time.UTC),
		"1769941230000":           time.UnixMilli(1769941230000),
		"2026-03-02":              time.Date(2026, 3, 2, 0, 0, 0, 0, time.Local), // expire-snapshots takes a future bound
	} {
		got, err := parseOlderThan(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseOlderThan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-3d", "soon", "3 days"} {
		if got, err := parseOlderThan(in, now); err == nil {
			t.Errorf("parseOlderThan(%q) = %v, want an error", in, got)
		}
	}
}
