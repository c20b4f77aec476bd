package pkft_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestWriteCommitProgress: WithProgress on a writer reports the phases of its commit in order
// (flush, compaction at commit with its archive builds, commit), each starting at 0 and ending at
// its total, never going backwards; the rows indexed reported add up to the rows of the archives
// the write built.
func TestWriteCommitProgress(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, _ := coverageTable(t, true, map[string]string{"bucket": "3"})
	writeZebras(t, tbl, 0, 3000)
	var (
		mu      sync.Mutex
		reports []pkft.Progress
	)
	w, err := tbl.NewWriter(ctx, pkft.WithIndexNewRows(), pkft.WithProgress(func(p pkft.Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(3000); id < 43000; id++ {
		if err := w.Write(ctx, pkft.Insert, []any{id, fmt.Sprintf("a striped zebra %d", id)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(reports) != 0 {
		t.Fatalf("%d reports before the commit, want none: %+v", len(reports), reports[0])
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var built int64
	for _, b := range res.Buckets {
		for _, a := range b.Built {
			built += a.RowCount
		}
	}
	if built == 0 || res.CompactSnapshotID == 0 {
		t.Fatalf("the write built archives of %d rows, compact snapshot %d: want archives built at commit", built, res.CompactSnapshotID)
	}
	want := []struct {
		phase pkft.Phase
		total int
	}{{pkft.PhaseFlush, 3}, {pkft.PhaseCompact, 3}, {pkft.PhaseCommit, 2}}
	var phases []pkft.Phase
	for i, p := range reports {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
			if p.BucketsDone != 0 {
				t.Errorf("phase %s starts at %d of %d, want 0", p.Phase, p.BucketsDone, p.BucketsTotal)
			}
		} else if prev := reports[i-1]; p.BucketsDone < prev.BucketsDone || p.RowsIndexed < prev.RowsIndexed {
			t.Errorf("phase %s went back from %+v to %+v", p.Phase, prev, p)
		}
		if k := slices.IndexFunc(want, func(w struct {
			phase pkft.Phase
			total int
		}) bool {
			return w.phase == p.Phase
		}); k < 0 || p.BucketsTotal != want[k].total {
			t.Errorf("report %+v: want phases %v with their totals", p, want)
		}
		if i+1 == len(reports) || reports[i+1].Phase != p.Phase {
			if p.BucketsDone != p.BucketsTotal {
				t.Errorf("phase %s ends at %d of %d", p.Phase, p.BucketsDone, p.BucketsTotal)
			}
			if p.Phase == pkft.PhaseCompact && p.RowsIndexed != built {
				t.Errorf("the compaction at commit ends with %d rows indexed, the archives built hold %d", p.RowsIndexed, built)
			}
		}
	}
	if !slices.Equal(phases, []pkft.Phase{pkft.PhaseFlush, pkft.PhaseCompact, pkft.PhaseCommit}) {
		t.Errorf("phases %v, want flush, compact, commit, each once", phases)
	}
}

// TestCompactProgressCountsIndexedRows: Compact's progress starts at 0 buckets done, ends with
// every bucket done, and counts the rows its archive builds read, up to the rows of the archives
// it built.
func TestCompactProgressCountsIndexedRows(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, _ := coverageTable(t, true, map[string]string{"bucket": "2"})
	writeZebras(t, tbl, 0, 20000)
	writeZebras(t, tbl, 20000, 20000, pkft.WithWriteOnly())
	var (
		mu      sync.Mutex
		reports []pkft.Progress
	)
	res, err := tbl.Compact(ctx, pkft.WithProgress(func(p pkft.Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	var built int64
	for _, b := range res.Buckets {
		for _, a := range b.Built {
			built += a.RowCount
		}
	}
	if built == 0 || len(reports) < 2 {
		t.Fatalf("compaction built archives of %d rows, %d reports", built, len(reports))
	}
	first, last := reports[0], reports[len(reports)-1]
	if first.BucketsDone != 0 || first.BucketsTotal != 2 || last.BucketsDone != 2 || last.RowsIndexed != built {
		t.Errorf("reports from %+v to %+v; want 0 to 2 of 2 buckets and %d rows indexed", first, last, built)
	}
	for i, p := range reports {
		if p.Phase != pkft.PhaseCompact || i > 0 && (p.BucketsDone < reports[i-1].BucketsDone || p.RowsIndexed < reports[i-1].RowsIndexed) {
			t.Errorf("report %d %+v after %+v: want phase compact, never going back", i, p, reports[max(i-1, 0)])
		}
	}
}
