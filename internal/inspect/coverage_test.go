package inspect

import (
	"reflect"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/table"
)

// synthetic builds the data files and archives of synthetic buckets.
type synthetic struct{ t *testing.T }

func (synthetic) file(name string, level int32, rows int64, src *meta.FileSource) *meta.DataFileMeta {
	return &meta.DataFileMeta{FileName: name, Level: level, RowCount: rows, FileSource: src}
}

// archive is a full-text archive of field 1 covering files on level.
func (s synthetic) archive(name string, level int32, files ...*meta.DataFileMeta) *meta.IndexFileMeta {
	s.t.Helper()
	var sources []pkindex.SourceFile
	var rows int64
	for _, f := range files {
		src, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			s.t.Fatal(err)
		}
		sources = append(sources, src)
		rows += f.RowCount
	}
	sm, err := pkindex.NewSourceMeta(level, sources)
	if err != nil {
		s.t.Fatal(err)
	}
	b, err := sm.Encode()
	if err != nil {
		s.t.Fatal(err)
	}
	return &meta.IndexFileMeta{IndexType: pkfulltext.IndexType, FileName: name, RowCount: rows,
		GlobalIndex: &meta.GlobalIndexMeta{RowRangeEnd: rows - 1, IndexFieldID: 1, SourceMeta: b}}
}

var (
	compact  = meta.FileSourceCompact
	appended = meta.FileSourceAppend
)

// TestFullTextStateCoverage: FullTextState derives each file's reason from its classification —
// covered on a level with a current archive, duplicate-archives or no-archive on an eligible
// level without one, level-0 or moved-up (file source APPEND or not recorded) when not eligible
// — and lists the reasons in their order with their levels sorted.
func TestFullTextStateCoverage(t *testing.T) {
	s := synthetic{t}
	covered := s.file("covered", 3, 3, &compact)
	dupA, dupB := s.file("dup-a", 2, 20, &compact), s.file("dup-b", 2, 21, &compact)
	b := &table.Bucket{DataFiles: []*meta.DataFileMeta{
		s.file("moved-5", 5, 50, &appended), covered, s.file("bare", 4, 4, &compact), s.file("l0", 0, 10, &appended),
		dupA, dupB, s.file("moved-1", 1, 1, nil),
	}, IndexFiles: []*meta.IndexFileMeta{
		s.archive("archive-3", 3, covered), s.archive("dup-1", 2, dupA, dupB), s.archive("dup-2", 2, dupA, dupB),
	}}
	st, _ := fullTextStateOf(1, b)
	if st.Error != "" || len(st.Duplicates) != 1 || st.Current["3"] != "archive-3" {
		t.Fatalf("state %+v: want level 3 current and level 2 duplicated", st)
	}
	want := &CoverageDump{Files: 7, Rows: 109, UncoveredFiles: 6, UncoveredRows: 106, Uncovered: []UncoveredDump{
		{Reason: UncoveredLevel0, Levels: []int32{0}, Files: 1, Rows: 10},
		{Reason: UncoveredMovedUp, Levels: []int32{1, 5}, Files: 2, Rows: 51},
		{Reason: UncoveredNoArchive, Levels: []int32{4}, Files: 1, Rows: 4},
		{Reason: UncoveredDuplicateArchives, Levels: []int32{2}, Files: 2, Rows: 41},
	}}
	if !reflect.DeepEqual(st.Coverage, want) {
		t.Errorf("coverage\n got %+v\nwant %+v", st.Coverage, want)
	}
	// The same classification with the eligible files out of order: looked up by identity.
	view, err := pkfulltext.InspectBucket(1, b.DataFiles, b.IndexFiles)
	if err != nil {
		t.Fatal(err)
	}
	reversed := slices.Clone(view.Eligible)
	slices.Reverse(reversed)
	if got := BucketCoverage(b.DataFiles, reversed, view.State); !reflect.DeepEqual(got, want) {
		t.Errorf("eligible files reversed: coverage\n got %+v\nwant %+v", got, want)
	}
}

// TestFailedCoverage: a state that cannot be computed makes every file uncovered; a bucket
// without files has nothing uncovered; nothing eligible is level 0 or moved up.
func TestFailedCoverage(t *testing.T) {
	s := synthetic{}
	files := []*meta.DataFileMeta{s.file("a", 0, 1, &appended), s.file("b", 5, 2, &compact)}
	want := &CoverageDump{Files: 2, Rows: 3, UncoveredFiles: 2, UncoveredRows: 3,
		Uncovered: []UncoveredDump{{Reason: UncoveredStateError, Levels: []int32{0, 5}, Files: 2, Rows: 3}}}
	if got := FailedCoverage(files); !reflect.DeepEqual(got, want) {
		t.Errorf("failed state: got %+v, want %+v", got, want)
	}
	if got, st := BucketCoverage(nil, nil, nil), (&CoverageDump{Uncovered: []UncoveredDump{}}); !reflect.DeepEqual(got, st) {
		t.Errorf("no files: got %+v", got)
	}
	want = &CoverageDump{Files: 2, Rows: 3, UncoveredFiles: 2, UncoveredRows: 3, Uncovered: []UncoveredDump{
		{Reason: UncoveredLevel0, Levels: []int32{0}, Files: 1, Rows: 1},
		{Reason: UncoveredMovedUp, Levels: []int32{5}, Files: 1, Rows: 2},
	}}
	if got := BucketCoverage(files, nil, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("nothing eligible: got %+v, want %+v", got, want)
	}
}

// TestCoverageAdd: sums keep the reasons in order and merge their levels.
func TestCoverageAdd(t *testing.T) {
	total := &CoverageDump{}
	total.Add(&CoverageDump{Files: 2, Rows: 5, UncoveredFiles: 1, UncoveredRows: 3,
		Uncovered: []UncoveredDump{{Reason: UncoveredNoArchive, Levels: []int32{4}, Files: 1, Rows: 3}}})
	total.Add(nil)
	total.Add(&CoverageDump{Files: 3, Rows: 9, UncoveredFiles: 3, UncoveredRows: 9, Uncovered: []UncoveredDump{
		{Reason: UncoveredLevel0, Levels: []int32{0}, Files: 1, Rows: 1},
		{Reason: UncoveredNoArchive, Levels: []int32{2, 4}, Files: 2, Rows: 8},
	}})
	want := &CoverageDump{Files: 5, Rows: 14, UncoveredFiles: 4, UncoveredRows: 12, Uncovered: []UncoveredDump{
		{Reason: UncoveredLevel0, Levels: []int32{0}, Files: 1, Rows: 1},
		{Reason: UncoveredNoArchive, Levels: []int32{2, 4}, Files: 3, Rows: 11},
	}}
	if !reflect.DeepEqual(total, want) {
		t.Errorf("sum\n got %+v\nwant %+v", total, want)
	}
}

// TestSnapshotCoverage runs the bucket states of FullTextState over synthetic buckets: an
// archived level, a moved-up file and a level-0 file; a bucket the filter leaves out; and a bucket
// whose classification fails (one file listed on two levels, each level with its archive, so two
// current archives cover one file), counted as uncovered entirely.
func TestSnapshotCoverage(t *testing.T) {
	s := synthetic{t}
	archived := s.file("archived", 3, 30, &compact)
	twice4, twice5 := s.file("twice", 4, 7, &compact), s.file("twice", 5, 7, &compact)
	c := &table.Contents{Buckets: []*table.Bucket{
		{Bucket: 0, DataFiles: []*meta.DataFileMeta{archived, s.file("moved", 5, 50, &appended), s.file("new", 0, 5, &appended)},
			IndexFiles: []*meta.IndexFileMeta{s.archive("archive-3", 3, archived)}},
		{Bucket: 1, DataFiles: []*meta.DataFileMeta{s.file("skipped", 0, 1000, &appended)}},
		{Bucket: 2, DataFiles: []*meta.DataFileMeta{twice4, twice5},
			IndexFiles: []*meta.IndexFileMeta{s.archive("archive-4", 4, twice4), s.archive("archive-5", 5, twice5)}},
	}}
	if st, _ := fullTextStateOf(1, c.Buckets[2]); st.Error == "" {
		t.Fatalf("bucket 2's state %+v: want an error", st)
	}
	got, err := SnapshotCoverage(c, 1, func(b *table.Bucket) (bool, error) { return b.Bucket != 1, nil })
	if err != nil {
		t.Fatal(err)
	}
	want := &CoverageDump{Files: 5, Rows: 99, UncoveredFiles: 4, UncoveredRows: 69, Uncovered: []UncoveredDump{
		{Reason: UncoveredLevel0, Levels: []int32{0}, Files: 1, Rows: 5},
		{Reason: UncoveredMovedUp, Levels: []int32{5}, Files: 1, Rows: 50},
		{Reason: UncoveredStateError, Levels: []int32{4, 5}, Files: 2, Rows: 14},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("coverage\n got %+v\nwant %+v", got, want)
	}
	// Another field has no archive: the archived level's rows are no-archive.
	got, err = SnapshotCoverage(&table.Contents{Buckets: c.Buckets[:1]}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.UncoveredRows != 85 || got.Uncovered[2].Reason != UncoveredNoArchive {
		t.Errorf("field 2: %+v, want the archived level's 30 rows without an archive", got)
	}
}
