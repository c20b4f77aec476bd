package tableops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/expire"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// TestCompactExpiresAfterCommit: after its commit, a compaction expires snapshots by the table's
// retention options (as Java's TableCommitImpl#maintain does) and reports how many; when that
// expiry fails, the compaction's snapshot stays published and the error says the expiry failed.
func TestCompactExpiresAfterCommit(t *testing.T) {
	ctx := context.Background()
	retainOne := map[string]string{expire.OptNumRetainedMin: "1", expire.OptNumRetainedMax: "1"}
	later := tableops.WithClock(func() time.Time { return time.Now().Add(24 * time.Hour) })

	root := copyGolden(t, "two-levels")
	setOptions(t, root, retainOne)
	tbl := table.Open(fileio.NewLocal(), root)
	before, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tableops.Compact(ctx, tbl, nil, later)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || res.Snapshot.ID != before.ID+1 {
		t.Fatalf("compaction committed %v, want snapshot %d", res.Snapshot, before.ID+1)
	}
	ids, err := tbl.Snapshots.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != res.Snapshot.ID || res.ExpiredSnapshots != int(before.ID) {
		t.Errorf("after the compaction: snapshots %v, %d expired; want only %d, the %d before it expired", ids, res.ExpiredSnapshots, res.Snapshot.ID, before.ID)
	}

	// An expiry that cannot read what it expires fails after the commit.
	root = copyGolden(t, "two-levels")
	setOptions(t, root, retainOne)
	tbl = table.Open(fileio.NewLocal(), root)
	if err := os.WriteFile(filepath.Join(root, "snapshot", "snapshot-1"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = tableops.Compact(ctx, tbl, nil, later)
	if !errors.Is(err, tableops.ErrExpireAfterCommit) {
		t.Fatalf("compaction whose expiry fails: %v, want %v", err, tableops.ErrExpireAfterCommit)
	}
	latest, lerr := tbl.Latest(ctx)
	if lerr != nil {
		t.Fatal(lerr)
	}
	if res == nil || res.Snapshot == nil || res.Snapshot.ID != latest.ID || latest.ID != before.ID+1 {
		t.Errorf("compaction whose expiry fails: result %+v, latest snapshot %d; want its snapshot %d published and reported", res, latest.ID, before.ID+1)
	}
}

// TestCompactProgress: WithProgress on a compaction reports, in order, the buckets finished out of
// those compacted and the rows its archive builds read, ending at every bucket and every row of
// the archives built.
func TestCompactProgress(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copyGolden(t, "ft-default-partitioned"))
	if err := appendRows(ctx, tbl, eng, 5000, 30); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		reports []tableops.Progress
	)
	res, err := tableops.Compact(ctx, tbl, eng, tableops.WithParallelism(2), tableops.WithProgress(func(p tableops.Progress) {
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
	if built == 0 || len(reports) == 0 {
		t.Fatalf("compaction built archives of %d rows, %d reports", built, len(reports))
	}
	if first := reports[0]; first.Done != 0 || first.Total != len(res.Buckets) || first.RowsIndexed != 0 {
		t.Errorf("first report %+v; want 0 of %d buckets done, no row indexed", first, len(res.Buckets))
	}
	last := reports[len(reports)-1]
	if last.Done != len(res.Buckets) || last.Total != len(res.Buckets) || last.RowsIndexed != built {
		t.Errorf("last report %+v; want %d of %d buckets done and %d rows indexed", last, len(res.Buckets), len(res.Buckets), built)
	}
	for i := 1; i < len(reports); i++ {
		if p, q := reports[i-1], reports[i]; q.Done < p.Done || q.RowsIndexed < p.RowsIndexed || q.Phase != "" {
			t.Errorf("report %d %+v after %+v: want no phase, never going back", i, q, p)
		}
	}
}

// TestCompactRetiresStaleArchiveAlone: a bucket in which a minor compaction picks nothing and
// whose only index change is a stale archive to retire (its level lost its file to another
// writer) commits that retirement: Java's compaction runs the maintainer of every bucket it is
// asked to compact.
func TestCompactRetiresStaleArchiveAlone(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copyJavaTable(t, "two-levels"))
	if _, err := tableops.Maintain(ctx, tbl, eng); err != nil {
		t.Fatal(err)
	}
	levels := map[int32]int{}
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			levels[f.Level]++
		}
	}
	if levels[0] != 0 || levels[4] != 1 || levels[5] == 0 {
		t.Fatalf("two-levels: files by level %v, want one on level 4, some on 5, none on 0", levels)
	}
	commitDataChange(t, tbl, func(c *table.Contents) meta.ManifestEntry {
		for _, e := range c.Entries {
			if e.File.Level == 4 {
				e.Kind = meta.FileKindDelete
				return e
			}
		}
		t.Fatal("no level-4 file")
		return meta.ManifestEntry{}
	})
	// A minor compaction: the strategy picks nothing in so few sorted runs.
	res, err := tableops.Compact(ctx, tbl, eng, tableops.WithMinorCompaction())
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Buckets) != 1 || len(res.Buckets[0].Before) != 0 || len(res.Buckets[0].Retired) != 1 || len(res.Buckets[0].Built) != 0 {
		t.Fatalf("compaction of a compacted bucket with a stale archive: %+v", res)
	}
	if slices.Contains(indexNames(t, tbl, res.Snapshot), res.Buckets[0].Retired[0].FileName) {
		t.Errorf("retired archive %s still in the index manifest", res.Buckets[0].Retired[0].FileName)
	}
	checkAllCurrent(t, tbl, fieldID(t, tbl))
}

// TestCompactProgressWithoutBuckets: a compaction that selects no bucket has none to compact and
// reports nothing.
func TestCompactProgressWithoutBuckets(t *testing.T) {
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copyGolden(t, "two-levels"))
	var reports []tableops.Progress
	res, err := tableops.Compact(ctx, tbl, nil,
		tableops.WithBuckets(func([]paths.PartitionKV, int32) bool { return false }),
		tableops.WithProgress(func(p tableops.Progress) { reports = append(reports, p) }))
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot != nil || len(res.Buckets) != 0 || len(reports) != 0 {
		t.Errorf("compaction of no bucket: %+v, reports %+v; want nothing committed or reported", res, reports)
	}
}

// TestCompactCanceledAfterItsLastBucket: a context canceled once every bucket is compacted (from
// the progress report of the last one) fails the compaction before its commit, leaving no file
// it generated.
func TestCompactCanceledAfterItsLastBucket(t *testing.T) {
	eng, _ := engine(t)
	root := copyGolden(t, "ft-default-partitioned")
	tbl := table.Open(fileio.NewLocal(), root)
	if err := appendRows(context.Background(), tbl, eng, 5000, 30); err != nil {
		t.Fatal(err)
	}
	before, err := tbl.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = tableops.Compact(ctx, tbl, eng, tableops.WithProgress(func(p tableops.Progress) {
		if p.Total > 0 && p.Done == p.Total {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("compaction canceled after its last bucket: %v, want %v", err, context.Canceled)
	}
	latest, err := tbl.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != before.ID {
		t.Errorf("compaction canceled after its last bucket committed snapshot %d", latest.ID)
	}
	checkNoOrphanFiles(t, tbl, root)
}
