package sortedfile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// store holds written index files in memory and counts how often each is opened.
type store struct {
	mu    sync.Mutex
	data  map[string][]byte
	opens map[string]int
	total atomic.Int64
}

func newStore() *store { return &store{data: map[string][]byte{}, opens: map[string]int{}} }

func (s *store) open(_ context.Context, f File) (io.ReaderAt, io.Closer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.data[f.Name]
	if !ok {
		return nil, nil, fmt.Errorf("no file %s", f.Name)
	}
	s.opens[f.Name]++
	s.total.Add(1)
	return bytes.NewReader(b), io.NopCloser(nil), nil
}

func (s *store) openCount() int { return int(s.total.Load()) }

func (s *store) opened() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.opens)
}

// write writes rows (keys non-decreasing, nulls anywhere for btree, first for bitmap) as one
// index file of indexType and returns it.
func (s *store) write(t testing.TB, indexType string, ser *sortkey.Serializer, rows []sortkeytest.Row, blockSize int) File {
	t.Helper()
	var buf bytes.Buffer
	var m []byte
	switch indexType {
	case btree.Identifier:
		if blockSize == 0 {
			blockSize = btree.DefaultBlock
		}
		w, err := btree.NewWriter(&buf, ser, btree.Options{BlockSize: blockSize})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Write(r.Key, r.RowID); err != nil {
				t.Fatal(err)
			}
		}
		res, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		m = res.Meta.Encode()
	default:
		if blockSize == 0 {
			blockSize = bitmap.DefaultDictionaryBlockSize
		}
		w, err := bitmap.NewWriter(&buf, ser, bitmap.Options{DictionaryBlockSize: blockSize})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Write(r.Key, r.RowID); err != nil {
				t.Fatal(err)
			}
		}
		res, ok, err := w.Finish()
		if err != nil || !ok {
			t.Fatalf("finish: %v %v", ok, err)
		}
		m = res.Meta.Encode()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := fmt.Sprintf("%s-%d.index", indexType, len(s.data))
	s.data[name] = buf.Bytes()
	return File{Name: name, Size: int64(buf.Len()), Meta: m}
}

// split writes rows as files of per rows each (the last may be shorter).
func (s *store) split(t testing.TB, indexType string, ser *sortkey.Serializer, rows []sortkeytest.Row, per, blockSize int) []File {
	t.Helper()
	var out []File
	for i := 0; i < len(rows); i += per {
		out = append(out, s.write(t, indexType, ser, rows[i:min(i+per, len(rows))], blockSize))
	}
	return out
}

func serializer(t testing.TB, typ types.DataType) *sortkey.Serializer {
	t.Helper()
	ser, err := sortkey.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	return ser
}

func newReader(t testing.TB, indexType string, typ types.DataType, budget int64, parallelism int, files []File, open OpenFunc) *Reader {
	t.Helper()
	r, err := New(Config{IndexType: indexType, Type: typ, FallbackScanMaxSize: budget, Parallelism: parallelism}, files, open)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// answer evaluates p and fails the test unless it is answered.
func answer(t testing.TB, r *Reader, op pred.Op, lits ...any) []int64 {
	t.Helper()
	b, ok, err := r.Evaluate(context.Background(), pred.Predicate{Op: op, Literals: lits})
	if err != nil {
		t.Fatalf("%s %v: %v", op, lits, err)
	}
	if !ok {
		t.Fatalf("%s %v: left unanswered", op, lits)
	}
	return ids(b)
}

// unanswered fails the test unless p is left unanswered.
func unanswered(t testing.TB, r *Reader, op pred.Op, lits ...any) {
	t.Helper()
	b, ok, err := r.Evaluate(context.Background(), pred.Predicate{Op: op, Literals: lits})
	if err != nil {
		t.Fatalf("%s %v: %v", op, lits, err)
	}
	if ok {
		t.Fatalf("%s %v: answered %v, want unanswered", op, lits, ids(b))
	}
}

func ids(b *roaring64.Bitmap) []int64 {
	out := []int64{}
	it := b.Iterator()
	for it.HasNext() {
		out = append(out, int64(it.Next()))
	}
	return out
}

// model returns the sorted row ids of rows whose key match accepts.
func model(rows []sortkeytest.Row, match func(k any) bool) []int64 {
	out := []int64{}
	for _, r := range rows {
		if match(r.Key) {
			out = append(out, r.RowID)
		}
	}
	slices.Sort(out)
	return out
}

func expectRows(t testing.TB, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		if len(got) > 20 || len(want) > 20 {
			t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
		}
		t.Fatalf("%s: rows %v, want %v", what, got, want)
	}
}

// within runs f on another goroutine and fails the test if it takes longer than d (a
// deadlock) or returns an error.
func within(t *testing.T, d time.Duration, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatalf("no answer within %s", d)
	}
}

// check evaluates p and compares its answer with want, for use off the test goroutine.
func check(r *Reader, p pred.Predicate, want []int64) error {
	b, ok, err := r.Evaluate(context.Background(), p)
	switch {
	case err != nil:
		return fmt.Errorf("%s %v: %w", p.Op, p.Literals, err)
	case !ok:
		return fmt.Errorf("%s %v left unanswered", p.Op, p.Literals)
	}
	if got := ids(b); !slices.Equal(got, want) {
		return fmt.Errorf("%s %v: %d rows, want %d", p.Op, p.Literals, len(got), len(want))
	}
	return nil
}

func str(s string) sortkeytest.Row { return sortkeytest.Row{Key: s} }
