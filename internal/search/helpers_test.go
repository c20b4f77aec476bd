package search

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

const testFieldID = 7

// fakeReader returns fixed scores for fixed row ids, honouring the row-id filter as the engine
// does, and counts closes.
type fakeReader struct {
	scores   map[int64]float32
	order    []int64
	closes   *atomic.Int32
	fail     error
	closeErr error // what Close returns
	filtered *atomic.Int32
}

func (r *fakeReader) Search(ctx context.Context, q string, limit int) ([]fulltext.Hit, error) {
	return r.search(nil, limit)
}

func (r *fakeReader) SearchFiltered(ctx context.Context, q string, limit int, allowed *roaring64.Bitmap) ([]fulltext.Hit, error) {
	if r.filtered != nil {
		r.filtered.Add(1)
	}
	return r.search(allowed, limit)
}

func (r *fakeReader) search(allowed *roaring64.Bitmap, limit int) ([]fulltext.Hit, error) {
	if r.fail != nil {
		return nil, r.fail
	}
	var hits []fulltext.Hit
	for _, id := range r.order {
		if allowed == nil || allowed.Contains(uint64(id)) {
			hits = append(hits, fulltext.Hit{RowID: id, Score: r.scores[id]})
		}
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

func (r *fakeReader) Close() error {
	r.closes.Add(1)
	return r.closeErr
}

// scores builds a fake reader from (row id, score) pairs.
func scores(closes *atomic.Int32, pairs ...any) *fakeReader {
	r := &fakeReader{scores: map[int64]float32{}, closes: closes}
	for i := 0; i < len(pairs); i += 2 {
		id := int64(pairs[i].(int))
		r.order = append(r.order, id)
		switch s := pairs[i+1].(type) {
		case int:
			r.scores[id] = float32(s)
		case float64:
			r.scores[id] = float32(s)
		case float32:
			r.scores[id] = s
		}
	}
	return r
}

func compact() *meta.FileSource {
	s := meta.FileSourceCompact
	return &s
}

func appendSource() *meta.FileSource {
	s := meta.FileSourceAppend
	return &s
}

func dataFile(name string, level int32, rows int64, src *meta.FileSource) *meta.DataFileMeta {
	return &meta.DataFileMeta{FileName: name, Level: level, RowCount: rows, FileSource: src}
}

// payload builds a full-text archive meta over sources (name, rows) at level 1.
func payload(t testing.TB, name string, fieldID int32, sources ...any) *meta.IndexFileMeta {
	t.Helper()
	var files []pkindex.SourceFile
	var total int64
	for i := 0; i < len(sources); i += 2 {
		rows := int64(sources[i+1].(int))
		sf, err := pkindex.NewSourceFile(sources[i].(string), rows)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, sf)
		total += rows
	}
	sm, err := pkindex.NewSourceMeta(1, files)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sm.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return &meta.IndexFileMeta{IndexType: "full-text", FileName: name, FileSize: 100, RowCount: total,
		GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: 0, RowRangeEnd: total - 1, IndexFieldID: fieldID, SourceMeta: b}}
}

func deletions(t testing.TB, file string, positions ...int64) map[string]dv.DeletionVector {
	t.Helper()
	d := dv.NewBitmap32()
	for _, p := range positions {
		if err := d.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]dv.DeletionVector{file: d}
}

func wantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error containing %q, got none", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
}

var errBroken = errors.New("broken")

type posTuple struct {
	file  string
	row   int64
	score float32
}

func tuples(ps []Position) []posTuple {
	out := make([]posTuple, len(ps))
	for i, p := range ps {
		out[i] = posTuple{p.DataFile, p.RowPosition, p.Score}
	}
	return out
}
