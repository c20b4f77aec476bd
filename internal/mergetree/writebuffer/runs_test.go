package writebuffer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
)

// keyOnly orders entries by key alone, as a sort keyed on part of the record (the sorted index
// build) does: entries of equal keys tie.
func keyOnly(x, y Entry) int { return bytes.Compare(x.Key, y.Key) }

func runsOf(t *testing.T, fan int, runs ...[]Entry) *Runs {
	t.Helper()
	o, err := ParseOptions(map[string]string{OptSortMaxFan: fmt.Sprint(fan)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRuns(t.TempDir(), o, keyOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if err := r.Spill(context.Background(), run); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func seqs(t *testing.T, r *Runs, mem []Entry) []int64 {
	t.Helper()
	var out []int64
	if err := r.Merge(context.Background(), mem, func(e Entry) error { out = append(out, e.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func tie(seqs ...int64) []Entry {
	out := make([]Entry, len(seqs))
	for i, s := range seqs {
		out[i] = Entry{Key: []byte("k"), Seq: s}
	}
	return out
}

// TestMergeTakesEqualKeysInJavaOrder: records whose keys tie come out of the merge in the order
// Paimon's BinaryMergeIterator yields them over its PartialOrderPriorityQueue, not in run order.
// With runs [0 1], [2], [3] of one key: the queue holds runs 0, 1, 2 at heap slots 1, 2, 3; run 0
// stays on top while it lasts (a tie never sifts down), then poll moves run 2 (the last slot) to
// the top, which a tie with run 1 keeps there: 0 1 3 2.
func TestMergeTakesEqualKeysInJavaOrder(t *testing.T) {
	r := runsOf(t, 128, tie(0, 1), tie(2), tie(3))
	defer r.Clear()
	if got := seqs(t, r, nil); fmt.Sprint(got) != "[0 1 3 2]" {
		t.Fatalf("merged %v, Java's merge yields [0 1 3 2]", got)
	}
	// The records in memory are the last source, as Java spills them last before merging.
	if got := seqs(t, r, tie(4)); fmt.Sprint(got) != "[0 1 4 3 2]" {
		t.Fatalf("merged with memory %v, Java's merge yields [0 1 4 3 2]", got)
	}
	// Distinct keys merge in key order whatever the runs.
	a := []Entry{{Key: []byte("a"), Seq: 1}, {Key: []byte("c"), Seq: 3}}
	b := []Entry{{Key: []byte("b"), Seq: 2}, {Key: []byte("d"), Seq: 4}}
	r2 := runsOf(t, 128, b, a)
	defer r2.Clear()
	if got := seqs(t, r2, nil); fmt.Sprint(got) != "[1 2 3 4]" {
		t.Fatalf("merged %v", got)
	}
}

// TestMergeAtFanInGroupsAsJava: at local-sort.max-num-file-handles runs they merge into one; past
// it (5 runs, fan-in 4) Java's mergeChannelList keeps the first three and merges the last two,
// leaving 4; every record survives and the replaced files are deleted.
func TestMergeAtFanInGroupsAsJava(t *testing.T) {
	r := runsOf(t, 4, tie(0), tie(1), tie(2), tie(3))
	defer r.Clear()
	if err := r.MergeAtFanIn(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.Len() != 1 || r.Records() != 4 || len(dirFiles(t, r.dir)) != 1 {
		t.Fatalf("%d runs, %d records, files %v", r.Len(), r.Records(), dirFiles(t, r.dir))
	}
	r5 := runsOf(t, 4, tie(0), tie(1), tie(2), tie(3), tie(4))
	defer r5.Clear()
	first := r5.runs[:3:3]
	if err := r5.MergeAtFanIn(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r5.Len() != 4 || r5.Records() != 5 || r5.runs[0] != first[0] || r5.runs[2] != first[2] || r5.runs[3].count != 2 {
		t.Fatalf("%d runs, %d records", r5.Len(), r5.Records())
	}
	if err := r5.Clear(); err != nil || len(dirFiles(t, r5.dir)) != 0 {
		t.Fatalf("clear: %v, files %v", err, dirFiles(t, r5.dir))
	}
	// Below the fan-in nothing is merged.
	r3 := runsOf(t, 4, tie(0), tie(1), tie(2))
	defer r3.Clear()
	if err := r3.MergeAtFanIn(context.Background()); err != nil || r3.Len() != 3 {
		t.Fatalf("%d runs (%v)", r3.Len(), err)
	}
}

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
