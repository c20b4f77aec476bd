// Package indexfile builds one sorted-family payload (a btree or bitmap global index file) over
// the value-sorted rows of one data level, as Java's PkSortedIndexFile#build does: row ids are
// positions in the level's files concatenated in source order, the payload records its
// SortedIndexFileMeta and the level's PrimaryKeyIndexSourceMeta in its GlobalIndexMeta, and a
// failed build leaves no file behind.
package indexfile

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The sorted-family index types.
const (
	TypeBTree  = btree.Identifier
	TypeBitmap = bitmap.Identifier
)

// Entry is one row of the level: its indexed value (nil for null) and its row id in the level.
type Entry struct {
	Value any
	RowID int64
}

// IndexFile writes sorted-family payloads through FileIO at paths from Paths.
type IndexFile struct {
	FileIO fileio.FileIO
	Paths  paths.IndexPathFactory
}

// DeleteIndexFile deletes the payload file describes, at its recorded external path or in the
// index directory, quietly like Java's IndexFile#delete (PkSortedIndexFile inherits it): it never
// fails, a file that cannot be deleted is left behind as an orphan.
func (f *IndexFile) DeleteIndexFile(ctx context.Context, file *meta.IndexFileMeta) error {
	pkindex.DeleteIndexFileQuietly(ctx, f.FileIO, f.Paths, file)
	return nil
}

var _ pkindex.IndexFileDeleter = (*IndexFile)(nil)

// rowWriter is what both formats' writers offer the build.
type rowWriter interface {
	Write(key any, rowID int64) error
	finish() (filemeta.Meta, int64, bool, error)
}

type btreeWriter struct{ *btree.Writer }

func (w btreeWriter) finish() (filemeta.Meta, int64, bool, error) {
	r, err := w.Finish()
	return r.Meta, r.RowCount, err == nil, err
}

type bitmapWriter struct{ *bitmap.Writer }

func (w bitmapWriter) finish() (filemeta.Meta, int64, bool, error) {
	r, ok, err := w.Finish()
	return r.Meta, r.RowCount, ok, err
}

// Build writes the payload of indexType ("btree" or "bitmap") for field over entries, which must
// come in the field's value order (nulls anywhere) and number exactly the sources' rows, each
// row id in [0, rows). options are the index's format options (see btree.ParseOptions and
// bitmap.ParseOptions).
func (f *IndexFile) Build(ctx context.Context, dataLevel int32, sources []pkindex.SourceFile, field types.DataField,
	indexType string, options map[string]string, entries iter.Seq2[Entry, error]) (_ *meta.IndexFileMeta, err error) {
	var rows int64
	for _, s := range sources {
		if s.RowCount() > math.MaxInt64-rows {
			return nil, errors.New("sorted index: source row counts overflow")
		}
		rows += s.RowCount()
	}
	if rows <= 0 {
		return nil, errors.New("sorted index: a sorted index group must reference at least one source row")
	}
	sm, err := pkindex.NewSourceMeta(dataLevel, sources)
	if err != nil {
		return nil, fmt.Errorf("sorted index: %w", err)
	}
	sourceMeta, err := sm.Encode()
	if err != nil {
		return nil, fmt.Errorf("sorted index: %w", err)
	}
	ser, err := sortkey.New(field.Type)
	if err != nil {
		return nil, fmt.Errorf("sorted index on %s: %w", field.Name, err)
	}
	path := f.Paths.NewPath()
	out, err := f.FileIO.Create(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("create sorted index payload %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = out.Abort()
			f.FileIO.DeleteQuietly(context.WithoutCancel(ctx), path)
		}
	}()
	var w rowWriter
	switch indexType {
	case TypeBTree:
		opts, err := btree.ParseOptions(options)
		if err != nil {
			return nil, err
		}
		bw, err := btree.NewWriter(out, ser, opts)
		if err != nil {
			return nil, err
		}
		w = btreeWriter{bw}
	case TypeBitmap:
		opts, err := bitmap.ParseOptions(options)
		if err != nil {
			return nil, err
		}
		bw, err := bitmap.NewWriter(out, ser, opts)
		if err != nil {
			return nil, err
		}
		w = bitmapWriter{bw}
	default:
		return nil, fmt.Errorf("sorted index: unknown index type %q", indexType)
	}
	var written int64
	for e, err := range entries {
		if err != nil {
			return nil, fmt.Errorf("sorted index input: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.RowID < 0 || e.RowID >= rows {
			return nil, fmt.Errorf("sorted index: row id %d is outside sorted index group row range [0, %d)", e.RowID, rows)
		}
		if err := w.Write(e.Value, e.RowID); err != nil {
			return nil, err
		}
		written++
	}
	if written != rows {
		return nil, fmt.Errorf("sorted index: input row count %d does not match source row count %d", written, rows)
	}
	fm, count, ok, err := w.finish()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("sorted index: build must produce exactly one payload file, but produced 0")
	}
	if count != rows {
		return nil, fmt.Errorf("sorted index: payload row count %d does not match source row count %d", count, rows)
	}
	if err = out.Commit(ctx); err != nil {
		return nil, fmt.Errorf("publish sorted index payload %s: %w", path, err)
	}
	size, err := f.FileIO.FileSize(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("stat sorted index payload %s: %w", path, err)
	}
	p := &meta.IndexFileMeta{
		IndexType: indexType,
		FileName:  paths.Name(path),
		FileSize:  size,
		RowCount:  rows,
		GlobalIndex: &meta.GlobalIndexMeta{
			RowRangeEnd:  rows - 1,
			IndexFieldID: int32(field.ID),
			IndexMeta:    fm.Encode(),
			SourceMeta:   sourceMeta,
		},
	}
	if f.Paths.IsExternalPath() {
		p.ExternalPath = &path
	}
	return p, nil
}
