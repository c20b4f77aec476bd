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

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// maxLimit bounds a search's limit as Java's int limit does; initialCapacity is the result
// room allocated before the engine says how many hits it has.
const (
	maxLimit        = 1<<31 - 1
	initialCapacity = 1024
)

// Reader searches one archive through the engine. Searches may run concurrently.
//
// An engine call cannot be interrupted, so each runs on its own goroutine: when the caller's
// context ends first, Search returns the context's error at once and abandons the call, which
// finishes in the background and frees what it allocated. Close never waits for abandoned
// calls: the engine reader is freed when the last of them returns, and reads they still make
// from the archive fail from then on, which ends them sooner.
type Reader struct {
	lib *Library
	src *source

	mu       sync.Mutex
	handle   unsafe.Pointer
	srcH     cgo.Handle
	inflight int
	closed   bool
	// docs is the archive's document count from its envelope. The engine sizes its top-k buffer
	// by the limit it is given, so a huge limit would make it allocate far more than the archive
	// could ever return (and abort the process); limits are capped at this count.
	docs int64
}

var _ fulltext.Reader = (*Reader)(nil)

// OpenReader opens the archive held by r (size bytes). The engine reads it through positioned
// reads, possibly from several threads at once, so r must allow concurrent ReadAt calls (as
// *os.File and *bytes.Reader do). r must stay readable until Close. When ctx ends before the
// engine has opened the archive, OpenReader returns ctx's error at once; the engine's reads of r
// fail from then on.
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
	src := &source{r: r, size: size}
	h := cgo.NewHandle(src)
	type opened struct {
		handle unsafe.Pointer
		err    error
	}
	// Opening reads the archive's structures through the callbacks, which can take long on a
	// slow file system; like a search it is abandoned when ctx ends first, and the engine
	// reader it may still produce is freed then.
	done := make(chan opened, 1)
	var abandoned sync.Mutex
	gone := false
	go func() {
		var cerr *C.char
		rh := C.pkft_reader_open(l.api, C.uintptr_t(h), &cerr)
		var err error
		if rh == nil {
			err = fmt.Errorf("open full-text archive: %s", takeError(cerr))
		}
		abandoned.Lock()
		defer abandoned.Unlock()
		if gone {
			if rh != nil {
				C.pkft_reader_free(l.api, rh)
			}
			h.Delete()
			return
		}
		done <- opened{rh, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			h.Delete()
			return nil, o.err
		}
		return &Reader{lib: l, src: src, handle: o.handle, srcH: h, docs: docs}, nil
	case <-ctx.Done():
		src.closed.Store(true)
		abandoned.Lock()
		defer abandoned.Unlock()
		select {
		case o := <-done:
			// It finished meanwhile: free it here.
			if o.handle != nil {
				C.pkft_reader_free(l.api, o.handle)
			}
			h.Delete()
		default:
			gone = true
		}
		return nil, context.Cause(ctx)
	}
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

// acquire marks an engine call in flight; release ends it and frees the engine reader when it
// was the last call of a closed reader.
func (r *Reader) acquire() (unsafe.Pointer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	r.inflight++
	return r.handle, nil
}

func (r *Reader) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight--
	if r.closed && r.inflight == 0 {
		r.freeLocked()
	}
}

func (r *Reader) freeLocked() {
	if r.handle != nil {
		C.pkft_reader_free(r.lib.api, r.handle)
		r.handle = nil
		r.srcH.Delete()
	}
}

// abandonable runs call on its own goroutine with an engine call marked in flight and returns
// its outcome, or ctx's error as soon as ctx ends.
func (r *Reader) abandonable(ctx context.Context, call func(handle unsafe.Pointer) ([]fulltext.Hit, error)) ([]fulltext.Hit, error) {
	handle, err := r.acquire()
	if err != nil {
		return nil, err
	}
	type outcome struct {
		hits []fulltext.Hit
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		defer r.release()
		hits, err := call(handle)
		done <- outcome{hits, err}
	}()
	select {
	case o := <-done:
		return o.hits, o.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
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
	if strings.IndexByte(query, 0) >= 0 {
		return nil, fmt.Errorf("search %s: the query contains a NUL byte, which the engine's C ABI cannot carry", fulltext.QuoteQuery(query))
	}
	// No search returns more hits than the archive has documents; the engine needs a limit of
	// at least one.
	limit = int(max(1, min(int64(limit), r.docs)))
	return r.abandonable(ctx, func(handle unsafe.Pointer) ([]fulltext.Hit, error) {
		return r.searchCall(handle, query, limit, filter, filtered)
	})
}

// searchCall makes the engine search; everything it hands the engine is C memory it frees
// itself, so an abandoned call stays safe.
func (r *Reader) searchCall(handle unsafe.Pointer, query string, limit int, filter []byte, filtered bool) ([]fulltext.Hit, error) {
	cquery := C.CString(query)
	defer C.free(unsafe.Pointer(cquery))
	var cfilter *C.uint8_t
	if len(filter) > 0 {
		cfilter = (*C.uint8_t)(C.CBytes(filter))
		defer C.free(unsafe.Pointer(cfilter))
	}
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
		rc := C.pkft_reader_search(r.lib.api, handle, cquery, C.size_t(limit), cfilter, C.size_t(len(filter)), fl,
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
			return nil, fmt.Errorf("search %s: %s", fulltext.QuoteQuery(query), msg)
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

// Prewarm loads the archive's hot structures ahead of the first search; like a search, it is
// abandoned when ctx ends first.
func (r *Reader) Prewarm(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := r.abandonable(ctx, func(handle unsafe.Pointer) ([]fulltext.Hit, error) {
		var cerr *C.char
		if C.pkft_reader_prewarm(r.lib.api, handle, &cerr) != 0 {
			return nil, fmt.Errorf("prewarm full-text archive: %s", takeError(cerr))
		}
		return nil, nil
	})
	return err
}

// Close frees the engine reader, at once when no search is in flight, otherwise when the last
// one returns; it does not wait for them, and from then on the engine's reads of the archive
// fail. It is safe to call more than once.
func (r *Reader) Close() error {
	r.src.closed.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.inflight == 0 {
		r.freeLocked()
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

// Lazy is a fulltext.Engine that loads its library on first use: an operation that builds or
// searches no archive never needs the library. Path is the file to load (what Locate found);
// when Err is set instead (Locate failed), every use returns it. The outcome of the first load is
// kept for the Lazy's life. Use it through a pointer; it is safe for concurrent use.
type Lazy struct {
	// Path is the library file to load.
	Path string
	// Err, when set, is why there is no library to load.
	Err error

	found Found
	once  sync.Once
	lib   *Library
	err   error
}

var _ fulltext.Engine = (*Lazy)(nil)

// NewLazy looks for the library now, as Locate(ctx, explicit) does, and loads it on first use.
// A library that is not found is not an error yet: the Lazy returns it when it is used. The
// error is the lookup's when ctx ended during it (it wraps ctx's cause).
func NewLazy(ctx context.Context, explicit string) (*Lazy, error) {
	found, err := Locate(ctx, explicit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // ctx's cause, not a missing library
		}
		return &Lazy{Err: err}, nil
	}
	return &Lazy{Path: found.Path, found: found}, nil
}

// Library loads the library on the first call and returns it, or the load's error.
func (l *Lazy) Library() (*Library, error) {
	l.once.Do(func() {
		switch {
		case l.Err != nil:
			l.err = l.Err
		case l.Path == "":
			l.err = errors.New("no library path")
		default:
			l.lib, l.err = LoadPath(l.Path)
			if l.err == nil && l.found.Path == l.Path {
				l.lib.found = l.found
			}
		}
		if l.err != nil {
			l.err = fmt.Errorf("load the full-text engine: %w", l.err)
		}
	})
	return l.lib, l.err
}

// NewWriter implements fulltext.Engine.
func (l *Lazy) NewWriter(options []fulltext.Option) (fulltext.Writer, error) {
	lib, err := l.Library()
	if err != nil {
		return nil, err
	}
	return lib.NewWriter(options)
}

// OpenReader implements fulltext.Engine.
func (l *Lazy) OpenReader(ctx context.Context, r io.ReaderAt, size int64) (fulltext.Reader, error) {
	lib, err := l.Library()
	if err != nil {
		return nil, err
	}
	return lib.OpenReader(ctx, r, size)
}
