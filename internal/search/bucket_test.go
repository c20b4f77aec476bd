package search

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// --- Ports of PrimaryKeyFullTextBucketSearchTest (release-2.0.0) ---

func TestBucketSearch_FiltersDeletedRowsAndSelectsGlobalScores(t *testing.T) {
	split := &Split{
		DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact()), dataFile("b", 1, 3, compact())},
		Payloads:  []*meta.IndexFileMeta{payload(t, "index-a", testFieldID, "a", 3), payload(t, "index-b", testFieldID, "b", 3)},
	}
	closes := map[string]*atomic.Int32{"index-a": {}, "index-b": {}}
	bs := &BucketSearch{Open: func(ctx context.Context, s *Split, p *meta.IndexFileMeta) (fulltext.Reader, error) {
		if p.FileName == "index-a" {
			return scores(closes[p.FileName], 0, 10, 1, 9, 2, 8), nil
		}
		return scores(closes[p.FileName], 0, 4), nil
	}}

	got, err := bs.Search(context.Background(), split, deletions(t, "a", 0), "hello", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []posTuple{{"a", 1, 9}, {"a", 2, 8}, {"b", 0, 4}}
	if !slices.Equal(tuples(got), want) {
		t.Fatalf("got %v, want %v", tuples(got), want)
	}
	for name, c := range closes {
		if c.Load() != 1 {
			t.Fatalf("%s closed %d times, want 1", name, c.Load())
		}
	}
}

func TestBucketSearch_OrdersEachPayloadByScore(t *testing.T) {
	var closes atomic.Int32
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		return scores(&closes, 0, 1, 2, 10), nil
	}}
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index-a", testFieldID, "a", 3)}}

	rankings, err := bs.SearchRankings(context.Background(), split, nil, "hello", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rankings) != 1 || !slices.Equal(tuples(rankings[0]), []posTuple{{"a", 2, 10}, {"a", 0, 1}}) {
		t.Fatalf("rankings = %v", rankings)
	}
	if closes.Load() != 1 {
		t.Fatalf("closed %d times", closes.Load())
	}
}

// TestBucketSearch_TiesOrderByFileThenRow: hits of equal score are ordered by data file name
// first and row position second (the engine returns them in another order here).
func TestBucketSearch_TiesOrderByFileThenRow(t *testing.T) {
	var closes atomic.Int32
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		return scores(&closes, 3, 5, 2, 5, 1, 5), nil // b:0, a:2, a:1
	}}
	split := &Split{
		DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact()), dataFile("b", 1, 3, compact())},
		Payloads:  []*meta.IndexFileMeta{payload(t, "index-ab", testFieldID, "a", 3, "b", 3)},
	}
	rankings, err := bs.SearchRankings(context.Background(), split, nil, "hello", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rankings) != 1 || !slices.Equal(tuples(rankings[0]), []posTuple{{"a", 1, 5}, {"a", 2, 5}, {"b", 0, 5}}) {
		t.Fatalf("rankings = %v", rankings)
	}
}

func TestBucketSearch_MapsMultiSourceRowsAndShiftsDeletionVectors(t *testing.T) {
	var closes atomic.Int32
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		return scores(&closes, 0, 10, 3, 9, 4, 8, 5, 7), nil
	}}
	split := &Split{
		DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact()), dataFile("b", 1, 3, compact())},
		Payloads:  []*meta.IndexFileMeta{payload(t, "index-ab", testFieldID, "a", 3, "b", 3)},
	}

	rankings, err := bs.SearchRankings(context.Background(), split, deletions(t, "b", 1), "hello", 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []posTuple{{"a", 0, 10}, {"b", 0, 9}, {"b", 2, 7}}
	if len(rankings) != 1 || !slices.Equal(tuples(rankings[0]), want) {
		t.Fatalf("rankings = %v, want %v", rankings, want)
	}
	if closes.Load() != 1 {
		t.Fatalf("closed %d times", closes.Load())
	}
}

func TestBucketSearch_BuildsDeletionVectorIncludeWithoutEnumeratingLiveRows(t *testing.T) {
	const rows = 1_000_000_000
	var closes atomic.Int32
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		return scores(&closes), nil
	}}
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("large", 1, rows, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index-large", testFieldID, "large", rows)}}
	start := time.Now()
	if _, err := bs.SearchRankings(context.Background(), split, deletions(t, "large", 1), "hello", 1); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v, want under a second", d)
	}
	if closes.Load() != 1 {
		t.Fatalf("closed %d times", closes.Load())
	}
}

func TestBucketSearch_ClosesReaderAfterFailedSearch(t *testing.T) {
	var closes atomic.Int32
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		r := scores(&closes)
		r.fail = errBroken
		return r, nil
	}}
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index-a", testFieldID, "a", 3)}}
	_, err := bs.Search(context.Background(), split, nil, "hello", 1)
	wantErr(t, err, "broken")
	if closes.Load() != 1 {
		t.Fatalf("closed %d times", closes.Load())
	}
}

// --- Further rules read from PrimaryKeyFullTextBucketSearch ---

func TestBucketSearchFilterOnlyWhenNeeded(t *testing.T) {
	var closes, filtered atomic.Int32
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		r := scores(&closes, 0, 1)
		r.filtered = &filtered
		return r, nil
	}}
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index-a", testFieldID, "a", 3)}}
	// An empty deletion vector needs no filter.
	if _, err := bs.SearchRankings(context.Background(), split, deletions(t, "a"), "q", 5); err != nil {
		t.Fatal(err)
	}
	if filtered.Load() != 0 {
		t.Fatalf("searched with a filter although nothing is deleted")
	}
	if _, err := bs.SearchRankings(context.Background(), split, deletions(t, "a", 2), "q", 5); err != nil {
		t.Fatal(err)
	}
	if filtered.Load() != 1 {
		t.Fatalf("searched without a filter although a row is deleted")
	}
}

func TestBucketSearchSkipsArchiveWithoutLiveRows(t *testing.T) {
	opened := 0
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		opened++
		return nil, errBroken
	}}
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 2, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index-a", testFieldID, "a", 2)}}
	rankings, err := bs.SearchRankings(context.Background(), split, deletions(t, "a", 0, 1), "q", 5)
	if err != nil || len(rankings) != 0 || opened != 0 {
		t.Fatalf("rankings %v, err %v, opened %d: want nothing searched", rankings, err, opened)
	}
}

func TestBucketSearchInactiveSource(t *testing.T) {
	var closes atomic.Int32
	// The archive covers a and gone; gone is not in the split, so its rows are excluded by the
	// filter, and a hit in it that slips through is an error.
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 2, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index", testFieldID, "a", 2, "gone", 2)}}
	bs := &BucketSearch{Open: func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) {
		return scores(&closes, 3, 5, 1, 4), nil
	}}
	got, err := bs.Search(context.Background(), split, nil, "q", 5)
	if err != nil || !slices.Equal(tuples(got), []posTuple{{"a", 1, 4}}) {
		t.Fatalf("got %v, %v", tuples(got), err)
	}
	req := &archiveRequest{split: split, payload: split.Payloads[0], sources: []sourceRange{{"a", 0, 2, true}, {"gone", 2, 2, false}}, total: 4}
	_, err = req.rank([]fulltext.Hit{{RowID: 3, Score: 1}})
	wantErr(t, err, "inactive source")
}

func TestBucketSearchErrors(t *testing.T) {
	var closes atomic.Int32
	open := func(r *fakeReader) ArchiveOpener {
		return func(context.Context, *Split, *meta.IndexFileMeta) (fulltext.Reader, error) { return r, nil }
	}
	split := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact())}, Payloads: []*meta.IndexFileMeta{payload(t, "index-a", testFieldID, "a", 3)}}
	ctx := context.Background()

	_, err := (&BucketSearch{Open: open(scores(&closes, 3, 1))}).Search(ctx, split, nil, "q", 5)
	wantErr(t, err, "archive row position 3 outside row count 3")

	_, err = (&BucketSearch{Open: open(scores(&closes, 0, float32(nan())))}).Search(ctx, split, nil, "q", 5)
	wantErr(t, err, "finite")

	_, err = (&BucketSearch{Open: open(scores(&closes))}).Search(ctx, split, nil, "q", 0)
	wantErr(t, err, "limit must be positive")

	_, err = (&BucketSearch{Open: open(scores(&closes))}).SearchRankings(ctx, split, nil, "q", 0)
	wantErr(t, err, "limit must be positive")

	_, err = (&BucketSearch{Open: open(scores(&closes))}).Search(ctx, split, deletions(t, "a", 7), "q", 1)
	wantErr(t, err, "invalid row position 7")
	_, err = (&BucketSearch{Open: open(scores(&closes))}).Search(ctx, split, deletions(t, "a", 3), "q", 1)
	wantErr(t, err, "invalid row position 3")

	// Source row counts that sum to exactly MaxInt64 are an archive of that many rows; one more
	// overflows a long. (The sources are not active: nothing is opened.)
	large := func(first int) *Split {
		return &Split{DataFiles: split.DataFiles, Payloads: []*meta.IndexFileMeta{payload(t, "index-large", testFieldID, "gone-1", first, "gone-2", 3)}}
	}
	if _, err := (&BucketSearch{Open: open(scores(&closes))}).SearchRankings(ctx, large(math.MaxInt64-3), nil, "q", 1); err != nil {
		t.Fatalf("sources of MaxInt64 rows in all: %v", err)
	}
	_, err = (&BucketSearch{Open: open(scores(&closes))}).SearchRankings(ctx, large(math.MaxInt64-2), nil, "q", 1)
	wantErr(t, err, "source row count overflows a long")

	// A search that succeeded still fails when its archive does not close.
	closeFails := scores(&closes, 0, 1)
	closeFails.closeErr = errBroken
	_, err = (&BucketSearch{Open: open(closeFails)}).Search(ctx, split, nil, "q", 1)
	wantErr(t, err, "close full-text archive index-a")

	mismatch := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 4, compact())}, Payloads: split.Payloads}
	_, err = (&BucketSearch{Open: open(scores(&closes))}).Search(ctx, mismatch, nil, "q", 1)
	wantErr(t, err, "source row count does not match data file a")

	dup := &Split{DataFiles: []*meta.DataFileMeta{dataFile("a", 1, 3, compact()), dataFile("a", 1, 3, compact())}, Payloads: split.Payloads}
	_, err = (&BucketSearch{Open: open(scores(&closes))}).Search(ctx, dup, nil, "q", 1)
	wantErr(t, err, "duplicate full-text source file a")

	broken := payload(t, "index-a", testFieldID, "a", 3)
	broken.GlobalIndex.SourceMeta = []byte{0, 0, 0, 9}
	_, err = (&BucketSearch{Open: open(scores(&closes))}).Search(ctx, &Split{DataFiles: split.DataFiles, Payloads: []*meta.IndexFileMeta{broken}}, nil, "q", 1)
	if err == nil {
		t.Fatal("unparsable source meta: want an error")
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}
