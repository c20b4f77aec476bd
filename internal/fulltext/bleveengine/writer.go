package bleveengine

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// Writer collects the documents of one archive. Its methods serialize concurrent callers.
type Writer struct {
	mu      sync.Mutex
	done    bool
	options []fulltext.Option
	docs    []doc
	seen    map[int64]struct{}
}

var _ fulltext.Writer = (*Writer)(nil)

// NewWriter validates options (see the package documentation) and returns an empty writer.
func NewWriter(options []fulltext.Option) (*Writer, error) {
	if _, err := parseOptions(options); err != nil {
		return nil, fmt.Errorf("open bleve-engine writer: %w", err)
	}
	return &Writer{options: slices.Clone(options), seen: make(map[int64]struct{})}, nil
}

// Add records text under rowID. Like the native engine it refuses texts that are not valid
// UTF-8 or contain NUL bytes; it also refuses negative and repeated row ids, which no archive
// builder should produce.
func (w *Writer) Add(rowID int64, text string) error {
	if rowID < 0 {
		return fmt.Errorf("add row %d: negative row id", rowID)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("add row %d: text is not valid UTF-8", rowID)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return fmt.Errorf("add row %d: text contains a NUL byte, which the native engine cannot carry", rowID)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return ErrClosed
	}
	if _, dup := w.seen[rowID]; dup {
		return fmt.Errorf("add row %d: row id added twice", rowID)
	}
	w.seen[rowID] = struct{}{}
	w.docs = append(w.docs, doc{rowID: rowID, text: text})
	return nil
}

// cancelCheckEvery is how many documents WriteTo writes between checks of its context.
const cancelCheckEvery = 1024

// WriteTo writes the archive to out and returns the bytes written. Documents are written in row
// id order, so the same documents give the same bytes whatever order they were added in. The
// writer is finished afterwards whatever the outcome; on error the output is partial.
func (w *Writer) WriteTo(ctx context.Context, out io.Writer) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0, ErrClosed
	}
	docs, options := w.docs, w.options
	w.done, w.docs, w.options, w.seen = true, nil, nil, nil
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	slices.SortFunc(docs, func(a, b doc) int { return cmp.Compare(a.rowID, b.rowID) })

	cw := &countingWriter{w: out}
	e := &encoder{w: bufio.NewWriter(cw), crc: crc32.New(castagnoli)}
	e.write([]byte(Magic))
	e.u32(FormatVersion)
	e.u32(uint32(len(options)))
	for _, o := range options {
		e.str(o.Key)
		e.str(o.Value)
	}
	e.u64(uint64(len(docs)))
	for i, d := range docs {
		if i%cancelCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return cw.n, fmt.Errorf("write bleve-engine archive: %w", err)
			}
		}
		e.u64(uint64(d.rowID))
		e.str(d.text)
	}
	e.u32(e.crc.Sum32())
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if e.err != nil {
		return cw.n, fmt.Errorf("write bleve-engine archive: %w", e.err)
	}
	return cw.n, nil
}

// Close releases the writer without writing. It is safe to call more than once and after
// WriteTo.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done, w.docs, w.options, w.seen = true, nil, nil, nil
	return nil
}
