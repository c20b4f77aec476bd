package textreader

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
)

var benchWords = []string{
	"paimon", "lake", "format", "primary", "key", "index", "full", "text", "search",
	"archive", "bucket", "level", "compaction", "snapshot", "manifest", "schema",
	"partition", "deletion", "vector", "row", "column", "parquet", "stream", "merge",
	"tree", "sequence", "number", "value", "kind", "commit", "table", "query",
}

// benchText returns a deterministic text of 4..35 words for row i, or null
// for every 20th row.
func benchText(i int, buf []byte) ([]byte, bool) {
	if i%20 == 7 {
		return nil, true
	}
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	n := 4 + int(x>>59)
	buf = buf[:0]
	for w := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if w > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, benchWords[x%uint64(len(benchWords))]...)
	}
	buf = strconv.AppendInt(append(buf, " #"...), int64(i), 10)
	return buf, false
}

// BenchmarkReadTextColumn reads the text column of a level-sized Paimon data
// file (PKFT_BENCH_ROWS rows, default 1,000,000) written like Paimon's
// Parquet defaults: dictionary enabled, zstd, 1 MiB pages. One op reads the
// whole file.
func BenchmarkReadTextColumn(b *testing.B) {
	rows := 1_000_000
	if s := os.Getenv("PKFT_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("PKFT_BENCH_ROWS=%q: want a positive integer", s)
		}
		rows = n
	}
	path := filepath.Join(b.TempDir(), "data-bench-0.parquet")
	var textBytes int64
	gen := func(i int) ([]byte, bool) {
		v, null := benchText(i, nil)
		return v, null
	}
	for i := range rows {
		v, _ := benchText(i, nil)
		textBytes += int64(len(v))
	}
	fx := paimonparquet.Options{Dictionary: true, Compression: compress.Codecs.Zstd, RowGroupRows: 250_000}
	written, err := paimonparquet.WriteFile(path, rows, gen, fx)
	if err != nil {
		b.Fatal(err)
	}
	if written.TextBytes != textBytes {
		b.Fatalf("wrote %d text bytes, generated %d", written.TextBytes, textBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s := FileSpec{FileName: "data-bench-0.parquet", RowCount: int64(rows), FieldID: paimonparquet.DefaultTextFieldID, FieldName: contentAt0}

	b.SetBytes(textBytes)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r, err := Open(ctx, f, st.Size(), s)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for range rows {
			row, err := r.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(row.Text))
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
		if n != textBytes {
			b.Fatalf("read %d text bytes, want %d", n, textBytes)
		}
	}
	runtime.ReadMemStats(&after)
	total := float64(b.N) * float64(rows)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/row")
	b.ReportMetric(float64(st.Size()), "file-bytes")
}
