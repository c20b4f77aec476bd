package pqvalue

import (
	"bytes"
	"testing"
)

// TestBufferPoolReuses checks a freed buffer is handed out again, zeroed, and that Reallocate
// keeps the bytes it had.
func TestBufferPoolReuses(t *testing.T) {
	var p BufferPool
	b := p.Allocate(1000)
	if len(b) != 1000 || cap(b) != 1024 {
		t.Fatalf("Allocate(1000): len %d cap %d, want 1000 and 1024", len(b), cap(b))
	}
	for i := range b {
		b[i] = 0xff
	}
	p.Free(b)
	c := p.Allocate(600)
	if &c[0] != &b[0] {
		t.Errorf("Allocate after Free did not reuse the freed buffer")
	}
	if !bytes.Equal(c, make([]byte, 600)) {
		t.Errorf("a reused buffer is not zeroed")
	}
	copy(c, "abc")
	c = c[:3]
	g := p.Reallocate(700, c)
	if string(g[:3]) != "abc" || !bytes.Equal(g[3:], make([]byte, 697)) {
		t.Errorf("Reallocate within capacity: %q...", g[:8])
	}
	h := p.Reallocate(5000, g)
	if len(h) != 5000 || string(h[:3]) != "abc" || !bytes.Equal(h[700:], make([]byte, 4300)) {
		t.Errorf("Reallocate beyond capacity: len %d, %q...", len(h), h[:8])
	}
	// g went back to the pool: the next buffer of its class is g.
	if k := p.Allocate(1024); &k[0] != &g[:1][0] {
		t.Errorf("the buffer Reallocate replaced was not freed to the pool")
	}
}

// TestBufferPoolBound checks the pool keeps no more than MaxHeld bytes of free buffers and
// ignores buffers not of its sizes.
func TestBufferPoolBound(t *testing.T) {
	p := BufferPool{MaxHeld: 2048}
	a, b, c := p.Allocate(1024), p.Allocate(1024), p.Allocate(1024)
	p.Free(a)
	p.Free(b)
	p.Free(c) // beyond MaxHeld: dropped
	p.Free(make([]byte, 100))
	if p.held != 2048 {
		t.Errorf("pool holds %d bytes, want 2048", p.held)
	}
	if got := len(p.free[class(1024)]); got != 2 {
		t.Errorf("%d free buffers of 1 KiB, want 2", got)
	}
	if got := len(p.free[class(100)]); got != 0 {
		t.Errorf("a buffer of a size the pool does not hand out was kept")
	}
}

// BenchmarkBufferPool allocates and frees page-sized buffers, as a search's readers do.
func BenchmarkBufferPool(b *testing.B) {
	var p BufferPool
	b.ReportAllocs()
	for b.Loop() {
		buf := p.Allocate(1 << 20)
		buf = p.Reallocate(1<<20+100, buf)
		p.Free(buf)
	}
}
