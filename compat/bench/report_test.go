package bench

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleReport() *Report {
	return &Report{
		CPUs: 2,
		Builds: []BuildResult{
			{Rows: 100_000, Analyzer: "default", Engine: 1.0, Go: 1.1, Java: 1.21, GoRSS: 100 << 20, JavaRSS: 300 << 20, Runs: 3},
			{Rows: 100_000, Analyzer: "ngram", Engine: 4.0, Go: 4.0, Java: 4.4, Runs: 3},
		},
		States: []StateResult{{Files: 1000, Payloads: 100, Go: 0.002, Java: 0.01, GoCPU: 0.001, JavaCPU: 0.008},
			{Files: 10_000, Payloads: 100, Go: 0.02, Java: 0.5, GoCPU: 0.012, JavaCPU: 0.4}},
		Maintain: &MaintainResult{Rows: 320_000, Buckets: 16, Go1: 10, Go2: 5.5, Java: 20, Archives: 16},
		Memory:   &MemoryResult{Rows: 1_000_000, PeakRSS: 200 << 20, PeakHeap: 20 << 20, JavaRSS: 600 << 20},
	}
}

// TestReportTable checks the printed ratios: Go against Java and the engine per build, Java over
// Go and the growth per decision, and the maintenance speed-up.
func TestReportTable(t *testing.T) {
	out := sampleReport().Table()
	for _, want := range []string{
		"100k   default", "0.91x", "1.10x", // Go/engine 1.0/1.1, Go/Java 1.21/1.1
		"8.0x", "33.3x", "12.0x", "50.0x", // Java/Go per decision, Go and Java growth
		"1.82x", "3.64x", // 10/5.5, 20/5.5
		"peak Go heap 20 MiB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestReportWrite checks bench.json round-trips and bench.png decodes.
func TestReportWrite(t *testing.T) {
	dir := t.TempDir()
	r := sampleReport()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Builds) != 2 || back.Builds[1].Java != 4.4 || back.Maintain.Go2 != 5.5 || back.States[1].Files != 10_000 {
		t.Errorf("bench.json read back as %+v", back)
	}
	f, err := os.Open(filepath.Join(dir, "bench.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() < 600 || img.Bounds().Dy() < 3*200 {
		t.Errorf("chart is %v, want three panels", img.Bounds())
	}
	if err := (&Report{}).Chart(new(strings.Builder)); err == nil {
		t.Error("an empty report drew a chart")
	}
}

// TestReportBatchesAndSidecar checks the batches and sidecar tables and their notes: Go's rate
// over Java's against the 1.5x target, the RSS target, and catch-up against its round plus one
// poll interval.
func TestReportBatchesAndSidecar(t *testing.T) {
	r := &Report{
		Batches: []BatchResult{
			{Fraction: 0.002, BatchRows: 2000, Batches: 20, TableRows: 1_000_000, Buckets: 16, FillCommits: 10, LevelFiles: "L1:16 L5:16",
				Go:   BatchSide{RowsPerSecond: 3000, CommitP50: 0.5, CommitP99: 0.9, Opens: 96, FileIOBytes: 6 << 20},
				Java: BatchSide{RowsPerSecond: 1000, CommitP50: 2, CommitP99: 3, Rchar: 12 << 20}, GoRSS: 700 << 20, JavaRSS: 600 << 20},
			{Fraction: 0.02, BatchRows: 20000, Batches: 20, TableRows: 1_000_000, Buckets: 16, FillCommits: 10, LevelFiles: "L1:16 L5:16",
				Go: BatchSide{RowsPerSecond: 1200}, Java: BatchSide{RowsPerSecond: 1000}, GoRSS: 700 << 20, JavaRSS: 600 << 20},
		},
		Sidecars: []SidecarResult{
			{Buckets: 100, Rows: 2000, PollInterval: 1, Polls: 10, CPUPerPoll: 0.0003, BytesPerPoll: 1, OpensPerPoll: 1, CatchUp: 1.2, Round: 0.5, Built: 0},
			{Buckets: 1000, Rows: 20000, PollInterval: 1, Polls: 10, CPUPerPoll: 0.0003, BytesPerPoll: 1, OpensPerPoll: 1, CatchUp: 2.5, Round: 0.5, Built: 0},
		},
	}
	r.Notes = notes(r)
	out := r.Table()
	for _, want := range []string{
		"2k (0.2%)", "3.00x", "96.0", "L1:16 L5:16", "peak RSS Go 700 MiB, Java 600 MiB",
		"batches of 2.0%: Go at 1.20x Java's rate (target >= 1.5x)",
		"batches: Go peaked at 700 MiB RSS, Java at 600 MiB (target <= Java's)",
		"sidecar of 1000 buckets: catch-up 2.50s, above its round 500.0ms plus one poll interval 1.00s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"batches of 0.2%: Go at", "sidecar of 100 buckets"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("table has %q:\n%s", unwanted, out)
		}
	}
}

// TestReportContendedSearch checks the contended search figures are printed beside the quiet
// ones, and kept apart in bench.json.
func TestReportContendedSearch(t *testing.T) {
	r := sampleReport()
	r.Busy = 2
	r.Searches = []SearchResult{{Class: "term-broad", Limit: 1000, Rows: 1_000_000, Buckets: 16, Queries: 5, Hits: 5000,
		SearchFigures: SearchFigures{GoMedian: 0.1, JavaMedian: 0.2, GoKeptMedian: 0.09},
		Contended:     &SearchFigures{GoMedian: 0.3, JavaMedian: 0.25, GoKeptMedian: 0.2, GoQPS: 7, GoKeptQPS: 7, JavaQPS: 5}}}
	r.WritesContended = []WriteResult{{Variant: "dv", Rows: 1000, Buckets: 2, GoWrite: 1, JavaWrite: 2, CompactRecords: 1500, GoCompact: 1, JavaCompact: 1.5}}
	out := r.Table()
	for _, want := range []string{
		"with 2 busy processes", "busy: Go 7, Go kept 7, Java 5",
		"0.50x", // quiet Go/Java
		"1.20x", // busy Go/Java 0.3/0.25
		"0.80x", // busy Go kept/Java 0.2/0.25
		"The same with 2 busy processes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	back := jsonRoundTrip(t, r)
	if back.Busy != 2 || back.Searches[0].GoMedian != 0.1 || back.Searches[0].Contended.GoMedian != 0.3 || back.WritesContended[0].GoCompact != 1 {
		t.Errorf("bench.json read back as %+v", back)
	}
}

// TestReportCompactionRuns checks each full compaction run's Go/Java rate is printed and kept in
// bench.json, and a run under 1.2x is a missed target.
func TestReportCompactionRuns(t *testing.T) {
	r := sampleReport()
	r.Writes = []WriteResult{{Variant: "dv", Rows: 1000, Buckets: 2, GoWrite: 1, JavaWrite: 2, CompactRecords: 1500, GoCompact: 1, JavaCompact: 1.5,
		Compactions: []CompactRun{{Go: 1, Java: 1.5}, {Go: 1, Java: 1.3}, {Go: 2, Java: 2.2}}}}
	if out := r.Table(); !strings.Contains(out, "1.50x 1.30x 1.10x") {
		t.Errorf("table lacks the three runs' ratios:\n%s", out)
	}
	back := jsonRoundTrip(t, r)
	if len(back.Writes[0].Compactions) != 3 || back.Writes[0].Compactions[2].Java != 2.2 {
		t.Errorf("bench.json read back as %+v", back.Writes)
	}
	var missed []string
	for _, m := range notes(r) {
		if strings.Contains(m, "compaction") {
			missed = append(missed, m)
		}
	}
	if len(missed) != 1 || !strings.Contains(missed[0], "compaction 3 of 3") {
		t.Errorf("missed compaction targets %q, want run 3 alone", missed)
	}
}

// jsonRoundTrip is r as bench.json holds it, read back.
func jsonRoundTrip(t *testing.T, r *Report) Report {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
