package pkfulltext_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// probeWord marks a few rows of every generated file; searching it checks that the archive
// covers every file to its end under the concatenated row ids.
const probeWord = "pkftprobe"

// corpusChunk is how many corpus rows are generated at a time.
const corpusChunk = 8192

// corpusTexts streams texts from internal/testing/corpus for one data file: about 5% nulls, and the
// probe word appended to the first and last row and every probeEvery-th row (never null).
// Memory stays at one corpus chunk whatever the file size.
type corpusTexts struct {
	seed       uint64
	rows       int
	probeEvery int

	chunk int
	cur   []corpus.Row
	buf   []byte
}

func newCorpusTexts(seed uint64, rows, probeEvery int) *corpusTexts {
	return &corpusTexts{seed: seed, rows: rows, probeEvery: probeEvery, chunk: -1}
}

func (c *corpusTexts) probe(i int) bool {
	return i == 0 || i == c.rows-1 || i%c.probeEvery == 0
}

// probes returns the positions carrying the probe word.
func (c *corpusTexts) probes() []int64 {
	var out []int64
	for i := 0; i < c.rows; i += c.probeEvery {
		out = append(out, int64(i))
	}
	if last := int64(c.rows - 1); last > 0 && out[len(out)-1] != last {
		out = append(out, last)
	}
	return out
}

// text is a paimonparquet.TextFunc; it must be called with increasing i.
func (c *corpusTexts) text(i int) ([]byte, bool) {
	probe := c.probe(i)
	if !probe && splitmix(c.seed^uint64(i))%20 == 0 {
		return nil, true
	}
	if k := i / corpusChunk; k != c.chunk {
		c.chunk = k
		c.cur = corpus.Generate(c.seed*1_000_003+uint64(k), corpusChunk)
	}
	j := i % corpusChunk
	for c.cur[j].Null { // corpus nulls are replaced by the next text; nulls are chosen above
		j = (j + 1) % corpusChunk
	}
	c.buf = append(c.buf[:0], c.cur[j].Text...)
	if probe {
		c.buf = append(c.buf, " "+probeWord...)
	}
	return c.buf, false
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// table is a one-bucket primary-key table in a temporary directory: its data file and index
// path factories, and a builder reading data files through DataFileReaders.
type table struct {
	data    *paths.DataFilePathFactory
	builder *pkfulltext.Builder
	files   []*meta.DataFileMeta
	probes  []int64 // archive row ids carrying the probe word
	rows    int64
	text    int64 // bytes of non-null text
	size    int64 // bytes of data files
}

func newTable(tb testing.TB, root string, lib *native.Library) *table {
	tb.Helper()
	fs, err := paths.NewTableFactory(root, nil)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := fs.DataFilePathFactory(nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	index, err := fs.IndexPathFactory(nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(data.Parent(), 0o755); err != nil {
		tb.Fatal(err)
	}
	io := fileio.NewLocal()
	fieldName := func(schemaID int64, fieldID int32) (string, error) {
		if schemaID == 0 && fieldID == paimonparquet.DefaultTextFieldID {
			return paimonparquet.DefaultTextName, nil
		}
		return "", fmt.Errorf("schema %d field %d: %w", schemaID, fieldID, textreader.ErrFieldNotInSchema)
	}
	return &table{
		data: data,
		builder: &pkfulltext.Builder{
			IndexFile: &pkfulltext.IndexFile{FileIO: io, Paths: index, Engine: native.Engine{Lib: lib}},
			Readers:   &pkfulltext.DataFileReaders{FileIO: io, Paths: data, FieldID: paimonparquet.DefaultTextFieldID, FieldName: fieldName},
			FieldID:   paimonparquet.DefaultTextFieldID,
		},
	}
}

// addFile writes a level-1 data file of rows rows and records it.
func (tb *table) addFile(rows, probeEvery int, o paimonparquet.Options) (string, paimonparquet.Stats, error) {
	path := tb.data.NewPath()
	texts := newCorpusTexts(uint64(len(tb.files)+1), rows, probeEvery)
	o.FirstRow = tb.rows
	st, err := paimonparquet.WriteFile(path, rows, texts.text, o)
	if err != nil {
		return path, st, err
	}
	src := meta.FileSourceCompact
	tb.files = append(tb.files, &meta.DataFileMeta{
		FileName: paths.Name(path), FileSize: st.FileBytes, RowCount: int64(rows), Level: 1, FileSource: &src,
	})
	for _, p := range texts.probes() {
		tb.probes = append(tb.probes, tb.rows+p)
	}
	tb.rows += int64(rows)
	tb.text += st.TextBytes
	tb.size += st.FileBytes
	return path, st, nil
}

// checkArchive checks the archive's metadata and that the probe word finds exactly the probe rows.
func (tb *table) checkArchive(t testing.TB, lib *native.Library, archive *meta.IndexFileMeta) {
	t.Helper()
	if archive.RowCount != tb.rows || archive.GlobalIndex == nil || archive.GlobalIndex.RowRangeEnd != tb.rows-1 || archive.FileSize <= 0 {
		t.Fatalf("archive %+v, want %d rows", archive, tb.rows)
	}
	ctx := context.Background()
	path := tb.builder.IndexFile.Paths.ToPath(archive.FileName)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := lib.OpenReader(ctx, f, archive.FileSize)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(ctx, `{"match":{"query":"`+probeWord+`"}}`, len(tb.probes)+10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.RowID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, tb.probes) {
		t.Fatalf("probe hits at rows %v, want %v", ids, tb.probes)
	}
}

func (tb *table) removeArchive(t testing.TB, archive *meta.IndexFileMeta) {
	t.Helper()
	if err := tb.builder.IndexFile.DeleteIndexFile(context.Background(), archive); err != nil {
		t.Fatal(err)
	}
}

func envInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// paimonDefaults is how Paimon writes a Parquet data file by default: zstd, dictionary enabled.
var paimonDefaults = paimonparquet.Options{Compression: compress.Codecs.Zstd, Dictionary: true, RowGroupRows: 1_000_000}

// BenchmarkBuildLevel builds one archive over a level of three Parquet data files written with
// Paimon's defaults (PKFT_BENCH_ROWS rows in total, default 1,000,000; corpus texts, ~5% nulls),
// reading them through DataFileReaders into the native engine, as a compaction does. One op is
// one archive; rows/s and text bytes/s (SetBytes) compare with native's
// BenchmarkWriterFromMemory, which feeds the same engine from memory.
func BenchmarkBuildLevel(b *testing.B) {
	lib := testenv.Native(b)
	total := envInt(b, "PKFT_BENCH_ROWS", 1_000_000)
	tbl := newTable(b, b.TempDir(), lib)
	for i := range 3 {
		n := total / 3
		if i == 2 {
			n = total - 2*(total/3)
		}
		if n == 0 {
			b.Fatalf("PKFT_BENCH_ROWS=%d: need at least 3 rows", total)
		}
		if _, _, err := tbl.addFile(n, 100_000, paimonDefaults); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.SetBytes(tbl.text)
	b.ReportAllocs()
	b.ResetTimer()
	var archive *meta.IndexFileMeta
	for i := 0; i < b.N; i++ {
		if archive != nil {
			tbl.removeArchive(b, archive)
		}
		var err error
		if archive, err = tbl.builder.Build(ctx, tbl.files); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(tbl.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(tbl.size), "data-file-bytes")
	b.ReportMetric(float64(archive.FileSize), "archive-bytes")
	tbl.checkArchive(b, lib, archive)
	tbl.removeArchive(b, archive)
}

// heapLimit is the most Go heap an archive build may use, whatever the data file size.
const heapLimit = 64 << 20

// TestBuildHeapFromLargeDataFile builds an archive from one data file of at least 1 GiB and
// checks the Go heap stays bounded: the reader streams the text column and the builder hands
// rows to the engine in bounded batches. It writes PKFT_HEAP_FILE_MB (default 1100) MiB, so it
// only runs with PKFT_HEAP_TEST=1 (make heap-test).
//
// The file is written like Paimon with file.compression=none (override with
// PKFT_HEAP_COMPRESSION=zstd|snappy|gzip): the engine indexes about 5 MB of text per second, and
// a compressed file of the same size holds 3-4 times the text, which would make the run several
// times longer without changing what the reader buffers (one page).
func TestBuildHeapFromLargeDataFile(t *testing.T) {
	if os.Getenv("PKFT_HEAP_TEST") != "1" {
		t.Skip("writes a data file of over 1 GiB; run with PKFT_HEAP_TEST=1 (make heap-test), size in PKFT_HEAP_FILE_MB")
	}
	lib := testenv.Native(t)
	target := int64(envInt(t, "PKFT_HEAP_FILE_MB", 1100)) << 20
	o := paimonparquet.Options{Dictionary: true, RowGroupRows: 1_000_000}
	switch c := os.Getenv("PKFT_HEAP_COMPRESSION"); c {
	case "", "none":
	case "zstd":
		o.Compression = compress.Codecs.Zstd
	case "snappy":
		o.Compression = compress.Codecs.Snappy
	case "gzip":
		o.Compression = compress.Codecs.Gzip
	default:
		t.Fatalf("PKFT_HEAP_COMPRESSION=%q: want none, zstd, snappy or gzip", c)
	}
	root := t.TempDir()
	if free := freeBytes(t, root); free < target*2 {
		t.Fatalf("%s has %d MiB free; the data file and its archive need about %d MiB", root, free>>20, 2*target>>20)
	}

	// Size the file from a sample of the same texts.
	sample := newCorpusTexts(1, 200_000, 1_000_000)
	sst, err := paimonparquet.Write(discard{}, sample.rows, sample.text, o)
	if err != nil {
		t.Fatal(err)
	}
	rows := int(float64(target) / (float64(sst.FileBytes) / float64(sst.Rows)) * 1.02)

	tbl := newTable(t, root, lib)
	genPeak, stop := sampleHeap()
	start := time.Now()
	path, st, err := tbl.addFile(rows, 1_000_000, o)
	stop()
	t.Cleanup(func() { os.Remove(path) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d rows, %.1f MiB (%.1f MiB of text, %d row group(s)) in %s; Go heap peak while writing %.1f MiB",
		filepath.Base(path), st.Rows, mib(st.FileBytes), mib(st.TextBytes), st.RowGroups, time.Since(start).Round(time.Millisecond), mib(int64(*genPeak)))
	if st.FileBytes < target {
		t.Fatalf("data file has %d bytes, want at least %d", st.FileBytes, target)
	}

	runtime.GC()
	resetPeakRSS(t)
	peak, stop := sampleHeap()
	start = time.Now()
	archive, err := tbl.builder.Build(context.Background(), tbl.files)
	stop()
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	rss, rssErr := peakRSS()
	t.Logf("built %s (%.1f MiB) over %d rows in %s (%.0f rows/s, %.2f MB/s of text)",
		archive.FileName, mib(archive.FileSize), archive.RowCount, elapsed.Round(time.Millisecond),
		float64(archive.RowCount)/elapsed.Seconds(), float64(st.TextBytes)/1e6/elapsed.Seconds())
	t.Logf("max Go heap during the build (/memory/classes/heap/objects:bytes, sampled every 10ms): %.1f MiB (limit %d MiB)", mib(int64(*peak)), heapLimit>>20)
	if rssErr != nil {
		t.Logf("peak RSS unavailable: %v", rssErr)
	} else {
		t.Logf("peak RSS during the build (VmHWM, includes the engine's native memory): %.1f MiB", mib(rss))
	}
	if *peak >= heapLimit {
		t.Errorf("Go heap peaked at %.1f MiB building from a %.0f MiB data file, want under %d MiB", mib(int64(*peak)), mib(st.FileBytes), heapLimit>>20)
	}
	tbl.checkArchive(t, lib, archive)
	tbl.removeArchive(t, archive)
	if err := os.Remove(path); err != nil {
		t.Errorf("delete data file: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// sampleHeap records the maximum of the Go heap's object bytes (live and not yet swept) every
// 10 ms until stop is called; stop takes a last sample.
func sampleHeap() (peak *uint64, stop func()) {
	peak = new(uint64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				metrics.Read(s)
				*peak = max(*peak, s[0].Value.Uint64())
				return
			case <-tick.C:
			}
		}
	}()
	return peak, func() { close(done); wg.Wait() }
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var s syscall.Statfs_t
	if err := syscall.Statfs(dir, &s); err != nil {
		t.Fatal(err)
	}
	return int64(s.Bavail) * int64(s.Bsize)
}

// resetPeakRSS resets VmHWM to the current RSS (Linux: clear_refs 5), so the peak measured
// afterwards belongs to the build, not to writing the data file.
func resetPeakRSS(t *testing.T) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak RSS (%v); VmHWM covers the whole test", err)
	}
}

// peakRSS returns VmHWM from /proc/self/status.
func peakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmHWM %q: %w", v, err)
			}
			return kb << 10, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
