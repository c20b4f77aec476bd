package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// withOption commits a schema change setting key = value on the table at dir.
func withOption(t *testing.T, dir, key, value string) {
	t.Helper()
	s, err := table.Open(fileio.NewLocal(), dir).LatestSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = map[string]string{key: value}
	for k, v := range s.Options {
		next.Options[k] = v
	}
	next.OptionOrder = append(slices.Clone(s.OptionOrder), key)
	if err := os.WriteFile(filepath.Join(dir, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOptionsCommand checks pkft options lists each option of a table with its class, and marks
// a refused one.
func TestOptionsCommand(t *testing.T) {
	dir := goldenTable(t, "two-levels", true)
	code, out, stderr := pkftRun(t, "options", dir)
	if code != 0 || !strings.Contains(out, "target-file-size") || !strings.Contains(out, "honoured") || strings.Contains(out, "REFUSED") ||
		!strings.Contains(out, "pkft writes, compacts and maintains this table") {
		t.Fatalf("options of a plain table: %d\n%s%s", code, out, stderr)
	}
	withOption(t, dir, "sequence.snapshot-ordering", "true")
	code, out, _ = pkftRun(t, "options", dir, "--json")
	type decision struct {
		Key, Value, Class string
		Refused           bool
		Error             string
	}
	var decisions []decision
	if err := json.Unmarshal([]byte(out), &decisions); code != 0 || err != nil {
		t.Fatalf("options --json: %d %v\n%s", code, err, out)
	}
	i := slices.IndexFunc(decisions, func(d decision) bool { return d.Key == "sequence.snapshot-ordering" })
	if i < 0 || !decisions[i].Refused || decisions[i].Class != "refused" || !strings.Contains(decisions[i].Error, "sequence.snapshot-ordering") {
		t.Fatalf("sequence.snapshot-ordering: %+v", decisions)
	}

	// Options the index-only maintenance accepts though writes refuse them.
	dir = goldenTable(t, "two-levels", true)
	withOption(t, dir, "owner", "team-search")
	withOption(t, dir, "changelog-producer", "lookup")
	code, out, stderr = pkftRun(t, "options", dir)
	if code != 0 || strings.Count(out, "REFUSED (maintain: ok)") != 2 ||
		!strings.Contains(out, "pkft maintains this table (index-only commits) but refuses to write or compact it: 2 option(s) refused") {
		t.Fatalf("options of a table maintain accepts: %d\n%s%s", code, out, stderr)
	}
}

// TestRefusedOptionCommands checks pkft write, compact and maintain refuse a table setting a
// refused or unknown option, naming it, with no file written (maintain accepts a changelog
// producer and a key outside Paimon's namespaces: TestMaintainAcceptsWhatCannotChangeIt in
// internal/tableops checks that).
func TestRefusedOptionCommands(t *testing.T) {
	testenv.Native(t)
	for _, c := range []struct {
		key, value string
		maintain   bool
	}{
		{"sequence.snapshot-ordering", "true", false},
		{"changelog-producer", "lookup", true},
		{"file.format", "orc", true}, // maintain reads each file by its name: an ORC one is refused when read
		{"some.unknown-option", "on", true},
		{"pk-unknown-option", "on", false},
	} {
		dir := goldenTable(t, "two-levels", true)
		withOption(t, dir, c.key, c.value)
		before := tableFiles(t, dir)
		ops := [][]string{{"write", dir}, {"compact", dir}}
		if !c.maintain {
			ops = append(ops, []string{"maintain", dir})
		}
		for _, args := range ops {
			var err error
			if args[0] == "write" {
				_, err = pkftRunIn(t, `{"id":1,"content":"x"}`+"\n", args...)
			} else {
				_, err = pkftRunIn(t, "", args...)
			}
			if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), c.value) {
				t.Errorf("%s = %s: pkft %s: %v", c.key, c.value, args[0], err)
			}
			if !sameFiles(before, tableFiles(t, dir)) {
				t.Fatalf("%s = %s: pkft %s changed the table's files", c.key, c.value, args[0])
			}
		}
	}
}
