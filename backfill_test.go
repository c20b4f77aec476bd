package pkft_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// writeWords writes n rows "<word> <id>" with ids from first, with the writer options opts.
func writeWords(t *testing.T, tbl *pkft.Table, word string, first, n int64, opts ...pkft.WriteOption) *pkft.WriteResult {
	t.Helper()
	ctx := context.Background()
	w, err := tbl.NewWriter(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for id := first; id < first+n; id++ {
		if err := w.Write(ctx, pkft.Insert, []any{id, "a striped " + word}); err != nil {
			t.Fatal(err)
		}
	}
	wr, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return wr
}

// searchIDs returns the ids a search of query finds, sorted.
func searchIDs(t *testing.T, tbl *pkft.Table, query string) []int64 {
	t.Helper()
	res, err := tbl.Search(context.Background(), query, pkft.WithLimit(1000))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range res.Hits {
		id, ok := h.Key[0].(int64)
		if !ok {
			t.Fatalf("hit key %v: want an int64 id", h.Key)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func idRange(first, n int64) []int64 {
	var ids []int64
	for id := first; id < first+n; id++ {
		ids = append(ids, id)
	}
	return ids
}

// eligibleFiles are the data files the full-text archives of the table's buckets must cover.
func eligibleFiles(t *testing.T, tbl *pkft.Table) []string {
	t.Helper()
	var names []string
	for _, b := range stateCoverage(t, tbl).Buckets {
		for _, files := range b.State.Eligible {
			names = append(names, files...)
		}
	}
	slices.Sort(names)
	return names
}

// TestIndexNewRowsAndUncoveredCompaction: the first write into an empty table is moved up
// unchanged (moved-up, not searched). A write with WithIndexNewRows is searched at its commit,
// its level-0 file rewritten where the compaction at commit would move it up. Updates written
// without the option are moved up again. The uncovered compaction then rewrites exactly the
// moved-up files, in place at their level, leaves the files an archive covers as they are,
// and builds the archives in its commit: every row is searched, nothing is uncovered, and a
// second uncovered compaction has nothing to do.
func TestIndexNewRowsAndUncoveredCompaction(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, _ := coverageTable(t, true, nil)
	writeWords(t, tbl, "zebra", 0, 10)
	checkCoverage(t, "first write", stateCoverage(t, tbl).Coverage, 10, uncovered{pkft.UncoveredMovedUp, 10, []int32{5}})

	writeWords(t, tbl, "quagga", 100, 5, pkft.WithIndexNewRows())
	if got := searchIDs(t, tbl, "quagga"); !slices.Equal(got, idRange(100, 5)) {
		t.Errorf("after a write with WithIndexNewRows the search finds %v, want %v", got, idRange(100, 5))
	}
	st := stateCoverage(t, tbl)
	for _, u := range st.Coverage.Uncovered {
		if u.Reason != pkft.UncoveredMovedUp {
			t.Errorf("after a write with WithIndexNewRows: %d rows uncovered as %s, want only the first write's moved-up rows", u.Rows, u.Reason)
		}
	}
	if st.Coverage.UncoveredRows != 10 {
		t.Errorf("after a write with WithIndexNewRows: %d rows uncovered, want the first write's 10", st.Coverage.UncoveredRows)
	}

	writeWords(t, tbl, "zebra", 5, 3) // updates, moved up without the option
	if got := searchIDs(t, tbl, "zebra"); len(got) != 0 {
		t.Errorf("before the uncovered compaction the search finds zebras %v, want none", got)
	}
	covered := eligibleFiles(t, tbl)
	before := stateCoverage(t, tbl).Coverage
	if before.UncoveredRows == 0 {
		t.Fatal("the updates left nothing uncovered")
	}

	res, err := tbl.Compact(ctx, pkft.WithUncoveredCompaction())
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID == 0 || len(res.Buckets) != 1 {
		t.Fatalf("uncovered compaction: snapshot %d, %d buckets; want a commit of bucket 0", res.SnapshotID, len(res.Buckets))
	}
	b := res.Buckets[0]
	if b.Upgraded != 0 || b.Rewritten != b.FilesBefore || int64(b.FilesBefore) != before.UncoveredFiles {
		t.Errorf("uncovered compaction: %d files before, %d rewritten, %d upgraded; want the %d uncovered files rewritten",
			b.FilesBefore, b.Rewritten, b.Upgraded, before.UncoveredFiles)
	}
	if b.RowsWritten != 10 || len(b.Built) == 0 {
		t.Errorf("uncovered compaction wrote %d rows and built %d archives; want the 10 live rows and an archive", b.RowsWritten, len(b.Built))
	}
	after := stateCoverage(t, tbl)
	checkCoverage(t, "after the uncovered compaction", after.Coverage, after.Coverage.Rows)
	if after.Coverage.Rows != 15 {
		t.Errorf("after the uncovered compaction the files hold %d rows, want the 15 live ones", after.Coverage.Rows)
	}
	now := eligibleFiles(t, tbl)
	for _, f := range covered {
		if !slices.Contains(now, f) {
			t.Errorf("the uncovered compaction removed %s, which an archive could cover", f)
		}
	}
	if got := searchIDs(t, tbl, "zebra"); !slices.Equal(got, idRange(0, 10)) {
		t.Errorf("after the uncovered compaction the search finds zebras %v, want %v", got, idRange(0, 10))
	}
	if got := searchIDs(t, tbl, "quagga"); !slices.Equal(got, idRange(100, 5)) {
		t.Errorf("after the uncovered compaction the search finds quaggas %v, want %v", got, idRange(100, 5))
	}
	again, err := tbl.Compact(ctx, pkft.WithUncoveredCompaction())
	if err != nil {
		t.Fatal(err)
	}
	if again.SnapshotID != 0 {
		t.Errorf("a second uncovered compaction committed snapshot %d, want nothing to do", again.SnapshotID)
	}
}

// TestBackfillRefusals: WithIndexNewRows with WithWriteOnly, and on a table without a full-text
// index, and WithUncoveredCompaction on such a table or with WithMinorCompaction, fail by name
// with nothing committed.
func TestBackfillRefusals(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	indexed, _ := coverageTable(t, true, nil)
	plain, _ := coverageTable(t, false, nil)
	check := func(what string, tbl *pkft.Table, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", what, err, want)
		}
		if st, serr := tbl.State(ctx); serr == nil && st.SnapshotID != 0 {
			t.Errorf("%s: snapshot %d committed", what, st.SnapshotID)
		}
	}
	_, err := indexed.NewWriter(ctx, pkft.WithIndexNewRows(), pkft.WithWriteOnly())
	check("index new rows, write-only", indexed, err, "write-only")
	_, err = plain.NewWriter(ctx, pkft.WithIndexNewRows())
	check("index new rows, no index", plain, err, "no primary-key index")
	_, err = plain.Compact(ctx, pkft.WithUncoveredCompaction())
	check("uncovered compaction, no index", plain, err, "no primary-key index")
	_, err = indexed.Compact(ctx, pkft.WithUncoveredCompaction(), pkft.WithMinorCompaction())
	check("uncovered and minor", indexed, err, "exclude each other")
}

// TestUncoveredCompactionBuildsSortedPayloads: on a table with a pk-btree index beside the
// full-text one, the uncovered compaction builds the level's sorted payload in the same commit
// as its archive: afterwards every bucket's btree state covers the rewritten level with nothing
// left to build.
func TestUncoveredCompactionBuildsSortedPayloads(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, _ := coverageTable(t, true, map[string]string{"pk-btree.index.columns": "id"})
	writeWords(t, tbl, "zebra", 0, 10)
	st := stateCoverage(t, tbl)
	if len(st.Buckets) != 1 || len(st.Buckets[0].Sorted) != 1 || len(st.Buckets[0].Sorted[0].Groups) != 0 {
		t.Fatalf("before the uncovered compaction: want one bucket with one btree definition and no group, got %+v", st.Buckets)
	}
	res, err := tbl.Compact(ctx, pkft.WithUncoveredCompaction())
	if err != nil {
		t.Fatal(err)
	}
	st = stateCoverage(t, tbl)
	if st.SnapshotID != res.SnapshotID || res.SnapshotID == 0 {
		t.Fatalf("state of snapshot %d, the compaction committed %d", st.SnapshotID, res.SnapshotID)
	}
	s := st.Buckets[0].Sorted[0]
	if s.Error != "" || len(s.Groups) != 1 || len(s.Uncovered) != 0 || s.Plan != nil || len(s.Covered) == 0 {
		t.Errorf("btree state after the uncovered compaction: %+v, want one covered group and nothing to build", s)
	}
	checkCoverage(t, "after the uncovered compaction", st.Coverage, 10)
	if got := searchIDs(t, tbl, "zebra"); !slices.Equal(got, idRange(0, 10)) {
		t.Errorf("search finds %v, want %v", got, idRange(0, 10))
	}
}
