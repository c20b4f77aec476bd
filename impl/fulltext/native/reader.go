package native

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"io"
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/impl/fulltext"
)

// maxLimit bounds a search's limit as Java's int limit does; initialCapacity is the result
// room allocated before the engine says how many hits it has.
const (
	maxLimit        = 1<<31 - 1
	initialCapacity = 1024
)

// Reader searches one archive through the engine. Searches may run concurrently; Close waits
// for them.
type Reader struct {
	lib *Library

	mu     sync.RWMutex
	handle unsafe.Pointer
	src    cgo.Handle
	// docs is the archive's document count from its envelope. The engine sizes its top-k buffer
	// by the limit it is given, so a huge limit would make it allocate far more than the archive
	// could ever return (and abort the process); limits are capped at this count.
	docs int64
}

var _ fulltext.Reader = (*Reader)(nil)

// OpenReader opens the archive held by r (size bytes). The engine reads it through positioned
// reads, possibly from several threads at once, so r must allow concurrent ReadAt calls (as
// *os.File and *bytes.Reader do). r must stay readable until Close.
func (l *Library) OpenReader(ctx context.Context, r io.ReaderAt, size int64) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("open full-text archive: negative size %d", size)
	}
	env, err := fulltext.ReadEnvelope(r, size)
	if err != nil {
		return nil, fmt.Errorf("open full-text archive: %w", err)
	}
	docs := int64(min(env.Metadata.DocumentCount, maxLimit))
	h := cgo.NewHandle(&source{r: r, size: size})
	var cerr *C.char
	rh := C.pkft_reader_open(l.api, C.uintptr_t(h), &cerr)
	if rh == nil {
		h.Delete()
		return nil, fmt.Errorf("open full-text archive: %s", takeError(cerr))
	}
	return &Reader{lib: l, handle: rh, src: h, docs: docs}, nil
}

// Search runs query and returns at most limit hits, best first.
func (r *Reader) Search(ctx context.Context, query string, limit int) ([]fulltext.Hit, error) {
	return r.search(ctx, query, limit, nil, false)
}

// SearchFiltered runs query over the row ids in allowed only. The filter crosses the C ABI in
// the portable 64-bit roaring format the engine expects.
func (r *Reader) SearchFiltered(ctx context.Context, query string, limit int, allowed *roaring64.Bitmap) ([]fulltext.Hit, error) {
	if allowed == nil {
		allowed = roaring64.New()
	}
	filter, err := allowed.ToBytes()
	if err != nil {
		return nil, fmt.Errorf("serialize row id filter: %w", err)
	}
	return r.search(ctx, query, limit, filter, true)
}

func (r *Reader) search(ctx context.Context, query string, limit int, filter []byte, filtered bool) ([]fulltext.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit < 0 || limit > maxLimit {
		return nil, fmt.Errorf("search: limit %d is outside [0, %d]", limit, maxLimit)
	}
	if limit == 0 {
		return nil, nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.handle == nil {
		return nil, ErrClosed
	}
	cquery := C.CString(query)
	defer C.free(unsafe.Pointer(cquery))
	var cfilter *C.uint8_t
	if len(filter) > 0 {
		cfilter = (*C.uint8_t)(C.CBytes(filter))
		defer C.free(unsafe.Pointer(cfilter))
	}
	// No search returns more hits than the archive has documents; the engine needs a limit of
	// at least one.
	limit = int(max(1, min(int64(limit), r.docs)))
	// Room for the usual result; the engine reports the length it needs when there are more.
	capacity := min(limit, initialCapacity)
	for attempt := 0; ; attempt++ {
		ids := (*C.int64_t)(C.malloc(C.size_t(capacity) * 8))
		scores := (*C.float)(C.malloc(C.size_t(capacity) * 4))
		var n C.size_t
		var cerr *C.char
		var fl C.int
		if filtered {
			fl = 1
		}
		rc := C.pkft_reader_search(r.lib.api, r.handle, cquery, C.size_t(limit), cfilter, C.size_t(len(filter)), fl,
			ids, scores, C.size_t(capacity), &n, &cerr)
		if rc != 0 {
			C.free(unsafe.Pointer(ids))
			C.free(unsafe.Pointer(scores))
			msg := takeError(cerr)
			// The engine reports the length it needed; retry once with room for it.
			if attempt == 0 && int(n) > capacity {
				capacity = int(n)
				continue
			}
			return nil, fmt.Errorf("search %s: %s", query, msg)
		}
		hits := make([]fulltext.Hit, int(n))
		gids := unsafe.Slice((*int64)(unsafe.Pointer(ids)), capacity)
		gscores := unsafe.Slice((*float32)(unsafe.Pointer(scores)), capacity)
		for i := range hits {
			hits[i] = fulltext.Hit{RowID: gids[i], Score: gscores[i]}
		}
		C.free(unsafe.Pointer(ids))
		C.free(unsafe.Pointer(scores))
		return hits, nil
	}
}

// Prewarm loads the archive's hot structures ahead of the first search.
func (r *Reader) Prewarm(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.handle == nil {
		return ErrClosed
	}
	var cerr *C.char
	if C.pkft_reader_prewarm(r.lib.api, r.handle, &cerr) != 0 {
		return fmt.Errorf("prewarm full-text archive: %s", takeError(cerr))
	}
	return nil
}

// Close frees the engine reader once searches in flight have finished. It is safe to call more
// than once.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.handle != nil {
		C.pkft_reader_free(r.lib.api, r.handle)
		r.handle = nil
		r.src.Delete()
	}
	return nil
}

// Engine adapts a Library to the fulltext.Engine interface.
type Engine struct{ Lib *Library }

var _ fulltext.Engine = Engine{}

// NewWriter implements fulltext.Engine.
func (e Engine) NewWriter(options []fulltext.Option) (fulltext.Writer, error) {
	return e.Lib.NewWriter(options)
}

// OpenReader implements fulltext.Engine.
func (e Engine) OpenReader(ctx context.Context, r io.ReaderAt, size int64) (fulltext.Reader, error) {
	return e.Lib.OpenReader(ctx, r, size)
}
