// Package sortedfile reads one column's sorted global index spread over several btree or bitmap
// index files, as Paimon 2.0.0's SortedFileGlobalIndexReader does with LazyFilteredBTreeReader
// and LazyFilteredBitmapReader: a predicate first selects the files whose SortedIndexFileMeta
// (first key, last key, null flag) can hold a match (SortedFileMetaSelector), without opening
// any; each selected file is opened on first use, once per Reader, and answers the predicate
// over its own rows (so a complement such as NOT IN covers only that file's rows); the answers
// are unioned. Predicates an index cannot look up directly (ranges, endsWith, contains, like
// patterns that are no prefix) are answered by a fallback scan only while the selected files
// total at most the fallback budget; otherwise, or with the budget at 0, they are left
// unanswered, as Java returns them.
package sortedfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// File is one index file of the column.
type File struct {
	// Name identifies the file: a Reader opens each name at most once.
	Name string
	// Size is the file's length in bytes (what the fallback budget counts).
	Size int64
	// Meta is the file's encoded SortedIndexFileMeta (its GlobalIndexMeta index meta).
	Meta []byte
}

// OpenFunc opens an index file for random access.
type OpenFunc func(ctx context.Context, f File) (io.ReaderAt, io.Closer, error)

// Config says what the files index and how the Reader visits them.
type Config struct {
	// IndexType is btree.Identifier or bitmap.Identifier.
	IndexType string
	// Type is the indexed column's type.
	Type types.DataType
	// FallbackScanMaxSize is the fallback budget in bytes (see Budget); 0 or less disables the
	// fallback scans.
	FallbackScanMaxSize int64
	// Parallelism is the most files visited at once for one predicate; 1 or less visits them in
	// turn on the calling goroutine.
	Parallelism int
}

// Budget returns the fallback budget an index's resolved options set (Java's
// btree-index.fallback-scan-max-size or bitmap-index.fallback-scan-max-size, default 256 MiB).
func Budget(indexType string, opts map[string]string) (int64, error) {
	switch indexType {
	case btree.Identifier:
		return btree.FallbackScanMaxSize(opts)
	case bitmap.Identifier:
		return bitmap.FallbackScanMaxSize(opts)
	}
	return 0, fmt.Errorf("sorted index type %q is neither btree nor bitmap", indexType)
}

// fileReader is what both single-file readers answer.
type fileReader interface {
	Evaluate(p pred.Predicate) (*roaring64.Bitmap, error)
}

// indexFile is one file with its decoded meta and, once opened, its reader. mu serializes the
// file's opening and its queries (the single-file readers are not safe for concurrent use);
// different files are queried concurrently.
type indexFile struct {
	File
	meta        filemeta.Meta
	first, last any // decoded FirstKey and LastKey (nil when absent)

	mu     sync.Mutex
	rd     fileReader
	closer io.Closer
}

// Reader answers predicates over the files of one column. It is safe for concurrent use.
type Reader struct {
	cfg   Config
	ser   *sortkey.Serializer
	files []*indexFile
	open  OpenFunc

	mu     sync.Mutex
	closed bool
}

// New returns a Reader over files; nothing is opened yet. It fails on a file meta that does not
// decode, as Java's selector fails to deserialize it.
func New(cfg Config, files []File, open OpenFunc) (*Reader, error) {
	if cfg.IndexType != btree.Identifier && cfg.IndexType != bitmap.Identifier {
		return nil, fmt.Errorf("sorted index type %q is neither btree nor bitmap", cfg.IndexType)
	}
	if open == nil {
		return nil, errors.New("sorted index reader: no open function")
	}
	ser, err := sortkey.New(cfg.Type)
	if err != nil {
		return nil, err
	}
	r := &Reader{cfg: cfg, ser: ser, open: open}
	for _, f := range files {
		m, err := filemeta.Decode(f.Meta)
		if err != nil {
			return nil, fmt.Errorf("%s index file %s: %w", cfg.IndexType, f.Name, err)
		}
		fi := &indexFile{File: f, meta: m}
		if m.FirstKey != nil {
			if fi.first, err = ser.Decode(m.FirstKey); err != nil {
				return nil, fmt.Errorf("%s index file %s: first key: %w", cfg.IndexType, f.Name, err)
			}
		}
		if m.LastKey != nil {
			if fi.last, err = ser.Decode(m.LastKey); err != nil {
				return nil, fmt.Errorf("%s index file %s: last key: %w", cfg.IndexType, f.Name, err)
			}
		}
		r.files = append(r.files, fi)
	}
	return r, nil
}

// Close closes every opened file; the Reader answers nothing afterwards.
func (r *Reader) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	var errs []error
	for _, f := range r.files {
		f.mu.Lock()
		if f.closer != nil {
			if err := f.closer.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close %s index file %s: %w", r.cfg.IndexType, f.Name, err))
			}
		}
		f.rd, f.closer = nil, nil
		f.mu.Unlock()
	}
	return errors.Join(errs...)
}

func (r *Reader) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// reader opens f if it is not open yet; f.mu is held. A failed open is not remembered: the next
// query tries again, as Java's reader cache does.
func (r *Reader) reader(ctx context.Context, f *indexFile) (fileReader, error) {
	if f.rd != nil {
		return f.rd, nil
	}
	ra, c, err := r.open(ctx, f.File)
	if err != nil {
		return nil, fmt.Errorf("open %s index file %s: %w", r.cfg.IndexType, f.Name, err)
	}
	var rd fileReader
	switch r.cfg.IndexType {
	case btree.Identifier:
		rd, err = btree.Open(ra, f.Size, r.ser, f.meta)
	default:
		rd, err = bitmap.Open(ra, f.Size, r.ser)
	}
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		return nil, fmt.Errorf("%s index file %s: %w", r.cfg.IndexType, f.Name, err)
	}
	f.rd, f.closer = rd, c
	return rd, nil
}
