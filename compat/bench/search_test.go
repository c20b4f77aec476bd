package bench

import (
	"context"
	"fmt"
	"slices"
	"sort"
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
// reachableDeletes), and times the queries on both sides. The compaction at commit applies the
// deletes under the table's deletion vectors; a scan checks the table reads that many rows fewer.
func measureSearch(t *testing.T, ctx context.Context, lib *native.Library, java *runner.Process, dir string, rows int) []SearchResult {
	t.Helper()
	spec := TableSpec{Rows: rows, Buckets: searchBuckets, FilesPerBucket: 1, Analyzer: Analyzers[0], Marker: searchMarker, PageIndex: true}
	if _, err := WriteTable(ctx, dir, spec); err != nil {
		t.Fatal(err)
	}
	engine := native.Engine{Lib: lib}
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
	deletes, err := reachableDeletes(spec)
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
	goNanos := make([][]int64, len(queries))
	keptNanos := make([][]int64, len(queries))
	for range searchRuns {
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
	concurrent := func(readers *search.ReaderCache) time.Duration {
		var wg sync.WaitGroup
		errs := make([]error, searchConcurrency)
		start := time.Now()
		for c := range searchConcurrency {
			wg.Go(func() {
				for range searchRuns {
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
	goConcurrent := concurrent(nil)
	keptConcurrent := concurrent(kept)

	// Java: Paimon's read path in the runner, timed inside the JVM.
	var args []map[string]any
	for _, q := range queries {
		args = append(args, map[string]any{"query": q.query, "limit": q.limit})
	}
	var jv struct {
		Nanos             [][]int64 `json:"nanos"`
		Hits              []int     `json:"hits"`
		ConcurrentNanos   int64     `json:"concurrentNanos"`
		ConcurrentQueries int64     `json:"concurrentQueries"`
	}
	if err := java.Call(ctx, "bench-search", map[string]any{"path": dir, "column": paimonparquet.DefaultTextName, "queries": args,
		"warmup": searchWarmup, "runs": searchRuns, "concurrency": searchConcurrency}, &jv); err != nil {
		t.Fatal(err)
	}
	if len(jv.Hits) != len(queries) {
		t.Fatalf("Java answered %d queries, want %d", len(jv.Hits), len(queries))
	}
	for i, q := range queries {
		if jv.Hits[i] != goHits[i] {
			t.Fatalf("%s query %s limit %d: Java read %d rows, Go %d", q.class, q.query, q.limit, jv.Hits[i], goHits[i])
		}
	}
	goQPS := float64(searchConcurrency*searchRuns*len(queries)) / goConcurrent.Seconds()
	keptQPS := float64(searchConcurrency*searchRuns*len(queries)) / keptConcurrent.Seconds()
	javaQPS := float64(jv.ConcurrentQueries) / (float64(jv.ConcurrentNanos) / 1e9)

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
			res := SearchResult{Class: class, Limit: limit, Rows: rows, Buckets: searchBuckets, GoQPS: goQPS, GoKeptQPS: keptQPS, JavaQPS: javaQPS}
			var g, k, j []int64
			var bytes int64
			for i, q := range queries {
				if q.class != class || q.limit != limit {
					continue
				}
				res.Queries++
				res.Hits += goHits[i]
				g = append(g, goNanos[i]...)
				k = append(k, keptNanos[i]...)
				j = append(j, jv.Nanos[i]...)
				bytes += goBytes[i]
			}
			res.GoMedian, res.GoP99 = percentile(g, 50), percentile(g, 99)
			res.GoKeptMedian, res.GoKeptP99 = percentile(k, 50), percentile(k, 99)
			res.JavaMedian, res.JavaP99 = percentile(j, 50), percentile(j, 99)
			res.GoBytesRead = bytes / int64(max(res.Queries, 1))
			out = append(out, res)
			t.Logf("search %s limit %d: Go median %s p99 %s (archives kept open: %s, %s), Java median %s p99 %s, %d bytes read", class, limit,
				dur(res.GoMedian), dur(res.GoP99), dur(res.GoKeptMedian), dur(res.GoKeptP99), dur(res.JavaMedian), dur(res.JavaP99), res.GoBytesRead)
		}
	}
	return out
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
