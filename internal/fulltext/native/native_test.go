package native_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

func buildArchive(t testing.TB, lib *native.Library, opts []fulltext.Option, rows []corpus.Row) []byte {
	t.Helper()
	w, err := lib.NewWriter(opts)
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

func openArchive(t testing.TB, lib *native.Library, data []byte) *native.Reader {
	t.Helper()
	r, err := lib.OpenReader(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("OpenReader: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func matchQuery(term string) string {
	return fmt.Sprintf(`{"match":{"query":%q,"column":"text"}}`, term)
}

// containsToken reports whether text has term as a whitespace-separated token.
func containsToken(text, term string) bool {
	return slices.Contains(strings.Fields(text), term)
}

func TestWhitespaceMatchHitsExactlyTheRowsWithTheToken(t *testing.T) {
	lib := testenv.Native(t)
	rows := corpus.Generate(7, 1500)
	opts := []fulltext.Option{{Key: "tokenizer", Value: "whitespace"}, {Key: "lower-case", Value: "false"}}
	r := openArchive(t, lib, buildArchive(t, lib, opts, rows))
	en, zh, acc, emo := corpus.Vocabulary()
	terms := []string{en[0], en[5], zh[1], acc[2], emo[0], "Paimon"}
	for _, term := range terms {
		hits, err := r.Search(context.Background(), matchQuery(term), len(rows))
		if err != nil {
			t.Fatalf("search %q: %v", term, err)
		}
		var got, want []int64
		for _, h := range hits {
			got = append(got, h.RowID)
			if !(h.Score > 0) {
				t.Errorf("term %q row %d: score %v, want > 0", term, h.RowID, h.Score)
			}
		}
		for _, row := range rows {
			if !row.Null && containsToken(row.Text, term) {
				want = append(want, row.ID)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("term %q: hits %v, want rows %v", term, got, want)
		}
		if len(want) == 0 {
			t.Errorf("term %q occurs in no row: the corpus no longer exercises it", term)
		}
	}
}

func TestLimitOrdersByScore(t *testing.T) {
	lib := testenv.Native(t)
	rows := corpus.Generate(11, 1000)
	r := openArchive(t, lib, buildArchive(t, lib, nil, rows))
	hits, err := r.Search(context.Background(), matchQuery("paimon lake"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 {
		t.Fatalf("got %d hits, want 10", len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("hits not ordered by score: %v", hits)
		}
	}
}

func TestSearchFilteredStaysInsideTheFilter(t *testing.T) {
	lib := testenv.Native(t)
	rows := corpus.Generate(3, 1200)
	r := openArchive(t, lib, buildArchive(t, lib, nil, rows))
	all, err := r.Search(context.Background(), matchQuery("apache"), len(rows))
	if err != nil {
		t.Fatal(err)
	}
	allowed := roaring64.New()
	for i, h := range all {
		if i%2 == 0 {
			allowed.Add(uint64(h.RowID))
		}
	}
	allowed.Add(1 << 40) // a row id beyond the archive is simply never hit
	filtered, err := r.SearchFiltered(context.Background(), matchQuery("apache"), len(rows), allowed)
	if err != nil {
		t.Fatal(err)
	}
	if len(filtered) != int(allowed.GetCardinality())-1 {
		t.Fatalf("filtered search returned %d hits, want %d", len(filtered), allowed.GetCardinality()-1)
	}
	for _, h := range filtered {
		if !allowed.Contains(uint64(h.RowID)) {
			t.Fatalf("row %d outside the filter", h.RowID)
		}
	}
	none, err := r.SearchFiltered(context.Background(), matchQuery("apache"), 10, roaring64.New())
	if err != nil || len(none) != 0 {
		t.Fatalf("empty filter: %v hits, err %v", none, err)
	}
}

func TestAnalyzers(t *testing.T) {
	lib := testenv.Native(t)
	rows := []corpus.Row{
		{ID: 0, Text: "数据湖全文检索"},
		{ID: 1, Text: "Apache Paimon lake"},
		{ID: 2, Null: true},
		{ID: 5, Text: "crème brûlée 🚀"},
	}
	cases := []struct {
		name  string
		opts  []fulltext.Option
		query string
		want  []int64
	}{
		{"default", nil, matchQuery("paimon"), []int64{1}},
		{"ngram", []fulltext.Option{{Key: "tokenizer", Value: "ngram"}, {Key: "ngram.min-gram", Value: "2"}, {Key: "ngram.max-gram", Value: "2"}}, matchQuery("全文"), []int64{0}},
		{"jieba", []fulltext.Option{{Key: "tokenizer", Value: "jieba"}}, matchQuery("检索"), []int64{0}},
		{"phrase", nil, `{"match_phrase":{"query":"paimon lake","column":"text"}}`, []int64{1}},
		{"boolean", nil, `{"boolean":{"should":[{"match":{"query":"lake"}},{"match":{"query":"crème"}}],"must_not":[{"match":{"query":"apache"}}]}}`, []int64{5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := openArchive(t, lib, buildArchive(t, lib, c.opts, rows))
			hits, err := r.Search(context.Background(), c.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, h := range hits {
				got = append(got, h.RowID)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("hits %v, want %v", got, c.want)
			}
		})
	}
}

func TestInvalidOptionsAreRejected(t *testing.T) {
	lib := testenv.Native(t)
	_, err := lib.NewWriter([]fulltext.Option{{Key: "tokenizer", Value: "no-such-tokenizer"}})
	if err == nil || !strings.Contains(err.Error(), "tokenizer") {
		t.Fatalf("unknown tokenizer: err %v, want an error naming the tokenizer option", err)
	}
	_, err = lib.NewWriter([]fulltext.Option{{Key: "ngram.min-gram", Value: "3"}, {Key: "ngram.max-gram", Value: "2"}, {Key: "tokenizer", Value: "ngram"}})
	if err == nil || !strings.Contains(err.Error(), "min-gram") {
		t.Fatalf("min > max: err %v", err)
	}
}

func TestBadInputGivesErrors(t *testing.T) {
	lib := testenv.Native(t)
	w, err := lib.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(1, "a\x00b"); err == nil {
		t.Fatal("text with NUL accepted")
	}
	if err := w.Add(2, "invalid \xff utf-8"); err != nil {
		// Invalid UTF-8 is reported when the batch reaches the engine, here at WriteTo.
		t.Fatalf("Add buffered the row and should not fail yet: %v", err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(context.Background(), &buf); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Fatalf("invalid UTF-8: err %v, want an error naming row 2", err)
	}
	if err := w.Add(3, "x"); !errors.Is(err, native.ErrClosed) {
		t.Fatalf("Add after WriteTo: %v, want ErrClosed", err)
	}

	good := buildArchive(t, lib, nil, []corpus.Row{{ID: 0, Text: "hello world"}})
	for _, data := range [][]byte{nil, []byte("not an archive"), good[:len(good)/2], append([]byte("XXXXXXXX"), good[8:]...)} {
		r, err := lib.OpenReader(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err == nil {
			// Truncation past the header may only show at search time.
			_, err = r.Search(context.Background(), matchQuery("hello"), 5)
			r.Close()
		}
		if err == nil {
			t.Errorf("archive of %d bytes accepted", len(data))
		}
	}
	r := openArchive(t, lib, good)
	if _, err := r.Search(context.Background(), `{"nonsense":1}`, 5); err == nil {
		t.Error("malformed query accepted")
	}
}

func TestWriteToHonoursCancellation(t *testing.T) {
	lib := testenv.Native(t)
	w, err := lib.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range corpus.Generate(5, 2000) {
		if !r.Null {
			if err := w.Add(r.ID, r.Text); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.WriteTo(ctx, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteTo with cancelled context: %v", err)
	}
	cw := &cancelAfter{n: 1}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cw.cancel = cancel2
	w2, _ := lib.NewWriter(nil)
	for _, r := range corpus.Generate(5, 2000) {
		if !r.Null {
			_ = w2.Add(r.ID, r.Text)
		}
	}
	if _, err := w2.WriteTo(ctx2, cw); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteTo cancelled mid-write: %v", err)
	}
}

// cancelAfter cancels its context after n writes.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.n--
	if c.n == 0 {
		c.cancel()
	}
	return len(p), nil
}

func TestConcurrentSearchesAndClose(t *testing.T) {
	lib := testenv.Native(t)
	rows := corpus.Generate(9, 1000)
	data := buildArchive(t, lib, nil, rows)
	dir := t.TempDir()
	path := filepath.Join(dir, "archive")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := lib.OpenReader(context.Background(), f, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Search(context.Background(), matchQuery("stream"), 50)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := r.Search(context.Background(), matchQuery("stream"), 50)
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
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := r.Search(context.Background(), matchQuery("stream"), 5); !errors.Is(err, native.ErrClosed) {
		t.Fatalf("search after Close: %v", err)
	}
}

func TestSameInputSameArchive(t *testing.T) {
	lib := testenv.Native(t)
	rows := corpus.Generate(21, 1000)
	a := buildArchive(t, lib, nil, rows)
	b := buildArchive(t, lib, nil, rows)
	ra, rb := openArchive(t, lib, a), openArchive(t, lib, b)
	for _, q := range []string{"apache", "数据", "café"} {
		ha, err := ra.Search(context.Background(), matchQuery(q), 100)
		if err != nil {
			t.Fatal(err)
		}
		hb, err := rb.Search(context.Background(), matchQuery(q), 100)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ha, hb) || len(ha) == 0 {
			t.Fatalf("query %q: %v vs %v", q, ha, hb)
		}
	}
}

func TestSearchLimits(t *testing.T) {
	lib := testenv.Native(t)
	rows := make([]corpus.Row, 2500)
	for i := range rows {
		rows[i] = corpus.Row{ID: int64(i), Text: fmt.Sprintf("common word%d", i)}
	}
	r := openArchive(t, lib, buildArchive(t, lib, nil, rows))
	// More hits than the first result buffer holds: the reader grows it.
	hits, err := r.Search(context.Background(), matchQuery("common"), 5000)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(rows) {
		t.Fatalf("got %d hits, want %d", len(hits), len(rows))
	}
	for _, limit := range []int{-1, 1 << 40} {
		if _, err := r.Search(context.Background(), matchQuery("common"), limit); err == nil {
			t.Errorf("limit %d accepted", limit)
		}
	}
	// The largest limit Java's int allows: capped at the document count, so the engine does not
	// try to allocate a top-k buffer of that size, and every hit still comes back.
	hits, err = r.Search(context.Background(), matchQuery("common"), 1<<31-1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(rows) {
		t.Fatalf("limit 2^31-1: got %d hits, want %d", len(hits), len(rows))
	}
}
