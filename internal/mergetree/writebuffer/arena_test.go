package writebuffer

import (
	"slices"
	"testing"
)

// TestDiscardPagesRuns checks that discardPages gives back every page asked for, and only those,
// with one call per run of consecutive pages, whatever the order of the list.
func TestDiscardPagesRuns(t *testing.T) {
	const pageSize = 16
	region := make([]byte, 10*pageSize)
	var calls [][2]int64
	a := &arena{pageSize: pageSize, region: region, discard: func(b []byte) error {
		from := int64(cap(region) - cap(b))
		calls = append(calls, [2]int64{from / pageSize, (from + int64(len(b))) / pageSize})
		return nil
	}}
	if err := a.discardPages([]int32{7, 1, 2, 9, 0, 8, 4}); err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{0, 3}, {4, 5}, {7, 10}}
	if !slices.Equal(calls, want) {
		t.Fatalf("discarded page runs %v, want %v", calls, want)
	}
	calls = nil
	if err := a.discardPages(nil); err != nil || calls != nil {
		t.Fatalf("no pages: %v, calls %v", err, calls)
	}
}

// BenchmarkDrain is a writer's commit giving back the memory of a pool of the default
// write-buffer-size whose pages are all free (the pool made and closed around it).
func BenchmarkDrain(b *testing.B) {
	o, err := ParseOptions(nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := NewPool(o, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Drain(); err != nil {
			b.Fatal(err)
		}
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
