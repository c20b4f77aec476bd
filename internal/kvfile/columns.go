package kvfile

import (
	"context"
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pqvalue"
)

// ColumnReader streams chosen value fields of one key-value data file in file order with each
// row's position, reading and decoding only those fields' column chunks: the keys, the sequence
// numbers, the row kinds and every other field stay unread (a reader of one indexed column does
// not load the whole file). Fields are matched as Reader matches them (in Parquet by field id
// where the file's column has one, else by name; in Avro by name); a field the file lacks reads
// as null. An Avro data file is row-oriented: its records are decoded whole.
type ColumnReader struct {
	f fileio.ReadAtFile
	chunks
	values []any
	// first is the batch column of the first field asked for.
	first int
}

// OpenColumns opens a data file written with layout's schema (or an older one) to read the value
// fields with ids fieldIDs, in that order.
func OpenColumns(ctx context.Context, fio fileio.FileIO, path, name string, layout *Layout, fieldIDs ...int) (_ *ColumnReader, err error) {
	if len(fieldIDs) == 0 {
		return nil, fmt.Errorf("read data file %s: no field to read", name)
	}
	var cols []column
	for _, id := range fieldIDs {
		found := false
		for _, f := range layout.ValueType.Fields {
			if f.ID == id {
				cols = append(cols, column{name: f.Name, id: f.ID, typ: f.Type})
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("read data file %s: the table has no field with id %d", name, id)
		}
	}
	format, err := dataformat.Readable(name)
	if err != nil {
		return nil, err
	}
	f, err := fio.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", name, err)
	}
	// A key-value file has its system columns (Reader requires them; here only the footer or
	// the writer schema says so).
	system := layout.columns(0)
	sys := chunks{name: name, rg: -1, cols: system}
	if format == dataformat.Avro {
		// Open for the system columns and the fields asked for: an Avro record is decoded whole.
		sys.cols = append(slices.Clone(system[len(system)-len(layout.ValueType.Fields)-2:][:2]), cols...)
		if err := sys.openAvro(ctx, f); err != nil {
			f.Close()
			return nil, err
		}
	} else {
		pf, err := pqvalue.OpenReader(f, f.Size())
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read data file %s: %w", name, err)
		}
		sys.pf = pf
		sys.colIdx = fileColumns(pf, system)
	}
	for j, c := range sys.cols {
		if idx := sys.colIdx[j]; idx < 0 && (c.id == SequenceNumberFieldID || c.id == ValueKindFieldID) {
			sys.closeFile()
			f.Close()
			return nil, fmt.Errorf("data file %s has no %s column (by field id %d or by name)", name, c.name, c.id)
		}
	}
	r := &ColumnReader{f: f, chunks: chunks{pf: sys.pf, name: name, cols: cols, rg: -1}}
	if sys.av != nil {
		// The Avro reader decodes the system columns too: they stay out of the values returned.
		r.chunks = sys
		r.first = 2
	} else {
		r.colIdx = fileColumns(sys.pf, cols)
	}
	r.values = make([]any, len(cols))
	return r, nil
}

// NumRows is the number of rows of the file.
func (r *ColumnReader) NumRows() int64 { return r.numRows() }

// Next returns the next row's values (one per field asked for, nil for null; the slice is
// reused by the next call) and its position, or io.EOF after the last row.
func (r *ColumnReader) Next(ctx context.Context) ([]any, int64, error) {
	for r.batch == nil || r.pos >= len(r.batch[0]) {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if err := r.nextBatch(); err != nil {
			return nil, 0, err
		}
	}
	for j := range r.values {
		r.values[j] = r.batch[r.first+j][r.pos]
	}
	r.pos++
	row := r.row
	r.row++
	return r.values, row, nil
}

// Close releases the file.
func (r *ColumnReader) Close() error {
	r.closeFile()
	return r.f.Close()
}
