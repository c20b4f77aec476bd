package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A package of two files, one the normal build leaves out, with a branch the catalogue's
// mutation.On guards.
const srcMain = `package p

import "github.com/paimon-pkft/pkft/internal/mutation"

func F(a, b int) int {
	if a < b && mutation.On("x") {
		return a - b
	}
	if a >= b {
		return a + b
	}
	for i := 0; i < a; i++ {
		b -= -i
	}
	return b
}
`

const srcTagged = `//go:build pkftmutation

package p

func G(a int) bool { return a > 1 }
`

// gremlinsJSON is a report as gremlins unleash --dry-run --output writes it (file names relative
// to the directory it ran on; files in no particular order).
const gremlinsJSON = `{"go_module":"github.com/paimon-pkft/pkft","files":[
{"file_name":"tagged.go","mutations":[{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":5,"column":31}]},
{"file_name":"p.go","mutations":[
{"type":"CONDITIONALS_BOUNDARY","status":"RUNNABLE","line":9,"column":7},
{"type":"ARITHMETIC_BASE","status":"NOT COVERED","line":7,"column":12},
{"type":"CONDITIONALS_NEGATION","status":"RUNNABLE","line":6,"column":7},
{"type":"INVERT_LOGICAL","status":"RUNNABLE","line":6,"column":11},
{"type":"INCREMENT_DECREMENT","status":"RUNNABLE","line":12,"column":22},
{"type":"INVERT_NEGATIVES","status":"RUNNABLE","line":13,"column":8},
{"type":"ARITHMETIC_BASE","status":"RUNNABLE","line":10,"column":12}]}],
"test_efficacy":0,"mutations_coverage":80,"mutants_total":0,"mutants_killed":0,"mutants_lived":0,
"mutants_not_viable":0,"mutants_not_covered":2,"elapsed_time":0.1}`

func writePkg(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "internal", "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"p.go": srcMain, "tagged.go": srcTagged} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestListSortsAndDropsWhatTheNormalBuildLacks(t *testing.T) {
	root := writePkg(t)
	keep, dropped, err := List(root, "internal/p", []byte(gremlinsJSON))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range keep {
		got = append(got, m.ID()+" "+m.Status)
	}
	want := []string{
		// 6:7 (a < b, an operand beside mutation.On) and 7:12 (the guarded body) are dead;
		// 6:11 (the && itself) is not: as || it makes the branch live.
		"internal/p/p.go:6:11 INVERT_LOGICAL RUNNABLE",
		"internal/p/p.go:9:7 CONDITIONALS_BOUNDARY RUNNABLE",
		"internal/p/p.go:10:12 ARITHMETIC_BASE RUNNABLE",
		"internal/p/p.go:12:22 INCREMENT_DECREMENT RUNNABLE",
		"internal/p/p.go:13:8 INVERT_NEGATIVES RUNNABLE",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("kept:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	why := map[string]string{}
	for _, d := range dropped {
		why[d.Mutant.ID()] = d.Why
	}
	for id, w := range map[string]string{
		"internal/p/tagged.go:5:31 CONDITIONALS_BOUNDARY": "not in the package's normal build",
		"internal/p/p.go:6:7 CONDITIONALS_NEGATION":       "mutation.On",
		"internal/p/p.go:7:12 ARITHMETIC_BASE":            "mutation.On",
	} {
		if !strings.Contains(why[id], w) {
			t.Errorf("dropped %s: %q, want it dropped for %q", id, why[id], w)
		}
	}
	if len(dropped) != 3 {
		t.Errorf("dropped %d mutants, want 3: %v", len(dropped), dropped)
	}
}

func TestApplySwapsOneToken(t *testing.T) {
	for _, c := range []struct {
		m        Mutant
		old, new string
	}{
		{Mutant{Line: 9, Column: 7, Type: "CONDITIONALS_BOUNDARY"}, "if a >= b {", "if a > b {"},
		{Mutant{Line: 9, Column: 7, Type: "CONDITIONALS_NEGATION"}, "if a >= b {", "if a < b {"},
		{Mutant{Line: 6, Column: 11, Type: "INVERT_LOGICAL"}, "if a < b && mutation", "if a < b || mutation"},
		{Mutant{Line: 12, Column: 22, Type: "INCREMENT_DECREMENT"}, "i < a; i++ {", "i < a; i-- {"},
		{Mutant{Line: 13, Column: 8, Type: "INVERT_NEGATIVES"}, "b -= -i", "b -= +i"},
		{Mutant{Line: 10, Column: 12, Type: "ARITHMETIC_BASE"}, "return a + b", "return a - b"},
	} {
		c.m.File = "internal/p/p.go"
		out, err := Apply("p.go", []byte(srcMain), c.m)
		if err != nil {
			t.Errorf("%s: %v", c.m.ID(), err)
			continue
		}
		if want := strings.Replace(srcMain, c.old, c.new, 1); string(out) != want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.m.ID(), out, want)
		}
	}
	// A position without a token the type mutates is an error, not a silent no-op.
	if _, err := Apply("p.go", []byte(srcMain), Mutant{File: "p.go", Line: 9, Column: 7, Type: "ARITHMETIC_BASE"}); err == nil {
		t.Error("ARITHMETIC_BASE at a >= applied")
	}
	if _, err := Apply("p.go", []byte(srcMain), Mutant{File: "p.go", Line: 9, Column: 8, Type: "CONDITIONALS_BOUNDARY"}); err == nil {
		t.Error("a mutant one column off applied")
	}
	// gremlins maps %= to itself under INVERT_ASSIGNMENTS: no mutant.
	src := "package p\n\nfunc H(a int) int {\n\ta %= 3\n\treturn a\n}\n"
	if _, err := Apply("h.go", []byte(src), Mutant{File: "h.go", Line: 4, Column: 4, Type: "INVERT_ASSIGNMENTS"}); err != errNoChange {
		t.Errorf("%%= under INVERT_ASSIGNMENTS: %v, want errNoChange", err)
	}
}

func TestApplyFileThenListRoundTrip(t *testing.T) {
	root := writePkg(t)
	m, err := ParseMutant("internal/p/p.go\t9\t7\tCONDITIONALS_NEGATION\tRUNNABLE")
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyFile(root, m); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "internal", "p", "p.go"))
	if !strings.Contains(string(b), "if a < b {\n\t\treturn a + b") {
		t.Errorf("the file was not mutated:\n%s", b)
	}
}

const triageMD = `# Triage

Some prose.

<!-- triage: begin -->
| mutant | verdict | why |
|---|---|---|
| ` + "`internal/p/p.go:9:7 CONDITIONALS_BOUNDARY`" + ` | equivalent | a == b gives a + b either way |
| ` + "`internal/p/p.go:12:22 INCREMENT_DECREMENT`" + ` | killed by ` + "`scenario/x`" + ` | the case added for it |
| ` + "`internal/p/p.go:10:12 ARITHMETIC_BASE`" + ` | equivalent | wrongly triaged: it is killed |
<!-- triage: end -->
`

const resultsTSV = "internal/p/p.go\t6\t11\tINVERT_LOGICAL\tkilled-unit\tTestF\n" +
	"internal/p/p.go\t9\t7\tCONDITIONALS_BOUNDARY\tlived\t\n" +
	"internal/p/p.go\t9\t7\tCONDITIONALS_NEGATION\tkilled-conformance\tTestConformance/scenario/a/go->java\n" +
	"internal/p/p.go\t10\t12\tARITHMETIC_BASE\tkilled-unit-timeout\t\n" +
	"internal/p/p.go\t12\t22\tINCREMENT_DECREMENT\tlived\t\n" +
	"internal/p/p.go\t13\t8\tINVERT_NEGATIVES\tundecided\tno case failed\n" +
	"internal/q/q.go\t3\t9\tARITHMETIC_BASE\tnot-viable\t\n" +
	"internal/q/q.go\t4\t4\tINVERT_ASSIGNMENTS\tno-change\t\n" +
	"internal/q/q.go\t5\t9\tCONDITIONALS_NEGATION\tkilled-unit\tTestQ\n"

func TestScoreCountsKilledOverNonEquivalentViable(t *testing.T) {
	results, err := ParseResults(resultsTSV)
	if err != nil {
		t.Fatal(err)
	}
	tri, err := ParseTriage(triageMD)
	if err != nil {
		t.Fatal(err)
	}
	s := Score(results, tri)
	// Nine mutants: one not viable, one that changes nothing and one survivor triaged
	// equivalent are not counted; of the six left, four were killed (three by unit tests, a
	// timeout among them, one by a conformance case, one of them wrongly triaged equivalent),
	// two survived (one lived, one undecided; a "killed by" triage counts no survivor killed).
	if s.Killed != 4 || s.Counted != 6 || s.Unit != 3 || s.Conformance != 1 || s.Survived != 2 ||
		s.Equivalent != 2 || s.NotViable != 1 {
		t.Errorf("score %+v", s)
	}
	if got, want := s.Line(), "mutants: 4 killed of 6 (score 66.7%)"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if len(s.StaleTriage) != 1 || s.StaleTriage[0] != "internal/p/p.go:10:12 ARITHMETIC_BASE" {
		t.Errorf("stale triage %v", s.StaleTriage)
	}
	if got := (Scored{}).Line(); got != "mutants: 0 killed of 0 (score 100.0%)" {
		t.Errorf("empty run: %q", got)
	}
}

func TestReportListsSurvivorsWithDiffs(t *testing.T) {
	results, err := ParseResults(resultsTSV)
	if err != nil {
		t.Fatal(err)
	}
	tri, err := ParseTriage(triageMD)
	if err != nil {
		t.Fatal(err)
	}
	diff := func(id string) string {
		if id == "internal/p/p.go:12:22 INCREMENT_DECREMENT" {
			return "--- a/internal/p/p.go\n+++ b/internal/p/p.go\n-\tfor i := 0; i < a; i++ {\n+\tfor i := 0; i < a; i-- {\n"
		}
		return ""
	}
	r := Report("A sample.", results, tri, diff)
	survivors := r[strings.Index(r, "## Survivors"):strings.Index(r, "## Triaged equivalent")]
	for _, want := range []string{
		"### `internal/p/p.go:12:22 INCREMENT_DECREMENT`\n\nlived; triage: killed by `scenario/x`: the case added for it\n\n```diff\n--- a/internal/p/p.go",
		"+\tfor i := 0; i < a; i-- {\n```\n",
		"### `internal/p/p.go:13:8 INVERT_NEGATIVES`\n\nundecided (no case failed); not triaged\n",
	} {
		if !strings.Contains(survivors, want) {
			t.Errorf("the survivors lack %q:\n%s", want, survivors)
		}
	}
	if strings.Contains(survivors, "9:7 CONDITIONALS_BOUNDARY") {
		t.Error("a survivor triaged equivalent is listed among the survivors")
	}
	equivalent := r[strings.Index(r, "## Triaged equivalent"):strings.Index(r, "## Every mutant")]
	if !strings.Contains(equivalent, "9:7 CONDITIONALS_BOUNDARY`\n\nlived; triage: equivalent: a == b gives a + b either way") {
		t.Errorf("the equivalent section:\n%s", equivalent)
	}
	for _, want := range []string{
		"A sample.\n",
		"`mutants: 4 killed of 6 (score 66.7%)`",
		"stale triage: `internal/p/p.go:10:12 ARITHMETIC_BASE`",
		"| `internal/p` | 6 | 2 | 1 | 2 | 1 | 0 | 60.0% |",
		"| `internal/q` | 3 | 1 | 0 | 0 | 1 | 1 | 100.0% |",
		"| `internal/p/p.go:9:7 CONDITIONALS_NEGATION` | killed-conformance | TestConformance/scenario/a/go->java |",
	} {
		if !strings.Contains(r, want) {
			t.Errorf("the report lacks %q:\n%s", want, r)
		}
	}
}

func TestParseRejectsMalformedInput(t *testing.T) {
	for _, bad := range []string{
		"internal/p/p.go\t9\t7\tCONDITIONALS_BOUNDARY\n",           // no result
		"internal/p/p.go\t9\t7\tCONDITIONALS_BOUNDARY\tsurvived\n", // unknown result
		"internal/p/p.go\tx\t7\tCONDITIONALS_BOUNDARY\tlived\n",    // bad line
		"internal/p/p.go\t9\t7\tNO_SUCH_TYPE\tlived\n",             // unknown type
	} {
		if _, err := ParseResults(bad); err == nil {
			t.Errorf("ParseResults(%q) accepted it", bad)
		}
	}
	for _, bad := range []string{
		"no markers",
		"<!-- triage: begin -->\n| `internal/p/p.go:9:7 CONDITIONALS_BOUNDARY` | probably fine | x |\n<!-- triage: end -->",
		"<!-- triage: begin -->\n| `internal/p/p.go:9 CONDITIONALS_BOUNDARY` | equivalent | x |\n<!-- triage: end -->",
	} {
		if _, err := ParseTriage(bad); err == nil {
			t.Errorf("ParseTriage(%q) accepted it", bad)
		}
	}
}

func TestVerdictPrintsTheTriageRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.md")
	if err := os.WriteFile(path, []byte(triageMD), 0o644); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"internal/p/p.go:9:7 CONDITIONALS_BOUNDARY": "equivalent\n",
		"internal/p/p.go:12:22 INCREMENT_DECREMENT": "killed by `scenario/x`\n",
		"internal/p/p.go:9:7 CONDITIONALS_NEGATION": "", // no row
	} {
		var out strings.Builder
		if err := cmdVerdict([]string{"-triage", path, id}, &out); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("verdict of %s: %q, want %q", id, out.String(), want)
		}
	}
	if err := cmdVerdict([]string{"-triage", path}, io.Discard); err == nil {
		t.Error("no mutant: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.md")
	if err := os.WriteFile(bad, []byte("no markers"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmdVerdict([]string{"-triage", bad, "internal/p/p.go:9:7 CONDITIONALS_BOUNDARY"}, io.Discard); err == nil {
		t.Error("a triage without its markers: no error")
	}
}
