package search

import (
	"reflect"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/table"
)

// TestPlanCoverage: the plan counts, over the selected partitions' buckets (those without a
// split and those below 0 included), the files no current archive covers and why, and the count
// is the one the bucket states of package inspect give for the same contents.
func TestPlanCoverage(t *testing.T) {
	p1 := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	p2 := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	at := func(part []byte, bucket int32, p *meta.IndexFileMeta) meta.IndexManifestEntry {
		e := entry(p)
		e.Partition, e.Bucket = part, bucket
		return e
	}
	entries := []meta.IndexManifestEntry{
		at(p1, 0, payload(t, "current", testFieldID, "indexed", 2)),
		at(p1, 1, payload(t, "x", testFieldID, "dupped", 6)),
		at(p1, 1, payload(t, "y", testFieldID, "dupped", 6)),
	}
	buckets := []*table.Bucket{
		{Partition: p1, Bucket: -2, DataFiles: []*meta.DataFileMeta{dataFile("postponed", 0, 7, appendSource())}},
		{Partition: p1, Bucket: 0, DataFiles: []*meta.DataFileMeta{
			dataFile("indexed", 1, 2, compact()), dataFile("l0", 0, 3, appendSource()),
			dataFile("appended", 1, 4, appendSource()), dataFile("bare", 2, 5, compact()),
		}},
		{Partition: p1, Bucket: 1, DataFiles: []*meta.DataFileMeta{dataFile("dupped", 1, 6, compact())}},
		{Partition: p2, Bucket: 0, DataFiles: []*meta.DataFileMeta{dataFile("other", 0, 100, appendSource())}},
	}
	// The buckets carry their index files as table.Read groups them.
	for _, b := range buckets {
		for i := range entries {
			if slices.Equal(entries[i].Partition, b.Partition) && entries[i].Bucket == b.Bucket {
				b.IndexFiles = append(b.IndexFiles, &entries[i].IndexFile)
			}
		}
	}
	c := contents(buckets, entries...)
	onlyP1 := func(p []byte) (bool, error) { return slices.Equal(p, p1), nil }
	plan, err := PlanSnapshot(c, Definition{FieldID: testFieldID}, onlyP1)
	if err != nil {
		t.Fatal(err)
	}
	want := &inspect.CoverageDump{Files: 6, Rows: 27, UncoveredFiles: 5, UncoveredRows: 25, Uncovered: []inspect.UncoveredDump{
		{Reason: inspect.UncoveredLevel0, Levels: []int32{0}, Files: 2, Rows: 10},
		{Reason: inspect.UncoveredMovedUp, Levels: []int32{1}, Files: 1, Rows: 4},
		{Reason: inspect.UncoveredNoArchive, Levels: []int32{2}, Files: 1, Rows: 5},
		{Reason: inspect.UncoveredDuplicateArchives, Levels: []int32{1}, Files: 1, Rows: 6},
	}}
	if !reflect.DeepEqual(plan.Coverage, want) {
		t.Errorf("plan coverage\n got %+v\nwant %+v", plan.Coverage, want)
	}
	states, err := inspect.SnapshotCoverage(c, testFieldID, func(b *table.Bucket) (bool, error) { return onlyP1(b.Partition) })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(states, plan.Coverage) {
		t.Errorf("the bucket states' coverage %+v, the plan's %+v", states, plan.Coverage)
	}
	all, err := PlanSnapshot(c, Definition{FieldID: testFieldID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Coverage.Rows != 127 || all.Coverage.UncoveredRows != 125 {
		t.Errorf("coverage of every partition %+v", all.Coverage)
	}
}
