package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

func contents(buckets []*table.Bucket, entries ...meta.IndexManifestEntry) *table.Contents {
	return &table.Contents{Snapshot: &snapshot.Snapshot{ID: 11}, Buckets: buckets, IndexEntries: entries}
}

func entry(p *meta.IndexFileMeta) meta.IndexManifestEntry {
	return meta.IndexManifestEntry{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), Bucket: 0, IndexFile: *p}
}

func names(files []*meta.DataFileMeta) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.FileName)
	}
	return out
}

func payloadNames(files []*meta.IndexFileMeta) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.FileName)
	}
	return out
}

// --- Ports of PrimaryKeyFullTextScanTest (release-2.0.0) ---

func TestScan_SeparatesCurrentCoverageAndExcludesIneligibleFiles(t *testing.T) {
	dvFile := &meta.IndexFileMeta{IndexType: meta.IndexTypeDeletionVectors, FileName: "dv"}
	b := &table.Bucket{Partition: meta.EmptyBinaryRow(), DataFiles: []*meta.DataFileMeta{
		dataFile("indexed", 1, 2, compact()), dataFile("uncovered", 2, 2, compact()),
		dataFile("level-zero", 0, 2, compact()), dataFile("appended", 1, 2, appendSource()),
	}, IndexFiles: []*meta.IndexFileMeta{dvFile}}
	plan, err := PlanSnapshot(contents([]*table.Bucket{b},
		entry(payload(t, "current", testFieldID, "indexed", 2)),
		entry(payload(t, "other-field", 8, "uncovered", 2))), Definition{FieldID: testFieldID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan.SnapshotID != 11 || len(plan.Splits) != 1 {
		t.Fatalf("plan = %+v", plan)
	}
	s := plan.Splits[0]
	if got := names(s.DataFiles); !slices.Equal(got, []string{"indexed", "uncovered"}) {
		t.Fatalf("data files %v", got)
	}
	if got := payloadNames(s.Payloads); !slices.Equal(got, []string{"current"}) {
		t.Fatalf("payloads %v", got)
	}
	if !slices.Equal(s.Uncovered, []string{"uncovered"}) {
		t.Fatalf("uncovered %v", s.Uncovered)
	}
	if len(s.DeletionFiles) != 1 || s.DeletionFiles[0] != dvFile {
		t.Fatalf("deletion files %v", s.DeletionFiles)
	}
}

func TestScan_PlansMultiSourceArchiveOnce(t *testing.T) {
	b := &table.Bucket{Partition: meta.EmptyBinaryRow(), DataFiles: []*meta.DataFileMeta{dataFile("data-1", 1, 2, compact()), dataFile("data-2", 1, 2, compact())}}
	plan, err := PlanSnapshot(contents([]*table.Bucket{b}, entry(payload(t, "multi-source", testFieldID, "data-1", 2, "data-2", 2))), Definition{FieldID: testFieldID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := plan.Splits[0]
	if got := payloadNames(s.Payloads); !slices.Equal(got, []string{"multi-source"}) || len(s.Uncovered) != 0 {
		t.Fatalf("payloads %v uncovered %v", got, s.Uncovered)
	}
}

func TestScan_RejectsPartialLevelCoverage(t *testing.T) {
	b := &table.Bucket{Partition: meta.EmptyBinaryRow(), DataFiles: []*meta.DataFileMeta{dataFile("data-1", 1, 2, compact()), dataFile("data-2", 1, 2, compact())}}
	plan, err := PlanSnapshot(contents([]*table.Bucket{b}, entry(payload(t, "partial-level", testFieldID, "data-1", 2))), Definition{FieldID: testFieldID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := plan.Splits[0]
	if len(s.Payloads) != 0 || !slices.Equal(s.Uncovered, []string{"data-1", "data-2"}) {
		t.Fatalf("payloads %v uncovered %v", payloadNames(s.Payloads), s.Uncovered)
	}
}

func TestScan_CapturesOneSnapshotAndPrunesPartitions(t *testing.T) {
	p1 := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	p2 := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	mk := func(part []byte) *table.Bucket {
		return &table.Bucket{Partition: part, DataFiles: []*meta.DataFileMeta{dataFile("indexed-"+string('0'+part[12]), 1, 2, compact())}}
	}
	e1 := entry(payload(t, "current-1", testFieldID, "indexed-1", 2))
	e1.Partition = p1
	e2 := entry(payload(t, "current-2", testFieldID, "indexed-2", 2))
	e2.Partition = p2
	filter := func(p []byte) (bool, error) { return slices.Equal(p, p1), nil }
	plan, err := PlanSnapshot(contents([]*table.Bucket{mk(p1), mk(p2)}, e1, e2), Definition{FieldID: testFieldID}, filter)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || !slices.Equal(payloadNames(plan.Splits[0].Payloads), []string{"current-1"}) || len(plan.Splits[0].Uncovered) != 0 {
		t.Fatalf("plan %+v", plan.Splits)
	}
	_, err = PlanSnapshot(contents([]*table.Bucket{mk(p1)}), Definition{FieldID: testFieldID}, func([]byte) (bool, error) { return false, errBroken })
	wantErr(t, err, "partition filter", "broken")
}

// --- Further rules read from PrimaryKeyFullTextScan#scan and #plan ---

func TestScanRules(t *testing.T) {
	def := Definition{FieldID: testFieldID}
	// A matching index entry that is not ADD is an error; other entries are not looked at.
	del := entry(payload(t, "deleted", testFieldID, "a", 2))
	del.Kind = meta.FileKindDelete
	b := &table.Bucket{Partition: meta.EmptyBinaryRow(), DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 2, compact())}}
	_, err := PlanSnapshot(contents([]*table.Bucket{b}, del), def, nil)
	wantErr(t, err, "deleted is not active")
	other := entry(payload(t, "other", 8, "a", 2))
	other.Kind = meta.FileKindDelete
	if _, err := PlanSnapshot(contents([]*table.Bucket{b}, other), def, nil); err != nil {
		t.Fatal(err)
	}

	// Payloads without source meta are not full-text payloads of this read path.
	noSource := payload(t, "no-source", testFieldID, "a", 2)
	noSource.GlobalIndex.SourceMeta = nil
	plan, err := PlanSnapshot(contents([]*table.Bucket{b}, entry(noSource)), def, nil)
	if err != nil || len(plan.Splits[0].Payloads) != 0 {
		t.Fatalf("plan %+v err %v", plan, err)
	}

	// Buckets below 0 and buckets with only level-0 files yield no split.
	postponed := &table.Bucket{Partition: meta.EmptyBinaryRow(), Bucket: -2, DataFiles: []*meta.DataFileMeta{dataFile("p", 1, 2, compact())}}
	l0 := &table.Bucket{Partition: meta.EmptyBinaryRow(), Bucket: 1, DataFiles: []*meta.DataFileMeta{dataFile("l0", 0, 2, compact())}}
	plan, err = PlanSnapshot(contents([]*table.Bucket{postponed, l0}), def, nil)
	if err != nil || len(plan.Splits) != 0 {
		t.Fatalf("plan %+v err %v", plan, err)
	}

	// Two candidates on one level are both stale: nothing is searched there.
	plan, err = PlanSnapshot(contents([]*table.Bucket{b}, entry(payload(t, "x", testFieldID, "a", 2)), entry(payload(t, "y", testFieldID, "a", 2))), def, nil)
	if err != nil || len(plan.Splits[0].Payloads) != 0 || !slices.Equal(plan.Splits[0].Uncovered, []string{"a"}) {
		t.Fatalf("plan %+v err %v", plan.Splits, err)
	}
}

// --- Ports of PrimaryKeyFullTextSearchTest and the builder's checks ---

func testSchema(opts map[string]string) *schema.TableSchema {
	return &schema.TableSchema{
		Fields: []types.DataField{
			types.Field(0, "id", types.Int()), types.Field(1, "content", types.String()), types.Field(2, "other", types.String()),
		},
		PrimaryKeys: []string{"id"},
		Options:     opts,
	}
}

func TestDefinition(t *testing.T) {
	base := map[string]string{"bucket": "2", "pk-full-text.index.columns": "content"}
	def, err := ResolveDefinition(testSchema(base), "content")
	if err != nil || def != (Definition{Column: "content", FieldID: 1}) {
		t.Fatalf("def %+v err %v", def, err)
	}
	if def, err = ResolveDefinition(testSchema(base), ""); err != nil || def.FieldID != 1 {
		t.Fatalf("empty column: def %+v err %v", def, err)
	}
	// Another field keeps Java's global full-text path, which pkft does not implement.
	_, err = ResolveDefinition(testSchema(base), "other")
	if !errors.Is(err, errNoDefinition) {
		t.Fatalf("other field: %v", err)
	}
	evo := map[string]string{"pk-full-text.index.columns": "content", "data-evolution.enabled": "true"}
	if _, err = ResolveDefinition(testSchema(evo), "content"); !errors.Is(err, errNoDefinition) {
		t.Fatalf("data evolution: %v", err)
	}
	_, err = ResolveDefinition(testSchema(base), "missing")
	wantErr(t, err, "text column 'missing' does not exist")
	_, err = ResolveDefinition(testSchema(map[string]string{}), "content")
	wantErr(t, err, "pk-full-text.index.columns")
	_, err = ResolveDefinition(testSchema(map[string]string{"pk-full-text.index.columns": "content,content"}), "content")
	wantErr(t, err, "duplicate column 'content'")
	_, err = ResolveDefinition(testSchema(map[string]string{"pk-full-text.index.columns": "content", "pk-btree.index.columns": "content"}), "content")
	wantErr(t, err, "at most one primary-key index")
}

func TestSearchModeAndLimit(t *testing.T) {
	for _, mode := range []string{"full", "DETAIL"} {
		err := checkSearchMode(map[string]string{"full-text-index.search-mode": mode})
		wantErr(t, err, "only supports the FAST full-text-index search mode")
	}
	if err := checkSearchMode(map[string]string{"full-text-index.search-mode": "fast"}); err != nil {
		t.Fatal(err)
	}
	_, err := Search(context.Background(), nil, Request{Query: "x", Limit: 0}, Options{})
	wantErr(t, err, "limit must be positive")
	_, err = Search(context.Background(), nil, Request{Query: "  ", Limit: 1}, Options{})
	wantErr(t, err, "must not be empty")
}

func TestEngineQuery(t *testing.T) {
	for q, want := range map[string]string{
		"paimon":                           `{"match":{"query":"paimon"}}`,
		`lake "format" <x>`:                `{"match":{"query":"lake \"format\" <x>"}}`,
		`{"match_phrase":{"query":"a b"}}`: `{"match_phrase":{"query":"a b"}}`,
		` {"boolean":{"must":[]}}`:         ` {"boolean":{"must":[]}}`,
		"中文 é":                             `{"match":{"query":"中文 é"}}`,
	} {
		got, err := EngineQuery(q)
		if err != nil || got != want {
			t.Errorf("EngineQuery(%q) = %q, %v; want %q", q, got, err, want)
		}
	}
}

// --- Ports of PrimaryKeySearchRankerTest#topKByScore behaviour used by the read ---

func TestTopKByScore(t *testing.T) {
	pos := func(part byte, bucket int32, file string, row int64, score float32) Position {
		return Position{Partition: []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, part, 0, 0, 0, 0, 0, 0, 0}, Bucket: bucket, DataFile: file, RowPosition: row, Score: score}
	}
	// PrimaryKeyFullTextReadTest#testSelectsGlobalTopKByFullTextScore
	got, err := TopKByScore([][]Position{{pos(0, 0, "indexed", 0, 100), pos(0, 0, "indexed", 1, 99)}, {pos(0, 0, "raw", 0, 1)}}, 2)
	if err != nil || !slices.Equal(tuples(got), []posTuple{{"indexed", 0, 100}, {"indexed", 1, 99}}) {
		t.Fatalf("got %v %v", tuples(got), err)
	}
	// Ties: partition bytes, bucket, file name (Java order: "Z" < "a"; U+FFFF > U+10000), row.
	ties := []Position{
		pos(2, 0, "a", 0, 5), pos(1, 1, "a", 0, 5), pos(1, 0, "b", 0, 5), pos(1, 0, "a", 1, 5),
		pos(1, 0, "a", 0, 5), pos(1, 0, "Z", 9, 5), pos(1, 0, "\uffff", 0, 5), pos(1, 0, "\U00010000", 0, 5),
	}
	got, err = TopKByScore([][]Position{ties}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range got {
		order = append(order, string('0'+p.Partition[12])+"/"+string('0'+byte(p.Bucket))+"/"+p.DataFile+"/"+string('0'+byte(p.RowPosition)))
	}
	want := []string{"1/0/Z/9", "1/0/a/0", "1/0/a/1", "1/0/b/0", "1/0/\U00010000/0", "1/0/\uffff/0", "1/1/a/0", "2/0/a/0"}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Fatalf("order %q, want %q", order, want)
	}
	// Duplicates keep their best entry; -0.0 ranks below 0.0 (Float.compare).
	got, err = TopKByScore([][]Position{{pos(0, 0, "a", 0, 1), pos(0, 0, "b", 0, float32(math.Copysign(0, -1)))}, {pos(0, 0, "a", 0, 3), pos(0, 0, "c", 0, 0)}}, 10)
	if err != nil || !slices.Equal(tuples(got)[:2], []posTuple{{"a", 0, 3}, {"c", 0, 0}}) || len(got) != 3 || got[2].DataFile != "b" {
		t.Fatalf("got %v %v", tuples(got), err)
	}
	if _, err := TopKByScore(nil, 0); err == nil {
		t.Fatal("limit 0: want an error")
	}
}

// TestTopKByScoreMerges: rankings each sorted as an archive's are merged to the same positions, in
// the same order, as pooling and sorting them gives, with positions in several rankings (their
// best entry kept, also when scores tie) and limits below, at and above the positions there are.
func TestTopKByScoreMerges(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 200 {
		rankings := make([][]Position, r.IntN(6))
		for a := range rankings {
			for range r.IntN(40) {
				// Few files, rows and scores: positions repeat across rankings and scores tie.
				rankings[a] = append(rankings[a], Position{Bucket: int32(r.IntN(2)), DataFile: fmt.Sprintf("data-%d", r.IntN(3)),
					RowPosition: int64(r.IntN(20)), Score: float32(r.IntN(8)) / 2})
			}
			// An archive's ranking: one bucket (rankings of one bucket share positions), in
			// localOrder. Every fourth round mixes buckets in a ranking, which is then not in the
			// merge's order: TopKByScore pools and sorts.
			if round%4 != 0 {
				for i := range rankings[a] {
					rankings[a][i].Bucket = int32(a % 2)
				}
			}
			slices.SortFunc(rankings[a], func(x, y Position) int { return localOrder(&x, &y) })
		}
		for _, limit := range []int{1, 5, 30, 1000} {
			got, err := TopKByScore(rankings, limit)
			if err != nil {
				t.Fatal(err)
			}
			want := topKBySorting(rankings, limit)
			if !slices.EqualFunc(got, want, func(a, b Position) bool { return bestFirst(&a, &b) == 0 }) {
				t.Fatalf("round %d limit %d: merged %v, sorted %v", round, limit, tuples(got), tuples(want))
			}
		}
	}
}
