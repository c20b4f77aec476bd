// Package datafile reads the indexed column of one primary-key data file with each row's
// physical position, as Java's PkSortedDataFileReader does: every physical row in file order
// (deleted and retracted rows included, since row ids are positions and deletion vectors apply
// at read time), a null value for a null cell, and an error when the file holds more or fewer
// rows than its metadata declares. Only the indexed column's chunks are read
// (kvfile.ColumnReader).
package datafile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// Entry is one row: the indexed value (nil for null) and its position in the file.
type Entry struct {
	Value    any
	Position int64
}

// Reader streams the entries of one data file.
type Reader struct {
	kv   *kvfile.ColumnReader
	file *meta.DataFileMeta
	read int64
}

// Open opens the data file at path (described by file) written with layout's table, reading the
// value field with id fieldID.
func Open(ctx context.Context, fio fileio.FileIO, path string, file *meta.DataFileMeta, layout *kvfile.Layout, fieldID int) (*Reader, error) {
	kv, err := kvfile.OpenColumns(ctx, fio, path, file.FileName, layout, fieldID)
	if err != nil {
		return nil, fmt.Errorf("sorted index reader: %w", err)
	}
	return &Reader{kv: kv, file: file}, nil
}

// RowCount returns the declared row count.
func (r *Reader) RowCount() int64 { return r.file.RowCount }

// Next returns the next entry; ok is false after the last declared row.
func (r *Reader) Next(ctx context.Context) (e Entry, ok bool, err error) {
	if r.read == r.file.RowCount {
		if err := r.noMore(ctx); err != nil {
			return Entry{}, false, err
		}
		return Entry{}, false, nil
	}
	values, pos, err := r.kv.Next(ctx)
	if errors.Is(err, io.EOF) {
		return Entry{}, false, fmt.Errorf("data file %s ended before its declared row count %d", r.file.FileName, r.file.RowCount)
	}
	if err != nil {
		return Entry{}, false, err
	}
	if pos != r.read {
		return Entry{}, false, fmt.Errorf("data file %s: row position %d, expected %d", r.file.FileName, pos, r.read)
	}
	r.read++
	if r.read == r.file.RowCount {
		if err := r.noMore(ctx); err != nil {
			return Entry{}, false, err
		}
	}
	return Entry{Value: values[0], Position: pos}, true, nil
}

func (r *Reader) noMore(ctx context.Context) error {
	_, _, err := r.kv.Next(ctx)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("data file %s contains more rows than declared (%d)", r.file.FileName, r.file.RowCount)
}

// Close closes the file.
func (r *Reader) Close() error { return r.kv.Close() }
