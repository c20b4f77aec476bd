package search

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// cacheOpener opens fake readers and counts the opens.
type cacheOpener struct {
	opens  atomic.Int32
	closes atomic.Int32
	fail   error // the readers' searches fail with it
}

func (o *cacheOpener) open(context.Context) (fulltext.Reader, error) {
	o.opens.Add(1)
	r := scores(&o.closes, 1, 1.0)
	r.fail = o.fail
	return r, nil
}

// TestReaderCacheLifecycle checks what the table-level test cannot reach: a reader dropped while
// a search holds it closes when that search releases it, a failed search drops its reader so the
// next search opens the archive again (a query the engine refuses included, conservatively),
// the end of the caller's context drops nothing, a search of some partitions drops only theirs,
// and a release twice counts once.
func TestReaderCacheLifecycle(t *testing.T) {
	ctx := context.Background()
	c := &ReaderCache{}
	o := &cacheOpener{}
	a, err := c.acquire(ctx, "a", 10, nil, o.open)
	if err != nil {
		t.Fatal(err)
	}
	// Another size under the same name is another archive.
	b, err := c.acquire(ctx, "a", 11, nil, o.open)
	if err != nil {
		t.Fatal(err)
	}
	if o.opens.Load() != 2 || c.Len() != 2 {
		t.Fatalf("%d opens, %d kept; want 2, 2", o.opens.Load(), c.Len())
	}
	// A newer snapshot keeps only (a, 10): (a, 11) is dropped while held and closes on release.
	if err := c.retain(5, map[readerKey]bool{{"a", 10}: true}, nil); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 || o.closes.Load() != 0 {
		t.Fatalf("after retain: %d kept, %d closed; want 1, 0", c.Len(), o.closes.Load())
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if o.closes.Load() != 1 {
		t.Fatalf("released dropped reader: %d closes, want 1", o.closes.Load())
	}
	// An older snapshot drops nothing.
	if err := c.retain(4, nil, nil); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 {
		t.Fatalf("older snapshot dropped readers: %d kept", c.Len())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if o.closes.Load() != 1 {
		t.Fatal("releasing a kept reader closed it")
	}
	again, err := c.acquire(ctx, "a", 10, nil, o.open)
	if err != nil {
		t.Fatal(err)
	}
	if o.opens.Load() != 2 {
		t.Fatal("a kept reader was opened again")
	}
	_ = again.Close()

	// A search of some partitions drops only their unplanned readers.
	pc := &ReaderCache{}
	po := &cacheOpener{}
	for _, k := range []struct {
		path string
		part string
	}{{"p1", "eu"}, {"p2", "us"}} {
		r, err := pc.acquire(ctx, k.path, 1, []byte(k.part), po.open)
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Close()
	}
	onlyEU := func(p []byte) (bool, error) { return string(p) == "eu", nil }
	if err := pc.retain(7, nil, onlyEU); err != nil {
		t.Fatal(err)
	}
	if pc.Len() != 1 || po.closes.Load() != 1 {
		t.Fatalf("retain of eu: %d kept, %d closed; want the us reader kept, the eu one closed", pc.Len(), po.closes.Load())
	}
	if r, err := pc.acquire(ctx, "p2", 1, []byte("us"), po.open); err != nil || po.opens.Load() != 2 {
		t.Fatalf("the us reader was not kept (%d opens, %v)", po.opens.Load(), err)
	} else {
		_ = r.Close()
	}

	// A failing search drops its reader; a cancelled one does not.
	f := &ReaderCache{}
	fo := &cacheOpener{fail: errors.New("engine refused")}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	r, err := f.acquire(ctx, "x", 1, nil, fo.open)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Search(cancelled, "q", 10); err == nil {
		t.Fatal("fake search did not fail")
	}
	if f.Len() != 1 {
		t.Fatal("a search ended by its context dropped the reader")
	}
	if _, err := r.SearchFiltered(ctx, "q", 10, nil); err == nil {
		t.Fatal("fake search did not fail")
	}
	if f.Len() != 0 || fo.closes.Load() != 0 {
		t.Fatalf("after a failed search: %d kept, %d closed; want 0, 0", f.Len(), fo.closes.Load())
	}
	_ = r.Close()
	if fo.closes.Load() != 1 {
		t.Fatal("the failed reader did not close on release")
	}

	// After Close, nothing is kept: an acquired reader is the caller's.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 0 || o.closes.Load() != 2 {
		t.Fatalf("after Close: %d kept, %d closed; want 0, 2", c.Len(), o.closes.Load())
	}
	late, err := c.acquire(ctx, "a", 10, nil, o.open)
	if err != nil {
		t.Fatal(err)
	}
	_ = late.Close()
	if c.Len() != 0 || o.closes.Load() != 3 {
		t.Fatalf("acquire after Close: %d kept, %d closed; want 0, 3", c.Len(), o.closes.Load())
	}
}

// TestReaderCacheSameSnapshotAgain: a search of the snapshot already the newest drops, as the
// first did, the readers it does not plan (here one a search of an older snapshot added).
func TestReaderCacheSameSnapshotAgain(t *testing.T) {
	ctx := context.Background()
	c := &ReaderCache{}
	o := &cacheOpener{}
	keep := map[readerKey]bool{{"a", 10}: true}
	for _, path := range []string{"a", "old"} {
		r, err := c.acquire(ctx, path, 10, nil, o.open)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.retain(7, keep, nil); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 1 || o.closes.Load() != 1 {
		t.Fatalf("after the second search of snapshot 7: %d kept, %d closed; want 1, 1", c.Len(), o.closes.Load())
	}
}

// TestReaderCacheOpenedTwiceAtOnce: two searches that open the same archive at once keep one
// reader: the second closes its own and holds the first's, which stays open until both release
// it and the cache drops it.
func TestReaderCacheOpenedTwiceAtOnce(t *testing.T) {
	ctx := context.Background()
	c := &ReaderCache{}
	o := &cacheOpener{}
	both := make(chan struct{})
	var opening atomic.Int32
	open := func(ctx context.Context) (fulltext.Reader, error) {
		if opening.Add(1) == 2 {
			close(both)
		}
		<-both // each open waits for the other: both miss the cache
		return o.open(ctx)
	}
	held := make(chan fulltext.Reader, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			r, err := c.acquire(ctx, "a", 10, nil, open)
			held <- r
			errs <- err
		}()
	}
	readers := []fulltext.Reader{<-held, <-held}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if o.opens.Load() != 2 || o.closes.Load() != 1 || c.Len() != 1 {
		t.Fatalf("%d opens, %d closes, %d kept; want 2, 1, 1", o.opens.Load(), o.closes.Load(), c.Len())
	}
	// Dropped from the cache while both hold it: it closes at the second release, not before.
	if err := c.retain(3, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := readers[0].Close(); err != nil {
		t.Fatal(err)
	}
	if o.closes.Load() != 1 {
		t.Fatalf("closed while a search still holds it: %d closes", o.closes.Load())
	}
	if err := readers[1].Close(); err != nil {
		t.Fatal(err)
	}
	if o.closes.Load() != 2 {
		t.Fatalf("not closed when the last search released it: %d closes", o.closes.Load())
	}
}

// TestReaderCacheDuplicateCloseFails: when the reader a search opened twice over fails to close,
// the search fails and the cached reader it would have held is released again.
func TestReaderCacheDuplicateCloseFails(t *testing.T) {
	ctx := context.Background()
	c := &ReaderCache{}
	var closes atomic.Int32
	first := scores(&closes, 1, 1.0)
	r, err := c.acquire(ctx, "a", 10, nil, func(context.Context) (fulltext.Reader, error) { return first, nil })
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Close()
	// The second open raced the first: it is only found cached after it opened.
	c.mu.Lock()
	e := c.entries[readerKey{"a", 10}]
	delete(c.entries, readerKey{"a", 10})
	c.mu.Unlock()
	dup := scores(&closes, 1, 1.0)
	dup.closeErr = errBroken
	_, err = c.acquire(ctx, "a", 10, nil, func(context.Context) (fulltext.Reader, error) {
		c.mu.Lock()
		c.entries[readerKey{"a", 10}] = e
		c.mu.Unlock()
		return dup, nil
	})
	wantErr(t, err, "broken")
	if e.refs != 0 {
		t.Fatalf("the cached reader is held %d times after the failed search, want 0", e.refs)
	}
}
