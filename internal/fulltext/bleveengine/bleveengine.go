// Package bleveengine is a pure-Go implementation of fulltext.Engine on bleve v2. It exists for
// two reasons: unit tests of the code that builds archives need a real full-text engine without
// cgo or the native library, and an independent engine is an oracle for the native one
// (paimon-ftindex, package fulltext/native).
//
// Its archives are NOT paimon-ftindex archives and are never written into a Paimon table: no
// Java or native reader can open them, and none of the code that publishes index files may be
// handed this engine outside tests.
//
// # Archive format, version 1
//
// All integers are big-endian; a string is a uint32 byte length followed by that many bytes of
// UTF-8.
//
//	magic     8 bytes  "PKFTBLV\x00"
//	version   uint32   1
//	nopts     uint32   number of options
//	options   nopts x (key string, value string), in the order the writer received them
//	ndocs     uint64   number of documents
//	docs      ndocs x (row id int64, text string), row ids non-negative and strictly increasing
//	checksum  uint32   CRC-32C (Castagnoli) of every preceding byte
//
// The archive stores the raw (row id, text) pairs, not an index: OpenReader rebuilds an
// in-memory bleve index from them, so the format does not depend on bleve's own index format.
//
// # Options
//
// Option keys and defaults follow paimon-ftindex 0.1.0: a "fulltext." or "tantivy." prefix is
// stripped, keys are trimmed and lower-cased, and the defaults are tokenizer=default,
// lower-case=true, stem=true, language=english, remove-stop-words=true, ascii-folding=true,
// max-token-length=40, with-position=true. The analysis chain runs in the native engine's order:
// tokenizer, drop tokens of max-token-length bytes or more, lower-case, English Snowball
// stemmer, Snowball English stop words plus stop-words (';'-separated), ASCII folding.
// Tokenizers: whitespace splits on ASCII whitespace only (space, \t, \n, \f, \r), as tantivy's
// WhitespaceTokenizer does, using bleve's character tokenizer (bleve's own whitespace tokenizer
// would also split on U+00A0, U+3000 and other Unicode spaces); default and simple
// are bleve's Unicode (UAX #29) tokenizer, which differs from tantivy's SimpleTokenizer notably
// for CJK text; raw keeps the whole text as one token. text-field, text-fields and columns name
// the one text column (default "text"). The ngram and jieba tokenizers and their options, other
// languages, more than one text column and unknown keys are rejected with an error wrapping
// ErrUnsupportedOption or naming the option, never ignored.
//
// # Queries
//
// Search accepts the native engine's JSON query language for the shapes
//
//	{"match":{"query":"...","column":"...","operator":"or"|"and","boost":1.0}}
//	{"match_phrase":{"query":"...","column":"..."}}   (alias "phrase"; slop 0 only)
//	{"boolean":{"must":[...],"should":[...],"must_not":[...]}}
//
// and rejects every other shape or field with an error. Match terms are analyzed like the
// indexed text and OR'ed (or AND'ed). Scores are bleve's and are not comparable to the native
// engine's; hits are ordered by score descending, then row id ascending.
package bleveengine

import (
	"context"
	"errors"
	"io"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// ErrClosed reports use of a writer after WriteTo or Close, or of a reader after Close.
var ErrClosed = errors.New("bleve-engine handle is closed")

// Engine is the bleve implementation of fulltext.Engine. Its zero value is ready to use and it
// holds no state.
type Engine struct{}

var _ fulltext.Engine = Engine{}

// NewWriter implements fulltext.Engine: it validates options and returns a writer.
func (Engine) NewWriter(options []fulltext.Option) (fulltext.Writer, error) {
	return NewWriter(options)
}

// OpenReader implements fulltext.Engine: it decodes the archive and indexes it in memory.
func (Engine) OpenReader(ctx context.Context, r io.ReaderAt, size int64) (fulltext.Reader, error) {
	return OpenReader(ctx, r, size)
}
