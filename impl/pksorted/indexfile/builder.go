package indexfile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/pkindex"
	"github.com/paimon-pkft/pkft/impl/pksorted/datafile"
	"github.com/paimon-pkft/pkft/impl/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/impl/pksorted/sortorder"
	"github.com/paimon-pkft/pkft/impl/types"
)

// EntryReader streams one data file's indexed values with their positions (datafile.Reader).
type EntryReader interface {
	RowCount() int64
	Next(ctx context.Context) (datafile.Entry, bool, error)
	Close() error
}

// ReaderFactory opens an EntryReader per data file.
type ReaderFactory interface {
	Open(ctx context.Context, file *meta.DataFileMeta) (EntryReader, error)
}

// Builder builds one level's payload from its data files (Java's PkSortedIndexBuilder): files
// in name order, row ids as positions in their concatenation, rows ordered by value with
// Paimon's sort (nulls first, equal values in QuickSort's order), then IndexFile.Build.
//
// Unlike Java's, which spills to disk past write-buffer-size and then merges sorted runs, the
// Go builder sorts in memory: for levels beyond Java's sort buffer the row ids of equal keys
// may be listed in another order (the file still answers every predicate the same).
type Builder struct {
	IndexFile *IndexFile
	Readers   ReaderFactory
	Field     types.DataField
	IndexType string
	Options   map[string]string
}

// Build builds the payload of files, which must all be on one level above 0.
func (b *Builder) Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
	if len(files) == 0 {
		return nil, errors.New("sorted index: a build requires source files")
	}
	ordered := slices.Clone(files)
	slices.SortFunc(ordered, func(x, y *meta.DataFileMeta) int { return cmp.Compare(x.FileName, y.FileName) })
	level := ordered[0].Level
	if level <= 0 {
		return nil, errors.New("sorted index: a build requires a positive data level")
	}
	ser, err := sortkey.New(b.Field.Type)
	if err != nil {
		return nil, fmt.Errorf("sorted index on %s: %w", b.Field.Name, err)
	}
	var sources []pkindex.SourceFile
	var rows []Entry
	var offset int64
	for _, f := range ordered {
		if f.Level != level {
			return nil, fmt.Errorf("sorted index: a build cannot mix data levels %d and %d", level, f.Level)
		}
		sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			return nil, err
		}
		sources = append(sources, sf)
		if err := b.read(ctx, f, offset, &rows); err != nil {
			return nil, err
		}
		if f.RowCount > math.MaxInt64-offset {
			return nil, errors.New("sorted index: source row counts overflow")
		}
		offset += f.RowCount
	}
	SortLikeJava(ser, rows)
	return b.IndexFile.Build(ctx, level, sources, b.Field, b.IndexType, b.Options, func(yield func(Entry, error) bool) {
		for _, e := range rows {
			if !yield(e, nil) {
				return
			}
		}
	})
}

func (b *Builder) read(ctx context.Context, f *meta.DataFileMeta, offset int64, rows *[]Entry) error {
	r, err := b.Readers.Open(ctx, f)
	if err != nil {
		return fmt.Errorf("open sorted index reader of %s: %w", f.FileName, err)
	}
	defer r.Close()
	if r.RowCount() != f.RowCount {
		return fmt.Errorf("sorted reader row count %d does not match data file %s row count %d", r.RowCount(), f.FileName, f.RowCount)
	}
	for {
		e, ok, err := r.Next(ctx)
		if err != nil {
			return fmt.Errorf("read %s: %w", f.FileName, err)
		}
		if !ok {
			return nil
		}
		if e.Position < 0 || e.Position >= f.RowCount {
			return fmt.Errorf("row position %d is outside data file %s row range [0, %d)", e.Position, f.FileName, f.RowCount)
		}
		*rows = append(*rows, Entry{Value: e.Value, RowID: offset + e.Position})
	}
}

// SortLikeJava orders rows (given in arrival order) by value, nulls first, as Paimon's sort
// buffer does, so that equal values keep Java's relative order.
func SortLikeJava(ser *sortkey.Serializer, rows []Entry) {
	sortorder.QuickSort(entrySort{ser, rows})
}

type entrySort struct {
	ser  *sortkey.Serializer
	rows []Entry
}

func (s entrySort) Len() int      { return len(s.rows) }
func (s entrySort) Swap(i, j int) { s.rows[i], s.rows[j] = s.rows[j], s.rows[i] }
func (s entrySort) Compare(i, j int) int {
	return s.ser.CompareNullsFirst(s.rows[i].Value, s.rows[j].Value)
}
