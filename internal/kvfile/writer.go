package kvfile

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// checkRollingRecords is how often (in records) a rolling writer checks the file size
// (RollingFileWriterImpl.CHECK_ROLLING_RECORD_CNT).
const checkRollingRecords = 1000

// rowGroupBytes bounds the raw bytes a writer buffers before it writes a row group.
const rowGroupBytes = 32 << 20

// WriterOptions configures the files a RollingWriter writes.
type WriterOptions struct {
	// Level is the LSM level of the files.
	Level int32
	// Source is the file source (APPEND for new data, COMPACT for compaction output).
	Source meta.FileSource
	// SchemaID is the schema the files are written with.
	SchemaID int64
}

// RollingWriter writes key-value records, in key order, into one or more data files of one
// bucket, starting a new file whenever the current one reaches the table's target-file-size
// (checked every 1,000 records against the bytes written plus the raw size of the buffered row
// group, so files come out somewhat smaller than Java's) or, for new data, target-file-row-num
// records (RollingFileWriterImpl). Abort deletes every file it wrote.
type RollingWriter struct {
	fio     fileio.FileIO
	layout  *Layout
	paths   *paths.DataFilePathFactory
	opts    WriterOptions
	cols    []column
	sc      *pqschema.GroupNode
	props   *parquet.WriterProperties
	target  int64
	maxRows int64
	cur     *fileWriter
	done    []*meta.DataFileMeta
	written []string
	closed  bool
}

// NewRollingWriter returns a writer of data files named by pf.
func NewRollingWriter(fio fileio.FileIO, layout *Layout, pf *paths.DataFilePathFactory, opts WriterOptions) (*RollingWriter, error) {
	cols := layout.columns(int(opts.Level))
	sc, err := parquetSchema(cols)
	if err != nil {
		return nil, err
	}
	props, err := writerProperties(layout.Schema.Options, layout.compression(int(opts.Level)))
	if err != nil {
		return nil, err
	}
	target := int64(defaultTargetFileSize)
	if v, ok := layout.Schema.Options[TargetFileSizeOption]; ok {
		if target, err = schema.ParseMemorySize(v); err != nil {
			return nil, fmt.Errorf("option %s: %w", TargetFileSizeOption, err)
		}
	}
	// Row limit applies to writes only; compaction output rolls by size only
	// (KeyValueFileWriterFactory#createRollingMergeTreeFileWriter).
	maxRows := int64(math.MaxInt64)
	if v, ok := layout.Schema.Options[TargetFileRowNumOption]; ok && opts.Source != meta.FileSourceCompact {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("option %s: %q is not a positive number", TargetFileRowNumOption, v)
		}
		maxRows = n
	}
	return &RollingWriter{fio: fio, layout: layout, paths: pf, opts: opts, cols: cols, sc: sc, props: props, target: target, maxRows: maxRows}, nil
}

// Write appends one record. Records must come in ascending key order within a file.
func (w *RollingWriter) Write(ctx context.Context, kv *KeyValue) error {
	if w.closed {
		return errors.New("write to a closed data file writer")
	}
	if w.cur == nil {
		path := w.paths.NewPath()
		out, err := w.fio.Create(ctx, path)
		if err != nil {
			return fmt.Errorf("create data file %s: %w", paths.Name(path), err)
		}
		w.cur, err = newFileWriter(out, w.sc, w.props, w.cols, w.layout)
		if err != nil {
			out.Abort()
			w.cur = nil
			return err
		}
		w.cur.external = w.paths.IsExternalPath()
	}
	if err := w.cur.write(ctx, kv); err != nil {
		return err
	}
	if w.cur.count >= w.maxRows || (w.cur.count%checkRollingRecords == 0 && w.cur.estimatedSize() >= w.target) {
		return w.closeCurrent(ctx)
	}
	return nil
}

func (w *RollingWriter) closeCurrent(ctx context.Context) error {
	f := w.cur
	w.cur = nil
	m, err := f.finish(ctx, w.opts)
	if err != nil {
		if !errors.Is(err, fileio.ErrExists) {
			// The publication may have landed although it reported an error (a link+unlink
			// publication whose unlink failed): the fresh name is ours, so Abort deletes it too.
			w.written = append(w.written, f.out.Path())
		}
		return err
	}
	w.written = append(w.written, f.out.Path())
	w.done = append(w.done, m)
	return nil
}

// Close finishes the current file and returns the metadata of every file written.
func (w *RollingWriter) Close(ctx context.Context) ([]*meta.DataFileMeta, error) {
	if w.closed {
		return w.done, nil
	}
	w.closed = true
	if w.cur != nil {
		if err := w.closeCurrent(ctx); err != nil {
			return nil, err
		}
	}
	return w.done, nil
}

// Abort discards the current file and deletes every file written.
func (w *RollingWriter) Abort(ctx context.Context) {
	w.closed = true
	if w.cur != nil {
		w.cur.abort()
		w.cur = nil
	}
	for _, p := range w.written {
		w.fio.DeleteQuietly(context.WithoutCancel(ctx), p)
	}
	w.written = nil
	w.done = nil
}

// Written returns the paths of the files written so far.
func (w *RollingWriter) Written() []string { return append([]string(nil), w.written...) }

// writerProperties are the Parquet properties of a data file written with the codec name
// (file.compression, or the level's file.compression.per.level).
func writerProperties(opts map[string]string, name string) (*parquet.WriterProperties, error) {
	codec, err := parquetCodec(name)
	if err != nil {
		return nil, fmt.Errorf("option %s: %w", FileCompressionOption, err)
	}
	// The page index (an offset index and a column index per column chunk), as parquet-java
	// writes it for Paimon: a reader of one row (a search's hit, a lookup) reads that row's page
	// only, and readers that filter by page statistics can skip pages.
	props := []parquet.WriterProperty{parquet.WithCompression(codec), parquet.WithDictionaryDefault(true),
		parquet.WithStats(true), parquet.WithPageIndexEnabled(true), parquet.WithVersion(parquet.V1_0),
		parquet.WithCreatedBy("pkft (Paimon key-value layout)")}
	if codec == compress.Codecs.Zstd {
		level := 1
		if v, ok := opts[ZstdLevelOption]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("option %s: %w", ZstdLevelOption, err)
			}
			level = n
		}
		props = append(props, parquet.WithCompressionLevel(level))
	}
	return parquet.NewWriterProperties(props...), nil
}

// parquetCodec is the Parquet codec of a Paimon compression name (empty: zstd, the default).
func parquetCodec(name string) (compress.Compression, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "zstd":
		return compress.Codecs.Zstd, nil
	case "snappy":
		return compress.Codecs.Snappy, nil
	case "gzip":
		return compress.Codecs.Gzip, nil
	case "lz4":
		return compress.Codecs.Lz4Raw, nil
	case "brotli":
		return compress.Codecs.Brotli, nil
	case "none", "uncompressed":
		return compress.Codecs.Uncompressed, nil
	}
	return 0, fmt.Errorf("compression %q is not supported by the Go writer", name)
}

// parquetSchema is ParquetSchemaConverter#convertToParquetMessageType for the written columns.
func parquetSchema(cols []column) (*pqschema.GroupNode, error) {
	fields := make(pqschema.FieldList, 0, len(cols))
	for _, c := range cols {
		n, err := parquetNode(c.name, c.typ, int32(c.id))
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.name, err)
		}
		fields = append(fields, n)
	}
	return pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, fields, -1)
}

func parquetNode(name string, t types.DataType, id int32) (pqschema.Node, error) {
	rep := parquet.Repetitions.Optional
	if t.NotNull {
		rep = parquet.Repetitions.Required
	}
	prim := func(lt pqschema.LogicalType, pt parquet.Type, length int) (pqschema.Node, error) {
		if lt == nil {
			lt = pqschema.NoLogicalType{}
		}
		return pqschema.NewPrimitiveNodeLogical(name, rep, lt, pt, length, id)
	}
	switch t.Root {
	case types.RootChar, types.RootVarChar:
		return prim(pqschema.StringLogicalType{}, parquet.Types.ByteArray, -1)
	case types.RootBoolean:
		return prim(nil, parquet.Types.Boolean, -1)
	case types.RootBinary, types.RootVarBinary:
		return prim(nil, parquet.Types.ByteArray, -1)
	case types.RootDecimal:
		lt := pqschema.NewDecimalLogicalType(int32(t.Precision), int32(t.Scale))
		switch {
		case t.Precision <= 9:
			return prim(lt, parquet.Types.Int32, -1)
		case t.Precision <= 18:
			return prim(lt, parquet.Types.Int64, -1)
		}
		return prim(lt, parquet.Types.FixedLenByteArray, decimalBytes(t.Precision))
	case types.RootTinyInt:
		return prim(pqschema.NewIntLogicalType(8, true), parquet.Types.Int32, -1)
	case types.RootSmallInt:
		return prim(pqschema.NewIntLogicalType(16, true), parquet.Types.Int32, -1)
	case types.RootInt:
		return prim(nil, parquet.Types.Int32, -1)
	case types.RootBigInt:
		return prim(nil, parquet.Types.Int64, -1)
	case types.RootFloat:
		return prim(nil, parquet.Types.Float, -1)
	case types.RootDouble:
		return prim(nil, parquet.Types.Double, -1)
	case types.RootDate:
		return prim(pqschema.DateLogicalType{}, parquet.Types.Int32, -1)
	case types.RootTime:
		return prim(pqschema.NewTimeLogicalType(true, pqschema.TimeUnitMillis), parquet.Types.Int32, -1)
	case types.RootTimestamp, types.RootTimestampLTZ:
		utc := t.Root == types.RootTimestampLTZ
		switch {
		case t.Precision <= 3:
			return prim(pqschema.NewTimestampLogicalTypeForce(utc, pqschema.TimeUnitMillis), parquet.Types.Int64, -1)
		case t.Precision <= 6:
			return prim(pqschema.NewTimestampLogicalTypeForce(utc, pqschema.TimeUnitMicros), parquet.Types.Int64, -1)
		}
		return prim(nil, parquet.Types.Int96, -1)
	}
	return nil, fmt.Errorf("type %s is not supported", t.SQLString())
}

// decimalBytes is ParquetSchemaConverter#computeMinBytesForDecimalPrecision.
func decimalBytes(precision int) int {
	n := 1
	for math.Pow(2, float64(8*n-1)) < math.Pow(10, float64(precision)) {
		n++
	}
	return n
}

// fileWriter writes one data file.
type fileWriter struct {
	out      fileio.AtomicWriter
	buf      *bufio.Writer
	pw       *file.Writer
	cols     []column
	layout   *Layout
	stats    []*colStats
	rows     []*KeyValue
	rawBytes int64
	count    int64
	deletes  int64
	minKey   []any
	maxKey   []any
	minSeq   int64
	maxSeq   int64
	external bool
	// chunkRows is how many rows a column is handed to the Parquet writer at a time, ctx
	// checked between two chunks (columnChunkRows).
	chunkRows int
}

// columnChunkRows is how many rows of a row group's column writeColumn hands the Parquet column
// writer at a time, checking for cancellation between two: encoding and compressing a 32 MiB
// row group takes seconds on a busy machine. It is a multiple of the writer's batch size
// (Parquet's default of 1024 values, which writerProperties keeps), and the column writer
// checks page and dictionary limits only after each batch, so a column written in chunks is
// the same bytes as one written at once.
const columnChunkRows = 16 << 10

func newFileWriter(out fileio.AtomicWriter, sc *pqschema.GroupNode, props *parquet.WriterProperties, cols []column, layout *Layout) (*fileWriter, error) {
	buf := bufio.NewWriterSize(out, 1<<20)
	// The anonymous struct hides any Close method: the Parquet writer closes a sink that has one.
	pw, err := file.NewParquetWriterWithError(struct{ io.Writer }{buf}, sc, file.WithWriterProps(props))
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	f := &fileWriter{out: out, buf: buf, pw: pw, cols: cols, layout: layout, minSeq: math.MaxInt64, maxSeq: math.MinInt64,
		chunkRows: columnChunkRows}
	for _, c := range cols {
		f.stats = append(f.stats, newColStats(c))
	}
	return f, nil
}

func (f *fileWriter) write(ctx context.Context, kv *KeyValue) error {
	if len(kv.Key) != len(f.layout.KeyIndexes) || len(kv.Value) != len(f.layout.ValueType.Fields) {
		return fmt.Errorf("record has %d key and %d value fields, the table %d and %d",
			len(kv.Key), len(kv.Value), len(f.layout.KeyIndexes), len(f.layout.ValueType.Fields))
	}
	if f.minKey == nil {
		f.minKey = kv.Key
	}
	f.maxKey = kv.Key
	f.minSeq = min(f.minSeq, kv.Seq)
	f.maxSeq = max(f.maxSeq, kv.Seq)
	if kv.IsRetract() {
		f.deletes++
	}
	f.count++
	f.rows = append(f.rows, kv)
	f.rawBytes += rawSize(kv)
	if f.rawBytes >= rowGroupBytes {
		return f.flushRowGroup(ctx)
	}
	return nil
}

// estimatedSize is the bytes written plus the raw size of the buffered rows.
func (f *fileWriter) estimatedSize() int64 { return f.out.Pos() + int64(f.buf.Buffered()) + f.rawBytes }

func rawSize(kv *KeyValue) int64 {
	n := int64(16)
	for _, vals := range [][]any{kv.Key, kv.Value} {
		for _, v := range vals {
			switch x := v.(type) {
			case string:
				n += int64(len(x)) + 4
			case []byte:
				n += int64(len(x)) + 4
			default:
				n += 8
			}
		}
	}
	return n
}

// seqColumn is the index of the sequence-number column.
func (f *fileWriter) seqColumn() int {
	if f.layout.Thin {
		return 0
	}
	return len(f.layout.KeyIndexes)
}

// value returns column i of a record.
func (f *fileWriter) value(i int, kv *KeyValue) any {
	nk := 0
	if !f.layout.Thin {
		nk = len(f.layout.KeyIndexes)
	}
	switch {
	case i < nk:
		return kv.Key[i]
	case i == nk:
		return kv.Seq
	case i == nk+1:
		return int8(kv.Kind)
	}
	return kv.Value[i-nk-2]
}

// flushRowGroup writes the buffered rows as a row group; a cancelled ctx stops it between two
// chunks of a column (the file is then to be aborted).
func (f *fileWriter) flushRowGroup(ctx context.Context) error {
	if len(f.rows) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rg, err := f.pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for i, c := range f.cols {
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		if err := f.writeColumn(ctx, cw, i, c); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
		if err := cw.Close(); err != nil {
			return err
		}
	}
	if err := rg.Close(); err != nil {
		return err
	}
	f.rows = f.rows[:0]
	f.rawBytes = 0
	return nil
}

// writeColumn writes column i of the buffered rows, f.chunkRows rows at a time, ctx checked
// before each chunk.
func (f *fileWriter) writeColumn(ctx context.Context, cw file.ColumnChunkWriter, i int, c column) error {
	for lo := 0; lo < len(f.rows); lo += f.chunkRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f.writeColumnRows(cw, i, c, f.rows[lo:min(lo+f.chunkRows, len(f.rows))]); err != nil {
			return err
		}
	}
	return nil
}

// writeColumnRows writes column i of rows.
func (f *fileWriter) writeColumnRows(cw file.ColumnChunkWriter, i int, c column, rows []*KeyValue) error {
	n := len(rows)
	if w, ok := cw.(*file.Int64ColumnChunkWriter); ok && i == f.seqColumn() && n > 0 {
		// The sequence numbers, unboxed: the same values and statistics as the general path.
		out := make([]int64, n)
		lo, hi := rows[0].Seq, rows[0].Seq
		for r, kv := range rows {
			out[r] = kv.Seq
			lo, hi = min(lo, kv.Seq), max(hi, kv.Seq)
		}
		f.stats[i].add(lo)
		f.stats[i].add(hi)
		_, err := w.WriteBatch(out, nil, nil)
		return err
	}
	var defs []int16
	if !c.typ.NotNull {
		defs = make([]int16, n)
	}
	vals := make([]any, 0, n)
	for r, kv := range rows {
		v := f.value(i, kv)
		f.stats[i].add(v)
		if v == nil {
			if c.typ.NotNull {
				return fmt.Errorf("null value in NOT NULL column")
			}
			continue
		}
		if defs != nil {
			defs[r] = 1
		}
		vals = append(vals, v)
	}
	t := c.typ
	switch w := cw.(type) {
	case *file.BooleanColumnChunkWriter:
		out := make([]bool, len(vals))
		for j, v := range vals {
			b, ok := v.(bool)
			if !ok {
				return typeErr(v, t)
			}
			out[j] = b
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.Int32ColumnChunkWriter:
		out := make([]int32, len(vals))
		for j, v := range vals {
			x, err := toInt32(v, t)
			if err != nil {
				return err
			}
			out[j] = x
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.Int64ColumnChunkWriter:
		out := make([]int64, len(vals))
		for j, v := range vals {
			x, err := toInt64(v, t)
			if err != nil {
				return err
			}
			out[j] = x
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.Float32ColumnChunkWriter:
		out := make([]float32, len(vals))
		for j, v := range vals {
			x, ok := v.(float32)
			if !ok {
				return typeErr(v, t)
			}
			out[j] = x
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.Float64ColumnChunkWriter:
		out := make([]float64, len(vals))
		for j, v := range vals {
			x, ok := v.(float64)
			if !ok {
				return typeErr(v, t)
			}
			out[j] = x
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.ByteArrayColumnChunkWriter:
		out := make([]parquet.ByteArray, len(vals))
		for j, v := range vals {
			switch x := v.(type) {
			case string:
				// The writer reads the bytes and never writes them: no copy. An empty string
				// stays a non-nil empty value (the page statistics take a nil one for none).
				if len(x) == 0 {
					out[j] = parquet.ByteArray{}
				} else {
					out[j] = parquet.ByteArray(unsafe.Slice(unsafe.StringData(x), len(x)))
				}
			case []byte:
				out[j] = parquet.ByteArray(x)
			default:
				return typeErr(v, t)
			}
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.FixedLenByteArrayColumnChunkWriter:
		size := decimalBytes(t.Precision)
		out := make([]parquet.FixedLenByteArray, len(vals))
		for j, v := range vals {
			d, ok := v.(binrow.Decimal)
			if !ok || d.Unscaled == nil {
				return typeErr(v, t)
			}
			out[j] = signExtend(d.Unscaled, size)
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	case *file.Int96ColumnChunkWriter:
		out := make([]parquet.Int96, len(vals))
		for j, v := range vals {
			ts, ok := v.(binrow.Timestamp)
			if !ok {
				return typeErr(v, t)
			}
			nanos := ts.Millis*1_000_000 + int64(ts.NanoOfMilli)
			day := floorDiv(nanos, 86_400_000_000_000)
			nod := nanos - day*86_400_000_000_000
			binary.LittleEndian.PutUint64(out[j][:8], uint64(nod))
			binary.LittleEndian.PutUint32(out[j][8:], uint32(day+2440588))
		}
		_, err := w.WriteBatch(out, defs, nil)
		return err
	}
	return fmt.Errorf("column writer %T is not supported", cw)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func typeErr(v any, t types.DataType) error {
	return fmt.Errorf("value %v (%T) does not fit type %s", v, v, t.SQLString())
}

func toInt32(v any, t types.DataType) (int32, error) {
	switch x := v.(type) {
	case int8:
		return int32(x), nil
	case int16:
		return int32(x), nil
	case int32:
		return x, nil
	case binrow.Decimal:
		if t.Root == types.RootDecimal && x.Unscaled != nil && x.Unscaled.IsInt64() {
			return int32(x.Unscaled.Int64()), nil
		}
	}
	return 0, typeErr(v, t)
}

func toInt64(v any, t types.DataType) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case binrow.Decimal:
		if x.Unscaled != nil && x.Unscaled.IsInt64() {
			return x.Unscaled.Int64(), nil
		}
	case binrow.Timestamp:
		switch {
		case t.Precision <= 3:
			return x.Millis, nil
		default:
			return x.Millis*1000 + int64(x.NanoOfMilli)/1000, nil
		}
	}
	return 0, typeErr(v, t)
}

// signExtend writes u as a big-endian two's complement integer of size bytes.
func signExtend(u *big.Int, size int) []byte {
	out := make([]byte, size)
	if u.Sign() >= 0 {
		u.FillBytes(out)
		return out
	}
	m := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), uint(8*size)), u)
	m.FillBytes(out)
	return out
}

func (f *fileWriter) abort() {
	_ = f.out.Abort()
}

// finish closes the Parquet file, publishes it and returns its metadata
// (KeyValueDataFileWriter#result).
func (f *fileWriter) finish(ctx context.Context, opts WriterOptions) (*meta.DataFileMeta, error) {
	if err := f.flushRowGroup(ctx); err != nil {
		f.abort()
		return nil, err
	}
	if err := f.pw.Close(); err != nil {
		f.abort()
		return nil, err
	}
	if err := f.buf.Flush(); err != nil {
		f.abort()
		return nil, err
	}
	size := f.out.Pos()
	if err := f.out.Commit(ctx); err != nil {
		return nil, fmt.Errorf("publish data file %s: %w", paths.Name(f.out.Path()), err)
	}
	m, err := f.meta(size, opts)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (f *fileWriter) meta(size int64, opts WriterOptions) (*meta.DataFileMeta, error) {
	l := f.layout
	minKey, err := binrow.NewBinaryRow(l.KeyType, f.minKey)
	if err != nil {
		return nil, fmt.Errorf("min key: %w", err)
	}
	maxKey, err := binrow.NewBinaryRow(l.KeyType, f.maxKey)
	if err != nil {
		return nil, fmt.Errorf("max key: %w", err)
	}
	nk := len(l.KeyIndexes)
	type triple struct {
		lo, hi any
		nulls  *int64
		none   bool
	}
	all := make([]triple, len(f.stats))
	for i, s := range f.stats {
		lo, hi, n, none := s.result()
		all[i] = triple{lo, hi, n, none}
	}
	var keyStats, valueStats []triple
	if l.Thin {
		// KeyValueThinDataFileWriterImpl: key stats are the stats of the key fields' value
		// columns.
		vals := all[2:]
		for _, idx := range l.KeyIndexes {
			keyStats = append(keyStats, vals[idx])
		}
		valueStats = vals
	} else {
		keyStats = all[:nk]
		valueStats = all[nk+2:]
	}
	nullable := func(t types.DataType) types.DataType {
		out := t
		out.Fields = make([]types.DataField, len(t.Fields))
		for i, fd := range t.Fields {
			fd.Type.NotNull = false
			out.Fields[i] = fd
		}
		return out
	}
	encode := func(rowType types.DataType, ts []triple) (meta.SimpleStats, error) {
		lo := make([]any, len(ts))
		hi := make([]any, len(ts))
		nulls := make([]*int64, len(ts))
		for i, t := range ts {
			lo[i], hi[i], nulls[i] = t.lo, t.hi, t.nulls
		}
		minRow, err := binrow.NewBinaryRow(rowType, lo)
		if err != nil {
			return meta.SimpleStats{}, err
		}
		maxRow, err := binrow.NewBinaryRow(rowType, hi)
		if err != nil {
			return meta.SimpleStats{}, err
		}
		return meta.SimpleStats{MinValues: minRow.Serialize(), MaxValues: maxRow.Serialize(), NullCounts: nulls}, nil
	}
	ks, err := encode(nullable(l.KeyType), keyStats)
	if err != nil {
		return nil, fmt.Errorf("key stats: %w", err)
	}
	// SimpleStatsConverter#toBinary: the dense store keeps only columns whose stats are not
	// NONE, and names them unless all are kept.
	var statsCols []string
	valueType := nullable(l.ValueType)
	if l.denseStore {
		var kept []types.DataField
		var keptStats []triple
		for i, t := range valueStats {
			if !t.none {
				kept = append(kept, valueType.Fields[i])
				keptStats = append(keptStats, t)
			}
		}
		if len(kept) != len(valueType.Fields) {
			statsCols = make([]string, 0, len(kept))
			for _, fd := range kept {
				statsCols = append(statsCols, fd.Name)
			}
			valueType = types.Row(kept...)
			valueStats = keptStats
		}
	}
	vs, err := encode(valueType, valueStats)
	if err != nil {
		return nil, fmt.Errorf("value stats: %w", err)
	}
	src := opts.Source
	deletes := f.deletes
	created := localMillis(time.Now())
	m := &meta.DataFileMeta{
		FileName:          paths.Name(f.out.Path()),
		FileSize:          size,
		RowCount:          f.count,
		MinKey:            minKey.Serialize(),
		MaxKey:            maxKey.Serialize(),
		KeyStats:          ks,
		ValueStats:        vs,
		MinSequenceNumber: f.minSeq,
		MaxSequenceNumber: f.maxSeq,
		SchemaID:          opts.SchemaID,
		Level:             opts.Level,
		ExtraFiles:        []string{},
		CreationTime:      &created,
		DeleteRowCount:    &deletes,
		FileSource:        &src,
		ValueStatsCols:    statsCols,
	}
	if f.external {
		p := f.out.Path()
		m.ExternalPath = &p
	}
	return m, nil
}

// localMillis is Java's Timestamp.fromLocalDateTime(LocalDateTime.now()).getMillisecond(): the
// local wall-clock time read as if it were UTC.
func localMillis(t time.Time) int64 {
	_, off := t.Zone()
	return t.UnixMilli() + int64(off)*1000
}
