package bleveengine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// Reader searches one archive through an in-memory bleve index. Searches may run concurrently;
// Close waits for them.
type Reader struct {
	cfg      config
	analyzer analysis.Analyzer
	ndocs    int

	mu  sync.RWMutex
	idx bleve.Index // nil once closed
}

var _ fulltext.Reader = (*Reader)(nil)

// indexBatch is how many documents go into one bleve batch; the context is checked between
// batches.
const indexBatch = 1000

// OpenReader decodes the archive held by r (size bytes), validates its options and builds an
// in-memory bleve index with one document per row (document id = row id). Corrupt archives give
// an error wrapping ErrCorrupt. r is not used after OpenReader returns.
func OpenReader(ctx context.Context, r io.ReaderAt, size int64) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("open bleve-engine archive: negative size %d", size)
	}
	options, docs, err := decodeArchive(r, size)
	if err != nil {
		return nil, fmt.Errorf("open bleve-engine archive: %w", err)
	}
	cfg, err := parseOptions(options)
	if err != nil {
		return nil, fmt.Errorf("open bleve-engine archive: %w", err)
	}
	an, err := cfg.analyzer()
	if err != nil {
		return nil, fmt.Errorf("open bleve-engine archive: %w", err)
	}
	idx, err := bleve.NewMemOnly(mapping.NewIndexMapping())
	if err != nil {
		return nil, fmt.Errorf("open bleve-engine archive: create index: %w", err)
	}
	opts := index.IndexField
	if cfg.withPosition {
		opts |= index.IncludeTermVectors
	}
	for start := 0; start < len(docs); start += indexBatch {
		if err := ctx.Err(); err != nil {
			idx.Close()
			return nil, err
		}
		b := idx.NewBatch()
		for _, d := range docs[start:min(start+indexBatch, len(docs))] {
			bd := document.NewDocument(docID(d.rowID))
			bd.AddField(document.NewTextFieldCustom(cfg.textField, nil, []byte(d.text), opts, an))
			if err := b.IndexAdvanced(bd); err != nil {
				idx.Close()
				return nil, fmt.Errorf("open bleve-engine archive: index row %d: %w", d.rowID, err)
			}
		}
		if err := idx.Batch(b); err != nil {
			idx.Close()
			return nil, fmt.Errorf("open bleve-engine archive: index rows from %d: %w", docs[start].rowID, err)
		}
	}
	return &Reader{cfg: cfg, analyzer: an, ndocs: len(docs), idx: idx}, nil
}

func docID(rowID int64) string { return strconv.FormatInt(rowID, 10) }

// Search runs query (see the package documentation for the shapes supported) and returns at
// most limit hits, best first. A limit of 0 returns no hits.
func (r *Reader) Search(ctx context.Context, query string, limit int) ([]fulltext.Hit, error) {
	return r.search(ctx, query, limit, nil)
}

// SearchFiltered is Search over the row ids in allowed only; a nil allowed allows nothing. Row
// ids in allowed that the archive does not hold are never hit. Scores are those of the
// unfiltered search.
func (r *Reader) SearchFiltered(ctx context.Context, query string, limit int, allowed *roaring64.Bitmap) ([]fulltext.Hit, error) {
	if allowed == nil {
		allowed = roaring64.New()
	}
	return r.search(ctx, query, limit, allowed)
}

func (r *Reader) search(ctx context.Context, query string, limit int, allowed *roaring64.Bitmap) ([]fulltext.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, fmt.Errorf("search: negative limit %d", limit)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.idx == nil {
		return nil, ErrClosed
	}
	q, err := r.buildQuery(query)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", query, err)
	}
	if limit == 0 || r.ndocs == 0 {
		return nil, nil
	}
	// Every match is collected and ordered here, so that the order (score as the float32 the
	// caller sees, then row id) and the cut at limit are exact, and the filter does not change
	// scores.
	req := bleve.NewSearchRequestOptions(q, r.ndocs, 0, false)
	res, err := r.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", query, err)
	}
	hits := make([]fulltext.Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		id, err := strconv.ParseInt(h.ID, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("search %s: document id %q: %w", query, h.ID, err)
		}
		if allowed != nil && !allowed.Contains(uint64(id)) {
			continue
		}
		hits = append(hits, fulltext.Hit{RowID: id, Score: float32(h.Score)})
	}
	slices.SortFunc(hits, func(a, b fulltext.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.RowID, b.RowID)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// Close releases the index once searches in flight have finished. It is safe to call more than
// once.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.idx == nil {
		return nil
	}
	err := r.idx.Close()
	r.idx = nil
	if err != nil {
		return fmt.Errorf("close bleve-engine reader: %w", err)
	}
	return nil
}
