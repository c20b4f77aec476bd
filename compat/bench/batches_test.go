package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/runner"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/countio"
)

// The batches measurement: a full-text deletion-vector table of batchSizes.rows rows in
// batchSizes.buckets buckets, filled by Go's and Java's writers in turn over batchSizes.fill
// commits of decreasing size (each commit's keys spread over the whole key range, so the
// compactions at commit stack the levels; see fillRows), copied, and then on each copy, one side's writer alone writes and commits batches
// of 0.2% and 2% of the table's rows (half inserts of new keys between the stored ones, 35%
// updates and 15% deletes of stored keys), batchSizes.batches of each, one after another, each
// batch through a writer of its own in one long-lived process (a child of the bench for Go, a
// fresh JVM for Java, warmed up first on a third copy).

// batchSizes are the sizes of the batches measurement.
type batchSizes struct {
	rows, buckets, fill, batches int
}

// envInt is the positive integer environment variable name, or def when it is unset.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// batchSizesOf reads the sizes from PKFT_BENCH_BATCH_ROWS, PKFT_BENCH_BATCH_BUCKETS,
// PKFT_BENCH_BATCH_FILL (commits filling the table) and PKFT_BENCH_BATCH_COUNT (batches of
// each size); the defaults are issue 37's shape (1M rows, 16 buckets, 20 batches), or small
// ones for a quick run.
func batchSizesOf(t *testing.T, quick bool) batchSizes {
	d := batchSizes{rows: 1_000_000, buckets: 16, fill: 10, batches: 20}
	if quick {
		d = batchSizes{rows: 20_000, buckets: 4, fill: 8, batches: 5}
	}
	return batchSizes{
		rows:    envInt(t, "PKFT_BENCH_BATCH_ROWS", d.rows),
		buckets: envInt(t, "PKFT_BENCH_BATCH_BUCKETS", d.buckets),
		fill:    envInt(t, "PKFT_BENCH_BATCH_FILL", d.fill),
		batches: envInt(t, "PKFT_BENCH_BATCH_COUNT", d.batches),
	}
}

// batchFractions are the batch sizes, as fractions of the table's rows.
var batchFractions = []float64{0.002, 0.02}

// kindRow is one row of a batch file: kind (I, U or D), id and text (`\N`: null).
func writeKindRows(path string, rows []kindRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%s\n", r.kind, r.id, r.text)
	}
	return errors.Join(w.Flush(), f.Close())
}

type kindRow struct {
	kind string
	id   int64
	text string
}

// texts returns n corpus texts in the streamed form.
func streamTexts(seed uint64, n int) []string {
	out := make([]string, n)
	for i, r := range corpus.Generate(seed, n) {
		out[i] = `\N`
		if !r.Null {
			out[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(r.Text)
		}
	}
	return out
}

// fillRows are the rows of fill commit r of sz.fill: each commit stores its own keys (2k for k
// of a fixed permutation of 0..rows-1, so every commit's keys spread over the whole key range),
// and each stores half as many as the one before, so that the
// compactions at commit leave sorted runs of decreasing size, one per level, instead of merging
// runs of equal size; from the second commit on, a commit also updates a thirtieth as many keys
// of the earlier commits.
func fillRows(sz batchSizes, r int) []kindRow {
	perm := rand.New(rand.NewPCG(37, 37)).Perm(sz.rows)
	counts := make([]int, sz.fill)
	left := sz.rows
	for i := sz.fill - 1; i > 0; i-- {
		counts[i] = max(sz.rows>>min(i+1, 62), 1)
		left -= counts[i]
	}
	counts[0] = left // half the rows, and what the halving leaves over
	lo := 0
	for i := range r {
		lo += counts[i]
	}
	hi := lo + counts[r]
	keys := slices.Sorted(slices.Values(perm[lo:hi]))
	texts := streamTexts(uint64(1000+r), len(keys)+len(keys)/30+1)
	var rows []kindRow
	for i, k := range keys {
		rows = append(rows, kindRow{"I", int64(2 * k), texts[i]})
	}
	if lo > 0 {
		rng := rand.New(rand.NewPCG(uint64(r), 37))
		for i := range len(keys) / 30 {
			rows = append(rows, kindRow{"U", int64(2 * perm[rng.IntN(lo)]), texts[len(keys)+i]})
		}
	}
	return rows
}

// batchRows is batch b of n rows: half inserts of new odd keys (between stored ones), 35% updates
// and 15% deletes of stored even keys.
func batchRows(sz batchSizes, seed uint64, n int) []kindRow {
	rng := rand.New(rand.NewPCG(seed, 37))
	texts := streamTexts(seed, n)
	stored := sz.rows
	seen := map[int64]bool{}
	var rows []kindRow
	for i := 0; len(rows) < n; i++ {
		var r kindRow
		switch x := rng.IntN(100); {
		case x < 50:
			r = kindRow{"I", int64(2*rng.IntN(stored) + 1), texts[len(rows)]}
		case x < 85:
			r = kindRow{"U", int64(2 * rng.IntN(stored)), texts[len(rows)]}
		default:
			r = kindRow{"D", int64(2 * rng.IntN(stored)), `\N`}
		}
		if seen[r.id] { // one change per key and batch
			continue
		}
		seen[r.id] = true
		rows = append(rows, r)
	}
	return rows
}

// batchOut is one batch's measurement on either side.
type batchOut struct {
	Rows        int64 `json:"rows"`
	WriteNanos  int64 `json:"writeNanos"`
	CommitNanos int64 `json:"commitNanos"`
	CPUNanos    int64 `json:"cpuNanos"`
	// Rchar and ReadBytes are the deltas of /proc/self/io's rchar and read_bytes.
	Rchar     int64 `json:"rchar"`
	ReadBytes int64 `json:"readBytes"`
	// Opens (data files opened) and FileIOBytes (bytes read through the FileIO): Go only.
	Opens       int64 `json:"opens"`
	FileIOBytes int64 `json:"fileIOBytes"`
}

// batchesOut is a side's whole run.
type batchesOut struct {
	Batches []batchOut `json:"batches"`
	Peak    int64      `json:"peakRssBytes"`
}

// goWriteBatch writes the rows of file through a writer of its own and commits.
func goWriteBatch(ctx context.Context, tbl *pkft.Table, file string) (rows int64, write, commit time.Duration, err error) {
	w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("pkft-bench"))
	if err != nil {
		return 0, 0, 0, err
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, 0, errors.Join(err, w.Abort(ctx))
	}
	defer f.Close()
	start := time.Now()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 {
			return 0, 0, 0, errors.Join(fmt.Errorf("%s: bad line %q", file, sc.Text()), w.Abort(ctx))
		}
		id, err := strconv.Atoi(parts[1])
		if err != nil {
			return 0, 0, 0, errors.Join(err, w.Abort(ctx))
		}
		kind := map[string]pkft.RowKind{"I": pkft.Insert, "U": pkft.UpdateAfter, "D": pkft.Delete}[parts[0]]
		var text any = parts[2]
		if parts[2] == `\N` {
			text = nil
		}
		if err := w.Write(ctx, kind, []any{int32(id), text}); err != nil {
			return 0, 0, 0, errors.Join(err, w.Abort(ctx))
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		return 0, 0, 0, errors.Join(err, w.Abort(ctx))
	}
	written := time.Now()
	if _, err := w.Commit(ctx); err != nil {
		return 0, 0, 0, err
	}
	return rows, written.Sub(start), time.Since(written), nil
}

// procIO returns a counter of /proc/self/io, -1 when unavailable.
func procIO(key string) int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// benchBatchesChild is the Go side of the batches measurement, in a child process: it opens the
// table through a counting FileIO and writes and commits each file's rows in turn, printing the
// result line. With PKFT_BENCH_BATCH_CPUPROFILE set it writes a CPU profile of the batches there.
func benchBatchesChild(tablePath string, files []string) error {
	ctx := context.Background()
	cfs := countio.New(fileio.NewLocal())
	tbl, err := pkft.Open(ctx, tablePath, openconfig.WithFileIO(cfs))
	if err != nil {
		return err
	}
	if p := os.Getenv("PKFT_BENCH_BATCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	resetPeakRSS()
	var out batchesOut
	for _, file := range files {
		cfs.Reset()
		cpu, rchar, readBytes := processCPU(), procIO("rchar:"), procIO("read_bytes:")
		rows, w, c, err := goWriteBatch(ctx, tbl, file)
		if err != nil {
			return err
		}
		b := batchOut{Rows: rows, WriteNanos: w.Nanoseconds(), CommitNanos: c.Nanoseconds(), CPUNanos: (processCPU() - cpu).Nanoseconds(),
			Rchar: procIO("rchar:") - rchar, ReadBytes: procIO("read_bytes:") - readBytes, FileIOBytes: cfs.BytesRead()}
		for p, n := range cfs.Opens() {
			if strings.HasPrefix(path.Base(p), "data-") {
				b.Opens += int64(n)
			}
		}
		out.Batches = append(out.Batches, b)
	}
	if out.Peak, err = peakRSS(); err != nil {
		return err
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(childPrefix + string(raw))
	return nil
}

// childGoBatches runs benchBatchesChild in a child process of this test binary.
func childGoBatches(ctx context.Context, tablePath string, files []string) (batchesOut, error) {
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "PKFT_BENCH_CHILD_BATCHES="+tablePath, "PKFT_BENCH_CHILD_FILES="+strings.Join(files, "\n"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return batchesOut{}, fmt.Errorf("Go batches child: %w\n%s%s", err, raw, stderr.String())
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, childPrefix); ok {
			var out batchesOut
			return out, json.Unmarshal([]byte(v), &out)
		}
	}
	return batchesOut{}, fmt.Errorf("Go batches child printed no result:\n%s", raw)
}

// levelFiles counts the live data files of each level in the table's latest snapshot.
func levelFiles(ctx context.Context, dir string) (map[int32]int, error) {
	tb := table.Open(fileio.NewLocal(), dir)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return nil, err
	}
	c, err := tb.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	out := map[int32]int{}
	for _, e := range c.Entries {
		out[e.File.Level]++
	}
	return out, nil
}

func measureBatches(t *testing.T, ctx context.Context, java *runner.Process, dir string, sz batchSizes) []BatchResult {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base")
	_, err := pkft.Create(ctx, base, pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "INT NOT NULL"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options: map[string]string{"bucket": strconv.Itoa(sz.buckets), "deletion-vectors.enabled": "true",
			"write-buffer-size": fmt.Sprintf("%d mb", writeBufferSize>>20), pkfulltext.ColumnsOption: "content"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The fill: Go's and Java's writers in turn.
	tbl, err := pkft.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for r := range sz.fill {
		file := filepath.Join(dir, fmt.Sprintf("fill-%d.tsv", r))
		if err := writeKindRows(file, fillRows(sz, r)); err != nil {
			t.Fatal(err)
		}
		if r%2 == 0 {
			if _, _, _, err := goWriteBatch(ctx, tbl, file); err != nil {
				t.Fatalf("fill %d (Go): %v", r, err)
			}
		} else if err := java.Call(ctx, "bench-batches", map[string]any{"path": base, "files": []string{file}}, nil); err != nil {
			t.Fatalf("fill %d (Java): %v", r, err)
		}
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
	}
	levels, err := levelFiles(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("batches: filled %d rows in %d buckets over %d commits in %s; data files per level %v", sz.rows, sz.buckets, sz.fill, time.Since(start).Round(time.Second), levels)

	var files []string
	for fi, frac := range batchFractions {
		n := max(int(float64(sz.rows)*frac), 1)
		for b := range sz.batches {
			file := filepath.Join(dir, fmt.Sprintf("batch-%d-%d.tsv", fi, b))
			if err := writeKindRows(file, batchRows(sz, uint64(5000+fi*1000+b), n)); err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
	}
	gp, jp, wp := filepath.Join(dir, "go"), filepath.Join(dir, "java"), filepath.Join(dir, "java-warm-up")
	for _, p := range []string{gp, jp, wp} {
		if out, err := exec.CommandContext(ctx, "cp", "-a", base, p).CombinedOutput(); err != nil {
			t.Fatalf("copy the table: %v\n%s", err, out)
		}
	}
	settle()
	goOut, err := childGoBatches(ctx, gp, files)
	if err != nil {
		t.Fatal(err)
	}
	settle()
	jv, err := runner.StartJava(ctx, runner.WithOptimizingJIT())
	if err != nil {
		t.Fatal(err)
	}
	defer jv.Close()
	// The fresh JVM first writes one batch of each size into a copy of its own, so that the timed
	// batches do not include its JIT compilation (Go's child needs no warm-up).
	if err := jv.Call(ctx, "bench-batches", map[string]any{"path": wp, "files": []string{files[0], files[sz.batches]}}, nil); err != nil {
		t.Fatal(err)
	}
	var javaOut batchesOut
	if err := jv.Call(ctx, "bench-batches", map[string]any{"path": jp, "files": files}, &javaOut); err != nil {
		t.Fatal(err)
	}
	if len(goOut.Batches) != len(files) || len(javaOut.Batches) != len(files) {
		t.Fatalf("Go measured %d batches, Java %d, want %d", len(goOut.Batches), len(javaOut.Batches), len(files))
	}
	// Both copies end with the same rows, as Java reads them.
	var counts [2]int
	for i, p := range []string{gp, jp} {
		var got struct {
			Rows int `json:"rows"`
		}
		if err := java.Call(ctx, "bench-count", map[string]any{"path": p}, &got); err != nil {
			t.Fatal(err)
		}
		counts[i] = got.Rows
	}
	if counts[0] != counts[1] {
		t.Fatalf("after the batches Java reads %d rows in Go's copy and %d in Java's", counts[0], counts[1])
	}
	var levelNames []string
	for _, l := range slices.Sorted(func(yield func(int32) bool) {
		for l := range levels {
			if !yield(l) {
				return
			}
		}
	}) {
		levelNames = append(levelNames, fmt.Sprintf("L%d:%d", l, levels[l]))
	}
	var out []BatchResult
	for fi, frac := range batchFractions {
		lo, hi := fi*sz.batches, (fi+1)*sz.batches
		res := BatchResult{Fraction: frac, TableRows: sz.rows, Buckets: sz.buckets, FillCommits: sz.fill, Batches: sz.batches,
			LevelFiles: strings.Join(levelNames, " "), GoRSS: goOut.Peak, JavaRSS: javaOut.Peak}
		res.Go = summarize(goOut.Batches[lo:hi])
		res.Java = summarize(javaOut.Batches[lo:hi])
		res.BatchRows = int(res.Go.Rows) / sz.batches
		t.Logf("batches of %.1f%%: Go %.0f rows/s (commit p50 %s p99 %s, %.1f data-file opens and %s read per commit), Java %.0f rows/s (commit p50 %s p99 %s, rchar %s per commit); peak RSS Go %s, Java %s",
			frac*100, res.Go.RowsPerSecond, dur(res.Go.CommitP50), dur(res.Go.CommitP99), res.Go.Opens, size(res.Go.FileIOBytes),
			res.Java.RowsPerSecond, dur(res.Java.CommitP50), dur(res.Java.CommitP99), size(res.Java.Rchar), size(res.GoRSS), size(res.JavaRSS))
		out = append(out, res)
	}
	for _, p := range []string{base, gp, jp, wp} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// summarize reduces one series of batches to its figures.
func summarize(bs []batchOut) BatchSide {
	var s BatchSide
	var total float64
	var commits []float64
	var opens int64
	for _, b := range bs {
		s.Rows += b.Rows
		total += float64(b.WriteNanos+b.CommitNanos) / 1e9
		commits = append(commits, float64(b.CommitNanos)/1e9)
		s.CPU += float64(b.CPUNanos) / 1e9
		s.Rchar += b.Rchar
		s.ReadBytes += b.ReadBytes
		s.FileIOBytes += b.FileIOBytes
		opens += b.Opens
	}
	n := int64(max(len(bs), 1))
	s.RowsPerSecond = ratio(float64(s.Rows), total)
	s.CommitP50, s.CommitP99 = quantile(commits, 0.5), quantile(commits, 0.99)
	s.CPU /= float64(n)
	s.Rchar /= n
	s.ReadBytes /= n
	s.FileIOBytes /= n
	s.Opens = float64(opens) / float64(n)
	return s
}

// quantile is the nearest-rank q-quantile of xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}
