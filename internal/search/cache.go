package search

import (
	"context"
	"errors"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// ReaderCache keeps full-text archives open between the searches of one table, so a long-lived
// handle does not open (and, on an object store, fetch the structures of) every archive again
// for every query. Archives are immutable: Paimon never writes other bytes under a name it has
// used, so an open reader stays valid for as long as its file is listed, and is keyed by the
// archive's path and size.
//
// Invalidation: each search of a snapshot at least as new as any searched before keeps, of the
// partitions it selects, exactly the archives that snapshot plans and closes the others (a
// compaction that retires an archive drops its reader at the first search of the snapshot after
// it that selects the archive's partition); readers of partitions it does not select stay. Searches of older snapshots
// (time travel) use and add readers too; the next search of the newest snapshot drops those it
// does not plan. A reader in use by a search is closed when that search releases it.
//
// A ReaderCache belongs to one table and one engine; it is safe for concurrent use. The zero
// value is ready; Close closes every idle reader and makes the cache stop caching.
type ReaderCache struct {
	mu      sync.Mutex
	entries map[readerKey]*cachedReader
	newest  int64
	closed  bool
}

type readerKey struct {
	path string
	size int64
}

type cachedReader struct {
	key       readerKey
	r         fulltext.Reader
	partition []byte // the serialized partition of the archive's bucket
	refs      int
	dropped   bool // out of the cache: closed when refs reaches 0
}

// Len is the number of open readers the cache holds.
func (c *ReaderCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// acquire returns the cached reader of (path, size), an archive of a bucket of partition,
// opening it with open when the cache has none. The returned reader's Close releases it; the cache closes it when it is dropped and no
// search holds it.
func (c *ReaderCache) acquire(ctx context.Context, path string, size int64, partition []byte, open func(context.Context) (fulltext.Reader, error)) (fulltext.Reader, error) {
	k := readerKey{path, size}
	c.mu.Lock()
	if e, ok := c.entries[k]; ok {
		e.refs++
		c.mu.Unlock()
		return &heldReader{Reader: e.r, c: c, e: e}, nil
	}
	c.mu.Unlock()
	r, err := open(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.closed {
		// Nothing is cached after Close: the reader is the caller's alone.
		c.mu.Unlock()
		return r, nil
	}
	if e, ok := c.entries[k]; ok {
		// Another search opened it meanwhile: use that one and close this one.
		e.refs++
		c.mu.Unlock()
		if err := r.Close(); err != nil {
			_ = (&heldReader{c: c, e: e}).Close()
			return nil, err
		}
		return &heldReader{Reader: e.r, c: c, e: e}, nil
	}
	if c.entries == nil {
		c.entries = map[readerKey]*cachedReader{}
	}
	e := &cachedReader{key: k, r: r, partition: partition, refs: 1}
	c.entries[k] = e
	c.mu.Unlock()
	return &heldReader{Reader: r, c: c, e: e}, nil
}

// retain keeps the readers of keep and drops every other one of a partition selected (nil: every
// partition), when snapshotID is at least as new as every snapshot searched before; it does
// nothing for older snapshots. A partition the filter fails on counts as selected.
func (c *ReaderCache) retain(snapshotID int64, keep map[readerKey]bool, selected PartitionFilter) error {
	c.mu.Lock()
	if snapshotID < c.newest {
		c.mu.Unlock()
		return nil
	}
	c.newest = snapshotID
	idle := c.dropLocked(keep, selected)
	c.mu.Unlock()
	return closeAll(idle)
}

// dropLocked drops every entry not in keep of a partition selected (nil: every entry) and
// returns the dropped readers no search holds, to be closed outside the lock. c.mu is held.
func (c *ReaderCache) dropLocked(keep map[readerKey]bool, selected PartitionFilter) []fulltext.Reader {
	var idle []fulltext.Reader
	for k, e := range c.entries {
		if keep[k] {
			continue
		}
		if selected != nil {
			if ok, err := selected(e.partition); err == nil && !ok {
				continue
			}
		}
		delete(c.entries, k)
		e.dropped = true
		if e.refs == 0 {
			idle = append(idle, e.r)
		}
	}
	return idle
}

// Close closes every reader no search holds; those in use close when released. The cache caches
// nothing afterwards.
func (c *ReaderCache) Close() error {
	c.mu.Lock()
	c.closed = true
	idle := c.dropLocked(nil, nil)
	c.mu.Unlock()
	return closeAll(idle)
}

func closeAll(rs []fulltext.Reader) error {
	var errs []error
	for _, r := range rs {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// heldReader is a search's hold on a cached reader; Close releases the hold.
type heldReader struct {
	fulltext.Reader
	c    *ReaderCache
	e    *cachedReader
	once sync.Once
}

// Search searches the cached reader; a failure other than ctx's end drops the reader from the
// cache, so the next search opens the archive again.
func (h *heldReader) Search(ctx context.Context, query string, limit int) ([]fulltext.Hit, error) {
	hits, err := h.Reader.Search(ctx, query, limit)
	h.dropOnFailure(ctx, err)
	return hits, err
}

// SearchFiltered is Search restricted to allowed.
func (h *heldReader) SearchFiltered(ctx context.Context, query string, limit int, allowed *roaring64.Bitmap) ([]fulltext.Hit, error) {
	hits, err := h.Reader.SearchFiltered(ctx, query, limit, allowed)
	h.dropOnFailure(ctx, err)
	return hits, err
}

func (h *heldReader) dropOnFailure(ctx context.Context, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if h.c.entries[h.e.key] == h.e {
		delete(h.c.entries, h.e.key)
	}
	h.e.dropped = true
}

func (h *heldReader) Close() error {
	var err error
	h.once.Do(func() {
		h.c.mu.Lock()
		h.e.refs--
		last := h.e.refs == 0 && h.e.dropped
		h.c.mu.Unlock()
		if last {
			err = h.e.r.Close()
		}
	})
	return err
}
