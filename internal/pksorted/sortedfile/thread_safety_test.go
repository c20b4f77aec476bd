package sortedfile

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

const (
	safetyRows  = 10000
	safetyFiles = 10
)

// safetyData is BTreeThreadSafetyTest's column: INT keys 0..9999, each at the row id equal to
// it, written as ten files of a thousand consecutive keys.
func safetyData(t *testing.T) ([]sortkeytest.Row, *store, []File) {
	t.Helper()
	rows := make([]sortkeytest.Row, safetyRows)
	for i := range rows {
		rows[i] = sortkeytest.Row{Key: int32(i), RowID: int64(i)}
	}
	s := newStore()
	return rows, s, s.split(t, btree.Identifier, serializer(t, types.Int()), rows, safetyRows/safetyFiles, 0)
}

func intRows(rows []sortkeytest.Row, keep func(k int32) bool) []int64 {
	return model(rows, func(k any) bool { return keep(k.(int32)) })
}

// concurrently runs n goroutines released together and fails the test on the first error or
// when they do not finish within 15 seconds.
func concurrently(t *testing.T, n int, f func(i int) error) {
	t.Helper()
	start := make(chan struct{})
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = f(i)
		}()
	}
	within(t, 15*time.Second, func() error {
		close(start)
		wg.Wait()
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}

// TestNoDeadlockMoreFilesThanThreads is BTreeThreadSafetyTest#testNoDeadlockMoreFilesThanThreads:
// ten files visited two at a time answer is-not-null with rows, in time.
func TestNoDeadlockMoreFilesThanThreads(t *testing.T) {
	_, s, files := safetyData(t)
	r := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 2, files, s.open)
	within(t, 10*time.Second, func() error {
		b, ok, err := r.Evaluate(context.Background(), pred.Predicate{Op: pred.IsNotNull})
		if err == nil && (!ok || b.IsEmpty()) {
			t.Errorf("is not null: answered %v with %v rows", ok, b)
		}
		return err
	})
}

// TestConcurrentVisitEqualOnSameReader is BTreeThreadSafetyTest#testConcurrentVisitEqualOnSameReader:
// 32 goroutines query equal on one reader (eight files at a time) and each gets exactly its
// key's row.
func TestConcurrentVisitEqualOnSameReader(t *testing.T) {
	rows, s, files := safetyData(t)
	r := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 8, files, s.open)
	concurrently(t, 32, func(i int) error {
		l := int32(i * 313 % safetyRows)
		return check(r, pred.Predicate{Op: pred.Equal, Literals: []any{l}}, intRows(rows, func(k int32) bool { return k == l }))
	})
}

// TestConcurrentMixedPredicates is BTreeThreadSafetyTest#testConcurrentMixedPredicates: 24
// goroutines query equal, less than, greater than and between at once (four files at a time),
// each answer equal to the model.
func TestConcurrentMixedPredicates(t *testing.T) {
	rows, s, files := safetyData(t)
	r := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 4, files, s.open)
	concurrently(t, 24, func(i int) error {
		hi, lo := int32(i*100), int32(i*50)
		switch i % 4 {
		case 0:
			return check(r, pred.Predicate{Op: pred.Equal, Literals: []any{hi}}, intRows(rows, func(k int32) bool { return k == hi }))
		case 1:
			return check(r, pred.Predicate{Op: pred.LessThan, Literals: []any{hi}}, intRows(rows, func(k int32) bool { return k < hi }))
		case 2:
			return check(r, pred.Predicate{Op: pred.GreaterThan, Literals: []any{hi}}, intRows(rows, func(k int32) bool { return k > hi }))
		}
		return check(r, pred.Predicate{Op: pred.Between, Literals: []any{lo, hi}}, intRows(rows, func(k int32) bool { return k >= lo && k <= hi }))
	})
}

// TestLazyCreationOnlyOncePerFile is BTreeThreadSafetyTest#testLazyCreationOnlyOncePerFile: 32
// goroutines racing on is-not-null open each of the ten files once (Java asserts at most ten
// opens; every file holds keys, so here exactly ten).
func TestLazyCreationOnlyOncePerFile(t *testing.T) {
	_, s, files := safetyData(t)
	r := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 8, files, s.open)
	concurrently(t, 32, func(int) error {
		_, _, err := r.Evaluate(context.Background(), pred.Predicate{Op: pred.IsNotNull})
		return err
	})
	if n := s.openCount(); n != safetyFiles {
		t.Fatalf("%d opens, want %d (one per file)", n, safetyFiles)
	}
}

// TestSelectorPrunesCorrectly is BTreeThreadSafetyTest#testSelectorPrunesCorrectly: equal 5
// finds row 5 and opens only the file whose key range holds 5 (Java asserts fewer than all ten).
func TestSelectorPrunesCorrectly(t *testing.T) {
	_, s, files := safetyData(t)
	r := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 4, files, s.open)
	expectRows(t, "equal 5", answer(t, r, pred.Equal, int32(5)), []int64{5})
	if s.opened() != 1 || s.opens[files[0].Name] != 1 {
		t.Fatalf("opened %v, want only %s", s.opens, files[0].Name)
	}
}
