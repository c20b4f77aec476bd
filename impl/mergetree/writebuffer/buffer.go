package writebuffer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unsafe"
)

// Entry is one buffered record: the serialized key, its sequence number, the row kind and the
// serialized value, all opaque to the buffer. The buffer keeps the Key and Value slices it is
// given until they are spilled or cleared: the caller does not modify them.
type Entry struct {
	Key   []byte
	Seq   int64
	Kind  byte
	Value []byte
}

// entrySize is the size of an Entry in the buffer's slice; a buffer's memory is its records'
// key and value bytes plus the capacity of that slice, which grows by a quarter at a time.
const entrySize = int64(unsafe.Sizeof(Entry{}))

// Pool is one writer's write-buffer memory (Java's MemoryPoolFactory over write-buffer-size):
// pages its buffers take and give back, and the preemption that makes the largest other buffer
// give its memory back when the pool is empty.
type Pool struct {
	o        Options
	dir      string
	free     int64 // pages not held by a buffer
	buffers  []*Buffer
	preempts int64
}

// NewPool is the memory of one writer; spilled runs go to files in dir, a local directory the
// caller owns (Java: the IOManager's temp directories).
func NewPool(o Options, dir string) (*Pool, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, errors.New("writebuffer: no spill directory")
	}
	return &Pool{o: o, dir: dir, free: o.Size / o.PageSize}, nil
}

// TotalBytes is the pool's memory: whole pages of write-buffer-size.
func (p *Pool) TotalBytes() int64 { return p.o.Size / p.o.PageSize * p.o.PageSize }

// UsedBytes is the memory the buffers hold (whole pages).
func (p *Pool) UsedBytes() int64 { return p.TotalBytes() - p.free*p.o.PageSize }

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
	pool    *Pool
	cmp     func(a, b []byte) int
	flush   func(context.Context) error
	entries []Entry
	bytes   int64 // cost of entries
	pages   int64 // pages held
	runs    *Runs
	closed  bool
}

// Size is the number of records buffered, in memory and spilled.
func (b *Buffer) Size() int64 {
	return int64(len(b.entries)) + b.runs.Records()
}

// IsEmpty says the buffer holds no record.
func (b *Buffer) IsEmpty() bool { return len(b.entries) == 0 && b.runs.Len() == 0 }

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
	data := int64(len(e.Key) + len(e.Value))
	if data+b.grownCap(0)*entrySize > b.pool.TotalBytes() {
		return false, fmt.Errorf("writebuffer: a record of %d bytes exceeds the write buffer (%s = %d bytes)", data, OptWriteBufferSize, b.pool.o.Size)
	}
	for {
		cost, grow := data, int64(0)
		if len(b.entries) == cap(b.entries) {
			grow = b.grownCap(int64(cap(b.entries)))
			cost += (grow - int64(cap(b.entries))) * entrySize
		}
		if b.bytes+cost <= b.pages*b.pool.o.PageSize {
			if grow > 0 {
				grown := make([]Entry, len(b.entries), grow)
				copy(grown, b.entries)
				b.entries = grown
			}
			b.entries = append(b.entries, e)
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
		if len(b.entries) == 0 {
			return false, errors.New("writebuffer: no memory left in the pool and nothing to spill")
		}
		if err := b.spill(ctx); err != nil {
			return false, err
		}
	}
}

// grownCap is the capacity the record slice grows to from c: a quarter more, at least a
// quarter page of entries.
func (b *Buffer) grownCap(c int64) int64 {
	return c + max(c/4, b.pool.o.PageSize/(4*entrySize), 1)
}

// takePage takes a page from the pool, preempting the largest other buffer when it is empty.
func (b *Buffer) takePage(ctx context.Context) (bool, error) {
	p := b.pool
	if p.free == 0 {
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
	if p.free == 0 {
		return false, nil
	}
	p.free--
	b.pages++
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

func (b *Buffer) releaseMemory() {
	b.entries = nil
	b.bytes = 0
	b.pool.free += b.pages
	b.pages = 0
}

func (b *Buffer) sortEntries() {
	slices.SortFunc(b.entries, b.compare)
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
	if len(b.entries) == 0 {
		return nil
	}
	b.sortEntries()
	if err := b.runs.Spill(ctx, b.entries); err != nil {
		return err
	}
	b.releaseMemory()
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
	return b.runs.Merge(ctx, b.entries, fn)
}

// Clear drops every record: the memory goes back to the pool, the spilled runs are deleted (an
// error says which could not be).
func (b *Buffer) Clear() error {
	b.releaseMemory()
	return b.runs.Clear()
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
