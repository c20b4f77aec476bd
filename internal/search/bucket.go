package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// ArchiveOpener opens the archive of payload, one of split's current archives, for searching.
// The caller closes the returned reader once its search is done.
type ArchiveOpener func(ctx context.Context, split *Split, payload *meta.IndexFileMeta) (fulltext.Reader, error)

// BucketSearch searches the current archives of one bucket and maps their hits back to data
// file rows (Java PrimaryKeyFullTextBucketSearch).
type BucketSearch struct {
	// Open opens one archive.
	Open ArchiveOpener
	// Parallelism bounds how many archives are searched at once; <= 0 means one at a time.
	Parallelism int
}

// sourceRange is one source file of an archive: its row ids are [offset, offset+rowCount).
type sourceRange struct {
	file     string
	offset   int64
	rowCount int64
	active   bool
}

// archiveRequest is one archive to search: its sources, total row count and, when rows must be
// excluded, the row ids that may be returned.
type archiveRequest struct {
	split   *Split
	payload *meta.IndexFileMeta
	sources []sourceRange
	total   int64
	include *roaring64.Bitmap
}

// Search is SearchRankings followed by TopKByScore (Java PrimaryKeyFullTextBucketSearch#search).
func (s *BucketSearch) Search(ctx context.Context, split *Split, deletions map[string]dv.DeletionVector, query string, limit int) ([]Position, error) {
	rankings, err := s.SearchRankings(ctx, split, deletions, query, limit)
	if err != nil || len(rankings) == 0 {
		return nil, err
	}
	return TopKByScore(rankings, limit)
}

// SearchRankings searches every archive of split with query and limit and returns one ranking
// per archive that was searched, each ordered by score (descending), data file name and row
// position (Java PrimaryKeyFullTextBucketSearch#searchRankings). deletions holds the deletion
// vectors of split's data files by file name.
//
// When a source file of an archive is no longer active or has deleted rows, the archive is
// searched with a filter admitting only the live rows of its active sources (built from ranges,
// without enumerating live rows), and an archive whose filter is empty is not opened at all.
// Returned row ids outside the archive, or in an inactive source, are errors; hits outside the
// filter are dropped.
func (s *BucketSearch) SearchRankings(ctx context.Context, split *Split, deletions map[string]dv.DeletionVector, query string, limit int) ([][]Position, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("full-text search limit must be positive: %d", limit)
	}
	reqs, err := prepare(split, deletions)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, reqs, query, limit)
}

// prepare resolves the archives of split into requests.
func prepare(split *Split, deletions map[string]dv.DeletionVector) ([]*archiveRequest, error) {
	files := make(map[string]*meta.DataFileMeta, len(split.DataFiles))
	for _, f := range split.DataFiles {
		if _, dup := files[f.FileName]; dup {
			return nil, fmt.Errorf("duplicate full-text source file %s", f.FileName)
		}
		files[f.FileName] = f
	}
	var reqs []*archiveRequest
	for _, payload := range split.Payloads {
		if payload.GlobalIndex == nil {
			return nil, fmt.Errorf("full-text archive %s has no global index meta", payload.FileName)
		}
		sm, err := pkindex.SourceMetaFromIndexFile(payload.FileName, payload.GlobalIndex.SourceMeta)
		if err != nil {
			return nil, err
		}
		req := &archiveRequest{split: split, payload: payload}
		needsInclude := false
		for _, src := range sm.SourceFiles() {
			f := files[src.FileName()]
			if f != nil && src.RowCount() != f.RowCount {
				return nil, fmt.Errorf("full-text payload %s source row count does not match data file %s", payload.FileName, src.FileName())
			}
			if d := deletions[src.FileName()]; f == nil || (d != nil && !d.IsEmpty()) {
				needsInclude = true
			}
			req.sources = append(req.sources, sourceRange{file: src.FileName(), offset: req.total, rowCount: src.RowCount(), active: f != nil})
			if req.total > math.MaxInt64-src.RowCount() {
				return nil, fmt.Errorf("full-text payload %s: source row count overflows a long", payload.FileName)
			}
			req.total += src.RowCount()
		}
		if needsInclude {
			if req.include, err = liveRows(req.sources, deletions); err != nil {
				return nil, err
			}
			if req.include.IsEmpty() {
				continue
			}
		}
		reqs = append(reqs, req)
	}
	return reqs, nil
}

// liveRows is the archive row ids of the active sources' rows that no deletion vector deletes.
func liveRows(sources []sourceRange, deletions map[string]dv.DeletionVector) (*roaring64.Bitmap, error) {
	include := roaring64.New()
	deleted := roaring64.New()
	for _, src := range sources {
		if !src.active {
			continue
		}
		if src.rowCount > 0 {
			include.AddRange(uint64(src.offset), uint64(src.offset+src.rowCount))
		}
		d := deletions[src.file]
		if d == nil || d.IsEmpty() {
			continue
		}
		for pos := range d.Positions() {
			if pos < 0 || pos >= src.rowCount {
				return nil, fmt.Errorf("deletion vector contains invalid row position %d", pos)
			}
			deleted.Add(uint64(src.offset + pos))
		}
	}
	include.AndNot(deleted)
	return include, nil
}

// run searches reqs with bounded parallelism and maps each archive's hits to a ranking, in
// request order. Every opened reader is closed.
func (s *BucketSearch) run(ctx context.Context, reqs []*archiveRequest, query string, limit int) ([][]Position, error) {
	if s.Open == nil {
		return nil, fmt.Errorf("full-text search: no archive opener")
	}
	rankings := make([][]Position, len(reqs))
	// firstErr is the first failure; the searches it cancels fail with the cancellation, which
	// must not hide it.
	var (
		errMu    sync.Mutex
		firstErr error
	)
	par := max(s.Parallelism, 1)
	sem := make(chan struct{}, par)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i, req := range reqs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var err error
			if rankings[i], err = s.searchOne(ctx, req, query, limit); err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rankings, nil
}

func (s *BucketSearch) searchOne(ctx context.Context, req *archiveRequest, query string, limit int) (_ []Position, err error) {
	r, err := s.Open(ctx, req.split, req.payload)
	if err != nil {
		return nil, fmt.Errorf("open full-text archive %s: %w", req.payload.FileName, err)
	}
	defer func() {
		if cerr := r.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close full-text archive %s: %w", req.payload.FileName, cerr)
		}
	}()
	var hits []fulltext.Hit
	if req.include != nil {
		hits, err = r.SearchFiltered(ctx, query, limit, req.include)
	} else {
		hits, err = r.Search(ctx, query, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("search full-text archive %s: %w", req.payload.FileName, err)
	}
	return req.rank(hits)
}

// rank maps one archive's hits to positions in the archive-local order.
func (req *archiveRequest) rank(hits []fulltext.Hit) ([]Position, error) {
	ranking := make([]Position, 0, len(hits))
	for _, h := range hits {
		if h.RowID < 0 || h.RowID >= req.total {
			return nil, fmt.Errorf("full-text index returned archive row position %d outside row count %d", h.RowID, req.total)
		}
		if req.include != nil && !req.include.Contains(uint64(h.RowID)) {
			continue
		}
		i := sort.Search(len(req.sources), func(i int) bool {
			if mutation.On("boundary-row-previous-file") {
				// The first row of a source is taken for one past the previous source's last.
				return req.sources[i].offset+req.sources[i].rowCount >= h.RowID
			}
			return req.sources[i].offset+req.sources[i].rowCount > h.RowID
		})
		if i == len(req.sources) || !req.sources[i].active {
			return nil, fmt.Errorf("full-text index returned row position %d from an inactive source", h.RowID)
		}
		src := req.sources[i]
		p, err := newPosition(req.split.Partition, req.split.Bucket, src.file, h.RowID-src.offset, h.Score)
		if err != nil {
			return nil, fmt.Errorf("full-text archive %s: %w", req.payload.FileName, err)
		}
		ranking = append(ranking, p)
	}
	slices.SortFunc(ranking, func(a, b Position) int { return localOrder(&a, &b) })
	return ranking, nil
}
