package indexfile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/datafile"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortorder"
	"github.com/paimon-pkft/pkft/internal/types"
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
// in name order, row ids as positions in their concatenation, rows ordered by value as Java's
// external sort buffer orders them (nulls first; equal values in the order Paimon's QuickSort
// and, past the buffer, its spill merge leave them), then IndexFile.Build.
//
// The sort holds at most what Java's buffer holds (write-buffer-size in pages of page-size, as
// Java accounts a row); past it the rows are spilled as sorted runs to a temporary directory
// under TempDir, merged at local-sort.max-num-file-handles runs and at the end, and deleted with
// the directory when Build returns, whatever its outcome.
type Builder struct {
	IndexFile *IndexFile
	Readers   ReaderFactory
	Field     types.DataField
	IndexType string
	// Options are the index's resolved options over the table's (Java's definition options):
	// the payload options and the sort buffer's.
	Options map[string]string
	// TempDir is the local directory spilled runs go under (Java's IOManager directory); empty
	// is os.TempDir().
	TempDir string
}

// Build builds the payload of files, which must all be on one level above 0.
func (b *Builder) Build(ctx context.Context, files []*meta.DataFileMeta) (_ *meta.IndexFileMeta, err error) {
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
	for _, f := range ordered {
		if f.Level != level {
			return nil, fmt.Errorf("sorted index: a build cannot mix data levels %d and %d", level, f.Level)
		}
	}
	rows, err := newSorter(ser, b.Field, b.Options, b.TempDir)
	if err != nil {
		return nil, fmt.Errorf("sorted index on %s: %w", b.Field.Name, err)
	}
	defer func() {
		// Java closes its temporary I/O manager quietly: a spill file that cannot be removed
		// fails only a build that failed anyway.
		if cerr := rows.close(); err != nil && cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	var sources []pkindex.SourceFile
	var offset int64
	for _, f := range ordered {
		sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			return nil, err
		}
		sources = append(sources, sf)
		if err := b.read(ctx, f, offset, rows); err != nil {
			return nil, err
		}
		if f.RowCount > math.MaxInt64-offset {
			return nil, errors.New("sorted index: source row counts overflow")
		}
		offset += f.RowCount
	}
	return b.IndexFile.Build(ctx, level, sources, b.Field, b.IndexType, b.Options, rows.sorted(ctx))
}

func (b *Builder) read(ctx context.Context, f *meta.DataFileMeta, offset int64, rows *sorter) error {
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
		if err := rows.add(ctx, Entry{Value: e.Value, RowID: offset + e.Position}); err != nil {
			return err
		}
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
