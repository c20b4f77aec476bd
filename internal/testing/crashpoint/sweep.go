package crashpoint

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/paimon-pkft/pkft/internal/testing/faultio"
)

// Summary is one line of the crash-point table.
type Summary struct {
	Operation string
	// Points are the injection points of a fault-free run (its writes, publications, deletes,
	// listings and reads), per mode.
	Points faultio.Counts
	// Cases were run, Passed of them passed; Committed cases ended with the operation's snapshot
	// published (the fault came after the publication); OrphanCases left orphans (all of them
	// cleanable by Paimon's orphan-file cleaning when the case passed), Orphans in total.
	Cases, Passed, Committed, OrphanCases, Orphans int
}

// TotalPoints is the number of injection points of one mode.
func (s Summary) TotalPoints() int {
	n := 0
	for _, c := range s.Points {
		n += c
	}
	return n
}

// Sweep runs the cases of the harness's operation: every injection point of every mode when
// limit <= 0, else at most limit points per (kind of file operation, mode). report is called
// after each case.
func (h *Harness) Sweep(ctx context.Context, limit int, report func(*Case)) (Summary, error) {
	return h.SweepPoints(ctx, func(c faultio.Counts) []faultio.Point { return faultio.Points(c, Modes, limit) }, report)
}

// SweepPoints runs the cases at the points choose picks from the counts of a fault-free run.
func (h *Harness) SweepPoints(ctx context.Context, choose func(faultio.Counts) []faultio.Point, report func(*Case)) (Summary, error) {
	ref, err := h.Reference(ctx)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Operation: h.Op.Name, Points: ref.Counts}
	f := faultio.New(h.FileIO())
	for _, p := range choose(ref.Counts) {
		c, err := h.Run(ctx, f, p)
		if err != nil {
			return s, fmt.Errorf("%s at %s: %w", h.Op.Name, p, err)
		}
		s.Cases++
		if c.Passed() {
			s.Passed++
		}
		if c.Committed {
			s.Committed++
		}
		if len(c.Orphans) > 0 {
			s.OrphanCases++
			s.Orphans += len(c.Orphans)
		}
		if report != nil {
			report(c)
		}
	}
	return s, nil
}

// WriteTable prints the crash-point table.
func WriteTable(w io.Writer, sums []Summary) {
	sort.SliceStable(sums, func(i, j int) bool { return sums[i].Operation < sums[j].Operation })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tINJECTION POINTS (write/rename/delete/list/read)\tMODES\tCASES\tPASSING\tCOMMITTED\tWITH ORPHANS")
	for _, s := range sums {
		var parts []string
		for _, op := range faultio.Ops {
			parts = append(parts, fmt.Sprint(s.Points.Of(op)))
		}
		fmt.Fprintf(tw, "%s\t%d (%s)\t%d\t%d\t%d\t%d\t%d\n", s.Operation, s.TotalPoints(), strings.Join(parts, "/"),
			len(Modes), s.Cases, s.Passed, s.Committed, s.OrphanCases)
	}
	tw.Flush()
}
