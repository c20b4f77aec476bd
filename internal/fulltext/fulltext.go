// Package fulltext defines what pkft needs from a full-text archive engine: a writer that turns
// (row id, text) pairs into one immutable archive, and a reader that searches an archive and
// returns scored row ids. The engine that Paimon tables use is paimon-ftindex (package
// fulltext/native); other implementations exist only for tests and as oracles.
package fulltext

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Option is one analyzer or engine option, as the engine receives it (for example
// "tokenizer" = "ngram"). Options are kept in a slice because the order in which Paimon records
// them in the index meta is significant.
type Option struct {
	Key   string
	Value string
}

// Hit is one search result: the archive-relative row id and its relevance score.
type Hit struct {
	RowID int64
	Score float32
}

// Writer collects documents for one archive and writes the archive once.
type Writer interface {
	// Add indexes text under rowID. Row ids need not be contiguous: rows whose text is null are
	// simply not added.
	Add(rowID int64, text string) error
	// WriteTo finalizes the archive and streams it to w. The writer cannot be used afterwards,
	// whether or not WriteTo succeeded.
	WriteTo(ctx context.Context, w io.Writer) (int64, error)
	// Close releases the writer. It is safe to call more than once and after WriteTo.
	Close() error
}

// Reader searches one archive. Implementations are safe for concurrent searches.
type Reader interface {
	// Search runs a query (the engine's JSON query language) and returns at most limit hits,
	// best first.
	Search(ctx context.Context, query string, limit int) ([]Hit, error)
	// SearchFiltered is Search restricted to the row ids in allowed.
	SearchFiltered(ctx context.Context, query string, limit int, allowed *roaring64.Bitmap) ([]Hit, error)
	// Close releases the reader, waiting for searches in flight.
	Close() error
}

// Engine opens writers and readers of one archive format.
type Engine interface {
	NewWriter(options []Option) (Writer, error)
	OpenReader(ctx context.Context, r io.ReaderAt, size int64) (Reader, error)
}

// maxQuoted is how many bytes of a query an error message quotes.
const maxQuoted = 120

// QuoteQuery quotes a query for an error message: in full when short, otherwise its first
// bytes (cut at a character boundary) and its total length, so a huge query does not flood the
// message.
func QuoteQuery(q string) string {
	if len(q) <= maxQuoted {
		return strconv.Quote(q)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(q[:cut]), len(q))
}
