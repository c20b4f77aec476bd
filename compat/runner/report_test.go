package runner

import (
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
