package runner

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"text/tabwriter"
	"time"
)

// Status is the outcome of one conformance case in one direction.
type Status string

// The outcomes a case can have. Skip means the case could not run here (a missing runner); under
// PKFT_REQUIRE_JAVA=1 / PKFT_REQUIRE_NATIVE=1 the suite turns such skips into failures.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one row of the conformance matrix.
type Result struct {
	Case      string        `json:"case"`
	Direction string        `json:"direction"`
	Status    Status        `json:"status"`
	Detail    string        `json:"detail,omitempty"`
	Duration  time.Duration `json:"durationNanos"`
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
	r.printSlowest(w, 10)
	r.mu.Lock()
	wall := r.wall
	r.mu.Unlock()
	if wall > 0 {
		fmt.Fprintf(w, "conformance wall time: %.1fs\n", wall.Seconds())
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
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      float64  `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *failure `xml:"skipped,omitempty"`
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
		tc := testcase{Name: res.Direction, Classname: res.Case, Time: res.Duration.Seconds()}
		switch res.Status {
		case Fail:
			s.Failures++
			tc.Failure = &failure{Message: firstLine(res.Detail), Body: res.Detail}
		case Skip:
			s.Skipped++
			tc.Skipped = &failure{Message: firstLine(res.Detail)}
		}
		s.Cases = append(s.Cases, tc)
	}
	x, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "junit.xml"), append([]byte(xml.Header), append(x, '\n')...), 0o644)
}
