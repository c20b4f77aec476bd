package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/bleveengine"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/types"
)

func TestSearchPartitionFilter(t *testing.T) {
	ctx := context.Background()
	engine := bleveengine.Engine{}
	f := newFixture(t, "partitioned-dv", engine, nil)
	all, err := Search(ctx, f.t, Request{Query: "first", Limit: 10_000}, Options{Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []map[string]string{{"region": "eu"}, {"dt": "2024-01-31"}, {"dt": "19753", "region": "us"}} {
		filter, err := MatchPartition(f.schema, spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Search(ctx, f.t, Request{Query: "first", Limit: 10_000, Partition: filter}, Options{Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range all.Results {
			if partitionMatches(r, spec) {
				want = append(want, resultKey(r))
			}
		}
		var keys []string
		for _, r := range got.Results {
			keys = append(keys, resultKey(r))
		}
		slices.Sort(want)
		slices.Sort(keys)
		if len(want) == 0 || !slices.Equal(keys, want) {
			t.Fatalf("%v: got %d results, want %d of %d", spec, len(keys), len(want), len(all.Results))
		}
	}
	if _, err := MatchPartition(f.schema, map[string]string{"id": "1"}); err == nil {
		t.Fatal("a non-partition key: want an error")
	}
}

func partitionMatches(r Result, spec map[string]string) bool {
	// partitioned-dv is partitioned by (region STRING, dt DATE).
	region := r.Partition[0].(string)
	days := r.Partition[1].(int32)
	for k, v := range spec {
		switch k {
		case "region":
			if region != v {
				return false
			}
		case "dt":
			if fmt.Sprint(days) != v && goValue(nil, *dateType, days) != v {
				return false
			}
		}
	}
	return true
}

func TestSearchPinnedSnapshotAndColumns(t *testing.T) {
	ctx := context.Background()
	engine := bleveengine.Engine{}
	f := newFixture(t, "full-compaction", engine, nil)

	// The snapshot before the archives were committed has none: nothing is found, without error.
	before, err := f.t.Snapshots.Snapshot(ctx, f.snap.ID-1)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Search(ctx, f.t, Request{Query: "first", Limit: 10, Snapshot: before}, Options{Engine: engine})
	if err != nil || resp.SnapshotID != before.ID || len(resp.Results) != 0 {
		t.Fatalf("pinned old snapshot: %+v, %v", resp, err)
	}

	resp, err = Search(ctx, f.t, Request{Query: "first", Column: textColumn, Limit: 10}, Options{Engine: engine})
	if err != nil || len(resp.Results) == 0 {
		t.Fatalf("explicit column: %+v, %v", resp, err)
	}
	_, err = Search(ctx, f.t, Request{Query: "first", Column: "id", Limit: 10}, Options{Engine: engine})
	wantErr(t, err, "no primary-key full-text index on column 'id'")
	_, err = Search(ctx, f.t, Request{Query: "first", Column: "nope", Limit: 10}, Options{Engine: engine})
	wantErr(t, err, "text column 'nope' does not exist")
}

func TestSearchEmptyTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(goldenDir(t, "full-compaction"), "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	withOption := strings.Replace(string(src), `"options" : {`, `"options" : {
    "deletion-vectors.enabled" : "true",
    "pk-full-text.index.columns" : "content",`, 1)
	if err := os.WriteFile(filepath.Join(dir, "schema", "schema-0"), []byte(withOption), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := Search(ctx, table.Open(fileio.NewLocal(), dir), Request{Query: "x", Limit: 1}, Options{Engine: bleveengine.Engine{}})
	if err != nil || resp.SnapshotID != 0 || len(resp.Results) != 0 {
		t.Fatalf("table without snapshot: %+v, %v", resp, err)
	}
}

// TestSearchThreadNumOption: without a parallelism of the caller's, a search takes the table's
// global-index.thread-num, which must be a positive integer; the caller's parallelism stands
// instead of it.
func TestSearchThreadNumOption(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile(filepath.Join(goldenDir(t, "full-compaction"), "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		value string
		par   int
		err   string
	}{
		{"8", 0, ""},
		{"0", 0, `option global-index.thread-num must be a positive integer, got "0"`},
		{" x", 0, `option global-index.thread-num must be a positive integer, got " x"`},
		{"0", 4, ""},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "schema"), 0o755); err != nil {
			t.Fatal(err)
		}
		withOption := strings.Replace(string(src), `"options" : {`, `"options" : {
    "deletion-vectors.enabled" : "true",
    "pk-full-text.index.columns" : "content",
    "global-index.thread-num" : "`+c.value+`",`, 1)
		if err := os.WriteFile(filepath.Join(dir, "schema", "schema-0"), []byte(withOption), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Search(ctx, table.Open(fileio.NewLocal(), dir), Request{Query: "x", Limit: 1}, Options{Engine: bleveengine.Engine{}, Parallelism: c.par})
		if c.err == "" && err != nil {
			t.Fatalf("thread-num %q, parallelism %d: %v", c.value, c.par, err)
		}
		if c.err != "" {
			wantErr(t, err, c.err)
		}
	}
}

// TestSearchStructuredQueries runs phrase and boolean queries in the engine's JSON language
// (with the field named as archives index it, or not at all) against the brute-force model.
func TestSearchStructuredQueries(t *testing.T) {
	t.Run("bleve", func(t *testing.T) { runStructured(t, bleveengine.Engine{}) })
	t.Run("native", func(t *testing.T) { runStructured(t, native.Engine{Lib: testenv.Native(t)}) })
}

func runStructured(t *testing.T, engine fulltext.Engine) {
	ctx := context.Background()
	f := newFixture(t, "partitioned-dv", engine, nil)
	model := f.liveCoveredRows(t)
	cases := []struct {
		query string
		match func(tokens []string) bool
	}{
		{`{"match_phrase":{"query":"first eu"}}`, func(ts []string) bool { return hasPhrase(ts, "first", "eu") }},
		{`{"match_phrase":{"column":"text","query":"updated us"}}`, func(ts []string) bool { return hasPhrase(ts, "updated", "us") }},
		{`{"boolean":{"must":[{"match":{"query":"first"}}],"must_not":[{"match":{"query":"us"}}]}}`,
			func(ts []string) bool { return slices.Contains(ts, "first") && !slices.Contains(ts, "us") }},
		{`{"match":{"query":"updated 29","operator":"and"}}`, func(ts []string) bool { return slices.Contains(ts, "updated") && slices.Contains(ts, "29") }},
	}
	for _, c := range cases {
		resp, err := Search(ctx, f.t, Request{Query: c.query, Limit: 10_000}, Options{Engine: engine})
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		want := map[string]string{}
		for _, r := range model {
			if c.match(tokens(r.text)) {
				want[fmt.Sprintf("%d/%s/%d", r.bucket, r.file, r.pos)] = r.text
			}
		}
		got := map[string]string{}
		for _, r := range resp.Results {
			got[resultKey(r)] = *r.Text
		}
		if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: got %d rows, want %d\n got %v\nwant %v", c.query, len(got), len(want), got, want)
		}
		f.checkOrder(t, c.query, resp.Results)
	}
}

func hasPhrase(ts []string, a, b string) bool {
	for i := 0; i+1 < len(ts); i++ {
		if ts[i] == a && ts[i+1] == b {
			return true
		}
	}
	return false
}

var dateType = func() *types.DataType { d := types.Date(); return &d }()

// TestSearchThroughReaderCache: searches sharing a ReaderCache answer as searches without one,
// keep the archives open between them (one open archive a searched archive) and close them with
// the cache.
func TestSearchThroughReaderCache(t *testing.T) {
	ctx := context.Background()
	engine := bleveengine.Engine{}
	f := newFixture(t, "partitioned-dv", engine, nil)
	want, err := Search(ctx, f.t, Request{Query: "first", Limit: 10_000}, Options{Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	cache := &ReaderCache{}
	for range 2 {
		got, err := Search(ctx, f.t, Request{Query: "first", Limit: 10_000}, Options{Engine: engine, Readers: cache})
		if err != nil {
			t.Fatal(err)
		}
		render := func(rs []Result) (out []string) {
			for _, r := range rs {
				out = append(out, fmt.Sprintf("%s %v %v %q", resultKey(r), r.Score, r.Key, *r.Text))
			}
			return out
		}
		if g, w := render(got.Results), render(want.Results); !slices.Equal(g, w) || len(w) == 0 {
			t.Fatalf("through the cache: %v, want %v", g, w)
		}
		if cache.Len() != f.archives {
			t.Fatalf("the cache holds %d archives, want the table's %d", cache.Len(), f.archives)
		}
	}
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	if cache.Len() != 0 {
		t.Fatalf("a closed cache holds %d archives", cache.Len())
	}
}

// closeFile is a ReadAtFile whose Close fails.
type closeFile struct {
	fileio.ReadAtFile
	err error
}

func (f closeFile) Close() error { return f.err }

// TestFileReaderClose: closing an archive closes its engine reader and its file, and reports the
// first failure of the two.
func TestFileReaderClose(t *testing.T) {
	readerErr, fileErr := errors.New("reader close failed"), errors.New("file close failed")
	for _, c := range []struct {
		reader, file, want error
	}{{nil, nil, nil}, {readerErr, nil, readerErr}, {nil, fileErr, fileErr}, {readerErr, fileErr, readerErr}} {
		closes := &atomic.Int32{}
		r := &fileReader{Reader: &fakeReader{closes: closes, closeErr: c.reader}, file: closeFile{err: c.file}}
		if err := r.Close(); err != c.want || closes.Load() != 1 {
			t.Errorf("reader %v, file %v: Close = %v (reader closed %d times), want %v", c.reader, c.file, err, closes.Load(), c.want)
		}
	}
}
