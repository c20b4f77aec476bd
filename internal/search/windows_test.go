package search

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pqvalue"
)

// brokenReaderAt reads data, but fails every read with err once broken, or returns no bytes and
// no error (a misbehaving reader) when empty is set.
type brokenReaderAt struct {
	data   []byte
	broken bool
	empty  bool
	err    error
}

func (r *brokenReaderAt) ReadAt(p []byte, off int64) (int, error) {
	switch {
	case r.broken:
		return 0, r.err
	case r.empty:
		return 0, nil
	}
	return bytes.NewReader(r.data).ReadAt(p, off)
}

// TestPageWindowsReads: reads inside a window return the file's bytes through the read-ahead
// chunk (small reads, reads across the chunk's end, reads of a chunk or more), stop short at the
// window's end, and pass the underlying reader's failures on instead of bytes.
func TestPageWindowsReads(t *testing.T) {
	data := make([]byte, 3*windowChunk)
	for i := range data {
		data[i] = byte(i * 7)
	}
	src := &brokenReaderAt{data: data, err: errBroken}
	for _, pool := range []*pqvalue.BufferPool{nil, {}} {
		w := &pageWindows{r: src, size: int64(len(data)), pool: pool, of: map[int][][2]int64{1: {{100, 2*windowChunk + 100}}}}
		for _, rd := range []struct{ off, n int64 }{
			{100, 10}, {110, 5000}, {windowChunk, 300}, {windowChunk + 50, windowChunk}, {2 * windowChunk, 100},
		} {
			p := make([]byte, rd.n)
			n, err := w.ReadAt(p, rd.off)
			if err != nil || n != int(rd.n) || !bytes.Equal(p, data[rd.off:rd.off+rd.n]) {
				t.Fatalf("read of %d bytes at %d: %d, %v (bytes equal: %v)", rd.n, rd.off, n, err, bytes.Equal(p[:n], data[rd.off:rd.off+int64(n)]))
			}
		}
		// Across the window's end: the bytes before it, no error; at its end: io.EOF.
		p := make([]byte, 200)
		if n, err := w.ReadAt(p, 2*windowChunk); err != nil || n != 100 || !bytes.Equal(p[:n], data[2*windowChunk:2*windowChunk+100]) {
			t.Fatalf("read across the window's end: %d, %v", n, err)
		}
		if n, err := w.ReadAt(p, 2*windowChunk+100); n != 0 || err != io.EOF {
			t.Fatalf("read at the window's end: %d, %v; want 0, io.EOF", n, err)
		}
		w.release()

		// A failing file: small and large reads fail with its error.
		src.broken = true
		w = &pageWindows{r: src, size: int64(len(data)), pool: pool, of: map[int][][2]int64{1: {{0, int64(len(data))}}}}
		for _, n := range []int{10, windowChunk + 1} {
			if _, err := w.ReadAt(make([]byte, n), 5); !errors.Is(err, errBroken) {
				t.Fatalf("read of %d bytes from a failing file: %v", n, err)
			}
		}
		src.broken = false
		// A reader that returns nothing without an error: the read fails instead of looping.
		src.empty = true
		w = &pageWindows{r: src, size: int64(len(data)), pool: pool, of: map[int][][2]int64{1: {{0, int64(len(data))}}}}
		if _, err := w.ReadAt(make([]byte, 10), 5); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("read from a reader returning nothing: %v", err)
		}
		src.empty = false
	}
}
