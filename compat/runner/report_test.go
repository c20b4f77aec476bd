package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPrintMatrixSlowestAndWallTime: the matrix ends with the ten slowest cells, slowest first,
// the suite's wall time, and the closing count line last (the line CI reads).
func TestPrintMatrixSlowestAndWallTime(t *testing.T) {
	var r Report
	for i := 1; i <= 12; i++ {
		r.Add(Result{Case: "case/" + string(rune('a'+i)), Direction: "go->java", Status: Pass, Duration: time.Duration(i) * time.Second})
	}
	r.Add(Result{Case: "case/z", Direction: "go", Status: Skip, Detail: "no runner", Duration: 0})
	r.SetWallTime(95 * time.Second)
	var b strings.Builder
	r.PrintMatrix(&b)
	out := b.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "conformance: 12 passed, 0 failed, 1 skipped" {
		t.Fatalf("last line %q", last)
	}
	if got := lines[len(lines)-2]; got != "conformance wall time: 95.0s" {
		t.Fatalf("wall time line %q", got)
	}
	i := strings.Index(out, "slowest 10:\n")
	if i < 0 {
		t.Fatalf("no slowest list in\n%s", out)
	}
	slow := strings.Split(strings.TrimSpace(out[i:strings.Index(out, "conformance wall time")]), "\n")[1:]
	if len(slow) != 10 {
		t.Fatalf("slowest list has %d rows:\n%s", len(slow), out)
	}
	if !strings.Contains(slow[0], "12.0s") || !strings.Contains(slow[0], "case/m") || !strings.Contains(slow[9], "3.0s") {
		t.Fatalf("slowest list out of order:\n%s", strings.Join(slow, "\n"))
	}
}

// TestOutcomesGridAndFiles: unsupported and known-upstream results are counted on their own line
// before the closing count line (which keeps its shape and stays last), the producers x
// consumers grid counts each cell, and results.json and junit.xml carry the outcome.
func TestOutcomesGridAndFiles(t *testing.T) {
	var r Report
	r.Add(Result{Case: "consumer/read/a", Direction: "java->py", Status: Pass})
	r.Add(Result{Case: "consumer/search/a", Direction: "java->py", Status: KnownUpstream, Detail: "bug (upstream x.py)"})
	r.Add(Result{Case: "consumer/list-index/a", Direction: "java->py", Status: Unsupported, Detail: "not served"})
	r.Add(Result{Case: "consumer/read/b", Direction: "go->py", Status: Fail, Detail: "rows differ"})
	r.Add(Result{Case: "consumer/read/b", Direction: "go->java", Status: Pass})
	r.Add(Result{Case: "engine/x", Direction: "go", Status: Skip})
	var b strings.Builder
	r.PrintMatrix(&b)
	out := b.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "conformance: 2 passed, 1 failed, 1 skipped" {
		t.Fatalf("last line %q", last)
	}
	if got := lines[len(lines)-2]; got != "conformance outcomes: 1 unsupported, 1 known-upstream" {
		t.Fatalf("outcomes line %q", got)
	}
	i := strings.Index(out, "producers x consumers")
	if i < 0 {
		t.Fatalf("no grid in\n%s", out)
	}
	grid := strings.Split(strings.TrimSpace(out[i:strings.Index(out, "slowest")]), "\n")[1:]
	want := [][]string{
		{"PRODUCER", "java", "py"},
		{"go", "1/0", "0/1"},
		{"java", "-", "1/0", "1", "unsupported", "1", "known-upstream"},
	}
	if len(grid) != len(want) {
		t.Fatalf("grid:\n%s", strings.Join(grid, "\n"))
	}
	for k, row := range grid {
		if got := strings.Fields(row); strings.Join(got, " ") != strings.Join(want[k], " ") {
			t.Fatalf("grid row %d: %q, want %q", k, got, want[k])
		}
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []Result
	if err := json.Unmarshal(js, &rows); err != nil {
		t.Fatal(err)
	}
	got := map[Status]int{}
	for _, x := range rows {
		got[x.Status]++
	}
	if got[KnownUpstream] != 1 || got[Unsupported] != 1 || got[Pass] != 2 || got[Fail] != 1 || got[Skip] != 1 {
		t.Fatalf("results.json outcomes %v", got)
	}
	x, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`<property name="outcome" value="known-upstream"></property>`,
		`<skipped message="known-upstream: bug (upstream x.py)">`,
		`<skipped message="unsupported: not served">`,
		`failures="1" skipped="3"`,
	} {
		if !strings.Contains(string(x), s) {
			t.Fatalf("junit.xml lacks %s:\n%s", s, x)
		}
	}
}

// TestRoleGrid: the implementations x roles grid counts each result once per role its row gives
// an implementation, orders the protocol's roles first, leaves out results without roles, and
// results.json carries the roles.
func TestRoleGrid(t *testing.T) {
	var r Report
	r.Add(Result{Case: "a", Direction: "go->java", Status: Pass, Roles: map[string][]string{"go": {"writer", "compactor"}, "java": {"consumer"}}})
	r.Add(Result{Case: "b", Direction: "go->java", Status: Fail, Roles: map[string][]string{"go": {"writer"}, "java": {"consumer"}}})
	r.Add(Result{Case: "c", Direction: "java->py", Status: Unsupported, Roles: map[string][]string{"py": {"consumer"}}})
	r.Add(Result{Case: "d", Direction: "go", Status: Skip, Roles: map[string][]string{"go": {"maintainer"}}})
	r.Add(Result{Case: "e", Direction: "go", Status: Pass}) // outside the case table: no roles
	var b strings.Builder
	r.PrintMatrix(&b)
	out := b.String()
	i := strings.Index(out, "implementations x roles")
	if i < 0 {
		t.Fatalf("no roles grid in\n%s", out)
	}
	grid := strings.Split(strings.TrimSpace(out[i:strings.Index(out, "slowest")]), "\n")[1:]
	want := [][]string{
		{"IMPLEMENTATION", "consumer", "writer", "compactor", "maintainer"},
		{"go", "-", "1/1", "1/0", "0/0", "1", "skip"},
		{"java", "1/1", "-", "-", "-"},
		{"py", "0/0", "1", "unsupported", "-", "-", "-"},
	}
	if len(grid) != len(want) {
		t.Fatalf("grid:\n%s", strings.Join(grid, "\n"))
	}
	for k, row := range grid {
		if got := strings.Fields(row); strings.Join(got, " ") != strings.Join(want[k], " ") {
			t.Fatalf("roles grid row %d: %q, want %q", k, got, want[k])
		}
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []Result
	if err := json.Unmarshal(js, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || !slices.Equal(rows[0].Roles["go"], []string{"writer", "compactor"}) || rows[4].Roles != nil {
		t.Fatalf("results.json roles: %+v", rows)
	}
}

// TestDirectionEdges: the grid reads every hand-over a direction names.
func TestDirectionEdges(t *testing.T) {
	for dir, want := range map[string]string{
		"go->java":       "go>java",
		"go<->java":      "go>java java>go",
		"java->go->java": "java>go go>java",
		"go+java":        "",
		"go":             "",
		"java-after-go":  "",
		"->java":         "",
	} {
		var got []string
		for _, e := range directionEdges(dir) {
			got = append(got, e[0]+">"+e[1])
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: edges %v, want %q", dir, got, want)
		}
	}
}
