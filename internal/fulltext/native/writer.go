package native

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// batchDocs and batchBytes bound how many documents are buffered before they cross into the
// engine in one cgo call.
const (
	batchDocs  = 4096
	batchBytes = 4 << 20
)

// ErrClosed reports use of a writer or reader after Close (or of a writer after WriteTo).
var ErrClosed = errors.New("paimon-ftindex handle is closed")

// Writer builds one archive. It is safe for use by one goroutine at a time; its methods
// serialize concurrent callers.
type Writer struct {
	lib *Library

	mu     sync.Mutex
	handle unsafe.Pointer
	ids    []int64
	texts  []byte
	offs   []C.size_t
}

var _ fulltext.Writer = (*Writer)(nil)

// NewWriter opens an engine writer with the given options (for example tokenizer=ngram). The
// engine validates the options and rejects unknown values.
func (l *Library) NewWriter(options []fulltext.Option) (*Writer, error) {
	n := len(options)
	var keys, values **C.char
	if n > 0 {
		size := C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0)))
		keys = (**C.char)(C.malloc(size))
		values = (**C.char)(C.malloc(size))
		defer C.free(unsafe.Pointer(keys))
		defer C.free(unsafe.Pointer(values))
		ks := unsafe.Slice(keys, n)
		vs := unsafe.Slice(values, n)
		for i, o := range options {
			if strings.IndexByte(o.Key, 0) >= 0 || strings.IndexByte(o.Value, 0) >= 0 {
				return nil, fmt.Errorf("open full-text writer: option %q contains a NUL byte", o.Key)
			}
			ks[i] = C.CString(o.Key)
			vs[i] = C.CString(o.Value)
			defer C.free(unsafe.Pointer(ks[i]))
			defer C.free(unsafe.Pointer(vs[i]))
		}
	}
	var cerr *C.char
	h := C.pkft_writer_open(l.api, keys, values, C.size_t(n), &cerr)
	if h == nil {
		return nil, fmt.Errorf("open full-text writer: %s", takeError(cerr))
	}
	return &Writer{lib: l, handle: h}, nil
}

// Add indexes text under rowID. Documents are buffered and handed to the engine in batches, so
// an engine error may surface on a later Add or on WriteTo; it names the row that failed.
// Texts must be valid UTF-8 without NUL bytes: the C ABI carries NUL-terminated UTF-8 strings.
func (w *Writer) Add(rowID int64, text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return fmt.Errorf("add row %d: text contains a NUL byte, which the engine's C ABI cannot carry", rowID)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handle == nil {
		return ErrClosed
	}
	w.ids = append(w.ids, rowID)
	w.offs = append(w.offs, C.size_t(len(w.texts)))
	w.texts = append(w.texts, text...)
	w.texts = append(w.texts, 0)
	if len(w.ids) >= batchDocs || len(w.texts) >= batchBytes {
		return w.flushLocked()
	}
	return nil
}

func (w *Writer) flushLocked() error {
	n := len(w.ids)
	if n == 0 {
		return nil
	}
	// The batch is copied into C memory: cgo forbids passing Go memory that C retains, and the
	// engine may keep pointers only for the duration of the call, but copying keeps the rule
	// simple and costs one memcpy per batch.
	ids := (*C.int64_t)(C.CBytes(unsafe.Slice((*byte)(unsafe.Pointer(&w.ids[0])), n*8)))
	defer C.free(unsafe.Pointer(ids))
	texts := (*C.char)(C.CBytes(w.texts))
	defer C.free(unsafe.Pointer(texts))
	offs := (*C.size_t)(C.CBytes(unsafe.Slice((*byte)(unsafe.Pointer(&w.offs[0])), n*int(unsafe.Sizeof(C.size_t(0))))))
	defer C.free(unsafe.Pointer(offs))

	var failed C.size_t
	var cerr *C.char
	rc := C.pkft_writer_add_batch(w.lib.api, w.handle, ids, texts, offs, C.size_t(n), &failed, &cerr)
	failedRow := int64(-1)
	if rc != 0 && int(failed) < n {
		failedRow = w.ids[failed]
	}
	w.ids, w.texts, w.offs = w.ids[:0], w.texts[:0], w.offs[:0]
	if rc != 0 {
		return fmt.Errorf("add row %d: %s", failedRow, takeError(cerr))
	}
	return nil
}

// WriteTo finalizes the archive and streams it to out, returning the bytes written. The engine
// writes from the calling thread; a cancelled ctx stops the write at the next chunk. The writer
// is finished afterwards whatever the outcome; on error the output is partial and must be
// discarded.
func (w *Writer) WriteTo(ctx context.Context, out io.Writer) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handle == nil {
		return 0, ErrClosed
	}
	defer w.freeLocked()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := w.flushLocked(); err != nil {
		return 0, err
	}
	s := &sink{ctx: ctx, w: out}
	h := cgo.NewHandle(s)
	defer h.Delete()
	var cerr *C.char
	if C.pkft_writer_write(w.lib.api, w.handle, C.uintptr_t(h), &cerr) != 0 {
		msg := takeError(cerr)
		if s.err != nil {
			return s.n, fmt.Errorf("write full-text archive: %w", s.err)
		}
		return s.n, fmt.Errorf("write full-text archive: %s", msg)
	}
	return s.n, nil
}

// Close releases the engine writer without writing. It is safe to call more than once.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.freeLocked()
	return nil
}

func (w *Writer) freeLocked() {
	if w.handle != nil {
		C.pkft_writer_free(w.lib.api, w.handle)
		w.handle = nil
	}
	w.ids, w.texts, w.offs = nil, nil, nil
}
