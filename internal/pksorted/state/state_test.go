package state

import (
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/testing/pksortedtest"
)

func dataFile(name string, rows int64, level int32) *meta.DataFileMeta {
	return pksortedtest.DataFile(name, rows, level)
}

// payload is a btree payload for field 7 over files sorted by name, with their rows.
func payload(t *testing.T, name string, level int32, files ...*meta.DataFileMeta) *meta.IndexFileMeta {
	t.Helper()
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b *meta.DataFileMeta) int { return strings.Compare(a.FileName, b.FileName) })
	var rows int64
	for _, f := range sorted {
		rows += f.RowCount
	}
	return pksortedtest.Payload(t, "btree", name, 7, level, rows, sorted...)
}

func names(fs []pkindex.SourceFile) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.FileName())
	}
	return out
}

// TestAcceptsOnePayloadForCompleteLevel is PkSortedBucketIndexStateTest#testAcceptsOnePayloadForCompleteLevel.
func TestAcceptsOnePayloadForCompleteLevel(t *testing.T) {
	first, second := dataFile("data-a", 3, 2), dataFile("data-b", 7, 2)
	p := payload(t, "index", 2, first, second)
	st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{second, first}, []*meta.IndexFileMeta{p})
	if len(st.Groups) != 1 || st.Groups[0].DataLevel != 2 {
		t.Fatalf("groups %+v", st.Groups)
	}
	if got := names(st.Groups[0].SourceFiles); !slices.Equal(got, []string{"data-a", "data-b"}) {
		t.Fatalf("group sources %v", got)
	}
	if len(st.Covered) != 2 || len(st.Uncovered) != 0 || len(st.Rejected) != 0 {
		t.Fatalf("covered %d uncovered %d rejected %d", len(st.Covered), len(st.Uncovered), len(st.Rejected))
	}
}

// TestRejectsPartialLevelPayload is PkSortedBucketIndexStateTest#testRejectsPartialLevelPayload.
func TestRejectsPartialLevelPayload(t *testing.T) {
	first, second := dataFile("data-a", 3, 2), dataFile("data-b", 7, 2)
	partial := payload(t, "partial", 2, first)
	st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{first, second}, []*meta.IndexFileMeta{partial})
	if len(st.Groups) != 0 || len(st.Uncovered) != 2 || !slices.Equal(st.Rejected, []*meta.IndexFileMeta{partial}) {
		t.Fatalf("%+v", st)
	}
}

// TestRejectsDuplicatePayloadsForLevel is PkSortedBucketIndexStateTest#testRejectsDuplicatePayloadsForLevel.
func TestRejectsDuplicatePayloadsForLevel(t *testing.T) {
	data := dataFile("data", 3, 2)
	a, b := payload(t, "first", 2, data), payload(t, "second", 2, data)
	st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{a, b})
	if len(st.Groups) != 0 || !slices.Equal(st.Rejected, []*meta.IndexFileMeta{a, b}) {
		t.Fatalf("%+v", st)
	}
}

// TestRejectsPayloadForDifferentLevel is PkSortedBucketIndexStateTest#testRejectsPayloadForDifferentLevel.
func TestRejectsPayloadForDifferentLevel(t *testing.T) {
	data := dataFile("data", 3, 2)
	wrong := payload(t, "wrong-level", 3, data)
	st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{wrong})
	if len(st.Groups) != 0 || !slices.Equal(st.Rejected, []*meta.IndexFileMeta{wrong}) {
		t.Fatalf("%+v", st)
	}
}

// TestRejectsMalformedSourceMetadata is PkSortedBucketIndexStateTest#testRejectsMalformedSourceMetadata.
func TestRejectsMalformedSourceMetadata(t *testing.T) {
	data := dataFile("data", 3, 2)
	bad := &meta.IndexFileMeta{IndexType: "btree", FileName: "malformed", FileSize: 100, RowCount: 3,
		GlobalIndex: &meta.GlobalIndexMeta{RowRangeEnd: 2, IndexFieldID: 7, IndexMeta: []byte{1}, SourceMeta: []byte{1}}}
	st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{bad})
	if len(st.Groups) != 0 || !slices.Equal(st.Rejected, []*meta.IndexFileMeta{bad}) {
		t.Fatalf("%+v", st)
	}
}

// TestGroupConsistency: a payload of another type, field, row range or row count covers
// nothing, even when its source meta matches the level (PkSortedIndexGroup.create).
func TestGroupConsistency(t *testing.T) {
	data := dataFile("data", 3, 2)
	for name, mutate := range map[string]func(*meta.IndexFileMeta){
		"type":      func(p *meta.IndexFileMeta) { p.IndexType = "bitmap" },
		"field":     func(p *meta.IndexFileMeta) { p.GlobalIndex.IndexFieldID = 8 },
		"range end": func(p *meta.IndexFileMeta) { p.GlobalIndex.RowRangeEnd = 3 },
		"start":     func(p *meta.IndexFileMeta) { p.GlobalIndex.RowRangeStart = 1 },
		"row count": func(p *meta.IndexFileMeta) { p.RowCount = 2 },
	} {
		p := payload(t, "p", 2, data)
		mutate(p)
		st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{data}, []*meta.IndexFileMeta{p})
		if len(st.Groups) != 0 || len(st.Rejected) != 1 || len(st.Uncovered) != 1 {
			t.Errorf("%s: %+v", name, st)
		}
	}
}
