package writebuffer

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != 256<<20 || o.PageSize != 64<<10 || !o.Spillable || o.SortMaxFan != 128 || o.Compression != "zstd" || o.ZstdLevel != 1 {
		t.Errorf("defaults %+v", o)
	}
	o, err = ParseOptions(map[string]string{OptWriteBufferSize: "1 mb", OptPageSize: "1kb", OptSpillable: "FALSE",
		OptMaxDiskSize: "10 mb", OptSortMaxFan: "4", OptSpillCompression: "NONE"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != 1<<20 || o.PageSize != 1024 || o.Spillable || o.MaxDiskSize != 10<<20 || o.SortMaxFan != 4 || o.Compression != "none" {
		t.Errorf("set %+v", o)
	}
	for key, v := range map[string]string{
		OptWriteBufferSize:  "2 kb", // fewer than 3 pages of 64 kb
		OptPageSize:         "0",
		OptSpillable:        "yes",
		OptSortMaxFan:       "1",
		OptSpillCompression: "lz4",
		OptSpillZstdLevel:   "high",
		OptMaxDiskSize:      "a lot",
	} {
		if _, err := ParseOptions(map[string]string{key: v}); err == nil || !strings.Contains(err.Error(), "option ") {
			t.Errorf("%s=%q: %v", key, v, err)
		}
	}
}

func key(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// randomEntries are n records spread over buckets, keys repeating (updates), sequence numbers
// increasing as a writer assigns them.
func randomEntries(r *rand.Rand, n, buckets int) [][]Entry {
	out := make([][]Entry, buckets)
	for i := range n {
		b := r.IntN(buckets)
		out[b] = append(out[b], Entry{Key: key(uint32(r.IntN(n / 3))), Seq: int64(i), Kind: byte(r.IntN(4)),
			Value: bytes.Repeat([]byte{byte(i)}, r.IntN(200))})
	}
	return out
}

func sorted(es []Entry) []Entry {
	s := slices.Clone(es)
	slices.SortFunc(s, func(a, b Entry) int {
		if c := bytes.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return int(a.Seq - b.Seq)
	})
	return s
}

func collect(t *testing.T, b *Buffer) []Entry {
	t.Helper()
	var got []Entry
	if err := b.ForEach(context.Background(), func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func sameEntries(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool {
		return bytes.Equal(x.Key, y.Key) && x.Seq == y.Seq && x.Kind == y.Kind && bytes.Equal(x.Value, y.Value)
	})
}

func dirEntries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// Buckets sharing a small pool spill sorted runs and merge them back in key and sequence order;
// the memory held never exceeds the pool.
func TestSpilledRunsMergeInOrder(t *testing.T) {
	for _, compression := range []string{"zstd", "none"} {
		t.Run(compression, func(t *testing.T) {
			dir := t.TempDir()
			o, err := ParseOptions(map[string]string{OptWriteBufferSize: "24 kb", OptPageSize: "1 kb",
				OptSortMaxFan: "3", OptSpillCompression: compression})
			if err != nil {
				t.Fatal(err)
			}
			pool, err := NewPool(o, dir)
			if err != nil {
				t.Fatal(err)
			}
			input := randomEntries(rand.New(rand.NewPCG(7, 8)), 5000, 4)
			bufs := make([]*Buffer, len(input))
			for i := range bufs {
				bufs[i] = pool.NewBuffer(bytes.Compare, nil)
			}
			// Interleave the buckets as rows arrive.
			ctx := context.Background()
			for i := 0; ; i++ {
				any := false
				for bi, es := range input {
					if i >= len(es) {
						continue
					}
					any = true
					ok, err := bufs[bi].Put(ctx, es[i])
					if err != nil || !ok {
						t.Fatalf("put: %v, %v", ok, err)
					}
					var mem int64
					for _, b := range bufs {
						mem += b.MemoryOccupancy()
					}
					if pool.UsedBytes() > pool.TotalBytes() || mem > pool.TotalBytes() {
						t.Fatalf("memory %d (records %d) over the pool's %d", pool.UsedBytes(), mem, pool.TotalBytes())
					}
				}
				if !any {
					break
				}
			}
			if pool.PreemptCount() == 0 {
				t.Error("no buffer gave memory back for another")
			}
			for bi, b := range bufs {
				if b.SpilledRuns() == 0 || b.SpilledRuns() >= o.SortMaxFan {
					t.Errorf("bucket %d: %d spilled runs, want 1..%d", bi, b.SpilledRuns(), o.SortMaxFan-1)
				}
				if b.Size() != int64(len(input[bi])) {
					t.Errorf("bucket %d: size %d, want %d", bi, b.Size(), len(input[bi]))
				}
				if got := collect(t, b); !sameEntries(got, sorted(input[bi])) {
					t.Errorf("bucket %d: merged records differ from the sorted input (%d vs %d)", bi, len(got), len(input[bi]))
				}
			}
			for _, b := range bufs {
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if n := dirEntries(t, dir); n != 0 || pool.UsedBytes() != 0 {
				t.Errorf("after close: %d spill files, %d bytes held", n, pool.UsedBytes())
			}
		})
	}
}

// A buffer that cannot spill reports full (its owner flushes and puts again), and when another
// bucket needs memory the pool has the owner flush it.
func TestNotSpillableFlushesThroughOwner(t *testing.T) {
	o, err := ParseOptions(map[string]string{OptWriteBufferSize: "16 kb", OptPageSize: "1 kb", OptSpillable: "false"})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewPool(o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	input := randomEntries(rand.New(rand.NewPCG(1, 2)), 3000, 3)
	// Bucket 0 goes on alone: with nothing to take from the others, it fills up itself.
	for i := range 1000 {
		input[0] = append(input[0], Entry{Key: key(uint32(i)), Seq: int64(10_000 + i), Value: make([]byte, 50)})
	}
	files := make([][][]Entry, len(input)) // per bucket: the level-0 files its flushes wrote
	bufs := make([]*Buffer, len(input))
	ctx := context.Background()
	flushOf := func(bi int) func(context.Context) error {
		return func(ctx context.Context) error {
			var f []Entry
			// A flush writes the records out: they are copied before the buffer is cleared.
			if err := bufs[bi].ForEach(ctx, func(e Entry) error { f = append(f, cloneEntry(e)); return nil }); err != nil {
				return err
			}
			files[bi] = append(files[bi], f)
			return bufs[bi].Clear()
		}
	}
	for bi := range bufs {
		bufs[bi] = pool.NewBuffer(bytes.Compare, flushOf(bi))
	}
	fulls := 0
	for i := 0; i < len(input[0]); i++ {
		for bi, es := range input {
			if i >= len(es) {
				continue
			}
			ok, err := bufs[bi].Put(ctx, es[i])
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				fulls++
				if err := flushOf(bi)(ctx); err != nil {
					t.Fatal(err)
				}
				if ok, err := bufs[bi].Put(ctx, es[i]); !ok || err != nil {
					t.Fatalf("put into a flushed buffer: %v, %v", ok, err)
				}
			}
		}
	}
	if fulls == 0 || pool.PreemptCount() == 0 {
		t.Errorf("%d full buffers, %d preemptions: the pool never ran out", fulls, pool.PreemptCount())
	}
	for bi := range bufs {
		if bufs[bi].SpilledRuns() != 0 {
			t.Errorf("bucket %d spilled", bi)
		}
		if err := flushOf(bi)(ctx); err != nil {
			t.Fatal(err)
		}
		var all []Entry
		for _, f := range files[bi] {
			if !sameEntries(f, sorted(f)) {
				t.Fatalf("bucket %d: a flushed file is not sorted", bi)
			}
			all = append(all, f...)
		}
		if !sameEntries(sorted(all), sorted(input[bi])) {
			t.Errorf("bucket %d: flushed records differ from the input", bi)
		}
	}
}

// Past write-buffer-spill.max-disk-size a buffer asked for memory does not spill: its owner
// flushes it.
func TestMaxDiskSizeFallsBackToOwnerFlush(t *testing.T) {
	o, err := ParseOptions(map[string]string{OptWriteBufferSize: "8 kb", OptPageSize: "1 kb", OptMaxDiskSize: "1 b",
		OptSpillCompression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewPool(o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	flushes := 0
	var a *Buffer
	a = pool.NewBuffer(bytes.Compare, func(ctx context.Context) error { flushes++; return a.Clear() })
	b := pool.NewBuffer(bytes.Compare, nil)
	ctx := context.Background()
	put := func(buf *Buffer, i int) {
		if ok, err := buf.Put(ctx, Entry{Key: key(uint32(i)), Seq: int64(i), Value: make([]byte, 100)}); !ok || err != nil {
			t.Fatalf("put %d: %v, %v", i, ok, err)
		}
	}
	// a fills the pool and spills once (its own overflow spills regardless of the disk budget).
	for i := range 80 {
		put(a, i)
	}
	if a.SpilledRuns() == 0 {
		t.Fatal("a never spilled")
	}
	// b needs memory: a is over its disk budget, so a's owner flushes it.
	for i := range 40 {
		put(b, i)
	}
	if flushes == 0 {
		t.Error("the owner was never asked to flush")
	}
}

func TestBadInput(t *testing.T) {
	o, _ := ParseOptions(map[string]string{OptWriteBufferSize: "4 kb", OptPageSize: "1 kb"})
	if _, err := NewPool(o, ""); err == nil {
		t.Error("no spill directory: no error")
	}
	if _, err := NewPool(Options{Size: 1024, PageSize: 1024, SortMaxFan: 2}, t.TempDir()); err == nil {
		t.Error("a pool of one page: no error")
	}
	pool, err := NewPool(o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := pool.NewBuffer(bytes.Compare, nil)
	if _, err := b.Put(context.Background(), Entry{Key: key(1), Value: make([]byte, 5000)}); err == nil {
		t.Error("a record larger than the pool: no error")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), Entry{Key: key(1)}); err == nil {
		t.Error("put into a closed buffer: no error")
	}
}

// A spill that cannot be written fails the put and leaves no file; a cancelled context stops
// a spill.
func TestSpillFailureLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "spill")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o, _ := ParseOptions(map[string]string{OptWriteBufferSize: "4 kb", OptPageSize: "1 kb"})
	pool, err := NewPool(o, dir)
	if err != nil {
		t.Fatal(err)
	}
	b := pool.NewBuffer(bytes.Compare, nil)
	ctx := context.Background()
	var failed error
	for i := 0; i < 100 && failed == nil; i++ {
		if i == 20 {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		_, failed = b.Put(ctx, Entry{Key: key(uint32(i)), Seq: int64(i), Value: make([]byte, 100)})
	}
	if failed == nil {
		t.Fatal("spilling into a removed directory did not fail")
	}
	if es, _ := os.ReadDir(parent); len(es) != 0 {
		t.Errorf("left %d entries behind", len(es))
	}

	pool, _ = NewPool(o, t.TempDir())
	b = pool.NewBuffer(bytes.Compare, nil)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for i := 0; i < 100 && failed != context.Canceled; i++ {
		_, failed = b.Put(cancelled, Entry{Key: key(uint32(i)), Seq: int64(i), Value: make([]byte, 100)})
	}
	if failed != context.Canceled {
		t.Errorf("cancelled spill: %v", failed)
	}
}

func benchmarkPut(b *testing.B, size string) {
	o, err := ParseOptions(map[string]string{OptWriteBufferSize: size, OptPageSize: "64 kb"})
	if err != nil {
		b.Fatal(err)
	}
	pool, err := NewPool(o, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	const buckets = 8
	bufs := make([]*Buffer, buckets)
	for i := range bufs {
		bufs[i] = pool.NewBuffer(bytes.Compare, nil)
	}
	r := rand.New(rand.NewPCG(1, 1))
	value := make([]byte, 100)
	ctx := context.Background()
	b.SetBytes(int64(len(value) + 4))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := bufs[i%buckets].Put(ctx, Entry{Key: key(r.Uint32()), Seq: int64(i), Value: value}); err != nil {
			b.Fatal(err)
		}
		if i%100_000 == 99_999 {
			for _, buf := range bufs {
				if err := buf.ForEach(ctx, func(Entry) error { return nil }); err != nil {
					b.Fatal(err)
				}
				if err := buf.Clear(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkPutInMemory writes records into a pool that holds them all.
func BenchmarkPutInMemory(b *testing.B) { benchmarkPut(b, "256 mb") }

// BenchmarkPutSpilling writes records into a pool of 1 MiB: every bucket spills and merges.
func BenchmarkPutSpilling(b *testing.B) { benchmarkPut(b, "1 mb") }

// The records the buffers hold stay within the pool: the live heap, sampled between puts, grows
// by at most the pool's size plus a small fixed allowance, however many records pass through.
func TestHeapStaysWithinPool(t *testing.T) {
	const pool = 8 << 20
	o, err := ParseOptions(map[string]string{OptWriteBufferSize: "8 mb"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bufs := make([]*Buffer, 4)
	for i := range bufs {
		bufs[i] = p.NewBuffer(bytes.Compare, nil)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 3))
	const n = 300_000 // about 50 MiB of records and slots through an 8 MiB pool
	for i := range n {
		e := Entry{Key: key(r.Uint32()), Seq: int64(i), Value: make([]byte, 100)}
		if ok, err := bufs[i%len(bufs)].Put(ctx, e); !ok || err != nil {
			t.Fatalf("put: %v, %v", ok, err)
		}
		if i%20_000 == 19_999 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	t.Logf("grown %d", int64(peak)-int64(base))
	const allowance = 2 << 20
	if grown := int64(peak) - int64(base); grown > pool+allowance {
		t.Errorf("live heap grew by %d bytes through a %d-byte pool (allowance %d)", grown, pool, allowance)
	}
	for _, b := range bufs {
		if b.SpilledRuns() == 0 {
			t.Error("a bucket never spilled: the pool held everything")
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func cloneEntry(e Entry) Entry {
	e.Key, e.Value = slices.Clone(e.Key), slices.Clone(e.Value)
	return e
}

// Put copies the record: a caller that reuses one slice for every record gets every record
// back, and the pool's memory goes back on Close, after which nothing can be put.
func TestPutCopiesRecords(t *testing.T) {
	o, err := ParseOptions(map[string]string{OptWriteBufferSize: "64 kb", OptPageSize: "4 kb"})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewPool(o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := pool.NewBuffer(bytes.Compare, nil)
	ctx := context.Background()
	scratch := make([]byte, 0, 8<<10)
	var want []Entry
	for i := range 2000 {
		// Records of 5 bytes up to 6 kb: most share pages, some are larger than a page.
		n := 1 + (i*7919)%1200
		if i%97 == 0 {
			n = 6 << 10
		}
		scratch = append(scratch[:0], key(uint32(i))...)
		for j := range n {
			scratch = append(scratch, byte(i+j))
		}
		e := Entry{Key: scratch[:4], Seq: int64(i), Value: scratch[4:]}
		want = append(want, cloneEntry(e))
		if ok, err := b.Put(ctx, e); !ok || err != nil {
			t.Fatalf("put %d: %v, %v", i, ok, err)
		}
		clear(scratch[:cap(scratch)])
	}
	if b.SpilledRuns() == 0 {
		t.Fatal("the buffer never spilled: the test does not cover records coming back from disk")
	}
	var got []Entry
	if err := b.ForEach(ctx, func(e Entry) error { got = append(got, cloneEntry(e)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !sameEntries(got, sorted(want)) {
		t.Fatal("the records differ from what was put")
	}
	// A draining pool returns what buffers give back to the operating system; its pages stay
	// usable (pages of 1 kb share the system's pages with their neighbours).
	for _, ps := range []string{"4 kb", "1 kb"} {
		o, err := ParseOptions(map[string]string{OptWriteBufferSize: "64 kb", OptPageSize: ps})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPool(o, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		d := p.NewBuffer(bytes.Compare, nil)
		if err := p.Drain(); err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			var in []Entry
			for i := range 200 {
				e := Entry{Key: key(uint32(i)), Seq: int64(round), Value: bytes.Repeat([]byte{byte(i + round)}, 100)}
				in = append(in, e)
				if ok, err := d.Put(ctx, e); !ok || err != nil {
					t.Fatalf("page size %s round %d put %d: %v, %v", ps, round, i, ok, err)
				}
			}
			var out []Entry
			if err := d.ForEach(ctx, func(e Entry) error { out = append(out, cloneEntry(e)); return nil }); err != nil {
				t.Fatal(err)
			}
			if !sameEntries(out, sorted(in)) {
				t.Fatalf("page size %s round %d: the records differ from what was put", ps, round)
			}
			if err := d.Clear(); err != nil {
				t.Fatalf("page size %s: clear of a draining pool's buffer: %v", ps, err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, Entry{Key: key(1)}); err == nil {
		t.Fatal("put after the pool was closed succeeded")
	}
	if err := pool.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}
