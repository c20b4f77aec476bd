package native_test

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// benchRows is the corpus size of the writer benchmark; PKFT_BENCH_ROWS overrides it.
func benchRows(b *testing.B) int {
	if s := os.Getenv("PKFT_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("PKFT_BENCH_ROWS=%q is not a positive integer", s)
		}
		return n
	}
	return 1_000_000
}

// BenchmarkWriterFromMemory feeds the engine writer a generated corpus held in memory and writes
// the archive to io.Discard: the ceiling every archive build is measured against. It reports
// rows/s and, through SetBytes, text bytes/s.
func BenchmarkWriterFromMemory(b *testing.B) {
	lib := testenv.Native(b)
	rows := corpus.Generate(42, benchRows(b))
	var textBytes int64
	for _, r := range rows {
		textBytes += int64(len(r.Text))
	}
	b.SetBytes(textBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := lib.NewWriter(nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			if r.Null {
				continue
			}
			if err := w.Add(r.ID, r.Text); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.WriteTo(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
