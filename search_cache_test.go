package pkft_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// countingEngine counts the archives the native engine opens and the readers closed.
type countingEngine struct {
	fulltext.Engine
	opens, closes atomic.Int64
}

func (e *countingEngine) OpenReader(ctx context.Context, r io.ReaderAt, size int64) (fulltext.Reader, error) {
	rd, err := e.Engine.OpenReader(ctx, r, size)
	if err != nil {
		return nil, err
	}
	e.opens.Add(1)
	return &countedReader{Reader: rd, e: e}, nil
}

// open is how many readers are open.
func (e *countingEngine) open() int64 { return e.opens.Load() - e.closes.Load() }

type countedReader struct {
	fulltext.Reader
	e *countingEngine
}

func (r *countedReader) Close() error {
	r.e.closes.Add(1)
	return r.Reader.Close()
}

// hitKeys is a search's answer as comparable strings, in order.
func hitKeys(t *testing.T, tbl *pkft.Table, query string, opts ...pkft.SearchOption) ([]string, int64) {
	t.Helper()
	res, err := tbl.Search(context.Background(), query, append([]pkft.SearchOption{pkft.WithLimit(1000)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = fmt.Sprintf("%v %.6g", h.Key, h.Score)
	}
	return out, res.SnapshotID
}

// TestKeepArchivesOpen checks the reader cache of a long-lived handle: each archive opens once
// across searches, answers equal those of a handle that opens every archive per search, a
// compaction's retired archives close at the first search of the snapshot after it, a search of
// one partition keeps the other partitions' readers, an older
// snapshot's archives are dropped again by the next search of the newest one, concurrent
// searches share the readers, and Close releases them all.
func TestKeepArchivesOpen(t *testing.T) {
	lib := testenv.Native(t)
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	t.Cleanup(cleanup)
	openWith := func(opts ...pkft.OpenOption) (*pkft.Table, *countingEngine) {
		t.Helper()
		e := &countingEngine{Engine: native.Engine{Lib: lib}}
		tbl, err := pkft.Open(ctx, dir, append([]pkft.OpenOption{openconfig.WithEngine(e)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return tbl, e
	}
	cached, ce := openWith(pkft.KeepArchivesOpen())
	t.Cleanup(func() { _ = cached.Close() })
	cold, oe := openWith()
	if _, err := cached.Maintain(ctx); err != nil {
		t.Fatal(err)
	}

	// compare searches both handles and checks the cached handle keeps what one search opens.
	compare := func(when, query string, opts ...pkft.SearchOption) int64 {
		t.Helper()
		before := oe.opens.Load()
		want, _ := hitKeys(t, cold, query, opts...)
		got, id := hitKeys(t, cached, query, opts...)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: cached handle answers %v, a cold one %v", when, got, want)
		}
		if oe.open() != 0 {
			t.Fatalf("%s: the handle without the option keeps %d readers open", when, oe.open())
		}
		perSearch := oe.opens.Load() - before
		if ce.open() != perSearch {
			t.Fatalf("%s: %d readers kept, one search opens %d archives", when, ce.open(), perSearch)
		}
		return id
	}
	maintained := compare("after maintenance", "first")
	if ce.opens.Load() == 0 {
		t.Fatal("no archive was searched")
	}
	opened := ce.opens.Load()
	compare("second search", "second")
	compare("third search", "first OR second")
	if ce.opens.Load() != opened || ce.closes.Load() != 0 {
		t.Fatalf("searches of the same snapshot opened %d more archives and closed %d", ce.opens.Load()-opened, ce.closes.Load())
	}
	// A search of one partition uses the kept readers and drops none of the other partitions'.
	eu := pkft.WithPartition(map[string]string{"region": "eu"})
	wantEU, _ := hitKeys(t, cold, "first", eu)
	gotEU, _ := hitKeys(t, cached, "first", eu)
	if !slices.Equal(gotEU, wantEU) || len(gotEU) == 0 {
		t.Fatalf("region=eu: cached handle answers %v, a cold one %v", gotEU, wantEU)
	}
	if ce.opens.Load() != opened || ce.closes.Load() != 0 {
		t.Fatalf("a search of one partition opened %d archives and closed %d", ce.opens.Load()-opened, ce.closes.Load())
	}

	// A write compacts at commit (the table has deletion vectors): the levels it rewrote get
	// new archives and the old ones are retired.
	w, err := cached.NewWriter(ctx, pkft.WithCommitUser("cache-test"))
	if err != nil {
		t.Fatal(err)
	}
	dt := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	for i, text := range []string{"first zebra", "second zebra", "first and second"} {
		if err := w.Write(ctx, pkft.Insert, []any{"eu", dt, int32(9000 + i), text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cached.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	closed := ce.closes.Load()
	latest := compare("after the compaction", "first")
	if latest <= maintained || ce.closes.Load() == closed {
		t.Fatalf("snapshot %d after %d closed no retired archive", latest, maintained)
	}

	// Time travel opens the older snapshot's archives; the newest snapshot's next search drops
	// them again.
	oldCold, _ := hitKeys(t, cold, "first", pkft.WithSnapshot(maintained))
	oldCached, _ := hitKeys(t, cached, "first", pkft.WithSnapshot(maintained))
	if !slices.Equal(oldCached, oldCold) {
		t.Fatalf("snapshot %d: cached handle answers %v, a cold one %v", maintained, oldCached, oldCold)
	}
	compare("newest after time travel", "zebra")

	// Concurrent searches share the kept readers.
	opened = ce.opens.Load()
	want, _ := hitKeys(t, cold, "first OR zebra")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			res, err := cached.Search(ctx, "first OR zebra", pkft.WithLimit(1000))
			if err != nil {
				errs <- err
				return
			}
			if len(res.Hits) != len(want) {
				errs <- fmt.Errorf("concurrent search: %d hits, want %d", len(res.Hits), len(want))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ce.opens.Load() != opened {
		t.Errorf("concurrent searches opened %d archives again", ce.opens.Load()-opened)
	}

	if err := cached.Close(); err != nil {
		t.Fatal(err)
	}
	if ce.open() != 0 {
		t.Fatalf("Close left %d readers open", ce.open())
	}
	// The handle still searches after Close, keeping nothing.
	got, _ := hitKeys(t, cached, "zebra")
	if wantZ, _ := hitKeys(t, cold, "zebra"); !slices.Equal(got, wantZ) || ce.open() != 0 {
		t.Fatalf("after Close: %v (want %v), %d readers open", got, wantZ, ce.open())
	}
}
