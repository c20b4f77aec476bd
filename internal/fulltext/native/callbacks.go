package native

/*
#include <stdint.h>
#include <stddef.h>
*/
import "C"

import (
	"context"
	"io"
	"runtime/cgo"
	"sync/atomic"
	"unsafe"
)

// sink is what the engine's write callback reaches: the destination of one archive.
type sink struct {
	ctx context.Context
	w   io.Writer
	n   int64
	err error
}

// source is what the engine's positioned-read callback reaches: the bytes of one archive.
type source struct {
	r    io.ReaderAt
	size int64
	// closed is set when the reader is closed; reads of calls still running fail from then on.
	closed atomic.Bool
}

//export pkftGoWrite
func pkftGoWrite(h C.uintptr_t, buf *C.uint8_t, n C.size_t) C.int {
	s := cgo.Handle(h).Value().(*sink)
	if s.err != nil {
		return -1
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return -1
	}
	if n == 0 {
		return 0
	}
	written, err := s.w.Write(unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)))
	s.n += int64(written)
	if err == nil && written != int(n) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = err
		return -1
	}
	return 0
}

//export pkftGoFlush
func pkftGoFlush(h C.uintptr_t) C.int {
	s := cgo.Handle(h).Value().(*sink)
	if s.err != nil {
		return -1
	}
	if f, ok := s.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			s.err = err
			return -1
		}
	}
	return 0
}

//export pkftGoPread
func pkftGoPread(h C.uintptr_t, pos C.uint64_t, buf *C.uint8_t, n C.size_t) C.int {
	s := cgo.Handle(h).Value().(*source)
	if s.closed.Load() {
		return -1
	}
	if n == 0 {
		return 0
	}
	off := int64(pos)
	if off < 0 || off > s.size || int64(n) > s.size-off {
		return -1
	}
	got, err := s.r.ReadAt(unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)), off)
	if got != int(n) || (err != nil && err != io.EOF) {
		return -1
	}
	return 0
}
