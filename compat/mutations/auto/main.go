// Command auto is the helper of scripts/mutations-auto.sh (make mutations-auto): the automatic
// mutation run beside the hand-written catalogue of compat/mutations. gremlins
// (github.com/go-gremlins/gremlins) lists the operator and boundary mutants of the maintainer's
// packages (`gremlins unleash --dry-run --output`); this command reads that report, applies one
// mutant to a copy of the tree (the token swap gremlins itself makes: gremlins rolls every mutant
// back after its own test run and cannot hand over a mutated tree), and turns the script's
// results into the score line and the report of survivors.
//
//	auto list -root DIR -pkg internal/javaio gremlins.json
//	    prints the mutants, one a line: file line column type status (file relative to DIR),
//	    sorted; drops files outside the package's normal build and mutants the normal build
//	    compiles away (inside a branch guarded by the catalogue's mutation.On).
//	auto apply -root DIR file line column type
//	    applies the mutant to DIR/file in place; exit status 3 when it would change nothing.
//	auto covering -profiles DIR -module PATH file line column
//	    reads the cover profiles in DIR (one a unit test, <test>.cov) and prints the go test -run
//	    pattern of the tests that ran file:line:column, "none" when no test ran it, or "all" when
//	    it is outside every instrumented block (see Coverage.Covering).
//	auto report -triage FILE -diffs DIR -o REPORT results.tsv
//	    reads the script's results (file line column type result detail, tab-separated), prints
//	    "mutants: N killed of M (score S%)" and writes the survivors with their diffs to REPORT.
//	auto verdict -triage FILE "file:line:column TYPE"
//	    prints the mutant's verdict in the triage ("equivalent", "open", "killed by ..."), or
//	    nothing when it has no row.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "list":
		err = cmdList(os.Args[2:], os.Stdout, os.Stderr)
	case "apply":
		err = cmdApply(os.Args[2:])
	case "covering":
		err = cmdCovering(os.Args[2:], os.Stdout)
	case "report":
		err = cmdReport(os.Args[2:], os.Stdout)
	case "verdict":
		err = cmdVerdict(os.Args[2:], os.Stdout)
	default:
		usage()
	}
	if err == errNoChange {
		fmt.Fprintln(os.Stderr, "auto:", err)
		os.Exit(3)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "auto:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: auto list|apply|covering|report|verdict ... (see compat/mutations/auto/main.go)")
	os.Exit(2)
}

func cmdList(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	root := fs.String("root", ".", "the module's root")
	pkg := fs.String("pkg", "", "the package directory gremlins ran on, relative to the root")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *pkg == "" {
		return fmt.Errorf("list: want -pkg and one gremlins report")
	}
	b, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	ms, dropped, err := List(*root, *pkg, b)
	if err != nil {
		return err
	}
	for _, m := range ms {
		fmt.Fprintln(stdout, m.TSV())
	}
	for _, d := range dropped {
		fmt.Fprintf(stderr, "auto: dropped %s: %s\n", d.Mutant.ID(), d.Why)
	}
	return nil
}

func cmdApply(args []string) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	root := fs.String("root", ".", "the module's root")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 4 {
		return fmt.Errorf("apply: want file line column type")
	}
	m, err := ParseMutant(fs.Arg(0) + "\t" + fs.Arg(1) + "\t" + fs.Arg(2) + "\t" + fs.Arg(3))
	if err != nil {
		return err
	}
	return ApplyFile(*root, m)
}

func cmdCovering(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("covering", flag.ContinueOnError)
	profiles := fs.String("profiles", "", "the directory of the unit tests' cover profiles")
	module := fs.String("module", "", "the module path the profiles' file names start with")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 3 || *profiles == "" || *module == "" {
		return fmt.Errorf("covering: want -profiles, -module and file line column")
	}
	line, err := strconv.Atoi(fs.Arg(1))
	if err != nil {
		return fmt.Errorf("covering: line %q: %w", fs.Arg(1), err)
	}
	col, err := strconv.Atoi(fs.Arg(2))
	if err != nil {
		return fmt.Errorf("covering: column %q: %w", fs.Arg(2), err)
	}
	c, err := ReadCoverage(*profiles, *module)
	if err != nil {
		return err
	}
	tests, inBlock := c.Covering(fs.Arg(0), line, col)
	switch {
	case !inBlock:
		fmt.Fprintln(stdout, "all")
	case len(tests) == 0:
		fmt.Fprintln(stdout, "none")
	default:
		fmt.Fprintln(stdout, RunPattern(tests))
	}
	return nil
}

func cmdReport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	triage := fs.String("triage", "", "the triage of survivors (markdown table)")
	diffs := fs.String("diffs", "", "the directory of the mutants' diffs")
	out := fs.String("o", "", "the report to write")
	title := fs.String("title", "", "a line saying what the run covered")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return fmt.Errorf("report: want -o and one results file")
	}
	b, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	results, err := ParseResults(string(b))
	if err != nil {
		return err
	}
	var tri map[string]Verdict
	if *triage != "" {
		t, err := os.ReadFile(*triage)
		if err != nil {
			return err
		}
		if tri, err = ParseTriage(string(t)); err != nil {
			return fmt.Errorf("%s: %w", *triage, err)
		}
	}
	s := Score(results, tri)
	fmt.Fprintln(stdout, s.Line())
	if s.Equivalent > 0 || s.NotViable > 0 {
		fmt.Fprintf(stdout, "mutants: not counted: %d equivalent (triaged), %d not viable (do not compile)\n", s.Equivalent, s.NotViable)
	}
	for _, r := range results {
		if v, ok := tri[r.Mutant.ID()]; r.Survived() && !(ok && v.Equivalent()) {
			fmt.Fprintf(stdout, "mutants: survived %s\n", r.Mutant.ID())
		}
	}
	read := func(id string) string {
		if *diffs == "" {
			return ""
		}
		d, err := os.ReadFile(DiffPath(*diffs, id))
		if err != nil {
			return ""
		}
		return string(d)
	}
	return os.WriteFile(*out, []byte(Report(*title, results, tri, read)), 0o644)
}

func cmdVerdict(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("verdict", flag.ContinueOnError)
	triage := fs.String("triage", "", "the triage of survivors (markdown table)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *triage == "" {
		return fmt.Errorf("verdict: want -triage and one mutant")
	}
	t, err := os.ReadFile(*triage)
	if err != nil {
		return err
	}
	tri, err := ParseTriage(string(t))
	if err != nil {
		return fmt.Errorf("%s: %w", *triage, err)
	}
	if v, ok := tri[fs.Arg(0)]; ok {
		fmt.Fprintln(stdout, v.Verdict)
	}
	return nil
}
