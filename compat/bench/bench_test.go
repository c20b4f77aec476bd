package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/compat/runner"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
	"github.com/paimon-pkft/pkft/internal/testing/pkfulltexttest"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// sizes are the measured sizes of one run.
type sizes struct {
	buildRows    []int // rows of the built level
	stateFiles   []int // active data files of the restored bucket
	maintainRows int   // rows of the 16-bucket table
	writeRows    int   // rows of the write and compaction tables
	writeBuckets int   // their buckets
	searchRows   int   // rows of the 16-bucket search table
	backfillRows int   // rows of the backfill table (PKFT_BENCH_BACKFILL_ROWS overrides)
}

var (
	fullSizes  = sizes{buildRows: []int{100_000, 1_000_000}, stateFiles: []int{1_000, 10_000, 100_000}, maintainRows: 320_000, writeRows: 1_000_000, writeBuckets: 64, searchRows: 1_000_000, backfillRows: 500_000}
	quickSizes = sizes{buildRows: []int{20_000}, stateFiles: []int{1_000, 10_000}, maintainRows: 32_000, writeRows: 50_000, writeBuckets: 8, searchRows: 50_000, backfillRows: 20_000}
)

const (
	maintainBuckets = 16
)

// TestBench is make bench: it measures, on the same generated tables in one run, the engine fed
// from memory, Go's and Java's archive builds of a level, the bucket restore decision of Go and
// Java, Go's maintenance with one and two workers against Java's, and the memory of the largest
// build, then prints the ratio table and writes compat/report/bench.json and bench.png. It runs
// only with PKFT_BENCH=1; PKFT_BENCH_QUICK=1 selects small sizes (seconds instead of minutes).
func TestBench(t *testing.T) {
	if os.Getenv("PKFT_BENCH") != "1" {
		t.Skip("measures builds of up to 1,000,000 rows against the Java runner; run with PKFT_BENCH=1 (make bench)")
	}
	sz := fullSizes
	rep := &Report{Started: time.Now().UTC(), CPUs: runtime.NumCPU()}
	if os.Getenv("PKFT_BENCH_QUICK") == "1" {
		sz, rep.Quick = quickSizes, true
	}
	lib := testenv.Native(t)
	ctx := context.Background()
	java, err := runner.StartJava(ctx, runner.WithOptimizingJIT())
	if err != nil {
		t.Fatal(err)
	}
	defer java.Close()
	var ping struct {
		FullTextIndexer string `json:"fullTextIndexer"`
	}
	if err := java.Call(ctx, "ping", nil, &ping); err != nil {
		t.Fatal(err)
	}
	rep.JavaRunner = ping.FullTextIndexer
	dir := t.TempDir()
	// The contended mode (PKFT_BENCH_CONTENDED=1) measures search, write and compaction again
	// with busy processes on every core.
	busyN := 0
	if contendedMode() {
		busyN = busyProcesses(t)
		rep.Busy = busyN
	}

	// PKFT_BENCH_SECTIONS (build, state, maintain, search, shards, batches, sidecar, write, backfill; comma-separated) runs some sections
	// only; every section runs by default.
	sections := strings.Split(os.Getenv("PKFT_BENCH_SECTIONS"), ",")
	run := func(name string) bool { return sections[0] == "" || slices.Contains(sections, name) }
	for _, rows := range sz.buildRows {
		if !run("build") {
			break
		}
		for _, an := range Analyzers {
			b := measureBuild(t, ctx, lib, java, filepath.Join(dir, fmt.Sprintf("build-%d-%s", rows, an.Name)), rows, an)
			rep.Builds = append(rep.Builds, b)
			t.Logf("build %d %s: engine %.2fs, Go %.2fs, Java %.2fs", rows, an.Name, b.Engine, b.Go, b.Java)
			if rows == slices.Max(sz.buildRows) && an.Name == "default" {
				rep.Memory = &MemoryResult{Rows: rows, PeakRSS: b.GoRSS, PeakHeap: b.GoHeap, JavaRSS: b.JavaRSS}
			}
		}
	}
	for _, n := range sz.stateFiles {
		if !run("state") {
			break
		}
		s := measureState(t, ctx, java, n)
		rep.States = append(rep.States, s)
		t.Logf("state %d files: Go %s (CPU %s), Java %s (CPU %s)", n, dur(s.Go), dur(s.GoCPU), dur(s.Java), dur(s.JavaCPU))
	}
	if run("maintain") {
		rep.Maintain = measureMaintain(t, ctx, lib, java, filepath.Join(dir, "maintain"), sz.maintainRows)
	}
	if run("search") {
		rep.Searches = measureSearch(t, ctx, lib, java, filepath.Join(dir, "search"), sz.searchRows, busyN)
	}
	if run("shards") {
		rep.Shards = measureShards(t, ctx, filepath.Join(dir, "shards"))
	}
	if run("backfill") {
		n, err := backfillRows(sz.backfillRows)
		if err != nil {
			t.Fatal(err)
		}
		rep.Backfill = measureBackfill(t, ctx, filepath.Join(dir, "backfill"), n)
	}
	if run("batches") {
		rep.Batches = measureBatches(t, ctx, java, filepath.Join(dir, "batches"), batchSizesOf(t, rep.Quick))
	}
	if run("sidecar") {
		rep.Sidecars = measureSidecar(t, ctx, java, filepath.Join(dir, "sidecar"), sidecarSizesOf(t, rep.Quick))
	}
	if run("write") {
		rep.Writes = measureWrite(t, ctx, java, filepath.Join(dir, "write"), sz.writeRows, sz.writeBuckets)
		if busyN > 0 {
			c := startContention(t, ctx, busyN)
			rep.WritesContended = measureWrite(t, ctx, java, filepath.Join(dir, "write-busy"), sz.writeRows, sz.writeBuckets)
			c.stop()
		}
	}
	rep.Notes = notes(rep)

	fmt.Println()
	fmt.Print(rep.Table())
	root, err := runner.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "compat", "report")
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("wrote %s.json and %s.png\n", filepath.Join("compat", "report", rep.FileBase()), filepath.Join("compat", "report", rep.FileBase()))
}

// notes are the findings printed under the table: which targets of the comparison hold.
func notes(r *Report) []string {
	var out []string
	for _, b := range r.Builds {
		if b.GoVsJava() < 1 {
			out = append(out, fmt.Sprintf("%s %s build: Go at %.2fx Java's rate", count(b.Rows), b.Analyzer, b.GoVsJava()))
		}
		if b.GoVsEngine() < 0.9 {
			out = append(out, fmt.Sprintf("%s %s build: Go at %.2fx the engine's own rate", count(b.Rows), b.Analyzer, b.GoVsEngine()))
		}
	}
	for _, x := range r.Searches {
		if g := ratio(x.GoMedian, x.JavaMedian); g > 0.5 {
			out = append(out, fmt.Sprintf("search %s limit %d: Go's median at %.2fx Java's (target <= 0.5x)", x.Class, x.Limit, g))
		}
		if c := x.Contended; c != nil {
			if g := ratio(c.GoMedian, c.JavaMedian); g > 0.6 {
				out = append(out, fmt.Sprintf("search %s limit %d with %d busy processes: Go's median at %.2fx Java's (target <= 0.6x)", x.Class, x.Limit, r.Busy, g))
			}
		}
	}
	for _, b := range r.Batches {
		if g := ratio(b.Go.RowsPerSecond, b.Java.RowsPerSecond); g < 1.5 {
			out = append(out, fmt.Sprintf("batches of %.1f%%: Go at %.2fx Java's rate (target >= 1.5x)", b.Fraction*100, g))
		}
	}
	if len(r.Batches) > 0 && r.Batches[0].GoRSS > r.Batches[0].JavaRSS {
		out = append(out, fmt.Sprintf("batches: Go peaked at %s RSS, Java at %s (target <= Java's)", size(r.Batches[0].GoRSS), size(r.Batches[0].JavaRSS)))
	}
	for _, s := range r.Sidecars {
		if s.CatchUp > s.Round+s.PollInterval {
			out = append(out, fmt.Sprintf("sidecar of %d buckets: catch-up %s, above its round %s plus one poll interval %s", s.Buckets, dur(s.CatchUp), dur(s.Round), dur(s.PollInterval)))
		}
	}
	for _, w := range r.Writes {
		if ratio(w.JavaWrite, w.GoWrite) < 1 {
			out = append(out, fmt.Sprintf("%s write: Go at %.2fx Java's rate (target >= 1.0x)", w.Variant, ratio(w.JavaWrite, w.GoWrite)))
		}
		for k, c := range w.Compactions {
			if ratio(c.Java, c.Go) < 1.2 {
				out = append(out, fmt.Sprintf("%s compaction %d of %d: Go at %.2fx Java's rate (target >= 1.2x in every run)", w.Variant, k+1, len(w.Compactions), ratio(c.Java, c.Go)))
			}
		}
		for _, g := range []struct {
			name string
			rss  int64
		}{{"Go", w.GoRSS}, {"Go (GOMEMLIMIT at the bound)", w.LimitedRSS}, {"Go's Arrow", w.ArrowRSS}} {
			if g.rss > w.RSSBound() {
				out = append(out, fmt.Sprintf("%s write: %s writer peaked at %s RSS, above its bound %s (1.2x write-buffer-size %s + %s)",
					w.Variant, g.name, size(g.rss), size(w.RSSBound()), size(w.WriteBufferSize), size(w.Allowance)))
			}
			if g.rss > w.JavaRSS {
				out = append(out, fmt.Sprintf("%s write: %s writer peaked at %s RSS, Java's at %s (target <= Java's)", w.Variant, g.name, size(g.rss), size(w.JavaRSS)))
			}
		}
	}
	if m := r.Memory; m != nil && m.PeakHeap >= 64<<20 {
		out = append(out, fmt.Sprintf("Go heap peaked at %s during the %s-row build (target < 64 MiB)", size(m.PeakHeap), count(m.Rows)))
	}
	out = append(out, "the engine (paimon-ftindex 0.1.0) fixes its writer at 1 indexing thread and a 50 MB memory budget; neither Go nor Paimon's NativeFullTextGlobalIndexWriter can set them, so both run the engine with the same settings")
	return out
}

// level is the one-bucket table of a build measurement and the builder Go uses on it.
type level struct {
	spec    TableSpec
	files   []*meta.DataFileMeta
	builder *pkfulltext.Builder
	options pkfulltext.AnalyzerOptions
	text    int64
}

func newLevel(t *testing.T, ctx context.Context, lib *native.Library, dir string, rows int, an Analyzer) *level {
	t.Helper()
	spec := TableSpec{Rows: rows, Buckets: 1, FilesPerBucket: 3, Analyzer: an}
	files, err := WriteTable(ctx, dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	tableOpts, err := spec.TableOptions()
	if err != nil {
		t.Fatal(err)
	}
	analyzer, err := pkfulltext.ResolveAnalyzerOptions(tableOpts, paimonparquet.DefaultTextName)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := paths.NewTableFactory(dir, tableOpts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	index, err := fs.IndexPathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	fio := fileio.NewLocal()
	fieldName := func(schemaID int64, fieldID int32) (string, error) {
		if schemaID == 0 && fieldID == paimonparquet.DefaultTextFieldID {
			return paimonparquet.DefaultTextName, nil
		}
		return "", fmt.Errorf("schema %d field %d: %w", schemaID, fieldID, textreader.ErrFieldNotInSchema)
	}
	return &level{
		spec:    spec,
		files:   files[0],
		options: analyzer,
		builder: &pkfulltext.Builder{
			IndexFile: &pkfulltext.IndexFile{FileIO: fio, Paths: index, Engine: native.Engine{Lib: lib}},
			Readers:   &pkfulltext.DataFileReaders{FileIO: fio, Paths: data, FieldID: paimonparquet.DefaultTextFieldID, FieldName: fieldName},
			FieldID:   paimonparquet.DefaultTextFieldID,
			Options:   analyzer,
		},
	}
}

// doc is one document of the in-memory corpus the engine is fed from.
type doc struct {
	id   int64
	text string
}

// memoryCorpus loads the level's texts, as the builds read them, into memory.
func (l *level) memoryCorpus() ([]doc, int64) {
	var docs []doc
	var bytes, row int64
	for f := range l.spec.FilesPerBucket {
		next := l.spec.FileTexts(0, f)
		for i := range l.spec.fileRows(0, f) {
			if text, null := next(i); !null {
				docs = append(docs, doc{id: row, text: string(text)})
				bytes += int64(len(text))
			}
			row++
		}
	}
	return docs, bytes
}

// engineBuild feeds the engine the documents and writes the archive to io.Discard.
func engineBuild(lib *native.Library, options pkfulltext.AnalyzerOptions, docs []doc) (time.Duration, error) {
	start := time.Now()
	w, err := lib.NewWriter(options)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	for _, d := range docs {
		if err := w.Add(d.id, d.text); err != nil {
			return 0, err
		}
	}
	if _, err := w.WriteTo(context.Background(), io.Discard); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// settle collects Go's garbage, returns freed memory to the OS, writes every dirty page back
// and waits a moment, so that a build starts neither behind a collection nor behind the
// write-back of what the previous build wrote: the engine fsyncs its temporary index directory,
// and on a journaling file system an fsync also waits for data other processes left dirty (a
// build that followed Java's took up to twice as long before this).
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
	syscall.Sync()
	time.Sleep(time.Second)
}

// measureBuild times the three builds of one level, alternating, and keeps the best of each.
func measureBuild(t *testing.T, ctx context.Context, lib *native.Library, java *runner.Process, dir string, rows int, an Analyzer) BuildResult {
	t.Helper()
	l := newLevel(t, ctx, lib, dir, rows, an)
	runs := 3
	if rows >= 500_000 {
		runs = 1
	}
	res := BuildResult{Rows: rows, Analyzer: an.Name, Runs: runs}
	best := func(cur *float64, d float64) {
		if *cur == 0 || d < *cur {
			*cur = d
		}
	}
	engine := func(run int) {
		docs, text := l.memoryCorpus()
		res.TextBytes = text
		settle()
		d, err := engineBuild(lib, l.options, docs)
		if err != nil {
			t.Fatal(err)
		}
		best(&res.Engine, d.Seconds())
		t.Logf("  run %d: engine %.2fs", run, d.Seconds())
	}
	goBuild := func(run int) {
		settle()
		resetPeakRSS()
		peak, stop := sampleHeap()
		start := time.Now()
		archive, err := l.builder.Build(ctx, l.files)
		elapsed := time.Since(start)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if archive.RowCount != int64(rows) {
			t.Fatalf("Go archive covers %d rows, want %d", archive.RowCount, rows)
		}
		if rss, err := peakRSS(); err == nil {
			res.GoRSS = max(res.GoRSS, rss)
		}
		res.GoHeap = max(res.GoHeap, int64(*peak))
		best(&res.Go, elapsed.Seconds())
		t.Logf("  run %d: Go %.2fs", run, elapsed.Seconds())
		if err := l.builder.IndexFile.DeleteIndexFile(ctx, archive); err != nil {
			t.Fatal(err)
		}
	}
	javaBuild := func(run int) {
		settle()
		var j struct {
			Rows         int64   `json:"rows"`
			Nanos        []int64 `json:"nanos"`
			PeakRssBytes int64   `json:"peakRssBytes"`
		}
		warmup := 0
		if run == 0 && rows < 500_000 {
			warmup = 1
		}
		if err := java.Call(ctx, "bench-index-file-build", map[string]any{"path": dir, "bucket": 0, "level": 1, "warmup": warmup, "runs": 1}, &j); err != nil {
			t.Fatal(err)
		}
		if j.Rows != int64(rows) || len(j.Nanos) != 1 {
			t.Fatalf("Java built %d rows in %d runs, want %d in 1", j.Rows, len(j.Nanos), rows)
		}
		best(&res.Java, float64(j.Nanos[0])/1e9)
		t.Logf("  run %d: Java %.2fs", run, float64(j.Nanos[0])/1e9)
		res.JavaRSS = max(res.JavaRSS, j.PeakRssBytes)
	}
	// Each run takes the three builds in a rotated order, so that none always follows another
	// (the JVM keeps compiling and collecting for a moment after a build).
	order := []func(int){engine, goBuild, javaBuild}
	for run := range runs {
		for k := range order {
			order[(run+k)%len(order)](run)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	return res
}

// stateBucket is the synthetic bucket of pkfulltexttest.Bucket (n compacted data files on levels
// 1-5 and 100 archives: a current one for each of levels 1-4 and 96 stale ones, so that level 5
// is the plan), with the arguments of the Java command that decides the same bucket.
func stateBucket(t testing.TB, n int) ([]*meta.DataFileMeta, []*meta.IndexFileMeta, map[string]any) {
	t.Helper()
	files, archives, err := pkfulltexttest.Bucket(n)
	if err != nil {
		t.Fatal(err)
	}
	jfiles := make([][]any, 0, len(files))
	for _, f := range files {
		jfiles = append(jfiles, []any{f.FileName, f.Level, f.RowCount})
	}
	jpayloads := make([]map[string]any, 0, len(archives))
	for _, a := range archives {
		jsrc := make([][]any, 0, len(a.Files))
		for _, f := range a.Files {
			jsrc = append(jsrc, []any{f.FileName, f.RowCount})
		}
		jpayloads = append(jpayloads, map[string]any{"name": a.Payload.FileName, "level": a.Level, "files": jsrc})
	}
	return files, pkfulltexttest.Payloads(archives), map[string]any{"textFieldId": paimonparquet.DefaultTextFieldID,
		"dataFiles": jfiles, "payloads": jpayloads}
}

// decision is what Go decides for a restored bucket, as the Java command decides it.
type decision struct {
	current, stale, planLevel, planFiles, planInputs int
}

// goDecide classifies the payloads against the eligible files and picks the next plan, as Go's
// restore does (pkfulltext.InspectBucket).
func goDecide(files []*meta.DataFileMeta, payloads []*meta.IndexFileMeta) (decision, error) {
	v, err := pkfulltext.InspectBucket(paimonparquet.DefaultTextFieldID, files, payloads)
	if err != nil {
		return decision{}, err
	}
	d := decision{current: len(v.State.CurrentPayloads()), stale: len(v.State.StalePayloads())}
	if plan := v.Plan; plan != nil {
		d.planLevel, d.planFiles, d.planInputs = int(plan.DataLevel()), len(plan.SourceFiles()), len(plan.InputUnits())
	}
	return d, nil
}

// measureState times Go's and Java's decision for a bucket of n files (per operation, the mean
// over at least 3 runs and half a second after warm-up) and checks they decide the same.
func measureState(t *testing.T, ctx context.Context, java *runner.Process, n int) StateResult {
	t.Helper()
	files, payloads, args := stateBucket(t, n)
	var got decision
	var err error
	for range 3 {
		if got, err = goDecide(files, payloads); err != nil {
			t.Fatal(err)
		}
	}
	var total, cpu time.Duration
	var runs int
	for runs < 3 || total < 500*time.Millisecond {
		c := processCPU()
		start := time.Now()
		if _, err := goDecide(files, payloads); err != nil {
			t.Fatal(err)
		}
		total += time.Since(start)
		cpu += processCPU() - c
		runs++
	}
	var j struct {
		Nanos      []int64 `json:"nanos"`
		CPUNanos   []int64 `json:"cpuNanos"`
		Current    int     `json:"current"`
		Stale      int     `json:"stale"`
		PlanLevel  int     `json:"planLevel"`
		PlanFiles  int     `json:"planFiles"`
		PlanInputs int     `json:"planInputs"`
	}
	args["warmup"], args["minRuns"], args["minMillis"] = 3, 3, 500
	if err := java.Call(ctx, "bench-bucket-state", args, &j); err != nil {
		t.Fatal(err)
	}
	want := decision{current: j.Current, stale: j.Stale, planLevel: j.PlanLevel, planFiles: j.PlanFiles, planInputs: j.PlanInputs}
	if got != want {
		t.Fatalf("%d files: Go decided %+v, Java %+v", n, got, want)
	}
	var jt, jc int64
	for i, x := range j.Nanos {
		jt += x
		jc += j.CPUNanos[i]
	}
	jn := float64(len(j.Nanos))
	return StateResult{Files: n, Payloads: len(payloads), Go: total.Seconds() / float64(runs), Java: float64(jt) / 1e9 / jn,
		GoCPU: cpu.Seconds() / float64(runs), JavaCPU: float64(jc) / 1e9 / jn}
}

// measureMaintain generates a 16-bucket table, copies it three times and maintains one copy with
// Go's Maintain at parallelism 1, one at 2, and one with Java's batch writer (minor-compact,
// whose full-text maintainers build each bucket's missing archive before the commit).
func measureMaintain(t *testing.T, ctx context.Context, lib *native.Library, java *runner.Process, dir string, rows int) *MaintainResult {
	t.Helper()
	src := filepath.Join(dir, "src")
	if _, err := WriteTable(ctx, src, TableSpec{Rows: rows, Buckets: maintainBuckets, FilesPerBucket: 3, Analyzer: Analyzers[0]}); err != nil {
		t.Fatal(err)
	}
	res := &MaintainResult{Rows: rows, Buckets: maintainBuckets}
	for i, target := range []*float64{&res.Go1, &res.Go2, &res.Java} {
		copyDir := filepath.Join(dir, fmt.Sprint(i))
		if err := os.CopyFS(copyDir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if target == &res.Java {
			var out struct {
				SnapshotAfter int64 `json:"snapshotAfter"`
			}
			if err := java.Call(ctx, "minor-compact", map[string]any{"path": copyDir}, &out); err != nil {
				t.Fatal(err)
			}
			*target = time.Since(start).Seconds()
			if out.SnapshotAfter != 2 {
				t.Fatalf("Java committed snapshot %d, want 2", out.SnapshotAfter)
			}
		} else {
			r, err := tableops.Maintain(ctx, table.Open(fileio.NewLocal(), copyDir), native.Engine{Lib: lib}, tableops.WithParallelism(i+1))
			*target = time.Since(start).Seconds()
			if err != nil {
				t.Fatal(err)
			}
			built := 0
			for _, b := range r.Buckets {
				built += len(b.Built)
			}
			res.Archives = built
		}
		if err := checkArchives(ctx, copyDir, maintainBuckets); err != nil {
			t.Fatalf("maintenance %d: %v", i, err)
		}
		if err := os.RemoveAll(copyDir); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// checkArchives checks the latest snapshot of the table at dir has one full-text archive per
// bucket.
func checkArchives(ctx context.Context, dir string, buckets int) error {
	tb := table.Open(fileio.NewLocal(), dir)
	s, err := tb.Latest(ctx)
	if err != nil {
		return err
	}
	c, err := tb.Read(ctx, s)
	if err != nil {
		return err
	}
	seen := map[int32]int{}
	for _, e := range c.IndexEntries {
		if e.IndexFile.IndexType == pkfulltext.IndexType {
			seen[e.Bucket]++
		}
	}
	if len(seen) != buckets {
		return fmt.Errorf("archives in %d buckets, want %d", len(seen), buckets)
	}
	for b, n := range seen {
		if n != 1 {
			return fmt.Errorf("bucket %d has %d archives", b, n)
		}
	}
	return nil
}

// sampleHeap records the maximum of the Go heap's object bytes every 10 ms until stop is called.
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

// processCPU is the CPU time of this process so far (every thread, user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets VmHWM to the current RSS (Linux: clear_refs 5).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns VmHWM from /proc/self/status.
func peakRSS() (int64, error) { return procStatusBytes("VmHWM:") }

// procStatusBytes returns the size field key of /proc/self/status in bytes.
func procStatusBytes(key string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse %s %q: %w", key, v, err)
			}
			return kb << 10, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", key)
}

// BenchmarkRestoreDecision is Go's side of the restore decision of TestBench for a bucket of
// 1,000, 10,000 and 100,000 files and 100 archives, for profiling.
func BenchmarkRestoreDecision(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			files, payloads, _ := stateBucket(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := goDecide(files, payloads); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
