package runner

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Status is the outcome of one conformance case in one direction.
type Status string

// The outcomes a case can have. Skip means the case could not run here (a missing runner); under
// PKFT_REQUIRE_JAVA=1 / PKFT_REQUIRE_NATIVE=1 the suite turns such skips into failures.
// Unsupported means the implementation says, in its checked-in supports file, that it does not
// serve what the case needs (never inferred from a failure). KnownUpstream means the case shows
// a documented bug of that implementation, exactly as documented (its reproduction and the
// upstream file are in the detail); a case whose behaviour no longer matches the documentation
// is a Fail, so that a fix upstream is noticed.
const (
	Pass          Status = "pass"
	Fail          Status = "fail"
	Skip          Status = "skip"
	Unsupported   Status = "unsupported"
	KnownUpstream Status = "known-upstream"
)

// Result is one row of the conformance matrix.
type Result struct {
	Case      string        `json:"case"`
	Direction string        `json:"direction"`
	Status    Status        `json:"status"`
	Detail    string        `json:"detail,omitempty"`
	Duration  time.Duration `json:"durationNanos"`
	// Roles are the roles the case takes of each implementation it runs (its row's sides).
	Roles map[string][]string `json:"roles,omitempty"`
}

// Report collects results from concurrent cases.
type Report struct {
	mu      sync.Mutex
	results []Result
	notes   []string
	wall    time.Duration
}

// AddNote records a line the matrix prints above its table (once, however often it is added):
// what the runners ran on, for instance which Java classes are Paimon's own.
func (r *Report) AddNote(note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.notes {
		if n == note {
			return
		}
	}
	r.notes = append(r.notes, note)
}

// Add records one result.
func (r *Report) Add(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
}

// Results returns the results sorted by case, then direction.
func (r *Report) Results() []Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]Result(nil), r.results...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Case != out[j].Case {
			return out[i].Case < out[j].Case
		}
		return out[i].Direction < out[j].Direction
	})
	return out
}

// PrintMatrix writes the human-readable matrix: the notes, then case, direction, status, and the
// first line of the detail for anything but a pass.
func (r *Report) PrintMatrix(w io.Writer) {
	r.mu.Lock()
	notes := append([]string(nil), r.notes...)
	r.mu.Unlock()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tDIRECTION\tRESULT\tDETAIL")
	counts := map[Status]int{}
	for _, res := range r.Results() {
		counts[res.Status]++
		detail := ""
		if res.Status != Pass {
			detail = firstLine(res.Detail)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", res.Case, res.Direction, res.Status, detail)
	}
	tw.Flush()
	r.printGrid(w)
	r.printRoleGrid(w)
	r.printSlowest(w, 10)
	r.mu.Lock()
	wall := r.wall
	r.mu.Unlock()
	if wall > 0 {
		fmt.Fprintf(w, "conformance wall time: %.1fs\n", wall.Seconds())
	}
	if counts[Unsupported]+counts[KnownUpstream] > 0 {
		fmt.Fprintf(w, "conformance outcomes: %d unsupported, %d known-upstream\n", counts[Unsupported], counts[KnownUpstream])
	}
	fmt.Fprintf(w, "conformance: %d passed, %d failed, %d skipped\n", counts[Pass], counts[Fail], counts[Skip])
}

// SetWallTime records how long the whole suite ran (the test binary's m.Run), printed with the
// matrix.
func (r *Report) SetWallTime(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wall = d
}

// printSlowest writes the n slowest cells (case and direction) with their times, slowest first.
func (r *Report) printSlowest(w io.Writer, n int) {
	res := r.Results()
	sort.SliceStable(res, func(i, j int) bool { return res[i].Duration > res[j].Duration })
	if len(res) > n {
		res = res[:n]
	}
	if len(res) == 0 {
		return
	}
	fmt.Fprintf(w, "\nslowest %d:\n", len(res))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range res {
		fmt.Fprintf(tw, "  %.1fs\t%s\t%s\n", x.Duration.Seconds(), x.Case, x.Direction)
	}
	tw.Flush()
}

// directionEdges lists the producer -> consumer pairs a case's direction names: A->B is one,
// A<->B both ways, and a chain A->B->C each step (A->B, B->C). Directions naming no hand-over
// (go, go+java, java-after-go) name none.
func directionEdges(dir string) [][2]string {
	if a, b, ok := strings.Cut(dir, "<->"); ok {
		if a == "" || b == "" || strings.Contains(b, "->") {
			return nil
		}
		return [][2]string{{a, b}, {b, a}}
	}
	parts := strings.Split(dir, "->")
	var edges [][2]string
	for i := 1; i < len(parts); i++ {
		if parts[i-1] == "" || parts[i] == "" {
			return nil
		}
		edges = append(edges, [2]string{parts[i-1], parts[i]})
	}
	return edges
}

// printGrid writes the producers x consumers grid: one row per producer, one column per consumer,
// from the hand-overs the directions name (directionEdges); each cell counts its cases as
// passed/failed, with the unsupported, known-upstream and skipped ones added when there are any.
func (r *Report) printGrid(w io.Writer) {
	grid := map[string]map[string]map[Status]int{}
	var producers, consumers []string
	for _, res := range r.Results() {
		for _, e := range directionEdges(res.Direction) {
			from, to := e[0], e[1]
			if grid[from] == nil {
				grid[from] = map[string]map[Status]int{}
				producers = append(producers, from)
			}
			if grid[from][to] == nil {
				grid[from][to] = map[Status]int{}
				if !slices.Contains(consumers, to) {
					consumers = append(consumers, to)
				}
			}
			grid[from][to][res.Status]++
		}
	}
	if len(producers) == 0 {
		return
	}
	sort.Strings(producers)
	sort.Strings(consumers)
	printCounts(w, "producers x consumers", "PRODUCER", producers, consumers, grid)
}

// printCounts writes one grid of outcome counts under its title: a row per name of rows, a
// column per name of cols, each cell passed/failed with the other outcomes added ("-" for none).
func printCounts(w io.Writer, title, rowHeader string, rows, cols []string, grid map[string]map[string]map[Status]int) {
	fmt.Fprintf(w, "\n%s (passed/failed, then other outcomes):\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  "+rowHeader)
	for _, c := range cols {
		fmt.Fprintf(tw, "\t%s", c)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s", r)
		for _, c := range cols {
			x, ok := grid[r][c]
			if !ok {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%s", cellText(x))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// roleOrder is the order of the roles grid's columns: the roles of compat/PROTOCOL.md, then any
// other role a result names, sorted.
var roleOrder = []string{"consumer", "writer", "compactor", "maintainer"}

// printRoleGrid writes the implementations x roles grid, beside the producers x consumers one:
// one row per implementation, one column per role, from each result's roles (the sides of its
// case's row); each cell counts the cases that ran the implementation in that role as
// passed/failed, with the unsupported, known-upstream and skipped ones added when there are any.
// Results without roles (cases run outside the case table) are not counted.
func (r *Report) printRoleGrid(w io.Writer) {
	grid := map[string]map[string]map[Status]int{}
	var impls, roles []string
	for _, res := range r.Results() {
		for impl, rs := range res.Roles {
			if grid[impl] == nil {
				grid[impl] = map[string]map[Status]int{}
				impls = append(impls, impl)
			}
			for _, role := range rs {
				if grid[impl][role] == nil {
					grid[impl][role] = map[Status]int{}
					if !slices.Contains(roles, role) {
						roles = append(roles, role)
					}
				}
				grid[impl][role][res.Status]++
			}
		}
	}
	if len(impls) == 0 {
		return
	}
	sort.Strings(impls)
	rank := func(role string) int {
		if i := slices.Index(roleOrder, role); i >= 0 {
			return i
		}
		return len(roleOrder)
	}
	sort.SliceStable(roles, func(i, j int) bool {
		if rank(roles[i]) != rank(roles[j]) {
			return rank(roles[i]) < rank(roles[j])
		}
		return roles[i] < roles[j]
	})
	printCounts(w, "implementations x roles", "IMPLEMENTATION", impls, roles, grid)
}

// cellText is a grid cell: passed/failed, then the other outcomes there are.
func cellText(x map[Status]int) string {
	s := fmt.Sprintf("%d/%d", x[Pass], x[Fail])
	for _, o := range []Status{Unsupported, KnownUpstream, Skip} {
		if x[o] > 0 {
			s += fmt.Sprintf(" %d %s", x[o], o)
		}
	}
	return s
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}

// WriteFiles writes results.json and junit.xml into dir for CI systems.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	results := r.Results()
	js, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	type failure struct {
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	}
	type property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	type testcase struct {
		Name       string     `xml:"name,attr"`
		Classname  string     `xml:"classname,attr"`
		Time       float64    `xml:"time,attr"`
		Properties []property `xml:"properties>property,omitempty"`
		Failure    *failure   `xml:"failure,omitempty"`
		Skipped    *failure   `xml:"skipped,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := suite{Name: "pkft-conformance", Tests: len(results)}
	for _, res := range results {
		tc := testcase{Name: res.Direction, Classname: res.Case, Time: res.Duration.Seconds(),
			Properties: []property{{"outcome", string(res.Status)}}}
		switch res.Status {
		case Fail:
			s.Failures++
			tc.Failure = &failure{Message: firstLine(res.Detail), Body: res.Detail}
		case Skip, Unsupported, KnownUpstream:
			// JUnit has no outcome for these: they are skipped tests whose message says which
			// outcome (the outcome property carries it too).
			s.Skipped++
			msg := firstLine(res.Detail)
			if res.Status != Skip {
				msg = string(res.Status) + ": " + msg
			}
			tc.Skipped = &failure{Message: msg, Body: res.Detail}
		}
		s.Cases = append(s.Cases, tc)
	}
	x, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "junit.xml"), append([]byte(xml.Header), append(x, '\n')...), 0o644)
}
