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
