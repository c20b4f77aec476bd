package pqvalue

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BufferPool is an Arrow memory.Allocator that keeps the buffers freed to it and hands them out
// again, so that the Parquet readers opened one after another by one piece of work (the data
// files a search reads its hits from) reuse the page and decompression buffers of the readers
// before them instead of each growing its own. It holds at most MaxHeld bytes of free buffers;
// a buffer freed beyond that is left to the garbage collector. Buffers are handed out zeroed, as
// Arrow's Go allocator does. A BufferPool is safe for concurrent use; its zero value is ready,
// holding up to DefaultPoolHeld bytes. It is meant to live as long as that piece of work, not for
// the process.
type BufferPool struct {
	// MaxHeld bounds the bytes of free buffers kept; 0 means DefaultPoolHeld.
	MaxHeld int

	mu   sync.Mutex
	free [maxPoolClass + 1][][]byte // by size class: capacity 1<<class
	held int
}

// DefaultPoolHeld is the bytes of free buffers a BufferPool keeps by default.
const DefaultPoolHeld = 64 << 20

// Size classes: powers of two from 64 bytes (Arrow's alignment; a Go allocation of a power of
// two from 64 bytes up is aligned to at least 64 bytes) to 256 MiB; larger buffers are not
// pooled.
const (
	minPoolClass = 6
	maxPoolClass = 28
)

var _ memory.Allocator = (*BufferPool)(nil)

// class is the size class of a buffer of n bytes (n > 0).
func class(n int) int { return max(bits.Len(uint(n-1)), minPoolClass) }

// Allocate returns a zeroed buffer of size bytes, a free one of its size class when there is one.
func (p *BufferPool) Allocate(size int) []byte {
	if size <= 0 {
		return []byte{}
	}
	c := class(size)
	if c > maxPoolClass {
		return make([]byte, size)
	}
	p.mu.Lock()
	if n := len(p.free[c]); n > 0 {
		b := p.free[c][n-1]
		p.free[c][n-1] = nil
		p.free[c] = p.free[c][:n-1]
		p.held -= cap(b)
		p.mu.Unlock()
		b = b[:size]
		clear(b)
		return b
	}
	p.mu.Unlock()
	return make([]byte, size, 1<<c)
}

// Reallocate returns a buffer of size bytes holding b's bytes (up to size), zeroed beyond them:
// b itself when its capacity suffices, else a new one, b being freed.
func (p *BufferPool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		if size > len(b) {
			clear(b[len(b):size])
		}
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free gives b back to the pool; b must not be used afterwards.
func (p *BufferPool) Free(b []byte) {
	n := cap(b)
	if n == 0 {
		return
	}
	c := class(n)
	if c > maxPoolClass || n != 1<<c {
		return // not one of the pool's sizes
	}
	limit := p.MaxHeld
	if limit <= 0 {
		limit = DefaultPoolHeld
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held+n > limit {
		return
	}
	p.free[c] = append(p.free[c], b[:0])
	p.held += n
}
