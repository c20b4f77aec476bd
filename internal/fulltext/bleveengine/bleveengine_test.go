package bleveengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/bleveengine"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

var whitespaceExact = []fulltext.Option{
	{Key: "tokenizer", Value: "whitespace"},
	{Key: "lower-case", Value: "false"},
	{Key: "stem", Value: "false"},
	{Key: "remove-stop-words", Value: "false"},
	{Key: "ascii-folding", Value: "false"},
}

func build(t testing.TB, opts []fulltext.Option, rows []corpus.Row) []byte {
	t.Helper()
	w, err := bleveengine.Engine{}.NewWriter(opts)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	defer w.Close()
	for _, r := range rows {
		if r.Null {
			continue
		}
		if err := w.Add(r.ID, r.Text); err != nil {
			t.Fatalf("Add: %v", err)
		}
	}
	var buf bytes.Buffer
	n, err := w.WriteTo(context.Background(), &buf)
	if err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func open(t testing.TB, data []byte) fulltext.Reader {
	t.Helper()
	r, err := bleveengine.Engine{}.OpenReader(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("OpenReader: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// matchQuery is a match query on the text column; term is JSON-encoded (Go's %q is not JSON for
// control characters).
func matchQuery(term string) string {
	b, _ := json.Marshal(term) // a Go string always marshals
	return fmt.Sprintf(`{"match":{"query":%s,"column":"text"}}`, b)
}

func ids(hits []fulltext.Hit) []int64 {
	out := make([]int64, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.RowID)
	}
	return out
}

func sortedIDs(hits []fulltext.Hit) []int64 {
	out := ids(hits)
	slices.Sort(out)
	return out
}

func TestWhitespaceMatchHitsExactlyTheRowsWithTheToken(t *testing.T) {
	rows := corpus.Generate(7, 1500)
	r := open(t, build(t, whitespaceExact, rows))
	en, zh, acc, emo := corpus.Vocabulary()
	for _, term := range slices.Concat(en, zh, acc, emo, []string{"Paimon", "absent-term"}) {
		hits, err := r.Search(context.Background(), matchQuery(term), len(rows))
		if err != nil {
			t.Fatalf("search %q: %v", term, err)
		}
		var want []int64
		for _, row := range rows {
			if !row.Null && slices.Contains(strings.Fields(row.Text), term) {
				want = append(want, row.ID)
			}
		}
		if got := sortedIDs(hits); !slices.Equal(got, want) {
			t.Errorf("term %q: hits %v, want %v", term, got, want)
		}
		for _, h := range hits {
			if !(h.Score > 0) {
				t.Errorf("term %q row %d: score %v, want > 0", term, h.RowID, h.Score)
			}
		}
	}
}

func TestHitsOrderedByScoreThenRowID(t *testing.T) {
	rows := []corpus.Row{
		{ID: 9, Text: "lake river mountain"}, {ID: 3, Text: "lake river mountain"}, {ID: 5, Text: "lake lake"},
		{ID: 1, Text: "river"}, {ID: 7, Text: "mountain river lake"}, {ID: 2, Null: true},
	}
	r := open(t, build(t, whitespaceExact, rows))
	hits, err := r.Search(context.Background(), matchQuery("lake"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(hits), []int64{5, 3, 7, 9}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v (scores %v)", got, want, hits)
	}
	top, err := r.Search(context.Background(), matchQuery("lake"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(top, hits[:2]) {
		t.Fatalf("limit 2: %v, want %v", top, hits[:2])
	}
	if none, err := r.Search(context.Background(), matchQuery("lake"), 0); err != nil || len(none) != 0 {
		t.Fatalf("limit 0: %v, %v", none, err)
	}
	if _, err := r.Search(context.Background(), matchQuery("lake"), -1); err == nil {
		t.Fatal("negative limit accepted")
	}

	big := corpus.Generate(11, 1000)
	rb := open(t, build(t, nil, big))
	all, err := rb.Search(context.Background(), matchQuery("paimon lake"), len(big))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if b.Score > a.Score || b.Score == a.Score && b.RowID < a.RowID {
			t.Fatalf("hits %d and %d out of order: %v, %v", i-1, i, a, b)
		}
	}
}

func TestAnalyzers(t *testing.T) {
	rows := []corpus.Row{
		{ID: 0, Text: "The quick brown fox jumps"},
		{ID: 1, Text: "Apache Paimon lake"},
		{ID: 2, Null: true},
		{ID: 3, Text: "crème brûlée café 🚀"},
		{ID: 4, Text: "paimon,lake DATA-lake"},
		{ID: 5, Text: strings.Repeat("x", 40) + " short"},
		{ID: 6, Text: "r1\u00a0r2 s1\vs2 t1\ft2"},
	}
	opt := func(kv ...string) []fulltext.Option {
		var o []fulltext.Option
		for i := 0; i < len(kv); i += 2 {
			o = append(o, fulltext.Option{Key: kv[i], Value: kv[i+1]})
		}
		return o
	}
	cases := []struct {
		name  string
		opts  []fulltext.Option
		query string
		want  []int64
	}{
		{"default lower-cases", nil, matchQuery("PAIMON"), []int64{1, 4}},
		{"default stems", nil, matchQuery("jumping"), []int64{0}},
		{"default removes stop words", nil, matchQuery("the"), nil},
		{"default folds accents", nil, matchQuery("cafe creme"), []int64{3}},
		{"default splits punctuation", nil, matchQuery("data"), []int64{4}},
		{"default drops long tokens", nil, matchQuery(strings.Repeat("x", 40)), nil},
		{"max-token-length", opt("max-token-length", "41", "stem", "false"), matchQuery(strings.Repeat("x", 40)), []int64{5}},
		{"prefixed keys", opt("fulltext.tokenizer", "whitespace", "tantivy.Lower-Case", "false"), matchQuery("paimon"), nil},
		{"whitespace keeps punctuation", opt("tokenizer", "whitespace"), matchQuery("paimon,lake"), []int64{4}},
		{"whitespace lower-case", opt("tokenizer", "whitespace"), matchQuery("apache"), []int64{1}},
		{"whitespace case-sensitive", whitespaceExact, matchQuery("apache"), nil},
		{"whitespace case-sensitive hit", whitespaceExact, matchQuery("Apache"), []int64{1}},
		{"whitespace keeps NBSP inside tokens", whitespaceExact, matchQuery("r1"), nil},
		{"whitespace keeps VT inside tokens", whitespaceExact, matchQuery("s2"), nil},
		{"whitespace splits on FF", whitespaceExact, matchQuery("t2"), []int64{6}},
		{"whitespace NBSP token", whitespaceExact, matchQuery("r1\u00a0r2"), []int64{6}},
		{"whitespace no folding", whitespaceExact, matchQuery("cafe"), nil},
		{"whitespace no stemming", whitespaceExact, matchQuery("jump"), nil},
		{"simple", opt("tokenizer", "simple", "stem", "false"), matchQuery("lake"), []int64{1, 4}},
		{"raw", opt("tokenizer", "raw", "lower-case", "false"), matchQuery("Apache Paimon lake"), []int64{1}},
		{"custom stop words", opt("stop-words", "lake; fox"), matchQuery("lake fox"), nil},
		{"stop words off", opt("remove-stop-words", "false"), matchQuery("the"), []int64{0}},
		{"text-field", opt("text-field", "body"), `{"match":{"query":"lake","column":"body"}}`, []int64{1, 4}},
		{"no column", nil, `{"match":{"terms":"lake"}}`, []int64{1, 4}},
		{"operator and", nil, `{"match":{"query":"paimon apache","operator":"and"}}`, []int64{1}},
		{"operator or", nil, `{"match":{"query":"paimon apache","operator":"OR"}}`, []int64{1, 4}},
		{"boost", nil, `{"match":{"query":"lake","boost":2.5,"fuzziness":0,"max_expansions":10}}`, []int64{1, 4}},
		{"only stop words", nil, matchQuery("the of"), nil},
		{"phrase", nil, `{"match_phrase":{"query":"paimon lake","column":"text"}}`, []int64{1, 4}},
		{"phrase order", nil, `{"match_phrase":{"query":"lake paimon"}}`, nil},
		{"phrase alias", nil, `{"phrase":{"query":"quick brown fox"}}`, []int64{0}},
		{"phrase one word", nil, `{"match_phrase":{"query":"Brown"}}`, []int64{0}},
		{"boolean", nil, `{"boolean":{"should":[{"match":{"query":"lake"}},{"match":{"query":"crème"}}],"must_not":[{"match":{"query":"apache"}}]}}`, []int64{3, 4}},
		{"boolean must", nil, `{"boolean":{"must":[{"match":{"query":"lake"}}],"should":[{"match":{"query":"fox"}}]}}`, []int64{1, 4}},
		{"boolean queries", nil, `{"boolean":{"queries":[["must",{"match":{"query":"lake"}}],["MustNot",{"match":{"query":"data"}}]]}}`, []int64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := open(t, build(t, c.opts, rows))
			hits, err := r.Search(context.Background(), c.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedIDs(hits); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("hits %v, want %v", got, c.want)
			}
		})
	}
}

func TestOptionsItCannotHonourAreRejected(t *testing.T) {
	cases := []struct {
		opts        []fulltext.Option
		unsupported bool
		mention     string
	}{
		{[]fulltext.Option{{Key: "tokenizer", Value: "ngram"}}, true, "ngram"},
		{[]fulltext.Option{{Key: "tokenizer", Value: "jieba"}}, true, "jieba"},
		{[]fulltext.Option{{Key: "ngram.min-gram", Value: "2"}}, true, "ngram.min-gram"},
		{[]fulltext.Option{{Key: "jieba.search-mode", Value: "true"}}, true, "jieba.search-mode"},
		{[]fulltext.Option{{Key: "language", Value: "french"}}, true, "french"},
		{[]fulltext.Option{{Key: "text-fields", Value: "a,b"}}, true, "text fields"},
		{[]fulltext.Option{{Key: "tokenizer", Value: "no-such-tokenizer"}}, false, "tokenizer"},
		{[]fulltext.Option{{Key: "lower_case", Value: "false"}}, false, "unknown option"},
		{[]fulltext.Option{{Key: "lower-case", Value: "no"}}, false, "boolean"},
		{[]fulltext.Option{{Key: "max-token-length", Value: "0"}}, false, "max-token-length"},
		{[]fulltext.Option{{Key: "tokenizer", Value: "simple"}, {Key: "Tokenizer", Value: "raw"}}, false, "more than once"},
		{[]fulltext.Option{{Key: "remove-stop-words", Value: "false"}, {Key: "stop-words", Value: "a"}}, false, "stop-words"},
		{[]fulltext.Option{{Key: "text-field", Value: " "}}, false, "text-field"},
	}
	for _, c := range cases {
		_, err := bleveengine.NewWriter(c.opts)
		if err == nil {
			t.Errorf("options %v accepted", c.opts)
			continue
		}
		if errors.Is(err, bleveengine.ErrUnsupportedOption) != c.unsupported || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("options %v: error %q (unsupported=%v), want one mentioning %q with unsupported=%v",
				c.opts, err, errors.Is(err, bleveengine.ErrUnsupportedOption), c.mention, c.unsupported)
		}
	}
	// Stemming and stop words off: the language no longer matters, as in the native engine.
	if _, err := bleveengine.NewWriter([]fulltext.Option{{Key: "language", Value: "french"}, {Key: "stem", Value: "false"}, {Key: "remove-stop-words", Value: "false"}}); err != nil {
		t.Errorf("language without stemming or stop words: %v", err)
	}
}

func TestBadQueriesGiveErrors(t *testing.T) {
	r := open(t, build(t, nil, []corpus.Row{{ID: 0, Text: "hello world"}}))
	noPositions := open(t, build(t, []fulltext.Option{{Key: "with-position", Value: "false"}}, []corpus.Row{{ID: 0, Text: "hello world"}}))
	for _, q := range []string{
		``, `null`, `[]`, `"hello"`, `{}`, `{"nonsense":1}`,
		`{"match":{"query":"a"},"match_phrase":{"query":"a"}}`,
		`{"match":{"query":"hello"}} trailing`,
		`{"match":{}}`, `{"match":{"query":1}}`, `{"match":{"query":"a","terms":"b"}}`,
		`{"match":{"query":"hello","column":"other"}}`,
		`{"match":{"query":"hello","operator":"xor"}}`,
		`{"match":{"query":"hello","extra":true}}`,
		`{"match":{"query":"hello","fuzziness":1}}`,
		`{"match":{"query":"hello","fuzziness":"auto"}}`,
		`{"match":{"query":"hello","fuzziness":null}}`,
		`{"match":{"query":"hello","fuzziness":3}}`,
		`{"match":{"query":"hello","max_expansions":0}}`,
		`{"match_phrase":{"query":"hello world","slop":1}}`,
		`{"multi_match":{"query":"hello","columns":["text"]}}`,
		`{"boost":{"positive":{"match":{"query":"hello"}},"negative":{"match":{"query":"world"}}}}`,
		`{"boolean":{}}`,
		`{"boolean":{"must_not":[{"match":{"query":"hello"}}]}}`,
		`{"boolean":{"should":[{"nope":{}}]}}`,
		`{"boolean":{"queries":[["sometimes",{"match":{"query":"hello"}}]]}}`,
		`{"boolean":{"queries":[["must"]]}}`,
		strings.Repeat(`{"boolean":{"must":[`, 100) + `{"match":{"query":"hello"}}` + strings.Repeat(`]}}`, 100),
	} {
		if hits, err := r.Search(context.Background(), q, 5); err == nil {
			t.Errorf("query %q accepted: %v", q, hits)
		}
	}
	if _, err := noPositions.Search(context.Background(), `{"match_phrase":{"query":"hello world"}}`, 5); err == nil || !strings.Contains(err.Error(), "positions") {
		t.Errorf("phrase without positions: %v", err)
	}
	if hits, err := noPositions.Search(context.Background(), matchQuery("hello"), 5); err != nil || len(hits) != 1 {
		t.Errorf("match without positions: %v, %v", hits, err)
	}
}

func TestSearchFilteredStaysInsideTheFilter(t *testing.T) {
	rows := corpus.Generate(3, 1200)
	r := open(t, build(t, nil, rows))
	all, err := r.Search(context.Background(), matchQuery("apache"), len(rows))
	if err != nil {
		t.Fatal(err)
	}
	allowed := roaring64.New()
	var want []fulltext.Hit
	for i, h := range all {
		if i%2 == 0 {
			allowed.Add(uint64(h.RowID))
			want = append(want, h)
		}
	}
	allowed.Add(1 << 40)
	got, err := r.SearchFiltered(context.Background(), matchQuery("apache"), len(rows), allowed)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("filtered hits differ from the filtered unfiltered hits:\n got %v\nwant %v", got, want)
	}
	top, err := r.SearchFiltered(context.Background(), matchQuery("apache"), 3, allowed)
	if err != nil || !slices.Equal(top, want[:3]) {
		t.Fatalf("filtered limit 3: %v, %v", top, err)
	}
	for _, empty := range []*roaring64.Bitmap{roaring64.New(), nil} {
		if none, err := r.SearchFiltered(context.Background(), matchQuery("apache"), 10, empty); err != nil || len(none) != 0 {
			t.Fatalf("empty filter: %v, %v", none, err)
		}
	}
}

func TestWriter(t *testing.T) {
	w, err := bleveengine.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   int64
		text string
	}{{-1, "x"}, {1, "a\x00b"}, {2, "bad \xff utf-8"}} {
		if err := w.Add(c.id, c.text); err == nil {
			t.Errorf("Add(%d, %q) accepted", c.id, c.text)
		}
	}
	if err := w.Add(3, "ok"); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(3, "again"); err == nil || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("duplicate row id: %v", err)
	}
	if _, err := w.WriteTo(context.Background(), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(4, "late"); !errors.Is(err, bleveengine.ErrClosed) {
		t.Errorf("Add after WriteTo: %v", err)
	}
	if _, err := w.WriteTo(context.Background(), &bytes.Buffer{}); !errors.Is(err, bleveengine.ErrClosed) {
		t.Errorf("second WriteTo: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// The same documents in any order give the same bytes; an empty archive is valid.
	rows := corpus.Generate(21, 300)
	reversed := slices.Clone(rows)
	slices.Reverse(reversed)
	if a, b := build(t, whitespaceExact, rows), build(t, whitespaceExact, reversed); !bytes.Equal(a, b) {
		t.Error("archive depends on the order documents were added in")
	}
	empty := open(t, build(t, nil, nil))
	if hits, err := empty.Search(context.Background(), matchQuery("x"), 5); err != nil || len(hits) != 0 {
		t.Errorf("empty archive: %v, %v", hits, err)
	}
}

func TestWriteToErrors(t *testing.T) {
	newWriter := func() fulltext.Writer {
		w, err := bleveengine.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range corpus.Generate(5, 3000) {
			if !r.Null {
				if err := w.Add(r.ID, r.Text); err != nil {
					t.Fatal(err)
				}
			}
		}
		return w
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newWriter().WriteTo(ctx, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if _, err := newWriter().WriteTo(ctx2, &cancelAfter{n: 1, cancel: cancel2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-write: %v", err)
	}
	sinkErr := errors.New("disk full")
	n, err := newWriter().WriteTo(context.Background(), &failAfter{n: 1000, err: sinkErr})
	if !errors.Is(err, sinkErr) {
		t.Errorf("failing sink: %v", err)
	}
	if n != 1000 {
		t.Errorf("failing sink: reported %d bytes, sink took 1000", n)
	}
}

type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return len(p), nil
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) <= f.n {
		f.n -= len(p)
		return len(p), nil
	}
	n := f.n
	f.n = 0
	return n, f.err
}

func TestCorruptArchivesGiveErrors(t *testing.T) {
	good := build(t, whitespaceExact, corpus.Generate(1, 20))
	ctx := context.Background()
	check := func(name string, data []byte) {
		t.Helper()
		r, err := bleveengine.OpenReader(ctx, bytes.NewReader(data), int64(len(data)))
		if err == nil {
			r.Close()
			t.Errorf("%s: archive of %d bytes accepted", name, len(data))
		}
	}
	for n := 0; n < len(good); n++ {
		check(fmt.Sprintf("truncated to %d", n), good[:n])
	}
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 0x10
		check(fmt.Sprintf("byte %d flipped", i), bad)
	}
	check("trailing byte", append(slices.Clone(good), 0))
	check("native archive", []byte("PFTIDX01\x00\x00\x00\x01\x00\x00\x00\x02{}"))
	if _, err := bleveengine.OpenReader(ctx, bytes.NewReader(good), -1); err == nil {
		t.Error("negative size accepted")
	}
	if _, err := bleveengine.OpenReader(ctx, bytes.NewReader(good), int64(len(good))+10); err == nil {
		t.Error("size beyond the data accepted")
	}
	_, err := bleveengine.OpenReader(ctx, bytes.NewReader(good[:10]), 10)
	if !errors.Is(err, bleveengine.ErrCorrupt) {
		t.Errorf("short archive: %v, want ErrCorrupt", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := bleveengine.OpenReader(cancelled, bytes.NewReader(good), int64(len(good))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled open: %v", err)
	}
}

func TestConcurrentSearchesAndClose(t *testing.T) {
	rows := corpus.Generate(9, 1000)
	data := build(t, nil, rows)
	r, err := bleveengine.OpenReader(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Search(context.Background(), matchQuery("stream"), 50)
	if err != nil || len(want) == 0 {
		t.Fatalf("search: %v, %v", want, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				allowed := roaring64.New()
				allowed.AddRange(0, 500)
				got, err := r.Search(context.Background(), matchQuery("stream"), 50)
				if err == nil {
					_, err = r.SearchFiltered(context.Background(), matchQuery("stream"), 50, allowed)
				}
				if err != nil {
					errs <- err
					return
				}
				if !slices.Equal(got, want) {
					errs <- fmt.Errorf("concurrent search differs: %v vs %v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// Close racing with searches: every search either completes or reports ErrClosed.
	var wg2 sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			for i := 0; i < 20; i++ {
				if _, err := r.Search(context.Background(), matchQuery("stream"), 50); err != nil && !errors.Is(err, bleveengine.ErrClosed) {
					t.Errorf("search during close: %v", err)
					return
				}
			}
		}()
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	wg2.Wait()
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := r.Search(context.Background(), matchQuery("stream"), 5); !errors.Is(err, bleveengine.ErrClosed) {
		t.Fatalf("search after Close: %v", err)
	}
	if _, err := r.SearchFiltered(context.Background(), matchQuery("stream"), 5, roaring64.New()); !errors.Is(err, bleveengine.ErrClosed) {
		t.Fatalf("filtered search after Close: %v", err)
	}
}

func TestSearchHonoursCancellation(t *testing.T) {
	r := open(t, build(t, nil, corpus.Generate(2, 100)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Search(ctx, matchQuery("lake"), 5); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled search: %v", err)
	}
}
