package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/runner"
	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The search measurement: a 16-bucket table (one level per bucket with its archive, then a commit
// of deletes; see measureSearch), 25 queries in five classes at limits 10
// and 1000, searched by Go (internal/search, the library's search) and by Paimon's full-text read
// path in the runner, each timed after warm-up rounds, one query at a time and then with
// searchConcurrency queries at once.
const (
	searchBuckets     = 16
	searchWarmup      = 2
	searchRuns        = 5
	searchConcurrency = 4
)

// searchMarker is the word row i of every data file of the search table ends with: one of
// rows/8 letter-only words, each in 8 consecutive rows, so a query for one is selective.
func searchMarker(i int) string { return MarkerWord(i / 8) }

// benchQuery is one measured query.
type benchQuery struct {
	class string
	query string
	limit int
}

// searchQueries builds the measured queries from the table's own text: the most frequent words
// (broad), the marker words (selective), two adjacent frequent words (phrases), and booleans.
func searchQueries(spec TableSpec) []benchQuery {
	freq := map[string]int{}
	var pairs [][2]string
	text := spec.FileTexts(0, 0)
	for i := range min(5000, spec.Rows/spec.Buckets) {
		v, null := text(i)
		if null {
			continue
		}
		words := strings.FieldsFunc(strings.ToLower(string(v)), func(r rune) bool { return !unicode.IsLetter(r) || r > unicode.MaxASCII })
		for j, w := range words {
			if len(w) >= 4 && !strings.HasPrefix(w, "zq") {
				freq[w]++
				if j+1 < len(words) && len(words[j+1]) >= 4 {
					pairs = append(pairs, [2]string{w, words[j+1]})
				}
			}
		}
	}
	words := make([]string, 0, len(freq))
	for w := range freq {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if freq[words[i]] != freq[words[j]] {
			return freq[words[i]] > freq[words[j]]
		}
		return words[i] < words[j]
	})
	// Phrases: the most frequent adjacent pairs of words.
	pairFreq := map[[2]string]int{}
	for _, p := range pairs {
		pairFreq[p]++
	}
	phrases := make([][2]string, 0, len(pairFreq))
	for p := range pairFreq {
		phrases = append(phrases, p)
	}
	sort.Slice(phrases, func(i, j int) bool {
		if pairFreq[phrases[i]] != pairFreq[phrases[j]] {
			return pairFreq[phrases[i]] > pairFreq[phrases[j]]
		}
		return phrases[i][0]+" "+phrases[i][1] < phrases[j][0]+" "+phrases[j][1]
	})
	match := func(w string) string { return `{"match":{"query":"` + w + `"}}` }
	var out []benchQuery
	for _, limit := range []int{10, 1000} {
		for k := range 5 {
			marker := searchMarker(8 * (1 + 977*k) % (spec.Rows / spec.Buckets))
			out = append(out,
				benchQuery{"term-selective", marker, limit},
				benchQuery{"term-broad", words[k], limit},
				benchQuery{"phrase", `{"match_phrase":{"query":"` + phrases[k][0] + " " + phrases[k][1] + `"}}`, limit},
				benchQuery{"boolean-selective", `{"boolean":{"must":[` + match(marker) + `],"should":[` + match(words[k]) + `]}}`, limit},
				benchQuery{"boolean-broad", `{"boolean":{"must":[` + match(words[k]) + `],"must_not":[` + match(words[k+5]) + `]}}`, limit},
			)
		}
	}
	return out
}

// readCounter is a FileIO counting the bytes read through the files it opens for random access.
type readCounter struct {
	fileio.FileIO
	n atomic.Int64
}

func (c *readCounter) OpenReaderAt(ctx context.Context, path string) (fileio.ReadAtFile, error) {
	f, err := c.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	return &countedFile{ReadAtFile: f, n: &c.n}, nil
}

type countedFile struct {
	fileio.ReadAtFile
	n *atomic.Int64
}

func (f *countedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.ReadAtFile.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}

// measureSearch generates the search table, maintains it, commits deletes with Go's writer (see
// reachableDeletes), and times the queries on both sides. With busyN > 0 it then times them again
// with busyN busy processes running (the contended mode), Go and Java in alternating rounds. The
// compaction at commit applies the deletes under the table's deletion vectors; a scan checks the
// table reads that many rows fewer.
//
// PKFT_BENCH_SEARCH_RUNS and PKFT_BENCH_SEARCH_QPS_RUNS set the timed rounds one query at a time
// and the rounds of each thread with 4 at once (default 5 each; the contended throughput runs one).
// PKFT_BENCH_SEARCH_TABLE=<dir> keeps the table in <dir>/<rows> and reuses it when it is there
// (for profiling the search again without generating the table again);
// PKFT_BENCH_SEARCH_PROFILE=<prefix> writes a CPU profile of Go's contended rounds to
// <prefix>.<round>.cpu and an execution trace of the first of them to <prefix>.trace.
func measureSearch(t *testing.T, ctx context.Context, lib *native.Library, java *runner.Process, dir string, rows, busyN int) []SearchResult {
	t.Helper()
	spec := TableSpec{Rows: rows, Buckets: searchBuckets, FilesPerBucket: 1, Analyzer: Analyzers[0], Marker: searchMarker, PageIndex: true}
	if keep := os.Getenv("PKFT_BENCH_SEARCH_TABLE"); keep != "" {
		dir = filepath.Join(keep, strconv.Itoa(rows))
	}
	engine := native.Engine{Lib: lib}
	deletes, err := reachableDeletes(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "snapshot", "LATEST")); err != nil {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		buildSearchTable(t, ctx, engine, dir, spec, deletes)
	}
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// The deletes reached their rows: the table reads that many rows fewer.
	rr, err := tbl.Scan(ctx, pkft.WithColumns("id"))
	if err != nil {
		t.Fatal(err)
	}
	live := 0
	for rr.Next() {
		live += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	if live != rows-len(deletes) {
		t.Fatalf("search table: %d rows read after %d deletes of %d rows", live, len(deletes), rows)
	}
	t.Logf("search table: %d rows, %d of them deleted", rows, len(deletes))
	queries := searchQueries(spec)

	// Go: one table handle, as a long-lived service holds it, searched two ways: opening every
	// archive per search (as Paimon's read path does) and keeping them open between searches
	// (pkft.KeepArchivesOpen, the ReaderCache). Bytes read are counted opening every archive.
	counter := &readCounter{FileIO: fileio.NewLocal()}
	gt := table.Open(counter, dir)
	kept := &search.ReaderCache{}
	defer kept.Close()
	run := func(q benchQuery, readers *search.ReaderCache) (int, error) {
		resp, err := search.Search(ctx, gt, search.Request{Query: q.query, Column: paimonparquet.DefaultTextName, Limit: q.limit},
			search.Options{Engine: engine, Readers: readers})
		if err != nil {
			return 0, fmt.Errorf("%s query %s: %w", q.class, q.query, err)
		}
		return len(resp.Results), nil
	}
	goHits := make([]int, len(queries))
	goBytes := make([]int64, len(queries))
	for r := range searchWarmup {
		for i, q := range queries {
			before := counter.n.Load()
			n, err := run(q, nil)
			if err != nil {
				t.Fatal(err)
			}
			goHits[i] = n
			if r == 0 {
				goBytes[i] = counter.n.Load() - before
			}
			if n, err := run(q, kept); err != nil || n != goHits[i] {
				t.Fatalf("%s query %s: %d rows with kept archives, %d without (%v)", q.class, q.query, n, goHits[i], err)
			}
		}
	}
	// round times every query once, opening every archive and keeping them open, appending to
	// goNanos and keptNanos.
	goNanos := make([][]int64, len(queries))
	keptNanos := make([][]int64, len(queries))
	round := func(goNanos, keptNanos [][]int64) {
		for i, q := range queries {
			for _, m := range []struct {
				readers *search.ReaderCache
				nanos   [][]int64
			}{{nil, goNanos}, {kept, keptNanos}} {
				start := time.Now()
				if _, err := run(q, m.readers); err != nil {
					t.Fatal(err)
				}
				m.nanos[i] = append(m.nanos[i], time.Since(start).Nanoseconds())
			}
		}
	}
	runs, qpsRuns := envInt(t, "PKFT_BENCH_SEARCH_RUNS", searchRuns), envInt(t, "PKFT_BENCH_SEARCH_QPS_RUNS", searchRuns)
	for range runs {
		round(goNanos, keptNanos)
	}
	// concurrent runs every query runs times on each of searchConcurrency goroutines.
	concurrent := func(readers *search.ReaderCache, runs int) time.Duration {
		var wg sync.WaitGroup
		errs := make([]error, searchConcurrency)
		start := time.Now()
		for c := range searchConcurrency {
			wg.Go(func() {
				for range runs {
					for _, q := range queries {
						if _, err := run(q, readers); err != nil {
							errs[c] = err
							return
						}
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return time.Since(start)
	}
	goConcurrent := concurrent(nil, qpsRuns)
	keptConcurrent := concurrent(kept, qpsRuns)

	// Java: Paimon's read path in the runner, timed inside the JVM.
	var args []map[string]any
	for _, q := range queries {
		args = append(args, map[string]any{"query": q.query, "limit": q.limit})
	}
	javaSearch := func(warmup, runs, concurrentRuns int) javaSearchOut {
		var jv javaSearchOut
		if err := java.Call(ctx, "bench-search", map[string]any{"path": dir, "column": paimonparquet.DefaultTextName, "queries": args,
			"warmup": warmup, "runs": runs, "concurrency": searchConcurrency, "concurrentRuns": concurrentRuns}, &jv); err != nil {
			t.Fatal(err)
		}
		if len(jv.Hits) != len(queries) {
			t.Fatalf("Java answered %d queries, want %d", len(jv.Hits), len(queries))
		}
		for i, q := range queries {
			if warmup+runs == 0 {
				break // no query ran alone: Java counted no rows
			}
			if jv.Hits[i] != goHits[i] {
				t.Fatalf("%s query %s limit %d: Java read %d rows, Go %d", q.class, q.query, q.limit, jv.Hits[i], goHits[i])
			}
		}
		return jv
	}
	jv := javaSearch(searchWarmup, runs, qpsRuns)
	queriesRun := float64(searchConcurrency * qpsRuns * len(queries))
	quiet := searchLoad{goNanos: goNanos, keptNanos: keptNanos, javaNanos: jv.Nanos,
		goQPS: queriesRun / goConcurrent.Seconds(), keptQPS: queriesRun / keptConcurrent.Seconds(),
		javaQPS: float64(jv.ConcurrentQueries) / (float64(jv.ConcurrentNanos) / 1e9)}

	// Contended: the same rounds with busy processes on every core, Go and Java in alternating
	// rounds (each side first in every other round), then the throughput likewise.
	var busy *searchLoad
	if busyN > 0 {
		t.Logf("search: quiet figures measured; %d busy processes from now on", busyN)
		c := startContention(t, ctx, busyN)
		b := searchLoad{goNanos: make([][]int64, len(queries)), keptNanos: make([][]int64, len(queries)), javaNanos: make([][]int64, len(queries))}
		javaRound := func() {
			r := javaSearch(0, 1, 0)
			for i := range queries {
				b.javaNanos[i] = append(b.javaNanos[i], r.Nanos[i]...)
			}
		}
		profile := os.Getenv("PKFT_BENCH_SEARCH_PROFILE")
		goRound := func(r int) {
			if profile == "" {
				round(b.goNanos, b.keptNanos)
				return
			}
			stop := startProfiles(t, profile, r, r == 0)
			defer stop()
			round(b.goNanos, b.keptNanos)
		}
		for r := range runs {
			if r%2 == 0 {
				goRound(r)
				javaRound()
			} else {
				javaRound()
				goRound(r)
			}
		}
		goC := concurrent(nil, 1)
		jc := javaSearch(0, 0, 1)
		keptC := concurrent(kept, 1)
		queriesRun := float64(searchConcurrency * len(queries))
		b.goQPS, b.keptQPS = queriesRun/goC.Seconds(), queriesRun/keptC.Seconds()
		b.javaQPS = float64(jc.ConcurrentQueries) / (float64(jc.ConcurrentNanos) / 1e9)
		c.stop()
		busy = &b
	}

	// Per class and limit: the latencies of all its queries' timed runs.
	var out []SearchResult
	for _, limit := range []int{10, 1000} {
		var classes []string
		for _, q := range queries {
			if !slices.Contains(classes, q.class) {
				classes = append(classes, q.class)
			}
		}
		for _, class := range classes {
			res := SearchResult{Class: class, Limit: limit, Rows: rows, Buckets: searchBuckets}
			var idx []int
			var bytes int64
			for i, q := range queries {
				if q.class != class || q.limit != limit {
					continue
				}
				idx = append(idx, i)
				res.Queries++
				res.Hits += goHits[i]
				bytes += goBytes[i]
			}
			res.SearchFigures = quiet.figures(idx)
			res.GoBytesRead = bytes / int64(max(res.Queries, 1))
			t.Logf("search %s limit %d: Go median %s p99 %s (archives kept open: %s, %s), Java median %s p99 %s, %d bytes read", class, limit,
				dur(res.GoMedian), dur(res.GoP99), dur(res.GoKeptMedian), dur(res.GoKeptP99), dur(res.JavaMedian), dur(res.JavaP99), res.GoBytesRead)
			if busy != nil {
				f := busy.figures(idx)
				res.Contended = &f
				t.Logf("search %s limit %d with %d busy processes: Go median %s p99 %s (archives kept open: %s, %s), Java median %s p99 %s", class, limit, busyN,
					dur(f.GoMedian), dur(f.GoP99), dur(f.GoKeptMedian), dur(f.GoKeptP99), dur(f.JavaMedian), dur(f.JavaP99))
			}
			out = append(out, res)
		}
	}
	return out
}

// buildSearchTable writes the search table into dir, maintains it and commits the deletes.
func buildSearchTable(t *testing.T, ctx context.Context, engine native.Engine, dir string, spec TableSpec, deletes []int32) {
	t.Helper()
	if _, err := WriteTable(ctx, dir, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := tableops.Maintain(ctx, table.Open(fileio.NewLocal(), dir), engine); err != nil {
		t.Fatal(err)
	}
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("pkft-bench"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range deletes {
		if err := w.Write(ctx, pkft.Delete, []any{id, nil, nil}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// javaSearchOut is the answer of the runner's bench-search.
type javaSearchOut struct {
	Nanos             [][]int64 `json:"nanos"`
	Hits              []int     `json:"hits"`
	ConcurrentNanos   int64     `json:"concurrentNanos"`
	ConcurrentQueries int64     `json:"concurrentQueries"`
}

// searchLoad is what one load (quiet, or contended) measured: the timed runs of every query on
// each side, and the throughput with searchConcurrency queries at once.
type searchLoad struct {
	goNanos, keptNanos, javaNanos [][]int64
	goQPS, keptQPS, javaQPS       float64
}

// figures are the latencies of the queries idx (one class at one limit) and the throughputs.
func (l searchLoad) figures(idx []int) SearchFigures {
	var g, k, j []int64
	for _, i := range idx {
		g = append(g, l.goNanos[i]...)
		k = append(k, l.keptNanos[i]...)
		j = append(j, l.javaNanos[i]...)
	}
	return SearchFigures{
		GoMedian: percentile(g, 50), GoP99: percentile(g, 99),
		GoKeptMedian: percentile(k, 50), GoKeptP99: percentile(k, 99),
		JavaMedian: percentile(j, 50), JavaP99: percentile(j, 99),
		GoQPS: l.goQPS, GoKeptQPS: l.keptQPS, JavaQPS: l.javaQPS,
	}
}

// reachableDeletes are the ids of the generated table a delete reaches. The generator keeps
// contiguous ids per bucket (ids 1.. in bucket order), not the buckets Paimon's bucket function
// gives them; a writer's delete goes to the key's bucket by that function, so only the ids whose
// generated bucket is their bucket by the function can be deleted: about one in Buckets, every
// one of them is.
func reachableDeletes(spec TableSpec) ([]int32, error) {
	keyType := types.Row(types.Field(0, "id", types.Int()))
	var out []int32
	id := int32(1)
	for b := range spec.Buckets {
		for f := range spec.FilesPerBucket {
			for range spec.fileRows(b, f) {
				r, err := binrow.Encode(keyType, []any{id})
				if err != nil {
					return nil, err
				}
				bucket, err := binrow.Bucket(r, spec.Buckets)
				if err != nil {
					return nil, err
				}
				if bucket == b {
					out = append(out, id)
				}
				id++
			}
		}
	}
	return out, nil
}

// percentile is the p-th percentile (nearest rank) of nanos, in seconds.
func percentile(nanos []int64, p int) float64 {
	if len(nanos) == 0 {
		return 0
	}
	s := slices.Clone(nanos)
	slices.Sort(s)
	k := (p*len(s) + 99) / 100
	return float64(s[max(k-1, 0)]) / 1e9
}

// startProfiles starts a CPU profile of one measured stretch into prefix.<r>.cpu (go tool pprof
// merges the files it is given) and with withTrace an execution trace into prefix.trace; the
// returned function stops both.
func startProfiles(t *testing.T, prefix string, r int, withTrace bool) (stop func()) {
	t.Helper()
	cpu, err := os.Create(fmt.Sprintf("%s.%d.cpu", prefix, r))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	var tf *os.File
	if withTrace {
		if tf, err = os.Create(prefix + ".trace"); err != nil {
			t.Fatal(err)
		}
		if err := trace.Start(tf); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := cpu.Close(); err != nil {
			t.Fatal(err)
		}
		if tf != nil {
			trace.Stop()
			if err := tf.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// BenchmarkSearch runs the bench's search queries, per class and limit, with Go's search on the
// search table kept by an earlier make bench run with PKFT_BENCH_SEARCH_TABLE=<dir> (it is
// skipped without one), opening every archive per search; with PKFT_BENCH_CONTENDED=1 the busy
// processes of the contended mode run meanwhile. For profiling the search under load:
// go test -run '^$' -bench BenchmarkSearch -cpuprofile cpu.out -trace trace.out ./compat/bench/.
func BenchmarkSearch(b *testing.B) {
	keep := os.Getenv("PKFT_BENCH_SEARCH_TABLE")
	if keep == "" {
		b.Skip("set PKFT_BENCH_SEARCH_TABLE to the directory a bench run kept its search table in")
	}
	rows := fullSizes.searchRows
	dir := filepath.Join(keep, strconv.Itoa(rows))
	if _, err := os.Stat(filepath.Join(dir, "snapshot", "LATEST")); err != nil {
		b.Skipf("no search table in %s: %v", dir, err)
	}
	ctx := context.Background()
	lib, err := native.Load(ctx, "")
	if err != nil {
		b.Skip(err)
	}
	spec := TableSpec{Rows: rows, Buckets: searchBuckets, FilesPerBucket: 1, Analyzer: Analyzers[0], Marker: searchMarker, PageIndex: true}
	queries := searchQueries(spec)
	counter := &readCounter{FileIO: fileio.NewLocal()}
	gt := table.Open(counter, dir)
	engine := native.Engine{Lib: lib}
	if contendedMode() {
		startContention(b, ctx, runtime.NumCPU())
	}
	for _, limit := range []int{10, 1000} {
		for _, class := range []string{"term-selective", "term-broad", "phrase", "boolean-selective", "boolean-broad"} {
			b.Run(fmt.Sprintf("%s/limit=%d", class, limit), func(b *testing.B) {
				before, searches := counter.n.Load(), 0
				for b.Loop() {
					for _, q := range queries {
						if q.class != class || q.limit != limit {
							continue
						}
						if _, err := search.Search(ctx, gt, search.Request{Query: q.query, Column: paimonparquet.DefaultTextName, Limit: q.limit},
							search.Options{Engine: engine}); err != nil {
							b.Fatal(err)
						}
						searches++
					}
				}
				// What the search table's "Go bytes/query" column reports.
				b.ReportMetric(float64(counter.n.Load()-before)/float64(max(searches, 1)), "read-B/query")
			})
		}
	}
}
