package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/expire"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
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
	removeLevelFile(t, tbl, 4)
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

// TestCompactDropsDeletesAtTheTopLevel: a file that holds only the delete of a key no other file
// has, alone in its key range, is rewritten when a full compaction takes it to the top level
// (MergeTreeCompactTask#upgrade: deletes are dropped there) instead of moved up as it is, and
// the top level keeps no delete record.
func TestCompactDropsDeletesAtTheTopLevel(t *testing.T) {
	ctx := context.Background()
	tbl, root := newTable(t, map[string]string{"bucket": "1"})
	if err := writeRows(t, tbl, []any{types.Insert, int32(1), "a", int32(1)}, []any{types.Insert, int32(2), "b", int32(2)}); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(t, tbl, []any{types.Delete, int32(5), "e", int32(5)}); err != nil {
		t.Fatal(err)
	}
	// No file is small: each alone in its key range is moved up unless it must be rewritten.
	setOptions(t, root, map[string]string{kvfile.TargetFileSizeOption: "1 b"})
	res, err := tableops.Compact(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Moved up as it is, the other file is not read (the table needs no lookup): one row read.
	if len(res.Buckets) != 1 || res.Buckets[0].Rewritten != 1 || res.Buckets[0].Upgraded != 1 || res.Buckets[0].RowsRead != 1 {
		t.Fatalf("compaction: %+v; want the delete's file rewritten (its one row read) and the other moved up unread", res.Buckets)
	}
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			if f.DeleteRowCount == nil || *f.DeleteRowCount != 0 {
				t.Errorf("%s on level %d holds deletes (%v) after a full compaction", f.FileName, f.Level, f.DeleteRowCount)
			}
		}
	}
}

// TestCompactRecordExpiryNeedsFileSchemas: record-level expiry reads each file's statistics by
// the schema the file was written with; when that schema cannot be read, the compaction fails
// saying so (whether the upgrade of a file or the pick of a full compaction asks), and commits
// nothing.
func TestCompactRecordExpiryNeedsFileSchemas(t *testing.T) {
	ctx := context.Background()
	tbl, root := newTable(t, map[string]string{"bucket": "1"})
	for _, id := range []int32{1, 3} {
		if err := writeRows(t, tbl, []any{types.Insert, id, "a", id}, []any{types.Insert, id + 1, "b", id}); err != nil {
			t.Fatal(err)
		}
	}
	// No file is small: each goes through the upgrade, which asks whether it holds expired records.
	setOptions(t, root, map[string]string{"record-level.expire-time": "1 h", "record-level.time-field": "v", kvfile.TargetFileSizeOption: "1 b"})
	if err := os.Remove(filepath.Join(root, "schema", "schema-0")); err != nil {
		t.Fatal(err)
	}
	before, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tableops.Compact(ctx, tbl, nil)
	if err == nil || !strings.Contains(err.Error(), "record-level expiry") {
		t.Fatalf("compaction whose files' schema is gone: %v, want the record-level expiry's error", err)
	}
	if latest, lerr := tbl.Latest(ctx); lerr != nil || latest.ID != before.ID {
		t.Errorf("a failed compaction committed: latest %v (%v), was %d", latest, lerr, before.ID)
	}

	// Files already on the top level: the full compaction's pick asks which hold expired
	// records (CompactStrategy#pickFullCompaction), and that question fails the same way.
	tbl, root = newTable(t, map[string]string{"bucket": "1"})
	if err := writeRows(t, tbl, []any{types.Insert, int32(1), "a", int32(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	setOptions(t, root, map[string]string{"record-level.expire-time": "1 h", "record-level.time-field": "v"})
	if err := os.Remove(filepath.Join(root, "schema", "schema-0")); err != nil {
		t.Fatal(err)
	}
	_, err = tableops.Compact(ctx, tbl, nil)
	if err == nil || !strings.Contains(err.Error(), "pick compaction: record-level expiry") {
		t.Fatalf("compaction of a top level whose files' schema is gone: %v, want the pick's record-level expiry error", err)
	}
}

// TestCompactRefusesUndecodableKeys: a data file whose key range cannot be decoded (a corrupt
// manifest entry) fails the compaction of its bucket with an error saying so, and nothing is
// committed.
func TestCompactRefusesUndecodableKeys(t *testing.T) {
	ctx := context.Background()
	tbl := table.Open(fileio.NewLocal(), copyGolden(t, "two-levels"))
	commitDataChange(t, tbl, func(c *table.Contents) meta.ManifestEntry {
		for _, e := range c.Entries {
			if e.File.Level == 5 {
				e.File.FileName = "data-corrupt-key-0.parquet"
				e.File.MinKey, e.File.MaxKey = []byte{1, 2, 3}, []byte{1, 2, 3}
				return e
			}
		}
		t.Fatal("no level-5 file")
		return meta.ManifestEntry{}
	})
	before, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tableops.Compact(ctx, tbl, nil)
	if err == nil || !strings.Contains(err.Error(), "decode a data file key") {
		t.Fatalf("compaction of a file with a corrupt key range: %v, want the key's decoding error", err)
	}
	if latest, lerr := tbl.Latest(ctx); lerr != nil || latest.ID != before.ID {
		t.Errorf("a failed compaction committed: latest %v (%v), was %d", latest, lerr, before.ID)
	}
}

// TestLookupUpgradeOfLevel0: with deletion vectors, the compaction at commit takes a new level-0
// file up (under the top level, or to it when the file holds deletes), and
// LookupMergeTreeCompactRewriter#upgradeStrategy decides whether it is rewritten (a COMPACT file)
// or moved up as it is (still APPEND): moved up for deduplicate without a sequence field,
// rewritten when the file may hold deletes (a file of one delete is rewritten into none: the
// deletion vectors drop it), for other merge engines and with a sequence field.
func TestLookupUpgradeOfLevel0(t *testing.T) {
	I, D := types.Insert, types.Delete
	for _, c := range []struct {
		name   string
		opts   map[string]string
		second [][]any
		level  int32
		want   meta.FileSource
		none   bool // the new file is rewritten into nothing (its delete dropped)
	}{
		{"deduplicate", nil, [][]any{{I, int32(3), "c", int32(3)}}, 4, meta.FileSourceAppend, false},
		{"deduplicate, a delete", nil, [][]any{{D, int32(4), "d", int32(4)}}, 4, meta.FileSourceCompact, true},
		{"deduplicate, sequence field", map[string]string{"sequence.field": "v"}, [][]any{{I, int32(3), "c", int32(3)}}, 4, meta.FileSourceCompact, false},
		{"partial-update", map[string]string{"merge-engine": "partial-update"}, [][]any{{I, int32(3), "c", int32(3)}}, 4, meta.FileSourceCompact, false},
	} {
		// No file is small: each alone in its key range is upgraded, not merged with others.
		opts := map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", kvfile.TargetFileSizeOption: "1 b"}
		maps.Copy(opts, c.opts)
		tbl, _ := newTable(t, opts)
		// The first commit's file, on the top level, much larger than the second's.
		var rows [][]any
		for id := range int32(40) {
			rows = append(rows, []any{I, 10 + id, "first", id})
		}
		if err := writeRows(t, tbl, rows...); err != nil {
			t.Fatal(err)
		}
		first := map[string]bool{}
		for _, b := range latestContents(t, tbl).Buckets {
			for _, f := range b.DataFiles {
				first[f.FileName] = true
			}
		}
		if err := writeRows(t, tbl, c.second...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var news []string
		for _, b := range latestContents(t, tbl).Buckets {
			for _, f := range b.DataFiles {
				if first[f.FileName] {
					continue
				}
				news = append(news, f.FileName)
				if f.Level != c.level || f.FileSource == nil || *f.FileSource != c.want || f.DeleteRowCount == nil || *f.DeleteRowCount != 0 {
					t.Errorf("%s: the new file %s on level %d, source %v, deletes %v; want level %d, %v, no delete",
						c.name, f.FileName, f.Level, f.FileSource, f.DeleteRowCount, c.level, c.want)
				}
			}
		}
		want := 1
		if c.none {
			want = 0
		}
		if len(news) != want {
			t.Errorf("%s: new files %v after the second commit, want %d", c.name, news, want)
		}
	}
}

// TestIndexNewRowsDropsDeletesUnderDeletionVectors: with WithIndexNewRows a level-0 file the
// compaction at commit takes up is rewritten through the lookup; under deletion vectors its
// deletes are dropped there (the vectors mark the rows they replace), so a file of one delete
// leaves no file.
func TestIndexNewRowsDropsDeletesUnderDeletionVectors(t *testing.T) {
	eng, _ := engine(t)
	I, D := types.Insert, types.Delete
	tbl, _ := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true",
		"pk-full-text.index.columns": "content", kvfile.TargetFileSizeOption: "1 b"})
	write := func(rows ...[]any) {
		t.Helper()
		if err := writeRowsWith(tbl, eng, []tableops.MaintainOption{tableops.WithIndexNewRows()}, rows...); err != nil {
			t.Fatal(err)
		}
	}
	var rows [][]any
	for id := range int32(40) {
		rows = append(rows, []any{I, 10 + id, "first", id})
	}
	write(rows...)
	first := map[string]bool{}
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			first[f.FileName] = true
		}
	}
	write([]any{D, int32(4), "d", int32(4)})
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			if !first[f.FileName] {
				t.Errorf("a delete written with WithIndexNewRows under deletion vectors left %s on level %d (deletes %v)", f.FileName, f.Level, f.DeleteRowCount)
			}
		}
	}
}

// TestLookupAcrossFilesOfALevel: under deletion vectors the compaction at commit looks each new
// key up in the levels above; when the keys live in different files of one level, each is found
// in its own file and its old row marked deleted, so every key is live once with its new value.
func TestLookupAcrossFilesOfALevel(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	// No file is small: the full compaction moves each commit's file up as it is, one file per
	// key range on the top level.
	tbl, _ := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", kvfile.TargetFileSizeOption: "1 b"})
	want := map[int32]string{}
	for _, start := range []int32{10, 20, 30} {
		var rows [][]any
		for id := start; id < start+10; id++ {
			rows = append(rows, []any{I, id, "old", id})
			want[id] = fmt.Sprintf("old/%d", id)
		}
		if err := writeRows(t, tbl, rows...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	top := 0
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			if f.Level == 5 {
				top++
			}
		}
	}
	if top < 3 {
		t.Fatalf("%d files on the top level, want one per key range", top)
	}
	var rows [][]any
	for _, id := range []int32{15, 25, 35} {
		rows = append(rows, []any{I, id, "new", id})
		want[id] = fmt.Sprintf("new/%d", id)
	}
	if err := writeRows(t, tbl, rows...); err != nil {
		t.Fatal(err)
	}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Errorf("after updates of keys in three files of the top level: %v, want %v", got, want)
	}
}

// TestMinorCompactionWithoutLookupFoldsLevel0Only: a table that needs no lookup (aggregation
// without deletion vectors or a lookup changelog) compacts its level-0 files into a level below
// the top without reading the levels above (MergeTreeCompactRewriter, no lookup wrapper): the
// output holds the sum of the level-0 records alone, the top level keeps its own, and a full
// compaction then folds both.
func TestMinorCompactionWithoutLookupFoldsLevel0Only(t *testing.T) {
	ctx := context.Background()
	tbl, _ := newTable(t, map[string]string{"bucket": "1", "merge-engine": "aggregation",
		"fields.v.aggregate-function": "sum", "num-sorted-run.compaction-trigger": "2"})
	write := func(rows ...[]any) {
		t.Helper()
		if err := writeRowsWith(tbl, nil, []tableops.MaintainOption{tableops.WithWriteOnly()}, rows...); err != nil {
			t.Fatal(err)
		}
	}
	I := types.Insert
	// A top level (2: num-levels is the trigger plus one) much larger than the level-0 files:
	// the size ratio picks the level-0 runs alone, into level 1.
	var rows [][]any
	for id := range int32(2000) {
		rows = append(rows, []any{I, id, fmt.Sprintf("row %d of the first commit", id), int32(10)})
	}
	write(rows...)
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	write([]any{I, int32(1), "second", int32(5)})
	write([]any{I, int32(1), "third", int32(1)})
	if _, err := tableops.Compact(ctx, tbl, nil, tableops.WithMinorCompaction()); err != nil {
		t.Fatal(err)
	}
	key1 := func() map[int32][]int32 {
		byLevel := map[int32][]int32{}
		forEachRecord(t, tbl, func(_ *table.Bucket, f *meta.DataFileMeta, kv *kvfile.KeyValue) {
			if kv.Key[0].(int32) == 1 {
				byLevel[f.Level] = append(byLevel[f.Level], kv.Value[2].(int32))
			}
		})
		return byLevel
	}
	if got, want := key1(), map[int32][]int32{1: {6}, 2: {10}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("key 1 by level after the minor compaction: %v, want %v", got, want)
	}
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := key1(), map[int32][]int32{2: {16}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("key 1 by level after the full compaction: %v, want %v", got, want)
	}
}

// TestLookupReadsThroughRecordExpiry: the compaction at commit's lookup reads the levels above
// through the record-level expiry filter (MergeTreeCompactManagerFactory wraps the reader the
// lookup levels use, but first-row's): an expired row of a key written again is not found, so
// no deletion vector marks it and it stays beside the new row until a full compaction drops it.
func TestLookupReadsThroughRecordExpiry(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	now := int32(time.Now().Unix())
	old := now - 7200
	tbl, root := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"})
	// A top level much larger than the updates: the compaction at commit writes them below it.
	first := [][]any{{I, int32(1), "a", old}}
	for id := int32(2); id < 2000; id++ {
		first = append(first, []any{I, id, "b", now})
	}
	if err := writeRows(t, tbl, first...); err != nil {
		t.Fatal(err)
	}
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	setOptions(t, root, map[string]string{"record-level.expire-time": "1 h", "record-level.time-field": "v"})
	if err := writeRows(t, tbl, []any{I, int32(1), "x", now}, []any{I, int32(2), "y", now}); err != nil {
		t.Fatal(err)
	}
	rows := func() map[int32][]string {
		out := map[int32][]string{}
		forEachRecord(t, tbl, func(_ *table.Bucket, f *meta.DataFileMeta, kv *kvfile.KeyValue) {
			if id := kv.Key[0].(int32); id <= 2 {
				out[id] = append(out[id], kv.Value[1].(string))
			}
		})
		for _, v := range out {
			slices.Sort(v)
		}
		return out
	}
	want := map[int32][]string{1: {"a", "x"}, 2: {"y"}}
	if got := rows(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("live records after the updates: %v, want %v (the expired row of key 1 not found by the lookup)", got, want)
	}
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	want = map[int32][]string{1: {"x"}, 2: {"y"}}
	if got := rows(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("live records after the full compaction: %v, want %v", got, want)
	}
}

// TestDeletionVectorsUnderExternalDataPaths: with index-file-in-data-file-dir and
// data-file.external-paths, the deletion-vector file the compaction at commit writes goes to the
// bucket's external directory and its IndexFileMeta records that path (the bucket index path
// factory is external); the table's own bucket directory holds no index file, and the rows read
// back through the recorded vectors.
func TestDeletionVectorsUnderExternalDataPaths(t *testing.T) {
	I := types.Insert
	ext := t.TempDir()
	tbl, root := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true",
		paths.OptionIndexFileInDataFileDir: "true", paths.OptionExternalPaths: "file://" + ext,
		paths.OptionExternalPathsStrategy: "round-robin"})
	var first [][]any
	for id := range int32(200) {
		first = append(first, []any{I, id, "old", id})
	}
	if err := writeRows(t, tbl, first...); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(t, tbl, []any{I, int32(7), "new", int32(7)}); err != nil {
		t.Fatal(err)
	}
	dvFiles := 0
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType != meta.IndexTypeDeletionVectors {
				continue
			}
			dvFiles++
			recorded := ""
			if f.ExternalPath != nil {
				recorded = *f.ExternalPath
			}
			at := strings.Index(recorded, ext+"/bucket-0/")
			if !strings.HasPrefix(recorded, "file:") || at < 0 {
				t.Fatalf("deletion-vector file %s records external path %q, want one under %s", f.FileName, recorded, ext)
			}
			if _, err := os.Stat(recorded[at:]); err != nil {
				t.Errorf("the recorded external path: %v", err)
			}
		}
	}
	if dvFiles != 1 {
		t.Fatalf("%d deletion-vector files, want 1", dvFiles)
	}
	for _, f := range listFiles(t, root) {
		if strings.Contains(f, "bucket-") && strings.HasPrefix(filepath.Base(f), "index-") {
			t.Errorf("index file %s in the table's bucket directory", f)
		}
	}
	got := liveRecords(t, tbl)
	if len(got) != 200 || got[7] != "new/7" || got[6] != "old/6" {
		t.Errorf("%d live records, key 7 %q, key 6 %q; want 200, new/7, old/6", len(got), got[7], got[6])
	}
}

// TestLookupOfLevel0FilesMergedTogether: under deletion vectors, level-0 files merged with one
// another (written without the compaction at commit, then compacted) still look their keys up in
// the levels above (ForceUpLevel0Compaction picks them; the lookup rewriter merges them): the
// top level's old row of an updated key is marked deleted, so the key is live once.
func TestLookupOfLevel0FilesMergedTogether(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	tbl, _ := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"})
	want := map[int32]string{}
	var rows [][]any
	for id := range int32(2000) {
		rows = append(rows, []any{I, id, "old", id})
		want[id] = fmt.Sprintf("old/%d", id)
	}
	if err := writeRows(t, tbl, rows...); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"a", "b"} {
		if err := writeRowsWith(tbl, nil, []tableops.MaintainOption{tableops.WithWriteOnly()}, []any{I, int32(7), v, int32(7)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tableops.Compact(ctx, tbl, nil, tableops.WithMinorCompaction()); err != nil {
		t.Fatal(err)
	}
	want[7] = "b/7"
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Errorf("after the minor compaction: key 7 %q, %d keys; want %q, %d", got[7], len(got), want[7], len(want))
	}
}
