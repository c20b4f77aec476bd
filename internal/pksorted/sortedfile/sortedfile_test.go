package sortedfile

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestOpenFailureIsNotRemembered: a file that fails to open fails the query, and the next
// query opens it again (Java's reader cache keeps no failed reader).
func TestOpenFailureIsNotRemembered(t *testing.T) {
	s := newStore()
	f := bitmapFile(t, s, row("A", 0))
	fail := true
	open := func(ctx context.Context, file File) (io.ReaderAt, io.Closer, error) {
		if fail {
			return nil, nil, errors.New("unavailable")
		}
		return s.open(ctx, file)
	}
	r := newReader(t, bitmap.Identifier, types.String(), 0, 1, []File{f}, open)
	if _, _, err := r.Evaluate(t.Context(), pred.Predicate{Op: pred.Equal, Literals: []any{"A"}}); err == nil {
		t.Fatal("a failed open was not reported")
	}
	fail = false
	expectRows(t, "equal A", answer(t, r, pred.Equal, "A"), []int64{0})
}

// TestUnansweredOpensNothing: a predicate left unanswered or selecting no file opens no file;
// a cancelled context and a closed reader fail.
func TestUnansweredOpensNothing(t *testing.T) {
	s := newStore()
	f := s.write(t, btree.Identifier, serializer(t, types.Int()), []sortkeytest.Row{{Key: int32(3), RowID: 0}}, 0)
	r := newReader(t, btree.Identifier, types.Int(), 0, 1, []File{f}, s.open)
	unanswered(t, r, pred.GreaterThan, int32(1))
	expectRows(t, "equal outside the range", answer(t, r, pred.Equal, int32(9)), []int64{})
	unanswered(t, r, pred.Between, int32(9), int32(1))
	withBudget := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 1, []File{f}, s.open)
	expectRows(t, "between reversed", answer(t, withBudget, pred.Between, int32(9), int32(1)), []int64{})
	expectRows(t, "greater than the last key", answer(t, withBudget, pred.GreaterThan, int32(3)), []int64{})
	if n := s.openCount(); n != 0 {
		t.Fatalf("%d opens", n)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := r.Evaluate(ctx, pred.Predicate{Op: pred.Equal, Literals: []any{int32(3)}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Evaluate(t.Context(), pred.Predicate{Op: pred.IsNull}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

// TestRefusesBadMeta: a file meta that does not decode fails New, naming the file.
func TestRefusesBadMeta(t *testing.T) {
	_, err := New(Config{IndexType: btree.Identifier, Type: types.Int()}, []File{{Name: "f1", Size: 10, Meta: []byte{1}}}, newStore().open)
	if err == nil {
		t.Fatal("bad meta accepted")
	}
	if _, err := New(Config{IndexType: "vector", Type: types.Int()}, nil, newStore().open); err == nil {
		t.Fatal("unknown index type accepted")
	}
}

// TestBudgetOption: the budget is read from the index's own option with Java's default, and a
// value that is no memory size is refused by name, also by the writers' option check (the key
// does not shape the file, but the writer accepts it rather than refusing it as unknown).
func TestBudgetOption(t *testing.T) {
	for key, parse := range map[string]func(map[string]string) error{
		btree.OptFallbackScanMaxSize:  func(o map[string]string) error { _, err := btree.ParseOptions(o); return err },
		bitmap.OptFallbackScanMaxSize: func(o map[string]string) error { _, err := bitmap.ParseOptions(o); return err },
	} {
		for _, v := range []string{"0", "1 b", "64 mb"} {
			if err := parse(map[string]string{key: v}); err != nil {
				t.Errorf("writer options %s = %q: %v", key, v, err)
			}
		}
		for _, v := range []string{"-1", "lots", ""} {
			if err := parse(map[string]string{key: v}); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("writer options %s = %q: %v, want a refusal naming the key", key, v, err)
			}
		}
	}
	if _, err := btree.ParseOptions(map[string]string{btree.OptCacheSize: "8 mb", btree.OptHighPriorityPoolRatio: "0.5"}); err != nil {
		t.Errorf("the btree cache options (inert): %v", err)
	}
	for _, tc := range []struct {
		typ  string
		opts map[string]string
		want int64
	}{
		{btree.Identifier, nil, 256 << 20},
		{bitmap.Identifier, nil, 256 << 20},
		{btree.Identifier, map[string]string{btree.OptFallbackScanMaxSize: "0"}, 0},
		{btree.Identifier, map[string]string{bitmap.OptFallbackScanMaxSize: "1 b"}, 256 << 20},
		{bitmap.Identifier, map[string]string{bitmap.OptFallbackScanMaxSize: "1 kb"}, 1024},
	} {
		got, err := Budget(tc.typ, tc.opts)
		if err != nil || got != tc.want {
			t.Errorf("%s %v: %d, %v; want %d", tc.typ, tc.opts, got, err, tc.want)
		}
	}
	if _, err := Budget(btree.Identifier, map[string]string{btree.OptFallbackScanMaxSize: "-1"}); err == nil || !strings.Contains(err.Error(), btree.OptFallbackScanMaxSize) {
		t.Fatalf("negative budget: %v", err)
	}
}
