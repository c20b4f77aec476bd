// Package textreader reads the text column of one primary-key data file for
// every physical row, the Go counterpart of Paimon's PkFullTextDataFileReader.
//
// A full-text archive assigns row ids by physical position, so the reader
// applies no deletion vectors and keeps null texts: row i of the file is
// always the i-th value returned. The column is located the way Paimon's
// key-value read path resolves a projected value field: the index field id is
// looked up in the schema version the file was written with, and the Parquet
// column with that field's name (at that version) is read. A file written
// before the column existed yields null for every row.
//
// Parquet and Avro data files are read (an Avro file's column is found by its name at that
// version, as Java's Avro reader finds it); another format, as ORC, is refused by name.
package textreader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	_ "github.com/paimon-pkft/pkft/internal/pqlz4" // Java's LZ4 (Hadoop) pages

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/types"
)

// DefaultBatchSize is the number of values decoded per batch when
// FileSpec.BatchSize is zero.
const DefaultBatchSize = 1024

// streamBufferSize bounds how many bytes of a column chunk are buffered per
// read from the underlying file.
const streamBufferSize = 256 << 10

var (
	// ErrFieldNotInSchema is returned by a FieldNameFunc when the schema
	// version exists but has no field with the requested id. The reader then
	// treats the file as predating the column: every row is null.
	ErrFieldNotInSchema = errors.New("field not in schema")

	// ErrUnsupportedFormat reports a data file format the reader cannot read.
	ErrUnsupportedFormat = errors.New("unsupported data file format")

	// ErrReadPast reports a Next call after all declared rows were returned.
	ErrReadPast = errors.New("read past data file")

	// ErrTooFewRows reports a data file that holds fewer rows than its
	// metadata declares.
	ErrTooFewRows = errors.New("ended before its declared row count")

	// ErrTooManyRows reports a data file that holds more rows than its
	// metadata declares.
	ErrTooManyRows = errors.New("contains more rows than declared")
)

// FieldNameFunc returns the name that field fieldID had in schema version
// schemaID. It returns an error wrapping ErrFieldNotInSchema when that schema
// has no such field, and any other error when the schema cannot be loaded.
type FieldNameFunc func(schemaID int64, fieldID int32) (string, error)

// FileSpec describes the data file to read and the column to project.
type FileSpec struct {
	// FileName is the data file name, e.g. "data-<uuid>-0.parquet". It names
	// the file in errors and, when Format is empty, determines the format.
	FileName string
	// Format overrides the format derived from FileName ("parquet", "orc",
	// "avro", ...). Empty means derive it as Paimon does (see FormatOf).
	Format string
	// RowCount is the row count declared by the file's DataFileMeta.
	RowCount int64
	// SchemaID is the id of the schema the file was written with.
	SchemaID int64
	// FieldID is the id of the indexed text field.
	FieldID int32
	// FieldName resolves FieldID to its name at SchemaID.
	FieldName FieldNameFunc
	// BatchSize is the number of values decoded at a time; zero means
	// DefaultBatchSize.
	BatchSize int
}

// Row is one physical row of the data file.
type Row struct {
	// Pos is the 0-based physical row position within the file.
	Pos int64
	// Null reports that the text value is null.
	Null bool
	// Text holds the raw bytes of the value (UTF-8 for STRING columns). It
	// is nil when Null is set, and is valid only until the next call to Next
	// or Close.
	Text []byte
}

// String returns a copy of the text, or "" for a null value.
func (r Row) String() string { return string(r.Text) }

// Reader streams the projected text column of one data file. It is not safe
// for concurrent use.
type Reader struct {
	fileName string
	declared int64 // DataFileMeta.rowCount
	fileRows int64 // rows the file holds according to its footer

	pf        *file.Reader
	av        *dataformat.AvroReader // an Avro data file's reader (pf is then nil)
	avValue   []any
	col       int   // parquet leaf column index, or -1 when every row is null
	maxDef    int16 // max definition level of the column
	batchSize int

	rowsRead int64 // rows returned or consumed by Next

	// Current row group and its column reader.
	rg       int   // index of the next row group to open
	rgLeft   int64 // rows of the current row group not yet decoded
	colRdr   *file.ByteArrayColumnChunkReader
	values   []parquet.ByteArray
	defs     []int16
	batchLen int // rows in the current batch
	batchPos int // next row within the current batch
	valuePos int // next non-null value within the current batch

	err    error // sticky decode failure
	closed bool
}

// FormatOf returns the format identifier Paimon derives from a data file
// name: the extension, or the one before a compression extension
// ("x.csv.gz" -> "csv"), in lower case.
func FormatOf(fileName string) (string, error) { return dataformat.FormatOf(fileName) }

// Open prepares a reader over the data file held by f (size bytes). It
// resolves the column name through spec.FieldName and reads the Parquet
// footer; column data is read lazily by Next. f must stay readable until
// Close.
func Open(ctx context.Context, f io.ReaderAt, size int64, spec FileSpec) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open data file %s: %w", spec.FileName, err)
	}
	format := spec.Format
	if format == "" {
		var err error
		if format, err = FormatOf(spec.FileName); err != nil {
			return nil, fmt.Errorf("open data file: %w", err)
		}
	}
	format = strings.ToLower(format)
	switch format {
	case dataformat.Parquet, dataformat.Avro:
	case dataformat.ORC:
		return nil, fmt.Errorf("data file %s is ORC: pkft reads parquet and avro data files, not orc (%w)", spec.FileName, ErrUnsupportedFormat)
	default:
		return nil, fmt.Errorf("data file %s is %q: pkft reads parquet and avro data files (%w)", spec.FileName, format, ErrUnsupportedFormat)
	}
	if spec.FieldName == nil {
		return nil, fmt.Errorf("open data file %s: no field name lookup", spec.FileName)
	}
	if f == nil || size < 0 {
		return nil, fmt.Errorf("open data file %s: invalid input (size %d)", spec.FileName, size)
	}
	batch := spec.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}

	name, err := spec.FieldName(spec.SchemaID, spec.FieldID)
	present := true
	if errors.Is(err, ErrFieldNotInSchema) {
		present = false
	} else if err != nil {
		return nil, fmt.Errorf("open data file %s: resolve field %d in schema %d: %w", spec.FileName, spec.FieldID, spec.SchemaID, err)
	}

	if format == dataformat.Avro {
		return openAvro(ctx, f, size, spec, name, present)
	}

	props := parquet.NewReaderProperties(memory.NewGoAllocator())
	props.BufferedStreamEnabled = true
	props.BufferSize = streamBufferSize
	var pf *file.Reader
	err = guard(func() error {
		var err error
		pf, err = file.NewParquetReader(io.NewSectionReader(f, 0, size), file.WithReadProps(props))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open data file %s: read parquet footer: %w", spec.FileName, err)
	}

	r := &Reader{
		fileName:  spec.FileName,
		declared:  spec.RowCount,
		pf:        pf,
		col:       -1,
		batchSize: batch,
	}
	for i := 0; i < pf.NumRowGroups(); i++ {
		n := pf.MetaData().RowGroups[i].GetNumRows()
		if n < 0 || r.fileRows+n < r.fileRows {
			return nil, fmt.Errorf("open data file %s: row group %d has invalid row count %d", spec.FileName, i, n)
		}
		r.fileRows += n
	}
	if present {
		if err := r.resolveColumn(name); err != nil {
			return nil, fmt.Errorf("open data file %s: %w", spec.FileName, err)
		}
	}
	if r.col >= 0 {
		r.values = make([]parquet.ByteArray, batch)
		if r.maxDef > 0 {
			r.defs = make([]int16, batch)
		}
	}
	return r, nil
}

// openAvro opens the Avro data file f for the column name (absent: every row is null).
func openAvro(ctx context.Context, f io.ReaderAt, size int64, spec FileSpec, name string, present bool) (*Reader, error) {
	if !present {
		name = "" // no Avro field is called ""
	}
	av, err := dataformat.OpenAvro(ctx, f, size, spec.FileName, []dataformat.Column{{Name: name, Type: types.String()}})
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", spec.FileName, err)
	}
	rows, err := av.NumRows()
	if err != nil {
		av.Close()
		return nil, fmt.Errorf("open data file %s: %w", spec.FileName, err)
	}
	return &Reader{fileName: spec.FileName, declared: spec.RowCount, fileRows: rows, av: av,
		avValue: make([]any, 1), col: -1}, nil
}

// resolveColumn finds the top-level Parquet column called name. Like Paimon's
// Parquet reader it matches names exactly and reads a missing column as
// nulls.
func (r *Reader) resolveColumn(name string) error {
	sch := r.pf.MetaData().Schema
	root := sch.Root()
	i := root.FieldIndexByName(name)
	if i < 0 {
		return nil
	}
	node, ok := root.Field(i).(*schema.PrimitiveNode)
	if !ok {
		return fmt.Errorf("column %q is not a primitive column", name)
	}
	if node.RepetitionType() == parquet.Repetitions.Repeated {
		return fmt.Errorf("column %q is repeated", name)
	}
	if node.PhysicalType() != parquet.Types.ByteArray {
		return fmt.Errorf("column %q has physical type %s, want BYTE_ARRAY", name, node.PhysicalType())
	}
	idx := sch.ColumnIndexByNode(node)
	if idx < 0 {
		return fmt.Errorf("column %q has no leaf column", name)
	}
	r.col = idx
	r.maxDef = sch.Column(idx).MaxDefinitionLevel()
	return nil
}

// RowCount returns the row count the file's metadata declares, which is the
// number of rows Next returns.
func (r *Reader) RowCount() int64 { return r.declared }

// Next returns the next physical row. It fails with ErrReadPast once the
// declared row count has been returned, with ErrTooFewRows when the file ends
// early, and with ErrTooManyRows when the last declared row is not the last
// row of the file (that row is then not returned).
func (r *Reader) Next(ctx context.Context) (Row, error) {
	if r.closed {
		return Row{}, fmt.Errorf("read data file %s: reader is closed", r.fileName)
	}
	if r.rowsRead >= r.declared {
		return Row{}, fmt.Errorf("%w %s row count: declared %d rows, all read", ErrReadPast, r.fileName, r.declared)
	}
	if r.rowsRead >= r.fileRows {
		return Row{}, fmt.Errorf("data file %s %w: declared %d rows, file has %d", r.fileName, ErrTooFewRows, r.declared, r.fileRows)
	}
	if r.err != nil {
		return Row{}, r.err
	}
	row := Row{Pos: r.rowsRead, Null: true}
	if r.av != nil {
		if err := r.av.Next(ctx, r.avValue); err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("data file %s %w: its blocks declare %d records", r.fileName, ErrTooFewRows, r.fileRows)
			}
			r.err = fmt.Errorf("read data file %s at row %d: %w", r.fileName, r.rowsRead, err)
			return Row{}, r.err
		}
		if v, ok := r.avValue[0].(string); ok {
			row.Null = false
			row.Text = []byte(v)
		}
	} else if r.col >= 0 {
		if r.batchPos == r.batchLen {
			if err := r.fill(ctx); err != nil {
				r.err = fmt.Errorf("read data file %s at row %d: %w", r.fileName, r.rowsRead, err)
				return Row{}, r.err
			}
		}
		if r.maxDef == 0 || r.defs[r.batchPos] >= r.maxDef {
			row.Null = false
			row.Text = r.values[r.valuePos]
			if row.Text == nil {
				row.Text = []byte{}
			}
			r.valuePos++
		}
		r.batchPos++
	} else if r.rowsRead&0xfff == 0 {
		if err := ctx.Err(); err != nil {
			return Row{}, fmt.Errorf("read data file %s: %w", r.fileName, err)
		}
	}
	r.rowsRead++
	if r.rowsRead == r.declared && r.fileRows > r.rowsRead {
		return Row{}, fmt.Errorf("data file %s %w: declared %d rows, file has %d", r.fileName, ErrTooManyRows, r.declared, r.fileRows)
	}
	return row, nil
}

// fill decodes the next batch of the column, opening row groups as needed.
// Values of the previous batch become invalid.
func (r *Reader) fill(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for r.rgLeft == 0 {
		if err := r.closeColumn(); err != nil {
			return err
		}
		if r.rg >= r.pf.NumRowGroups() {
			// Unreachable while rowsRead < fileRows; guards corrupt metadata.
			return errors.New("no more row groups")
		}
		rg := r.rg
		r.rg++
		r.rgLeft = r.pf.MetaData().RowGroups[rg].GetNumRows()
		if r.rgLeft == 0 {
			continue
		}
		err := guard(func() error {
			cr, err := r.pf.RowGroup(rg).Column(r.col)
			if err != nil {
				return err
			}
			br, ok := cr.(*file.ByteArrayColumnChunkReader)
			if !ok {
				_ = cr.Close()
				return fmt.Errorf("column reader is %T, want byte array", cr)
			}
			r.colRdr = br
			return nil
		})
		if err != nil {
			return fmt.Errorf("open column of row group %d: %w", rg, err)
		}
	}
	want := int64(r.batchSize)
	if r.rgLeft < want {
		want = r.rgLeft
	}
	var (
		levels int64
		nvals  int
	)
	err := guard(func() error {
		var err error
		levels, nvals, err = r.colRdr.ReadBatchInPage(want, r.values, r.defs, nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("decode row group %d: %w", r.rg-1, err)
	}
	if levels <= 0 || levels > want {
		return fmt.Errorf("column chunk of row group %d ended with %d of its rows undecoded", r.rg-1, r.rgLeft)
	}
	if r.maxDef > 0 {
		nonNull := 0
		for _, d := range r.defs[:levels] {
			if d >= r.maxDef {
				nonNull++
			}
		}
		if nonNull != nvals {
			return fmt.Errorf("row group %d: %d values for %d non-null rows", r.rg-1, nvals, nonNull)
		}
	} else if int64(nvals) != levels {
		return fmt.Errorf("row group %d: %d values for %d required rows", r.rg-1, nvals, levels)
	}
	r.rgLeft -= levels
	r.batchLen = int(levels)
	r.batchPos = 0
	r.valuePos = 0
	return nil
}

func (r *Reader) closeColumn() error {
	if r.colRdr == nil {
		return nil
	}
	cr := r.colRdr
	r.colRdr = nil
	r.batchLen, r.batchPos, r.valuePos = 0, 0, 0
	if err := guard(cr.Close); err != nil {
		return fmt.Errorf("close column reader: %w", err)
	}
	return nil
}

// Close releases the reader's buffers. It does not close the io.ReaderAt
// given to Open. Closing twice is a no-op.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.av != nil {
		_ = r.av.Close()
	}
	err := r.closeColumn()
	r.values, r.defs = nil, nil
	r.pf = nil
	if err != nil {
		return fmt.Errorf("close full-text reader for %s: %w", r.fileName, err)
	}
	return nil
}

// guard runs fn and turns a panic inside the Parquet decoder, which corrupt
// input can provoke, into an error.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt parquet data: %v", p)
		}
	}()
	return fn()
}
