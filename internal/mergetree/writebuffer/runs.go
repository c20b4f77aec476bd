package writebuffer

import (
	"context"
	"errors"
	"math"
	"slices"
)

// Runs is a sequence of sorted runs spilled to files in one local directory, merged back as
// Paimon's BinaryExternalMerger merges its spill channels: a k-way merge over the runs in spill
// order on a PartialOrderPriorityQueue ordered by cmp alone, so that records cmp finds equal come
// out in the order Java's merge yields them (which is not their spill order in general), and, at
// SortMaxFan runs, Java's mergeChannelList. A Buffer keeps its spilled runs in one; a sorter with
// its own memory accounting (the sorted index build) uses one directly.
//
// Runs are used by one goroutine.
type Runs struct {
	dir  string
	o    Options
	cmp  func(x, y Entry) int
	runs []*spillRun
	disk int64
}

// NewRuns creates an empty sequence of runs whose files go to dir (a local directory the caller
// owns), written with o's spill compression and merged at o.SortMaxFan runs; cmp orders records.
func NewRuns(dir string, o Options, cmp func(x, y Entry) int) (*Runs, error) {
	if dir == "" {
		return nil, errors.New("writebuffer: no spill directory")
	}
	if o.SortMaxFan < 2 {
		return nil, errors.New("writebuffer: option " + OptSortMaxFan + " below 2")
	}
	return &Runs{dir: dir, o: o, cmp: cmp}, nil
}

// Len is the number of runs on disk.
func (r *Runs) Len() int { return len(r.runs) }

// Records is the number of records in the runs.
func (r *Runs) Records() int64 {
	var n int64
	for _, run := range r.runs {
		n += run.count
	}
	return n
}

// DiskUsage is the bytes of the run files.
func (r *Runs) DiskUsage() int64 { return r.disk }

// Spill writes sorted (already in cmp order) as a new last run (BinaryExternalSortBuffer#spill).
// Nothing is written for no records.
func (r *Runs) Spill(ctx context.Context, sorted []Entry) error {
	return r.spillFunc(ctx, len(sorted), func(i int) Entry { return sorted[i] })
}

// spillFunc is Spill of the n records at(0), ..., at(n-1).
func (r *Runs) spillFunc(ctx context.Context, n int, at func(int) Entry) error {
	if n == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	run, err := writeRun(r.dir, r.o, func(emit func(Entry) error) error {
		for i := range n {
			if err := emit(at(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.runs = append(r.runs, run)
	r.disk += run.size
	return nil
}

// MergeAtFanIn merges runs when there are SortMaxFan or more of them, as
// BinaryExternalSortBuffer#write calls mergeChannelList after a spill: the first runs are kept,
// the rest are merged in consecutive groups so that SortMaxFan^k runs remain (one, when there
// are exactly SortMaxFan).
func (r *Runs) MergeAtFanIn(ctx context.Context) error {
	n, fan := len(r.runs), r.o.SortMaxFan
	if n < fan {
		return nil
	}
	scale := math.Ceil(math.Log(float64(n))/math.Log(float64(fan))) - 1
	numEnd := int(math.Pow(float64(fan), scale))
	numMerges := int(math.Ceil(float64(n-numEnd) / float64(fan-1)))
	notMerged := numEnd - numMerges
	perStep := int(math.Ceil(float64(n-notMerged) / float64(numMerges)))
	all := r.runs
	out := append([]*spillRun(nil), all[:notMerged]...)
	for i := notMerged; i < n; i += perStep {
		group := all[i:min(i+perStep, n)]
		merged, err := writeRun(r.dir, r.o, func(emit func(Entry) error) error {
			return r.mergeRuns(ctx, group, 0, nil, emit)
		})
		if err != nil {
			return err
		}
		var errs []error
		for _, g := range group {
			r.disk -= g.size
			errs = append(errs, g.remove())
		}
		r.disk += merged.size
		out = append(out, merged)
		// The runs list stays whole after each step, so that Clear deletes every file on a failure.
		r.runs = append(slices.Clip(out), all[i+len(group):]...)
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	return nil
}

// Merge calls emit with every record of the runs and of mem (sorted, in cmp order; it takes the
// place of the run Java spills last before merging) in merged order.
func (r *Runs) Merge(ctx context.Context, mem []Entry, emit func(Entry) error) error {
	return r.mergeRuns(ctx, r.runs, len(mem), func(i int) Entry { return mem[i] }, emit)
}

// mergeFunc is Merge of the n records in memory at(0), ..., at(n-1).
func (r *Runs) mergeFunc(ctx context.Context, n int, at func(int) Entry, emit func(Entry) error) error {
	return r.mergeRuns(ctx, r.runs, n, at, emit)
}

// Clear deletes the run files (an error says which could not be).
func (r *Runs) Clear() error {
	var errs []error
	for _, run := range r.runs {
		errs = append(errs, run.remove())
	}
	r.runs = nil
	r.disk = 0
	return errors.Join(errs...)
}

// mergeRuns merges runs and then the n records in memory at(0), ..., at(n-1) as
// BinaryMergeIterator does.
func (r *Runs) mergeRuns(ctx context.Context, runs []*spillRun, n int, at func(int) Entry, emit func(Entry) error) error {
	var readers []*runReader
	defer func() {
		for _, rd := range readers {
			rd.close()
		}
	}()
	q := &mergeQueue{cmp: r.cmp, heap: make([]*source, 1, len(runs)+2)}
	add := func(s *source) error {
		e, ok, err := s.next()
		if err != nil || !ok {
			return err
		}
		s.cur = e
		q.put(s)
		return nil
	}
	for _, run := range runs {
		rd, err := run.open(r.o)
		if err != nil {
			return err
		}
		readers = append(readers, rd)
		if err := add(&source{next: rd.next}); err != nil {
			return err
		}
	}
	pos := 0
	if err := add(&source{next: func() (Entry, bool, error) {
		if pos == n {
			return Entry{}, false, nil
		}
		pos++
		return at(pos - 1), true, nil
	}}); err != nil {
		return err
	}
	for n := 0; q.size() > 0; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		top := q.heap[1]
		if err := emit(top.cur); err != nil {
			return err
		}
		e, ok, err := top.next()
		if err != nil {
			return err
		}
		if ok {
			top.cur = e
			q.downHeap()
		} else {
			q.poll()
		}
	}
	return nil
}

// source is one sorted input of a merge: a spilled run or the records in memory.
type source struct {
	cur  Entry
	next func() (Entry, bool, error)
}

// mergeQueue is Paimon's PartialOrderPriorityQueue over the merge's sources (heap[1] is the
// top; heap[0] is unused): the sift-up and sift-down Java's merge runs, so that sources whose
// heads compare equal are taken in Java's order.
type mergeQueue struct {
	cmp  func(x, y Entry) int
	heap []*source
}

func (q *mergeQueue) size() int              { return len(q.heap) - 1 }
func (q *mergeQueue) less(a, b *source) bool { return q.cmp(a.cur, b.cur) < 0 }

// put is PartialOrderPriorityQueue#put (upHeap).
func (q *mergeQueue) put(s *source) {
	q.heap = append(q.heap, s)
	i := len(q.heap) - 1
	j := i >> 1
	for j > 0 && q.less(s, q.heap[j]) {
		q.heap[i] = q.heap[j]
		i = j
		j >>= 1
	}
	q.heap[i] = s
}

// poll removes the top (PartialOrderPriorityQueue#poll).
func (q *mergeQueue) poll() {
	last := len(q.heap) - 1
	q.heap[1] = q.heap[last]
	q.heap[last] = nil
	q.heap = q.heap[:last]
	if q.size() > 0 {
		q.downHeap()
	}
}

// downHeap restores the heap after the top changed (PartialOrderPriorityQueue#adjustTop).
func (q *mergeQueue) downHeap() {
	n := q.size()
	i := 1
	node := q.heap[i]
	j := i << 1
	if k := j + 1; k <= n && q.less(q.heap[k], q.heap[j]) {
		j = k
	}
	for j <= n && q.less(q.heap[j], node) {
		q.heap[i] = q.heap[j]
		i = j
		j = i << 1
		if k := j + 1; k <= n && q.less(q.heap[k], q.heap[j]) {
			j = k
		}
	}
	q.heap[i] = node
}
