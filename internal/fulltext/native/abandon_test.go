package native_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// slowQuery is a fuzzy match of many words: the engine expands every word to the terms within
// two edits, which keeps one search busy for seconds on an ngram archive.
func slowQuery(words int) string {
	q, _ := json.Marshal(map[string]any{"match": map[string]any{
		"query": strings.TrimSpace(strings.Repeat("lake fox river 数据 quick ", words/5)), "fuzziness": 2}})
	return string(q)
}

// A search whose context ends while the engine works returns the context's error at once; the
// engine call is abandoned, Close does not wait for it, and the reader's other searches and the
// process stay sound.
func TestSearchIsAbandonedWhenTheContextEnds(t *testing.T) {
	lib := testenv.Native(t)
	ngram := []fulltext.Option{{Key: "tokenizer", Value: "ngram"}, {Key: "ngram.min-gram", Value: "1"}, {Key: "ngram.max-gram", Value: "3"}}
	data := buildArchive(t, lib, ngram, corpus.Generate(7, 4000))
	r := openArchive(t, lib, data)
	query := slowQuery(1000)

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := r.Search(ctx, query, 10)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("the query finished in %s, before its 200ms deadline: it no longer keeps the engine busy", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("search with a 200ms deadline: %v, want context.DeadlineExceeded", err)
	}
	if took > time.Second {
		t.Fatalf("the search returned %s after it started, the deadline was 200ms", took)
	}
	// Close while the abandoned engine call still runs: it does not wait, and the engine reader
	// is freed when the call returns (its reads of the archive fail from now on).
	closeStart := time.Now()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(closeStart); d > 100*time.Millisecond {
		t.Fatalf("Close waited %s for the engine", d)
	}
	if _, err := r.Search(context.Background(), matchQuery("lake"), 5); !errors.Is(err, native.ErrClosed) {
		t.Fatalf("search after Close: %v, want ErrClosed", err)
	}
	// Another reader of the same archive searches normally meanwhile.
	other := openArchive(t, lib, data)
	if _, err := other.Search(context.Background(), matchQuery("lake"), 5); err != nil {
		t.Fatalf("search of another reader while the abandoned call runs: %v", err)
	}
}

// Engine errors quote the start of a long query, not all of it.
func TestEngineErrorsCutTheQuery(t *testing.T) {
	lib := testenv.Native(t)
	r := openArchive(t, lib, buildArchive(t, lib, nil, corpus.Generate(3, 50)))
	query := `{"bool":{"must":[{"match":{"query":"` + strings.Repeat("lake ", 20000) + `"}}]}}`
	_, err := r.Search(context.Background(), query, 5)
	if err == nil {
		t.Fatal("the engine accepted a bool query")
	}
	msg := err.Error()
	if !strings.Contains(msg, "unknown variant `bool`") || !strings.Contains(msg, "(100042 bytes)") || len(msg) > 500 {
		t.Fatalf("error %.600q (%d bytes): want the engine's reason and the query cut to its start with its length", msg, len(msg))
	}
}

// slowReaderAt delays every read after the envelope's two, as a slow file system would.
type slowReaderAt struct {
	r     io.ReaderAt
	delay time.Duration
	reads atomic.Int64
}

func (s *slowReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if s.reads.Add(1) > 2 {
		time.Sleep(s.delay)
	}
	return s.r.ReadAt(p, off)
}

// Opening an archive is abandoned too when the context ends while the engine reads it.
func TestOpenReaderIsAbandonedWhenTheContextEnds(t *testing.T) {
	lib := testenv.Native(t)
	data := buildArchive(t, lib, nil, corpus.Generate(5, 200))
	slow := &slowReaderAt{r: bytes.NewReader(data), delay: 2 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := lib.OpenReader(ctx, slow, int64(len(data)))
	if err == nil {
		r.Close()
		t.Fatalf("opened in %s despite reads of 2s each (%d reads)", time.Since(start), slow.reads.Load())
	}
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("OpenReader after %s: %v, want context.DeadlineExceeded right after the 200ms deadline", time.Since(start), err)
	}
	// The same archive opens normally meanwhile.
	openArchive(t, lib, data)
}
