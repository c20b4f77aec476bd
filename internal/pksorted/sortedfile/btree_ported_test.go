package sortedfile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

const (
	multiRows  = 2000
	multiFiles = 10
)

// btreeData is a column's sorted rows written as several btree files.
type btreeData struct {
	ser   *sortkey.Serializer
	rows  []sortkeytest.Row
	s     *store
	files []File
}

// newBTreeData draws n random rows of typ, turns the keys of the last nullTail fraction of the
// sorted rows into nulls (so that the last files hold only nulls, as the Java tests arrange),
// and writes them as files of n/files rows.
func newBTreeData(t *testing.T, typ types.DataType, seed uint64, n, files int, nullTail float64, blockSize int) *btreeData {
	t.Helper()
	ser := serializer(t, typ)
	rows := sortkeytest.Rows(ser, rand.New(rand.NewPCG(seed, 7)), n, 0)
	for i := n - 1; float64(i) >= float64(n)*(1-nullTail); i-- {
		rows[i].Key = nil
	}
	d := &btreeData{ser: ser, rows: rows, s: newStore()}
	d.files = d.s.split(t, btree.Identifier, ser, rows, n/files, blockSize)
	return d
}

func (d *btreeData) match(f func(k any) bool) []int64 {
	return model(d.rows, func(k any) bool { return k != nil && f(k) })
}

func (d *btreeData) cmp(k, l any) int { return d.ser.Compare(k, l) }

// key returns the key of the i-th sorted row.
func (d *btreeData) key(i int) any { return d.rows[i].Key }

// checkRandomQuery runs one random predicate of the eleven kinds Java's stress test draws and
// checks it against the model.
func (d *btreeData) checkRandomQuery(r *Reader, rnd *rand.Rand) error {
	idx := rnd.IntN(len(d.rows))
	l := d.key(idx)
	var p pred.Predicate
	var want []int64
	switch kind := rnd.IntN(11); kind {
	case 9:
		p, want = pred.Predicate{Op: pred.IsNull}, model(d.rows, func(k any) bool { return k == nil })
	case 10:
		p, want = pred.Predicate{Op: pred.IsNotNull}, d.match(func(any) bool { return true })
	case 7, 8:
		var lits []any
		set := map[int]bool{}
		for range 20 {
			j := rnd.IntN(len(d.rows))
			if d.key(j) != nil {
				lits = append(lits, d.key(j))
				set[j] = true
			}
		}
		if len(lits) == 0 {
			return nil
		}
		in := func(k any) bool {
			for _, x := range lits {
				if d.cmp(k, x) == 0 {
					return true
				}
			}
			return false
		}
		if kind == 7 {
			p, want = pred.Predicate{Op: pred.In, Literals: lits}, d.match(in)
		} else {
			p, want = pred.Predicate{Op: pred.NotIn, Literals: lits}, d.match(func(k any) bool { return !in(k) })
		}
	default:
		if l == nil {
			return nil
		}
		ops := []pred.Op{pred.Equal, pred.LessThan, pred.GreaterOrEqual, pred.LessOrEqual, pred.GreaterThan, pred.NotEqual, pred.Between}
		op := ops[kind]
		p = pred.Predicate{Op: op, Literals: []any{l}}
		switch op {
		case pred.Equal:
			want = d.match(func(k any) bool { return d.cmp(k, l) == 0 })
		case pred.LessThan:
			want = d.match(func(k any) bool { return d.cmp(k, l) < 0 })
		case pred.GreaterOrEqual:
			want = d.match(func(k any) bool { return d.cmp(k, l) >= 0 })
		case pred.LessOrEqual:
			want = d.match(func(k any) bool { return d.cmp(k, l) <= 0 })
		case pred.GreaterThan:
			want = d.match(func(k any) bool { return d.cmp(k, l) > 0 })
		case pred.NotEqual:
			want = d.match(func(k any) bool { return d.cmp(k, l) != 0 })
		case pred.Between:
			to := d.key(min(idx+rnd.IntN(200)+1, len(d.rows)-1))
			if to == nil {
				return nil
			}
			p.Literals = []any{l, to}
			want = d.match(func(k any) bool { return d.cmp(k, l) >= 0 && d.cmp(k, to) <= 0 })
		}
	}
	return check(r, p, want)
}

// forEveryType runs f for one random column of every key type, as Java's parameterized
// AbstractIndexReaderTest does for its twelve types.
func forEveryType(t *testing.T, f func(t *testing.T, typ types.DataType, seed uint64)) {
	for i, typ := range sortkeytest.Types() {
		t.Run(fmt.Sprintf("%s-%d", typ.Root, typ.Precision), func(t *testing.T) { f(t, typ, uint64(i)+1) })
	}
}

// TestMultiFileRangePredicate is AbstractIndexReaderTest#testRangePredicate as
// LazyFilteredBTreeIndexReaderTest runs it: over ten files, every comparison, equal, not equal
// and between at random literals equal the model, and the bounds beyond the keys select nothing.
func TestMultiFileRangePredicate(t *testing.T) {
	forEveryType(t, func(t *testing.T, typ types.DataType, seed uint64) {
		d := newBTreeData(t, typ, seed, multiRows, multiFiles, 0, 0)
		r := newReader(t, btree.Identifier, typ, btree.DefaultFallbackScanMaxSize, 1, d.files, d.s.open)
		rnd := rand.New(rand.NewPCG(seed, 11))
		for range 5 {
			i := rnd.IntN(multiRows)
			l := d.key(i)
			to := d.key(i + rnd.IntN(multiRows-i))
			for _, tc := range []struct {
				op   pred.Op
				lits []any
				keep func(k any) bool
			}{
				{pred.LessOrEqual, []any{l}, func(k any) bool { return d.cmp(k, l) <= 0 }},
				{pred.LessThan, []any{l}, func(k any) bool { return d.cmp(k, l) < 0 }},
				{pred.GreaterOrEqual, []any{l}, func(k any) bool { return d.cmp(k, l) >= 0 }},
				{pred.GreaterThan, []any{l}, func(k any) bool { return d.cmp(k, l) > 0 }},
				{pred.Equal, []any{l}, func(k any) bool { return d.cmp(k, l) == 0 }},
				{pred.NotEqual, []any{l}, func(k any) bool { return d.cmp(k, l) != 0 }},
				{pred.Between, []any{l, to}, func(k any) bool { return d.cmp(k, l) >= 0 && d.cmp(k, to) <= 0 }},
			} {
				expectRows(t, fmt.Sprintf("%s %v", tc.op, tc.lits), answer(t, r, tc.op, tc.lits...), d.match(tc.keep))
			}
		}
		expectRows(t, "less than the minimum", answer(t, r, pred.LessThan, d.key(0)), []int64{})
		expectRows(t, "greater than the maximum", answer(t, r, pred.GreaterThan, d.key(multiRows-1)), []int64{})
		if typ.Root == types.RootInt {
			lo, hi := d.key(0).(int32), d.key(multiRows-1).(int32)
			if lo > -1<<31+100 {
				expectRows(t, "between below", answer(t, r, pred.Between, lo-100, lo-1), []int64{})
			}
			if hi < 1<<31-101 {
				expectRows(t, "between above", answer(t, r, pred.Between, hi+1, hi+100), []int64{})
			}
		}
	})
}

// TestMultiFileIsNull is AbstractIndexReaderTest#testIsNull over ten files, the last of which
// hold only nulls: the null and non-null rows equal the model.
func TestMultiFileIsNull(t *testing.T) {
	forEveryType(t, func(t *testing.T, typ types.DataType, seed uint64) {
		d := newBTreeData(t, typ, seed, multiRows, multiFiles, 0.15, 0)
		r := newReader(t, btree.Identifier, typ, btree.DefaultFallbackScanMaxSize, 1, d.files, d.s.open)
		expectRows(t, "is null", answer(t, r, pred.IsNull), model(d.rows, func(k any) bool { return k == nil }))
		expectRows(t, "is not null", answer(t, r, pred.IsNotNull), d.match(func(any) bool { return true }))
	})
}

// TestMultiFileInPredicate is AbstractIndexReaderTest#testInPredicate over ten files: in and not
// in of a random tenth of the keys equal the model.
func TestMultiFileInPredicate(t *testing.T) {
	forEveryType(t, func(t *testing.T, typ types.DataType, seed uint64) {
		d := newBTreeData(t, typ, seed, multiRows, multiFiles, 0, 0)
		r := newReader(t, btree.Identifier, typ, btree.DefaultFallbackScanMaxSize, 1, d.files, d.s.open)
		rnd := rand.New(rand.NewPCG(seed, 13))
		for range 3 {
			var lits []any
			for _, j := range rnd.Perm(multiRows)[:multiRows/10] {
				lits = append(lits, d.key(j))
			}
			in := func(k any) bool {
				for _, x := range lits {
					if d.cmp(k, x) == 0 {
						return true
					}
				}
				return false
			}
			expectRows(t, "in", answer(t, r, pred.In, lits...), d.match(in))
			expectRows(t, "not in", answer(t, r, pred.NotIn, lits...), d.match(func(k any) bool { return !in(k) }))
		}
	})
}

// TestMultiFileStartsWith is AbstractIndexReaderTest#testStartsWith over ten files: prefixes of
// random keys, the empty prefix (every non-null row) and a prefix no key has.
func TestMultiFileStartsWith(t *testing.T) {
	for _, typ := range []types.DataType{types.String(), types.Char(3)} {
		t.Run(typ.SQLString(), func(t *testing.T) {
			d := newBTreeData(t, typ, 3, multiRows, multiFiles, 0, 0)
			r := newReader(t, btree.Identifier, typ, btree.DefaultFallbackScanMaxSize, 1, d.files, d.s.open)
			rnd := rand.New(rand.NewPCG(3, 17))
			for range 5 {
				v := d.key(rnd.IntN(multiRows)).(string)
				if v == "" {
					continue
				}
				prefix := v[:1+rnd.IntN(len(v))]
				expectRows(t, "starts with "+prefix, answer(t, r, pred.StartsWith, prefix),
					d.match(func(k any) bool { return strings.HasPrefix(k.(string), prefix) }))
			}
			expectRows(t, "empty prefix", answer(t, r, pred.StartsWith, ""), d.match(func(any) bool { return true }))
			expectRows(t, "no such prefix", answer(t, r, pred.StartsWith, "zzz_no_such_prefix"), []int64{})
		})
	}
}

// TestBTreeFallbackScanDisabledByBudget is LazyFilteredBTreeIndexReaderTest#testFallbackScanDisabledByBudget:
// with a one-byte budget a between over every key is left unanswered; equal is still answered.
func TestBTreeFallbackScanDisabledByBudget(t *testing.T) {
	forEveryType(t, func(t *testing.T, typ types.DataType, seed uint64) {
		d := newBTreeData(t, typ, seed, multiRows, multiFiles, 0, 0)
		r := newReader(t, btree.Identifier, typ, 1, 1, d.files, d.s.open)
		unanswered(t, r, pred.Between, d.key(0), d.key(multiRows-1))
		l := d.key(multiRows / 2)
		expectRows(t, "equal", answer(t, r, pred.Equal, l), d.match(func(k any) bool { return d.cmp(k, l) == 0 }))
	})
}

// TestBTreeFallbackBudgetUsesSelectedFiles is LazyFilteredBTreeIndexReaderTest#testFallbackBudgetUsesSelectedFiles:
// the rows split at the first key change into two files and the budget is the second file's
// size: a between over all keys (both files) is unanswered, a range from the second file's
// first key (that file alone) is answered.
func TestBTreeFallbackBudgetUsesSelectedFiles(t *testing.T) {
	forEveryType(t, func(t *testing.T, typ types.DataType, seed uint64) {
		ser := serializer(t, typ)
		rows := sortkeytest.Rows(ser, rand.New(rand.NewPCG(seed, 7)), multiRows, 0)
		split := -1
		for i := 1; i < len(rows); i++ {
			if ser.Compare(rows[i-1].Key, rows[i].Key) < 0 {
				split = i
				break
			}
		}
		if split <= 0 {
			t.Fatalf("the %d generated rows hold one key only; the test needs two files of different keys", len(rows))
		}
		s := newStore()
		files := []File{s.write(t, btree.Identifier, ser, rows[:split], 0), s.write(t, btree.Identifier, ser, rows[split:], 0)}
		r := newReader(t, btree.Identifier, typ, files[1].Size, 1, files, s.open)
		unanswered(t, r, pred.Between, rows[0].Key, rows[len(rows)-1].Key)
		l := rows[split].Key
		expectRows(t, "greater or equal", answer(t, r, pred.GreaterOrEqual, l), model(rows, func(k any) bool { return ser.Compare(k, l) >= 0 }))
	})
}

// TestUnorderedIterator is LazyFilteredBTreeIndexReaderTest#testUnorderedIterator: reading every
// file's null rows and entries back gives every key with exactly its row ids.
func TestUnorderedIterator(t *testing.T) {
	forEveryType(t, func(t *testing.T, typ types.DataType, seed uint64) {
		d := newBTreeData(t, typ, seed, multiRows, multiFiles, 0.15, 0)
		want, got := map[string][]int64{}, map[string][]int64{}
		keyOf := func(k any) string {
			if k == nil {
				return "null"
			}
			b, err := d.ser.Encode(k)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("%x", b)
		}
		for _, r := range d.rows {
			want[keyOf(r.Key)] = append(want[keyOf(r.Key)], r.RowID)
		}
		for _, f := range d.files {
			m, err := filemeta.Decode(f.Meta)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := btree.Open(bytes.NewReader(d.s.data[f.Name]), f.Size, d.ser, m)
			if err != nil {
				t.Fatal(err)
			}
			got["null"] = append(got["null"], ids(rd.NullRows())...)
			entries, err := rd.Entries()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				got[keyOf(e.Key)] = append(got[keyOf(e.Key)], e.RowIDs...)
			}
		}
		if len(got["null"]) == 0 {
			delete(got, "null")
		}
		if len(got) != len(want) {
			t.Fatalf("%d distinct keys read, want %d", len(got), len(want))
		}
		for k, w := range want {
			g := got[k]
			slices.Sort(g)
			slices.Sort(w)
			if !slices.Equal(g, w) {
				t.Fatalf("key %s: row ids %v, want %v", k, g, w)
			}
		}
	})
}

// TestConcurrentAccess is LazyFilteredBTreeIndexReaderTest#testConcurrentAccess: twenty files of
// small (4 KiB) blocks with null tails, a reader visiting up to eight files at once, and sixteen
// goroutines each running fifteen random queries of every kind against the model; run under
// -race it also checks the reader's own synchronization.
func TestConcurrentAccess(t *testing.T) {
	for _, typ := range []types.DataType{types.Int(), types.String(), types.Double(), types.Timestamp(6)} {
		t.Run(typ.SQLString(), func(t *testing.T) {
			d := newBTreeData(t, typ, 5, multiRows, 20, 0.1, 4<<10)
			r := newReader(t, btree.Identifier, typ, btree.DefaultFallbackScanMaxSize, 8, d.files, d.s.open)
			start := make(chan struct{})
			errs := make(chan error, 16)
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					rnd := rand.New(rand.NewPCG(uint64(g), 19))
					for range 15 {
						if err := d.checkRandomQuery(r, rnd); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			within(t, 120*time.Second, func() error {
				close(start)
				wg.Wait()
				return nil
			})
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if n := d.s.openCount(); n > len(d.files) {
				t.Errorf("%d opens of %d files: a file was opened twice", n, len(d.files))
			}
		})
	}
}

// TestNoDeadlockWithBoundedParallelism is LazyFilteredBTreeIndexReaderTest#testNoDeadlockWithSemaphoredExecutor:
// a reader allowed two files at a time over ten files answers equal, less than and in queries
// (Go's file visits start no nested work, so the bound cannot starve them).
func TestNoDeadlockWithBoundedParallelism(t *testing.T) {
	d := newBTreeData(t, types.Int(), 9, multiRows, multiFiles, 0, 0)
	r := newReader(t, btree.Identifier, types.Int(), btree.DefaultFallbackScanMaxSize, 2, d.files, d.s.open)
	rnd := rand.New(rand.NewPCG(42, 42))
	within(t, 60*time.Second, func() error {
		for range 10 {
			l := d.key(rnd.IntN(multiRows))
			if err := check(r, pred.Predicate{Op: pred.Equal, Literals: []any{l}}, d.match(func(k any) bool { return d.cmp(k, l) == 0 })); err != nil {
				return err
			}
			if err := check(r, pred.Predicate{Op: pred.LessThan, Literals: []any{l}}, d.match(func(k any) bool { return d.cmp(k, l) < 0 })); err != nil {
				return err
			}
			var lits []any
			for range 5 {
				lits = append(lits, d.key(rnd.IntN(multiRows)))
			}
			if err := check(r, pred.Predicate{Op: pred.In, Literals: lits}, d.match(func(k any) bool {
				return slices.ContainsFunc(lits, func(x any) bool { return d.cmp(k, x) == 0 })
			})); err != nil {
				return err
			}
		}
		return nil
	})
}
