package main

import (
	"fmt"
	"slices"
	"strings"
)

// The results the script records for a mutant (the fifth field of its results file).
const (
	KilledUnit        = "killed-unit"         // the package's unit tests failed
	KilledUnitTimeout = "killed-unit-timeout" // the package's unit tests ran past their timeout
	KilledConformance = "killed-conformance"  // a conformance case failed through the mutated Go runner
	Lived             = "lived"               // the unit tests and every conformance case passed
	Undecided         = "undecided"           // no case failed, yet the conformance run did (timeout, crash)
	NotViable         = "not-viable"          // the mutated package does not compile
	NoChange          = "no-change"           // the mutant leaves the source as it is
)

// Result is one line of the script's results: a mutant, what became of it, and a detail (the
// first failing case, or the log to read).
type Result struct {
	Mutant Mutant
	Result string
	Detail string
}

// Killed reports whether a test or a case failed on the mutant.
func (r Result) Killed() bool {
	return r.Result == KilledUnit || r.Result == KilledUnitTimeout || r.Result == KilledConformance
}

// Survived reports whether the mutant passed everything it ran (an undecided run counts: no case
// caught it).
func (r Result) Survived() bool { return r.Result == Lived || r.Result == Undecided }

// ParseResults reads the script's results file: file, line, column, type, result and detail,
// tab-separated, one mutant a line.
func ParseResults(s string) ([]Result, error) {
	var out []Result
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 6)
		if len(f) < 5 {
			return nil, fmt.Errorf("results line %d: %q has %d fields, want 5 or 6", i+1, line, len(f))
		}
		m, err := ParseMutant(strings.Join(f[:4], "\t"))
		if err != nil {
			return nil, fmt.Errorf("results line %d: %w", i+1, err)
		}
		r := Result{Mutant: m, Result: f[4]}
		if len(f) == 6 {
			r.Detail = f[5]
		}
		switch r.Result {
		case KilledUnit, KilledUnitTimeout, KilledConformance, Lived, Undecided, NotViable, NoChange:
		default:
			return nil, fmt.Errorf("results line %d: unknown result %q", i+1, r.Result)
		}
		out = append(out, r)
	}
	return out, nil
}

// Verdict is the triage of a survivor: "equivalent" (no test can tell it from the original), or
// what closes it ("killed by <case>"), or "open".
type Verdict struct {
	Verdict string
	Why     string
}

// Equivalent reports whether the verdict takes the mutant out of the score.
func (v Verdict) Equivalent() bool { return v.Verdict == "equivalent" }

// ParseTriage reads the table between "<!-- triage: begin -->" and "<!-- triage: end -->":
// rows "| `file:line:column TYPE` | verdict | why |".
func ParseTriage(s string) (map[string]Verdict, error) {
	begin, end := strings.Index(s, "<!-- triage: begin -->"), strings.Index(s, "<!-- triage: end -->")
	if begin < 0 || end < begin {
		return nil, fmt.Errorf("the triage table's markers are missing")
	}
	out := map[string]Verdict{}
	for _, line := range strings.Split(s[begin:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("triage row %q has %d cells, want 3", line, len(cells))
		}
		id := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if _, err := ParseMutant(strings.Replace(strings.Replace(id, " ", "\t", 1), ":", "\t", -1)); err != nil {
			return nil, fmt.Errorf("triage row %q: %w", line, err)
		}
		v := Verdict{Verdict: strings.TrimSpace(cells[1]), Why: strings.TrimSpace(cells[2])}
		if v.Verdict != "equivalent" && v.Verdict != "open" && !strings.HasPrefix(v.Verdict, "killed by ") {
			return nil, fmt.Errorf("triage row %q: verdict %q is none of equivalent, open, killed by <case>", line, v.Verdict)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("triage: %s twice", id)
		}
		out[id] = v
	}
	return out, nil
}

// Scored is the tally of a run.
type Scored struct {
	Killed, Counted   int // Killed of Counted: the score
	Unit, Conformance int // the killed, by the stage that killed them (a unit timeout is Unit)
	Survived          int // lived or undecided, not triaged equivalent
	Equivalent        int // survivors triaged equivalent, and mutants that change nothing
	NotViable         int
	StaleTriage       []string // mutants triaged equivalent that something killed
}

// Score tallies results: a mutant counts unless it does not compile, changes nothing, or
// survived and is triaged equivalent.
func Score(results []Result, triage map[string]Verdict) Scored {
	var s Scored
	for _, r := range results {
		v, triaged := triage[r.Mutant.ID()]
		switch {
		case r.Result == NotViable:
			s.NotViable++
			continue
		case r.Result == NoChange, r.Survived() && triaged && v.Equivalent():
			s.Equivalent++
			continue
		}
		s.Counted++
		switch {
		case r.Killed():
			s.Killed++
			if r.Result == KilledConformance {
				s.Conformance++
			} else {
				s.Unit++
			}
			if triaged && v.Equivalent() {
				s.StaleTriage = append(s.StaleTriage, r.Mutant.ID())
			}
		default:
			s.Survived++
		}
	}
	return s
}

// Percent is the score in percent (100 when nothing counted).
func (s Scored) Percent() float64 {
	if s.Counted == 0 {
		return 100
	}
	return 100 * float64(s.Killed) / float64(s.Counted)
}

// Line is the score line the script prints.
func (s Scored) Line() string {
	return fmt.Sprintf("mutants: %d killed of %d (score %.1f%%)", s.Killed, s.Counted, s.Percent())
}

// Report renders the markdown report: the score, a tally per package, every survivor with its
// diff and triage, the mutants triaged equivalent, and every mutant's result. diff returns the
// diff of a mutant's ID ("" when there is none).
func Report(title string, results []Result, triage map[string]Verdict, diff func(id string) string) string {
	var b strings.Builder
	s := Score(results, triage)
	b.WriteString("# Automatic mutation run (make mutations-auto)\n\n")
	if title != "" {
		b.WriteString(title + "\n\n")
	}
	fmt.Fprintf(&b, "`%s`: %d killed by the package's unit tests, %d by a conformance case through the mutated Go runner; %d survived; not counted: %d equivalent, %d not viable.\n\n",
		s.Line(), s.Unit, s.Conformance, s.Survived, s.Equivalent, s.NotViable)
	for _, id := range s.StaleTriage {
		fmt.Fprintf(&b, "- stale triage: `%s` is triaged equivalent but was killed\n", id)
	}
	if len(s.StaleTriage) > 0 {
		b.WriteString("\n")
	}

	var pkgs []string
	byPkg := map[string][]Result{}
	for _, r := range results {
		p := r.Mutant.Package()
		if _, ok := byPkg[p]; !ok {
			pkgs = append(pkgs, p)
		}
		byPkg[p] = append(byPkg[p], r)
	}
	slices.Sort(pkgs)
	b.WriteString("| package | mutants | killed (unit) | killed (conformance) | survived | equivalent | not viable | score |\n|---|---|---|---|---|---|---|---|\n")
	for _, p := range pkgs {
		ps := Score(byPkg[p], triage)
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d | %d | %d | %.1f%% |\n", p, len(byPkg[p]), ps.Unit, ps.Conformance, ps.Survived, ps.Equivalent, ps.NotViable, ps.Percent())
	}

	section := func(heading string, pick func(r Result, v Verdict, triaged bool) bool) {
		fmt.Fprintf(&b, "\n## %s\n", heading)
		n := 0
		for _, r := range results {
			v, triaged := triage[r.Mutant.ID()]
			if !pick(r, v, triaged) {
				continue
			}
			n++
			fmt.Fprintf(&b, "\n### `%s`\n\n%s", r.Mutant.ID(), r.Result)
			if r.Detail != "" {
				fmt.Fprintf(&b, " (%s)", r.Detail)
			}
			if triaged {
				fmt.Fprintf(&b, "; triage: %s: %s", v.Verdict, v.Why)
			} else {
				b.WriteString("; not triaged")
			}
			b.WriteString("\n")
			if d := diff(r.Mutant.ID()); d != "" {
				b.WriteString("\n```diff\n" + strings.TrimRight(d, "\n") + "\n```\n")
			}
		}
		if n == 0 {
			b.WriteString("\nNone.\n")
		}
	}
	section("Survivors", func(r Result, v Verdict, triaged bool) bool {
		return r.Survived() && !(triaged && v.Equivalent())
	})
	section("Triaged equivalent", func(r Result, v Verdict, triaged bool) bool {
		return r.Survived() && triaged && v.Equivalent()
	})

	b.WriteString("\n## Every mutant\n\n| mutant | result | detail |\n|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Mutant.ID(), r.Result, strings.ReplaceAll(r.Detail, "|", "\\|"))
	}
	return b.String()
}
