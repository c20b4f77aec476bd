package pkfulltext

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// --- Ports of PkFullTextBucketIndexStateTest (release-2.0.0) ---

func TestBucketIndexState_ClassifiesMatchingFieldAndRetiresOtherFields(t *testing.T) {
	current := stateSimplePayload(t, "current", "data", 7)
	alsoCurrent := stateSimplePayload(t, "also-current", "other-data", 7)
	otherField := stateSimplePayload(t, "other", "third-data", 8)

	state, err := NewBucketIndexState(7, []*meta.IndexFileMeta{current, alsoCurrent, otherField})
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "current", state.CurrentPayloads(), current, alsoCurrent)
	wantPayloads(t, "stale", state.StalePayloads(), otherField)
	if got := state.PayloadBySourceFile()["data"]; got != current {
		t.Fatalf("PayloadBySourceFile[data] = %v, want %v", got, current)
	}
}

func TestBucketIndexState_RejectsDuplicateCurrentCoverage(t *testing.T) {
	_, err := NewBucketIndexState(7, []*meta.IndexFileMeta{
		stateSimplePayload(t, "first", "data", 7),
		stateSimplePayload(t, "second", "data", 7),
	})
	wantError(t, err, "data", "covered by both full-text archives")
}

func TestBucketIndexState_MapsEverySourceOfMultiSourceArchive(t *testing.T) {
	sm := stateSourceMeta(t, 1, stateSource(t, "data-1", 1), stateSource(t, "data-2", 1))
	payload := statePayload(t, "multi", 7, 2, sm)

	state, err := NewBucketIndexState(7, []*meta.IndexFileMeta{payload})
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "current", state.CurrentPayloads(), payload)
	bySource := state.PayloadBySourceFile()
	if bySource["data-1"] != payload || bySource["data-2"] != payload {
		t.Fatalf("PayloadBySourceFile = %v, want data-1 and data-2 -> multi", bySource)
	}
	if got := state.CoveredSourceFiles(); !slices.Equal(got, []string{"data-1", "data-2"}) {
		t.Fatalf("CoveredSourceFiles = %v", got)
	}
}

// --- Further behaviour of the strict constructor, read from the Java source ---

func TestNewBucketIndexStateIgnoresOtherIndexFiles(t *testing.T) {
	dv := &meta.IndexFileMeta{IndexType: meta.IndexTypeDeletionVectors, FileName: "dv", RowCount: 3}
	btree := stateSimplePayload(t, "btree", "data", 7)
	btree.IndexType = "btree"
	noGlobal := &meta.IndexFileMeta{IndexType: IndexType, FileName: "no-global", RowCount: 1}
	otherFieldNoSource := stateSimplePayload(t, "other-no-source", "data", 8)
	otherFieldNoSource.GlobalIndex.SourceMeta = nil

	state, err := NewBucketIndexState(7, []*meta.IndexFileMeta{dv, btree, noGlobal, otherFieldNoSource})
	if err != nil {
		t.Fatal(err)
	}
	if len(state.CurrentPayloads()) != 0 || len(state.StalePayloads()) != 0 || len(state.PayloadBySourceFile()) != 0 {
		t.Fatalf("state = %+v, want empty", state)
	}
	if state.TextFieldID() != 7 {
		t.Fatalf("TextFieldID = %d", state.TextFieldID())
	}
}

func TestNewBucketIndexStateErrors(t *testing.T) {
	sm := stateSourceMeta(t, 1, stateSource(t, "data", 2))
	tests := []struct {
		name     string
		payloads func() []*meta.IndexFileMeta
		want     []string
	}{
		{"same name twice", func() []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{stateSimplePayload(t, "p", "a", 7), stateSimplePayload(t, "p", "b", 7)}
		}, []string{"active full-text payload p appears more than once in the index manifest"}},
		{"no source meta", func() []*meta.IndexFileMeta {
			p := statePayload(t, "p", 7, 2, sm)
			p.GlobalIndex.SourceMeta = nil
			return []*meta.IndexFileMeta{p}
		}, []string{"index file p has no source metadata"}},
		{"unparsable source meta", func() []*meta.IndexFileMeta {
			p := statePayload(t, "p", 7, 2, sm)
			p.GlobalIndex.SourceMeta = []byte{0, 0, 0, 9}
			return []*meta.IndexFileMeta{p}
		}, []string{"unsupported index source version: 9"}},
		{"row count", func() []*meta.IndexFileMeta {
			p := statePayload(t, "p", 7, 2, sm)
			p.RowCount = 3
			return []*meta.IndexFileMeta{p}
		}, []string{"full-text archive p row metadata does not match its source files"}},
		{"range start", func() []*meta.IndexFileMeta {
			p := statePayload(t, "p", 7, 2, sm)
			p.GlobalIndex.RowRangeStart = 1
			return []*meta.IndexFileMeta{p}
		}, []string{"row metadata does not match"}},
		{"range end", func() []*meta.IndexFileMeta {
			p := statePayload(t, "p", 7, 2, sm)
			p.GlobalIndex.RowRangeEnd = 2
			return []*meta.IndexFileMeta{p}
		}, []string{"row metadata does not match"}},
		{"overflow", func() []*meta.IndexFileMeta {
			big := stateSourceMeta(t, 1, stateSource(t, "a", math.MaxInt64), stateSource(t, "b", 1))
			return []*meta.IndexFileMeta{statePayload(t, "p", 7, 1, big)}
		}, []string{"overflows"}},
		{"source twice in one payload", func() []*meta.IndexFileMeta {
			twice := stateSourceMeta(t, 1, stateSource(t, "a", 1), stateSource(t, "a", 1))
			return []*meta.IndexFileMeta{statePayload(t, "p", 7, 2, twice)}
		}, []string{"source data file a is covered by both full-text archives p and p"}},
		{"nil payload", func() []*meta.IndexFileMeta { return []*meta.IndexFileMeta{nil} }, []string{"nil"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewBucketIndexState(7, tt.payloads())
			wantError(t, err, tt.want...)
		})
	}
}

func TestNewBucketIndexStateAcceptsEmptySources(t *testing.T) {
	// A payload over zero-row files has row count 0 and range [0, -1].
	p := statePayload(t, "p", 7, 0, stateSourceMeta(t, 1, stateSource(t, "empty", 0)))
	state, err := NewBucketIndexState(7, []*meta.IndexFileMeta{p})
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "current", state.CurrentPayloads(), p)
}

// --- FromActiveDataFiles: restore classification, including corrupt payloads ---

func TestFromActiveDataFilesClassification(t *testing.T) {
	// Active data: level 1 holds a (2 rows) and b (3 rows); level 2 holds c (4 rows); level 3
	// holds d (1 row). An append file and a level-0 compacted file are never sources.
	active := []*meta.DataFileMeta{
		stateDataFile("b", 3, 1), stateDataFile("a", 2, 1), stateDataFile("c", 4, 2),
		stateDataFile("d", 1, 3), stateAppendFile("appended", 5, 2), stateDataFile("l0", 5, 0),
	}
	level1 := func(t *testing.T, name string) *meta.IndexFileMeta {
		return statePayload(t, name, 7, 5, stateSourceMeta(t, 1, stateSource(t, "a", 2), stateSource(t, "b", 3)))
	}
	level2 := func(t *testing.T, name string) *meta.IndexFileMeta {
		return statePayload(t, name, 7, 4, stateSourceMeta(t, 2, stateSource(t, "c", 4)))
	}

	type result struct{ current, stale []string }
	tests := []struct {
		name     string
		payloads func(t *testing.T) []*meta.IndexFileMeta
		want     result
	}{
		{"exact levels in level order", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{level2(t, "p2"), level1(t, "p1")}
		}, result{current: []string{"p1", "p2"}}},
		{"wrong payload row count", func(t *testing.T) []*meta.IndexFileMeta {
			p := level1(t, "bad")
			p.RowCount = 6
			return []*meta.IndexFileMeta{p, level2(t, "p2")}
		}, result{current: []string{"p2"}, stale: []string{"bad"}}},
		{"wrong row range", func(t *testing.T) []*meta.IndexFileMeta {
			p := level1(t, "bad")
			p.GlobalIndex.RowRangeEnd = 5
			return []*meta.IndexFileMeta{p}
		}, result{stale: []string{"bad"}}},
		{"source row count differs from active file", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{statePayload(t, "bad", 7, 5, stateSourceMeta(t, 2, stateSource(t, "c", 5)))}
		}, result{stale: []string{"bad"}}},
		{"two payloads on one level", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{level1(t, "x"), level2(t, "p2"), level1(t, "y")}
		}, result{current: []string{"p2"}, stale: []string{"x", "y"}}},
		{"contested levels after input-order stale", func(t *testing.T) []*meta.IndexFileMeta {
			other := level1(t, "other-field")
			other.GlobalIndex.IndexFieldID = 8
			return []*meta.IndexFileMeta{level2(t, "c2"), level1(t, "a1"), other, level2(t, "c1"), level1(t, "a2")}
		}, result{stale: []string{"other-field", "a1", "a2", "c2", "c1"}}},
		{"identical duplicates on one level", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{level2(t, "same"), level2(t, "same")}
		}, result{stale: []string{"same", "same"}}},
		{"other field id", func(t *testing.T) []*meta.IndexFileMeta {
			p := level1(t, "other")
			p.GlobalIndex.IndexFieldID = 8
			q := level2(t, "other-no-source")
			q.GlobalIndex.IndexFieldID = 9
			q.GlobalIndex.SourceMeta = nil
			return []*meta.IndexFileMeta{p, q, level2(t, "p2")}
		}, result{current: []string{"p2"}, stale: []string{"other"}}},
		{"unparsable source meta", func(t *testing.T) []*meta.IndexFileMeta {
			p := level1(t, "garbage")
			p.GlobalIndex.SourceMeta = []byte{1, 2, 3}
			q := level1(t, "trailing")
			q.GlobalIndex.SourceMeta = append(q.GlobalIndex.SourceMeta, 0)
			r := level2(t, "missing")
			r.GlobalIndex.SourceMeta = nil
			return []*meta.IndexFileMeta{p, q, r}
		}, result{stale: []string{"garbage", "trailing", "missing"}}},
		{"payload naming a removed file", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{statePayload(t, "gone", 7, 5,
				stateSourceMeta(t, 1, stateSource(t, "a", 2), stateSource(t, "removed", 3)))}
		}, result{stale: []string{"gone"}}},
		{"payload covering part of its level", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{statePayload(t, "part", 7, 2, stateSourceMeta(t, 1, stateSource(t, "a", 2)))}
		}, result{stale: []string{"part"}}},
		{"payload with files out of name order", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{statePayload(t, "unordered", 7, 5,
				stateSourceMeta(t, 1, stateSource(t, "b", 3), stateSource(t, "a", 2)))}
		}, result{stale: []string{"unordered"}}},
		{"payload mixing levels", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{
				statePayload(t, "mixed", 7, 9, stateSourceMeta(t, 1,
					stateSource(t, "a", 2), stateSource(t, "b", 3), stateSource(t, "c", 4))),
				statePayload(t, "wrong-level", 7, 4, stateSourceMeta(t, 1, stateSource(t, "c", 4))),
			}
		}, result{stale: []string{"mixed", "wrong-level"}}},
		{"payload for a level without sources", func(t *testing.T) []*meta.IndexFileMeta {
			return []*meta.IndexFileMeta{
				statePayload(t, "level4", 7, 4, stateSourceMeta(t, 4, stateSource(t, "c", 4))),
				statePayload(t, "appended", 7, 5, stateSourceMeta(t, 2, stateSource(t, "appended", 5))),
			}
		}, result{stale: []string{"level4", "appended"}}},
		{"other index types ignored", func(t *testing.T) []*meta.IndexFileMeta {
			dv := &meta.IndexFileMeta{IndexType: meta.IndexTypeDeletionVectors, FileName: "dv"}
			noGlobal := &meta.IndexFileMeta{IndexType: IndexType, FileName: "no-global"}
			sorted := level1(t, "btree")
			sorted.IndexType = "btree"
			return []*meta.IndexFileMeta{dv, noGlobal, sorted, level1(t, "p1")}
		}, result{current: []string{"p1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, err := FromActiveDataFiles(7, active, tt.payloads(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := payloadNames(state.CurrentPayloads()); !slices.Equal(got, tt.want.current) {
				t.Errorf("current = %v, want %v", got, tt.want.current)
			}
			if got := payloadNames(state.StalePayloads()); !slices.Equal(got, tt.want.stale) {
				t.Errorf("stale = %v, want %v", got, tt.want.stale)
			}
		})
	}
}

func TestFromActiveDataFilesSortsLikeJava(t *testing.T) {
	// U+FF5E sorts after U+1F600 in Go's byte order but before it in Java's UTF-16 order.
	high, bmp := "\U0001F600", "\uFF5E"
	active := []*meta.DataFileMeta{stateDataFile(high, 1, 1), stateDataFile(bmp, 1, 1)}
	javaOrder := statePayload(t, "java", 7, 2, stateSourceMeta(t, 1, stateSource(t, high, 1), stateSource(t, bmp, 1)))
	state, err := FromActiveDataFiles(7, active, []*meta.IndexFileMeta{javaOrder})
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "current", state.CurrentPayloads(), javaOrder)
}

func TestFromActiveDataFilesErrors(t *testing.T) {
	p := statePayload(t, "p", 7, 1, stateSourceMeta(t, 1, stateSource(t, "a", 1)))
	if _, err := FromActiveDataFiles(7, []*meta.DataFileMeta{nil}, nil); err == nil {
		t.Error("nil data file accepted")
	}
	if _, err := FromActiveDataFiles(7, nil, []*meta.IndexFileMeta{nil}); err == nil {
		t.Error("nil payload accepted")
	}
	// A repeated data file name on two levels lets two payloads of different levels both be
	// candidates for one source; Java's final constructor then rejects the state.
	twoLevels := []*meta.DataFileMeta{stateDataFile("a", 1, 1), stateDataFile("a", 1, 2)}
	q := statePayload(t, "q", 7, 1, stateSourceMeta(t, 2, stateSource(t, "a", 1)))
	_, err := FromActiveDataFiles(7, twoLevels, []*meta.IndexFileMeta{p, q})
	wantError(t, err, "covered by both full-text archives p and q")
}

// --- helpers ---

func stateDataFile(name string, rows int64, level int32) *meta.DataFileMeta {
	compact := meta.FileSourceCompact
	return &meta.DataFileMeta{FileName: name, FileSize: 100, RowCount: rows, Level: level, FileSource: &compact}
}

func stateAppendFile(name string, rows int64, level int32) *meta.DataFileMeta {
	appended := meta.FileSourceAppend
	return &meta.DataFileMeta{FileName: name, FileSize: 100, RowCount: rows, Level: level, FileSource: &appended}
}

func stateSource(t *testing.T, name string, rows int64) pkindex.SourceFile {
	t.Helper()
	f, err := pkindex.NewSourceFile(name, rows)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func stateSourceMeta(t *testing.T, level int32, files ...pkindex.SourceFile) pkindex.SourceMeta {
	t.Helper()
	m, err := pkindex.NewSourceMeta(level, files)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stateSimplePayload mirrors the Java test's payload(name, sourceName, fieldId): one source
// with one row on level 1.
func stateSimplePayload(t *testing.T, name, source string, fieldID int32) *meta.IndexFileMeta {
	t.Helper()
	return statePayload(t, name, fieldID, 1, stateSourceMeta(t, 1, stateSource(t, source, 1)))
}

// statePayload mirrors the Java test's payload(name, fieldId, rowCount, sourceMeta).
func statePayload(t *testing.T, name string, fieldID int32, rowCount int64, sm pkindex.SourceMeta) *meta.IndexFileMeta {
	t.Helper()
	encoded, err := sm.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return &meta.IndexFileMeta{
		IndexType: IndexType,
		FileName:  name,
		FileSize:  100,
		RowCount:  rowCount,
		GlobalIndex: &meta.GlobalIndexMeta{
			RowRangeStart: 0,
			RowRangeEnd:   rowCount - 1,
			IndexFieldID:  fieldID,
			SourceMeta:    encoded,
		},
	}
}

func payloadNames(payloads []*meta.IndexFileMeta) []string {
	var names []string
	for _, p := range payloads {
		names = append(names, p.FileName)
	}
	return names
}

// wantPayloads checks got holds exactly want, in order, as the same values.
func wantPayloads(t *testing.T, what string, got []*meta.IndexFileMeta, want ...*meta.IndexFileMeta) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, payloadNames(got), payloadNames(want))
	}
}

func wantError(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
}

// TestFromActiveDataFilesNamesDuplicateLevels checks a level with two candidate archives (two
// maintainers built it concurrently): both are stale, as in Java, and DuplicateLevels names the
// level and both archives; a level with one candidate is current and not named.
func TestFromActiveDataFilesNamesDuplicateLevels(t *testing.T) {
	files := []*meta.DataFileMeta{stateDataFile("data-a", 2, 1), stateDataFile("data-b", 3, 2)}
	first := statePayload(t, "first", 7, 2, stateSourceMeta(t, 1, stateSource(t, "data-a", 2)))
	second := statePayload(t, "second", 7, 2, stateSourceMeta(t, 1, stateSource(t, "data-a", 2)))
	single := statePayload(t, "single", 7, 3, stateSourceMeta(t, 2, stateSource(t, "data-b", 3)))
	state, err := FromActiveDataFiles(7, files, []*meta.IndexFileMeta{first, single, second})
	if err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, "current", state.CurrentPayloads(), single)
	wantPayloads(t, "stale", state.StalePayloads(), first, second)
	dups := state.DuplicateLevels()
	if len(dups) != 1 || len(dups[1]) != 2 || dups[1][0] != first || dups[1][1] != second {
		t.Fatalf("DuplicateLevels = %v, want level 1: first, second", dups)
	}
	clean, err := FromActiveDataFiles(7, files, []*meta.IndexFileMeta{first, single})
	if err != nil {
		t.Fatal(err)
	}
	if d := clean.DuplicateLevels(); d != nil {
		t.Fatalf("DuplicateLevels without duplicates = %v", d)
	}
}

// TestBucketIndexStateRowCountsAtTheLimit: an archive whose sources hold exactly MaxInt64 rows
// between them is classified (current over active files of those rows, by the strict check and
// by the fast path); one more row overflows a long and is refused.
func TestBucketIndexStateRowCountsAtTheLimit(t *testing.T) {
	atLimit := statePayload(t, "at-limit", 7, math.MaxInt64,
		stateSourceMeta(t, 1, stateSource(t, "a", math.MaxInt64-2), stateSource(t, "b", 2)))
	if _, err := NewBucketIndexState(7, []*meta.IndexFileMeta{atLimit}); err != nil {
		t.Fatalf("sources of MaxInt64 rows: %v", err)
	}
	// The same archive over active files of those rows is current.
	state, err := FromActiveDataFiles(7, []*meta.DataFileMeta{mntDataFileAt("a", math.MaxInt64-2, 1), mntDataFileAt("b", 2, 1)}, []*meta.IndexFileMeta{atLimit})
	if err != nil || len(state.current) != 1 || len(state.stale) != 0 {
		t.Fatalf("active sources of MaxInt64 rows: %+v, %v", state, err)
	}
	over := statePayload(t, "over", 7, math.MaxInt64,
		stateSourceMeta(t, 1, stateSource(t, "a", math.MaxInt64-2), stateSource(t, "b", 3)))
	if _, err := NewBucketIndexState(7, []*meta.IndexFileMeta{over}); err == nil || !strings.Contains(err.Error(), "source row count overflows a long") {
		t.Fatalf("sources of more than MaxInt64 rows: %v", err)
	}
}

// TestFromActiveDataFilesSourceNamedTwice: an archive naming one file of its level twice (and
// another not at all), with the level's file count and row total, covers the level inexactly,
// and over a level that repeats the name it covers one source twice: either way it is stale, and
// classification goes on without an error.
func TestFromActiveDataFilesSourceNamedTwice(t *testing.T) {
	a, b := mntDataFileAt("data-a", 1, 1), mntDataFileAt("data-b", 1, 1)
	twice := statePayload(t, "twice", 7, 2, stateSourceMeta(t, 1, stateSource(t, "data-a", 1), stateSource(t, "data-a", 1)))
	state, err := FromActiveDataFiles(7, []*meta.DataFileMeta{a, b}, []*meta.IndexFileMeta{twice})
	if err != nil {
		t.Fatal(err)
	}
	if len(state.current) != 0 || len(state.stale) != 1 {
		t.Fatalf("current %d, stale %d: want the archive stale", len(state.current), len(state.stale))
	}
	// A level that itself repeats the name: the archive names it twice, covering one source
	// twice, which no current archive may.
	state, err = FromActiveDataFiles(7, []*meta.DataFileMeta{a, mntDataFileAt("data-a", 1, 1)}, []*meta.IndexFileMeta{twice})
	if err != nil {
		t.Fatal(err)
	}
	if len(state.current) != 0 || len(state.stale) != 1 {
		t.Fatalf("level repeating the name: current %d, stale %d: want the archive stale", len(state.current), len(state.stale))
	}
}
