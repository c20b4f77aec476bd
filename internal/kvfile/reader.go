package kvfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pqvalue"
	"github.com/paimon-pkft/pkft/internal/types"
)

// readBatch is the number of rows a Reader decodes per column at a time.
const readBatch = 1024

// Reader streams the records of one key-value data file in file order, a batch of rows at a
// time; only one row group's column readers are open at once.
type Reader struct {
	f      fileio.ReadAtFile
	layout *Layout
	// thin: keys are taken from the value columns.
	thin bool
	// values are the value fields read (by position in the value row); nil reads all of them.
	// anyValue: some are read; without any, records have a nil Value.
	values   []bool
	anyValue bool
	chunks
}

// chunks streams chosen columns of a Parquet data file in file order, a batch of rows at a time:
// only those columns' chunks of one row group are open (and read) at once.
type chunks struct {
	pf   *file.Reader
	name string
	// av reads an Avro data file (pf is then nil): its records are decoded whole, a batch at a
	// time, and nothing is skipped.
	av      *dataformat.AvroReader
	avRows  int64
	avValue []any
	// colIdx maps each wanted column to the file's leaf column index, -1 when the file lacks it
	// (read as null).
	colIdx []int
	cols   []column
	// skip marks the columns not decoded with each batch (their batch stays empty); nil decodes
	// all. A skipped column's reader is opened when a row of it is asked (lazyValue); lazyAt is
	// the row of the row group that reader reads next, lazyVal the value of the row before.
	skip    []bool
	lazyAt  []int64
	lazyVal []any
	// rgRows is the row count of the current row group; batchStart the row of the row group the
	// current batch starts at.
	rgRows     int64
	batchStart int64

	rg      int
	readers []file.ColumnChunkReader
	left    int64 // rows left in the current row group
	batch   [][]any
	pos     int
	row     int64
	// scratch holds each column's read buffers, kept across batches.
	scratch []columnScratch
}

// fileColumns maps each of cols to the leaf column of pf holding it, -1 when the file has no such
// column. A file column carrying a Parquet field id is matched by that id only (a renamed or
// re-added field keeps its id); a file column without one is matched by name, as Java's Parquet
// reader matches every column (ParquetReaderFactory#clipParquetSchema). Writers differ: Java
// gives every column its id, paimon-rust only the table fields (not _SEQUENCE_NUMBER or
// _VALUE_KIND), older writers none.
func fileColumns(pf *file.Reader, cols []column) []int {
	byID := map[int32]int{}
	byName := map[string]int{}
	sc := pf.MetaData().Schema
	for i := 0; i < sc.NumColumns(); i++ {
		if len(sc.Column(i).ColumnPath()) != 1 {
			continue // a leaf of a nested field: no key-value column
		}
		if id := sc.Column(i).SchemaNode().FieldID(); id >= 0 {
			byID[id] = i
		} else {
			byName[sc.Column(i).Name()] = i
		}
	}
	out := make([]int, len(cols))
	for j, c := range cols {
		idx, ok := byID[int32(c.id)]
		if !ok {
			idx, ok = byName[c.name]
		}
		if !ok {
			idx = -1
		}
		out[j] = idx
	}
	return out
}

// Open opens a data file written with layout's schema (or an older schema whose fields the
// current one still has: columns are matched by field id, missing ones read as null). Parquet
// and Avro data files are read; another format (ORC) is refused by name.
func Open(ctx context.Context, fio fileio.FileIO, path, name string, layout *Layout) (_ *Reader, err error) {
	format, err := dataformat.Readable(name)
	if err != nil {
		return nil, err
	}
	f, err := fio.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	r := &Reader{f: f, layout: layout, chunks: chunks{name: name, rg: -1}}
	r.cols = layout.columns(0)
	if format == dataformat.Avro {
		if err := r.openAvro(ctx, f); err != nil {
			return nil, err
		}
	} else {
		pf, err := pqvalue.OpenReader(f, f.Size())
		if err != nil {
			return nil, fmt.Errorf("read data file %s: %w", name, err)
		}
		r.pf = pf
		r.colIdx = fileColumns(pf, r.cols)
	}
	if err := r.resolveKeys(); err != nil {
		r.closeFile()
		return nil, err
	}
	return r, nil
}

// openAvro opens the Avro data file f for r.cols, matching them by name as Java's Avro reader
// does (an Avro data file carries no field ids).
func (r *chunks) openAvro(ctx context.Context, f fileio.ReadAtFile) error {
	cols := make([]dataformat.Column, len(r.cols))
	for j, c := range r.cols {
		cols[j] = dataformat.Column{Name: c.name, Type: c.typ}
	}
	av, err := dataformat.OpenAvro(ctx, f, f.Size(), r.name, cols)
	if err != nil {
		return err
	}
	if r.avRows, err = av.NumRows(); err != nil {
		av.Close()
		return err
	}
	r.av = av
	r.avValue = make([]any, len(cols))
	r.colIdx = make([]int, len(cols))
	for j := range cols {
		r.colIdx[j] = -1
		if av.Has(j) {
			r.colIdx[j] = j
		}
	}
	return nil
}

// closeFile releases the format reader (not the file).
func (r *chunks) closeFile() {
	r.closeReaders()
	if r.av != nil {
		_ = r.av.Close()
	}
	if r.pf != nil {
		_ = pqvalue.Guard(func() error { return r.pf.Close() })
	}
}

// numRows is the number of rows of the file.
func (r *chunks) numRows() int64 {
	if r.av != nil {
		return r.avRows
	}
	return r.pf.NumRows()
}

// resolveKeys checks the system columns of the file and decides where its keys come from: its
// _KEY_ columns when it has all of them, else (a thin-mode file, whatever the table option says
// now) the key fields' value columns, as Java's reader always takes them
// (FormatReaderMapping#trimKeyFields). A file lacking both is an error naming the column.
func (r *Reader) resolveKeys() error {
	nk := len(r.layout.KeyIndexes)
	allKeys := !r.layout.Thin
	for j, c := range r.cols {
		idx := r.colIdx[j]
		if c.id == SequenceNumberFieldID || c.id == ValueKindFieldID {
			if idx < 0 {
				return fmt.Errorf("data file %s has no %s column (by field id %d or by name)", r.name, c.name, c.id)
			}
		}
		if !r.layout.Thin && j < nk && idx < 0 {
			allKeys = false
		}
	}
	if allKeys {
		return nil
	}
	if !r.layout.Thin {
		// A file without (all) _KEY_ columns read by a table not in thin mode: keys come from values.
		r.colIdx = r.colIdx[nk:]
		r.cols = r.cols[nk:]
	}
	r.keysFromValues()
	first := len(r.cols) - len(r.layout.ValueType.Fields)
	for k, vi := range r.layout.KeyIndexes {
		if r.colIdx[first+vi] < 0 {
			return fmt.Errorf("data file %s has no %s%s column and no %s column to take the key from",
				r.name, KeyFieldPrefix, r.layout.KeyType.Fields[k].Name, r.cols[first+vi].name)
		}
	}
	return nil
}

// OpenKeys opens a data file as Open does, but decodes only its key columns, its sequence number
// and row kind, and the value fields at the positions valueFields of the value row: every other
// field of a record's Value is nil (and Value itself is nil when no value field is read). A lookup that needs a key's existence and position (and
// perhaps one field, as record-level expiry's time field) reads no more than that. In a thin-mode
// file the key fields are value fields and are always read.
func OpenKeys(ctx context.Context, fio fileio.FileIO, path, name string, layout *Layout, valueFields ...int) (*Reader, error) {
	r, err := Open(ctx, fio, path, name, layout)
	if err != nil {
		return nil, err
	}
	nv := len(layout.ValueType.Fields)
	r.values = make([]bool, nv)
	for _, f := range valueFields {
		if f < 0 || f >= nv {
			r.Close()
			return nil, fmt.Errorf("data file %s: no value field %d (the row has %d)", name, f, nv)
		}
		r.values[f] = true
		r.anyValue = true
	}
	if r.thin {
		for _, k := range layout.KeyIndexes {
			r.values[k] = true
		}
		r.anyValue = true
	}
	if r.av != nil {
		return r, nil // an Avro record is decoded whole: nothing to skip
	}
	first := len(r.cols) - nv // the first value column
	r.skip = make([]bool, len(r.cols))
	for j := range nv {
		r.skip[first+j] = !r.values[j]
	}
	return r, nil
}

// keysFromValues marks the reader as deriving keys from the value columns.
func (r *Reader) keysFromValues() { r.thin = true }

// Close releases the file.
func (r *Reader) Close() error {
	r.closeFile()
	return r.f.Close()
}

// NumRows is the number of rows of the file.
func (r *Reader) NumRows() int64 { return r.numRows() }

func (r *chunks) closeReaders() {
	for _, cr := range r.readers {
		if cr != nil {
			_ = pqvalue.Guard(cr.Close)
		}
	}
	r.readers = nil
}

// Next returns the next record and its row position, or io.EOF.
func (r *Reader) Next(ctx context.Context) (*KeyValue, int64, error) {
	for r.batch == nil || r.pos >= len(r.batch[0]) {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if err := r.nextBatch(); err != nil {
			return nil, 0, err
		}
	}
	kv, err := r.record(r.pos)
	if err != nil {
		return nil, 0, fmt.Errorf("data file %s row %d: %w", r.name, r.row, err)
	}
	r.pos++
	row := r.row
	r.row++
	return kv, row, nil
}

func (r *Reader) record(i int) (*KeyValue, error) {
	off := 0
	kv := &KeyValue{}
	nk := len(r.layout.KeyIndexes)
	if !r.thin {
		off = nk
	}
	nv := 0
	if r.values == nil || r.anyValue {
		nv = len(r.cols) - off - 2
	}
	// The key and the value share one allocation; each is capped at its own length.
	both := make([]any, nk+nv)
	kv.Key = both[:nk:nk]
	if !r.thin {
		for k := 0; k < nk; k++ {
			kv.Key[k] = r.batch[k][i]
		}
	}
	seq, ok := r.batch[off][i].(int64)
	if !ok {
		return nil, fmt.Errorf("null sequence number")
	}
	kv.Seq = seq
	kind, ok := r.batch[off+1][i].(int8)
	if !ok {
		return nil, fmt.Errorf("null value kind")
	}
	rk, err := types.RowKindFromByte(byte(kind))
	if err != nil {
		return nil, err
	}
	kv.Kind = rk
	if nv > 0 || r.values == nil || r.anyValue {
		kv.Value = both[nk:]
		for j := range kv.Value {
			if r.values == nil || r.values[j] {
				kv.Value[j] = r.batch[off+2+j][i]
			}
		}
	}
	if r.thin {
		for k, idx := range r.layout.KeyIndexes {
			kv.Key[k] = kv.Value[idx]
		}
	}
	return kv, nil
}

func (r *chunks) nextBatch() error {
	if r.av != nil {
		return r.nextAvroBatch()
	}
	for r.left == 0 {
		r.closeReaders()
		r.rg++
		if r.rg >= r.pf.NumRowGroups() {
			return io.EOF
		}
		r.left = r.pf.MetaData().RowGroups[r.rg].GetNumRows()
		r.rgRows = r.left
		rg := r.pf.RowGroup(r.rg)
		r.readers = make([]file.ColumnChunkReader, len(r.colIdx))
		if r.skip != nil {
			r.lazyAt = make([]int64, len(r.colIdx))
			r.lazyVal = make([]any, len(r.colIdx))
		}
		for j, idx := range r.colIdx {
			if idx < 0 || (r.skip != nil && r.skip[j]) {
				continue
			}
			var cr file.ColumnChunkReader
			if err := pqvalue.Guard(func() error {
				var err error
				cr, err = rg.Column(idx)
				return err
			}); err != nil {
				return fmt.Errorf("read data file %s: %w", r.name, err)
			}
			r.readers[j] = cr
		}
	}
	n := int(min(int64(readBatch), r.left))
	if r.batch == nil {
		r.batch = make([][]any, len(r.colIdx))
		r.scratch = make([]columnScratch, len(r.colIdx))
	}
	for j := range r.colIdx {
		if r.skip != nil && r.skip[j] {
			continue
		}
		vals := r.batch[j][:0]
		if r.readers[j] == nil {
			for range n {
				vals = append(vals, nil)
			}
			r.batch[j] = vals
			continue
		}
		var err error
		if err2 := pqvalue.Guard(func() error {
			vals, err = readColumn(r.readers[j], n, r.cols[j].typ, r.pf.MetaData().Schema.Column(r.colIdx[j]), vals, &r.scratch[j])
			return err
		}); err2 != nil {
			return fmt.Errorf("read data file %s column %s: %w", r.name, r.cols[j].name, err2)
		}
		r.batch[j] = vals
	}
	r.batchStart = r.rgRows - r.left
	r.left -= int64(n)
	r.pos = 0
	return nil
}

// nextAvroBatch decodes the next records of an Avro data file into the batch.
func (r *chunks) nextAvroBatch() error {
	if r.batch == nil {
		r.batch = make([][]any, len(r.colIdx))
	}
	for j := range r.batch {
		r.batch[j] = r.batch[j][:0]
	}
	for range readBatch {
		err := r.av.Next(context.Background(), r.avValue)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for j, v := range r.avValue {
			r.batch[j] = append(r.batch[j], v)
		}
	}
	r.pos = 0
	if len(r.batch[0]) == 0 {
		return io.EOF
	}
	return nil
}

// lazyScratch is the read buffers of the skipped column j, whose rows lazyValue decodes one at a
// time.
func (r *chunks) lazyScratch(j int) *columnScratch {
	if r.scratch == nil {
		r.scratch = make([]columnScratch, len(r.colIdx))
	}
	return &r.scratch[j]
}

// skipper is the Skip every typed column chunk reader has.
type skipper interface {
	Skip(n int64) (int64, error)
}

// lazyValue decodes row i of the current batch of the skipped column j: the column's rows
// between the last one asked and it are skipped (not decoded). Rows are asked in file order.
func (r *chunks) lazyValue(j, i int) (any, error) {
	if r.colIdx[j] < 0 {
		return nil, nil
	}
	row := r.batchStart + int64(i)
	if r.readers[j] != nil && row == r.lazyAt[j]-1 {
		return r.lazyVal[j], nil
	}
	if r.readers[j] == nil {
		if err := pqvalue.Guard(func() error {
			var err error
			r.readers[j], err = r.pf.RowGroup(r.rg).Column(r.colIdx[j])
			return err
		}); err != nil {
			return nil, fmt.Errorf("read data file %s: %w", r.name, err)
		}
		r.lazyAt[j] = 0
	}
	if row < r.lazyAt[j] {
		return nil, fmt.Errorf("column %s: row %d asked after row %d", r.cols[j].name, row, r.lazyAt[j]-1)
	}
	sk, ok := r.readers[j].(skipper)
	if !ok {
		return nil, fmt.Errorf("column %s: its reader cannot skip rows", r.cols[j].name)
	}
	var vals []any
	if err2 := pqvalue.Guard(func() error {
		if gap := row - r.lazyAt[j]; gap > 0 {
			if _, err := sk.Skip(gap); err != nil {
				return err
			}
		}
		var err error
		vals, err = readColumn(r.readers[j], 1, r.cols[j].typ, r.pf.MetaData().Schema.Column(r.colIdx[j]), nil, r.lazyScratch(j))
		return err
	}); err2 != nil {
		return nil, fmt.Errorf("column %s: %w", r.cols[j].name, err2)
	}
	if len(vals) != 1 {
		return nil, fmt.Errorf("column %s: row %d missing", r.cols[j].name, row)
	}
	r.lazyAt[j], r.lazyVal[j] = row+1, vals[0]
	return vals[0], nil
}

// ReadValue returns the whole value row of the record Next returned last. For a reader from
// OpenKeys, the value fields it skipped are decoded now for that row only (the rows between are
// skipped in the file, not decoded), so a lookup reads the values of the keys it finds and no
// others. Records must be asked in file order, as Next returns them.
func (r *Reader) ReadValue() ([]any, error) {
	if r.batch == nil || r.pos == 0 {
		return nil, fmt.Errorf("data file %s: no record read", r.name)
	}
	i := r.pos - 1
	nv := len(r.layout.ValueType.Fields)
	first := len(r.cols) - nv
	out := make([]any, nv)
	for j := range nv {
		c := first + j
		if r.skip == nil || !r.skip[c] {
			out[j] = r.batch[c][i]
			continue
		}
		v, err := r.lazyValue(c, i)
		if err != nil {
			return nil, fmt.Errorf("data file %s row %d: %w", r.name, r.row-1, err)
		}
		out[j] = v
	}
	return out, nil
}

// columnScratch holds the buffers a column's batches are read into, kept from one batch to the
// next so that reading a batch allocates only the values it returns.
type columnScratch struct {
	defs []int16
	buf  any // a slice of the column's physical Go type
}

// scratchBuf is sc's value buffer of n elements of type T, made when sc holds none large enough.
func scratchBuf[T any](sc *columnScratch, n int) []T {
	if b, ok := sc.buf.([]T); ok && cap(b) >= n {
		return b[:n]
	}
	b := make([]T, n)
	sc.buf = b
	return b
}

// readColumn reads n rows of a column and appends their Go values to out; sc (nil for none) is
// the column's scratch buffers.
func readColumn(cr file.ColumnChunkReader, n int, t types.DataType, descr *pqschema.Column, out []any, sc *columnScratch) ([]any, error) {
	if sc == nil {
		sc = &columnScratch{}
	}
	if cap(sc.defs) < n {
		sc.defs = make([]int16, n)
	}
	defs := sc.defs[:n]
	maxDef := descr.MaxDefinitionLevel()
	switch c := cr.(type) {
	case *file.BooleanColumnChunkReader:
		return readValues(c.ReadBatch, scratchBuf[bool](sc, n), defs, maxDef, out, func(v bool) (any, error) { return v, nil })
	case *file.Int32ColumnChunkReader:
		return readValues(c.ReadBatch, scratchBuf[int32](sc, n), defs, maxDef, out, func(v int32) (any, error) { return fromInt32(v, t) })
	case *file.Int64ColumnChunkReader:
		unit := pqvalue.TimestampUnit(descr, t)
		return readValues(c.ReadBatch, scratchBuf[int64](sc, n), defs, maxDef, out, func(v int64) (any, error) { return fromInt64(v, t, unit) })
	case *file.Float32ColumnChunkReader:
		return readValues(c.ReadBatch, scratchBuf[float32](sc, n), defs, maxDef, out, func(v float32) (any, error) { return v, nil })
	case *file.Float64ColumnChunkReader:
		return readValues(c.ReadBatch, scratchBuf[float64](sc, n), defs, maxDef, out, func(v float64) (any, error) { return v, nil })
	case *file.ByteArrayColumnChunkReader:
		var conv func(parquet.ByteArray) (any, error)
		switch t.Root {
		case types.RootChar, types.RootVarChar:
			conv = func(v parquet.ByteArray) (any, error) { return string(v), nil }
		case types.RootBinary, types.RootVarBinary:
			conv = func(v parquet.ByteArray) (any, error) { return slices.Clone([]byte(v)), nil }
		case types.RootDecimal:
			conv = func(v parquet.ByteArray) (any, error) {
				return binrow.Decimal{Unscaled: pqvalue.FromTwosComplement(v), Scale: t.Scale}, nil
			}
		default:
			return nil, fmt.Errorf("binary column read as %s", t.SQLString())
		}
		return readValues(c.ReadBatch, scratchBuf[parquet.ByteArray](sc, n), defs, maxDef, out, conv)
	case *file.FixedLenByteArrayColumnChunkReader:
		var conv func(parquet.FixedLenByteArray) (any, error)
		switch t.Root {
		case types.RootDecimal:
			conv = func(v parquet.FixedLenByteArray) (any, error) {
				return binrow.Decimal{Unscaled: pqvalue.FromTwosComplement(v), Scale: t.Scale}, nil
			}
		case types.RootBinary, types.RootVarBinary:
			conv = func(v parquet.FixedLenByteArray) (any, error) { return slices.Clone([]byte(v)), nil }
		default:
			return nil, fmt.Errorf("fixed-length column read as %s", t.SQLString())
		}
		return readValues(c.ReadBatch, scratchBuf[parquet.FixedLenByteArray](sc, n), defs, maxDef, out, conv)
	case *file.Int96ColumnChunkReader:
		return readValues(c.ReadBatch, scratchBuf[parquet.Int96](sc, n), defs, maxDef, out, func(v parquet.Int96) (any, error) { return pqvalue.Int96Timestamp(v), nil })
	default:
		return nil, fmt.Errorf("column reader %T is not supported", cr)
	}
}

// readValues reads len(defs) rows through read into buf and defs and appends them to out: nil
// where the definition level is below maxDef, else conv of the row's value.
func readValues[T any](read func(int64, []T, []int16, []int16) (int64, int, error), buf []T, defs []int16, maxDef int16, out []any, conv func(T) (any, error)) ([]any, error) {
	n := len(defs)
	total, got, err := readAll(read, n, buf, defs)
	if err != nil {
		return nil, err
	}
	if total != int64(n) {
		return nil, fmt.Errorf("column ended after %d of %d rows", total, n)
	}
	k := 0
	for i := range n {
		if maxDef > 0 && defs[i] < maxDef {
			out = append(out, nil)
			continue
		}
		if k >= got {
			return nil, fmt.Errorf("definition levels and values disagree")
		}
		v, err := conv(buf[k])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		k++
	}
	return out, nil
}

// readAll calls a typed ReadBatch until n levels were read.
func readAll[T any](read func(int64, []T, []int16, []int16) (int64, int, error), n int, buf []T, defs []int16) (int64, int, error) {
	var total int64
	var values int
	for total < int64(n) {
		t, v, err := read(int64(n)-total, buf[values:], defs[total:], nil)
		if err != nil {
			return total, values, err
		}
		if t == 0 {
			break
		}
		total += t
		values += v
	}
	return total, values, nil
}

func fromInt32(v int32, t types.DataType) (any, error) {
	switch t.Root {
	case types.RootTinyInt:
		return int8(v), nil
	case types.RootSmallInt:
		return int16(v), nil
	case types.RootInt, types.RootDate, types.RootTime:
		return v, nil
	case types.RootDecimal:
		return binrow.Decimal{Unscaled: big.NewInt(int64(v)), Scale: t.Scale}, nil
	case types.RootBigInt:
		return int64(v), nil
	}
	return nil, fmt.Errorf("INT32 column read as %s", t.SQLString())
}

func fromInt64(v int64, t types.DataType, unit pqschema.TimeUnitType) (any, error) {
	switch t.Root {
	case types.RootBigInt:
		return v, nil
	case types.RootDecimal:
		return binrow.Decimal{Unscaled: big.NewInt(v), Scale: t.Scale}, nil
	case types.RootTimestamp, types.RootTimestampLTZ:
		return pqvalue.Timestamp(v, unit), nil
	}
	return nil, fmt.Errorf("INT64 column read as %s", t.SQLString())
}
