package writebuffer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Entry is one buffered record: the serialized key, its sequence number, the row kind and the
// serialized value, all opaque to the buffer. Put copies Key and Value, so the caller may reuse
// its slices; the entries ForEach yields point into the buffer's pages and stay valid until the
// buffer spills or is cleared.
type Entry struct {
	Key   []byte
	Seq   int64
	Kind  byte
	Value []byte
}

// slot is one record of a buffer in memory, the index its sort orders (Java's sort index in the
// pool's pages): where the record's bytes are (a page of the pool, or one of the buffer's records
// larger than a page), their lengths, the sequence number and row kind. It holds no pointers, so
// the slots live outside the Go heap too.
type slot struct {
	seq  int64
	page int32 // the pool's page; -1-i for the buffer's large record i
	off  int32
	klen int32
	vlen int32
	kind byte
}

// slotSize is the size of a slot; a buffer's memory is its records' key and value bytes, the
// ends of pages too short for the next record, and the capacity of its slots, which grows by a
// quarter at a time.
const slotSize = int64(unsafe.Sizeof(slot{}))

// Pool is one writer's write-buffer memory (Java's MemoryPoolFactory over write-buffer-size):
// pages its buffers take and give back, and the preemption that makes the largest other buffer
// give its memory back when the pool is empty. The records' bytes live in the pages, outside the
// Go heap where the platform allows (an anonymous mapping), so that the garbage collector's
// headroom does not double the buffer's memory.
type Pool struct {
	o        Options
	dir      string
	arena    *arena
	free     []int32 // pages not held by a buffer
	buffers  []*Buffer
	preempts int64
	draining bool
	closed   bool
}

// NewPool is the memory of one writer; spilled runs go to files in dir, a local directory the
// caller owns (Java: the IOManager's temp directories). Close gives its memory back.
func NewPool(o Options, dir string) (*Pool, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, errors.New("writebuffer: no spill directory")
	}
	n := o.Size / o.PageSize
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("writebuffer: option %s: %d pages of %s are too many", OptWriteBufferSize, n, OptPageSize)
	}
	a, err := mapArena(n, o.PageSize)
	if err != nil {
		return nil, err
	}
	free := make([]int32, n)
	for i := range free {
		free[i] = int32(len(free) - 1 - i)
	}
	return &Pool{o: o, dir: dir, arena: a, free: free}, nil
}

// Close clears every buffer of the pool (as Buffer.Close) and gives the pool's memory back.
// It is idempotent; no buffer of the pool may be used afterwards.
func (p *Pool) Close() error {
	if p.closed {
		return nil
	}
	var errs []error
	for len(p.buffers) > 0 {
		errs = append(errs, p.buffers[0].Close())
	}
	p.closed = true
	errs = append(errs, p.arena.release())
	return errors.Join(errs...)
}

// Drain returns the memory of the pages no buffer holds to the operating system, and from then
// on the memory of every page a buffer gives back: a writer's buffers are flushed one after the
// other at commit, and the pages of those flushed are not needed again. A buffer may still take
// pages (they come back zeroed).
func (p *Pool) Drain() error {
	p.draining = true
	return p.discard(p.free)
}

func (p *Pool) discard(pages []int32) error {
	if !p.draining {
		return nil
	}
	if err := p.arena.discardPages(pages); err != nil {
		return fmt.Errorf("writebuffer: return write-buffer pages: %w", err)
	}
	return nil
}

// TotalBytes is the pool's memory: whole pages of write-buffer-size.
func (p *Pool) TotalBytes() int64 { return p.o.Size / p.o.PageSize * p.o.PageSize }

// UsedBytes is the memory the buffers hold (whole pages).
func (p *Pool) UsedBytes() int64 { return p.TotalBytes() - int64(len(p.free))*p.o.PageSize }

// PreemptCount is how many times a buffer gave memory back for another.
func (p *Pool) PreemptCount() int64 { return p.preempts }

// NewBuffer adds a buffer (one bucket's) to the pool. cmp orders keys. flush is the owner's
// flush, called when the pool takes memory back from this buffer and it cannot spill (not
// spillable, or the spill disk budget is used up): it must write the buffer out (ForEach) and
// Clear it — Java's MergeTreeWriter#flushMemory writing a level-0 file. flush may be nil for a
// spillable buffer without a disk budget; the pool then reports the failure.
func (p *Pool) NewBuffer(cmp func(a, b []byte) int, flush func(context.Context) error) *Buffer {
	b := &Buffer{pool: p, cmp: cmp, flush: flush}
	b.runs = &Runs{dir: p.dir, o: p.o, cmp: b.compare}
	p.buffers = append(p.buffers, b)
	return b
}

// Buffer is one bucket's write buffer: records in memory, sorted on demand, and the sorted runs
// it spilled.
type Buffer struct {
	pool  *Pool
	cmp   func(a, b []byte) int
	flush func(context.Context) error
	slots []slot       // the records in memory
	free  func() error // gives the slots' memory back
	large [][]byte     // records larger than a page: key and value bytes
	bytes int64        // cost of the records in memory
	pages []int32      // pages held
	// The records' bytes fill the held pages in order: the first filled of them have records,
	// room bytes of the last of those are left.
	filled int
	room   int64
	runs   *Runs
	closed bool
}

// Size is the number of records buffered, in memory and spilled.
func (b *Buffer) Size() int64 {
	return int64(len(b.slots)) + b.runs.Records()
}

// IsEmpty says the buffer holds no record.
func (b *Buffer) IsEmpty() bool { return len(b.slots) == 0 && b.runs.Len() == 0 }

// MemoryOccupancy is the memory of the records in memory, their slice's capacity included
// (what preemption compares).
func (b *Buffer) MemoryOccupancy() int64 { return b.bytes }

// DiskUsage is the bytes of the buffer's spilled runs.
func (b *Buffer) DiskUsage() int64 { return b.runs.DiskUsage() }

// SpilledRuns is the number of sorted runs on disk.
func (b *Buffer) SpilledRuns() int { return b.runs.Len() }

// Put adds a record. false (with no error) means a buffer that cannot spill is full: its owner
// flushes it (ForEach, Clear) and puts the record again (Java's MergeTreeWriter#write). A
// spillable buffer spills instead; a record larger than the whole pool is an error.
func (b *Buffer) Put(ctx context.Context, e Entry) (bool, error) {
	if b.closed {
		return false, errors.New("writebuffer: put into a closed buffer")
	}
	ps := b.pool.o.PageSize
	data := int64(len(e.Key) + len(e.Value))
	if data > math.MaxInt32 || data+b.grownCap(0)*slotSize > b.pool.TotalBytes() {
		return false, fmt.Errorf("writebuffer: a record of %d bytes exceeds the write buffer (%s = %d bytes)", data, OptWriteBufferSize, b.pool.o.Size)
	}
	// A record larger than a page is kept on the Go heap (still counted against the pages).
	large := data > ps
	for {
		cost, grow, waste := data, int64(0), int64(0)
		if !large && data > b.room {
			// The rest of the page is too short: the record starts the next one.
			waste = b.room
		}
		cost += waste
		if len(b.slots) == cap(b.slots) {
			grow = b.grownCap(int64(cap(b.slots)))
			cost += (grow - int64(cap(b.slots))) * slotSize
		}
		if b.bytes+cost <= int64(len(b.pages))*ps {
			if !large && data > b.room {
				if b.filled >= len(b.pages) {
					return false, errors.New("writebuffer: page accounting lost track of the record pages")
				}
				b.filled++
				b.room = ps
			}
			if grow > 0 {
				if err := b.growSlots(grow); err != nil {
					return false, err
				}
			}
			s := slot{seq: e.Seq, klen: int32(len(e.Key)), vlen: int32(len(e.Value)), kind: e.Kind}
			if large {
				s.page = int32(-1 - len(b.large))
				b.large = append(b.large, slices.Concat(e.Key, e.Value))
			} else {
				off := ps - b.room
				s.page, s.off = b.pages[b.filled-1], int32(off)
				page := b.pool.arena.page(s.page)
				copy(page[off+int64(copy(page[off:], e.Key)):], e.Value)
				b.room -= data
			}
			b.slots = append(b.slots, s)
			b.bytes += cost
			return true, nil
		}
		ok, err := b.takePage(ctx)
		if err != nil {
			return false, err
		}
		if ok {
			continue
		}
		if !b.pool.o.Spillable {
			return false, nil
		}
		if len(b.slots) == 0 {
			return false, errors.New("writebuffer: no memory left in the pool and nothing to spill")
		}
		if err := b.spill(ctx); err != nil {
			return false, err
		}
	}
}

// grownCap is the capacity the record slice grows to from c: a quarter more, at least a
// quarter page of slots.
func (b *Buffer) grownCap(c int64) int64 {
	return c + max(c/4, b.pool.o.PageSize/(4*slotSize), 1)
}

// growSlots moves the slots to memory for n of them.
func (b *Buffer) growSlots(n int64) error {
	grown, free, err := allocSlots(n)
	if err != nil {
		return err
	}
	grown = append(grown, b.slots...)
	if err := b.freeSlots(); err != nil {
		return errors.Join(err, free())
	}
	b.slots, b.free = grown, free
	return nil
}

// freeSlots gives the slots' memory back.
func (b *Buffer) freeSlots() error {
	b.slots = nil
	if b.free == nil {
		return nil
	}
	free := b.free
	b.free = nil
	if err := free(); err != nil {
		return fmt.Errorf("writebuffer: free record slots: %w", err)
	}
	return nil
}

// entry is the record of slot s; its slices point into the buffer's memory.
func (b *Buffer) entry(s *slot) Entry {
	var mem []byte
	if s.page < 0 {
		mem = b.large[-1-s.page]
	} else {
		mem = b.pool.arena.page(s.page)[s.off:]
	}
	k, v := int(s.klen), int(s.klen)+int(s.vlen)
	return Entry{Key: mem[:k:k], Seq: s.seq, Kind: s.kind, Value: mem[k:v:v]}
}

// at is the i-th record in memory.
func (b *Buffer) at(i int) Entry { return b.entry(&b.slots[i]) }

// takePage takes a page from the pool, preempting the largest other buffer when it is empty.
func (b *Buffer) takePage(ctx context.Context) (bool, error) {
	p := b.pool
	if len(p.free) == 0 {
		var largest *Buffer
		for _, o := range p.buffers {
			if o != b && o.bytes > 0 && (largest == nil || o.bytes > largest.bytes) {
				largest = o
			}
		}
		if largest != nil {
			if err := largest.flushMemory(ctx); err != nil {
				return false, fmt.Errorf("writebuffer: giving memory back for another bucket: %w", err)
			}
			p.preempts++
		}
	}
	if len(p.free) == 0 {
		return false, nil
	}
	b.pages = append(b.pages, p.free[len(p.free)-1])
	p.free = p.free[:len(p.free)-1]
	return true, nil
}

// flushMemory gives the buffer's memory back: a spill while the disk budget allows, else the
// owner's flush (BinaryExternalSortBuffer#flushMemory, MergeTreeWriter#flushMemory).
func (b *Buffer) flushMemory(ctx context.Context) error {
	if b.pool.o.Spillable && b.runs.DiskUsage() < b.pool.o.MaxDiskSize {
		return b.spill(ctx)
	}
	if b.flush == nil {
		return errors.New("the buffer cannot spill and its owner has no flush")
	}
	if err := b.flush(ctx); err != nil {
		return err
	}
	if b.bytes > 0 {
		return errors.New("the owner's flush left records in memory")
	}
	return nil
}

func (b *Buffer) releaseMemory() error {
	err := b.freeSlots()
	b.large = nil
	b.bytes = 0
	err = errors.Join(err, b.pool.discard(b.pages))
	b.pool.free = append(b.pool.free, b.pages...)
	b.pages = b.pages[:0]
	b.filled, b.room = 0, 0
	return err
}

func (b *Buffer) sortEntries() {
	slices.SortFunc(b.slots, func(x, y slot) int { return b.compare(b.entry(&x), b.entry(&y)) })
}

func (b *Buffer) compare(x, y Entry) int {
	if c := b.cmp(x.Key, y.Key); c != 0 {
		return c
	}
	switch {
	case x.Seq < y.Seq:
		return -1
	case x.Seq > y.Seq:
		return 1
	}
	return 0
}

// spill writes the records in memory as one sorted run and gives their memory back; at
// SortMaxFan runs it merges them (Runs.MergeAtFanIn: into one).
func (b *Buffer) spill(ctx context.Context) error {
	if len(b.slots) == 0 {
		return nil
	}
	b.sortEntries()
	if err := b.runs.spillFunc(ctx, len(b.slots), b.at); err != nil {
		return err
	}
	if err := b.releaseMemory(); err != nil {
		return err
	}
	return b.runs.MergeAtFanIn(ctx)
}

// ForEach calls fn with every record in key order, equal keys by sequence number (Java's
// SortBufferWriteBuffer#forEach before its merge function): the records in memory merged with
// the spilled runs. The buffer keeps its records; the owner clears it after writing them.
func (b *Buffer) ForEach(ctx context.Context, fn func(Entry) error) error {
	if b.closed {
		return errors.New("writebuffer: iterate a closed buffer")
	}
	b.sortEntries()
	return b.runs.mergeFunc(ctx, len(b.slots), b.at, fn)
}

// Clear drops every record: the memory goes back to the pool, the spilled runs are deleted (an
// error says which could not be).
func (b *Buffer) Clear() error {
	return errors.Join(b.releaseMemory(), b.runs.Clear())
}

// Close clears the buffer and leaves the pool.
func (b *Buffer) Close() error {
	if b.closed {
		return nil
	}
	err := b.Clear()
	b.closed = true
	p := b.pool
	p.buffers = slices.DeleteFunc(p.buffers, func(o *Buffer) bool { return o == b })
	return err
}
