// Package paimonparquet writes Parquet data files laid out the way Apache Paimon writes the data
// files of a primary-key table, for tests and benchmarks of code that reads them.
//
// The table is (id INT NOT NULL PRIMARY KEY, <text> STRING, payload INT), optionally with one more
// STRING value field. A key-value data file holds, in this order: the key fields with the _KEY_
// prefix (field id KeyFieldIDStart + id), _SEQUENCE_NUMBER (BIGINT), _VALUE_KIND (TINYINT), then
// the value fields, every column carrying its Paimon field id. In thin mode (data-file.thin-mode)
// the _KEY_ columns are left out.
//
// Write streams: row groups are written as they are generated, each column in batches, so memory
// stays bounded by a batch plus whatever the Parquet column writer buffers (one page, or one row
// group's pages of a column while dictionary encoding is active), whatever the file size.
package paimonparquet

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Field ids as Paimon assigns them (SpecialFields) and the field ids of the table's fields.
const (
	// KeyFieldIDStart is added to a primary-key field's id to form the id of its _KEY_ column.
	KeyFieldIDStart = math.MaxInt32 / 2
	// SequenceNumberFieldID is the field id of _SEQUENCE_NUMBER.
	SequenceNumberFieldID = math.MaxInt32 - 1
	// ValueKindFieldID is the field id of _VALUE_KIND.
	ValueKindFieldID = math.MaxInt32 - 2
	// IDFieldID is the field id of the primary key id.
	IDFieldID = 0
	// DefaultTextFieldID is the field id of the text column unless Options.TextFieldID is set.
	DefaultTextFieldID = 1
	// PayloadFieldID is the field id of payload.
	PayloadFieldID = 2
	// ExtraStringFieldID is the field id of the optional extra STRING column.
	ExtraStringFieldID = 3
)

// DefaultTextName is the text column's name unless Options.TextName is set.
const DefaultTextName = "content"

// ExtraStringValue is the value of every row of the extra STRING column.
const ExtraStringValue = "decoy"

// writeBatch is the number of rows generated and handed to a column writer at a time;
// writeBatchBytes bounds the text a batch holds.
const (
	writeBatch      = 4096
	writeBatchBytes = 1 << 20
)

// Options selects the layout and encoding of a data file. The zero value is a single row group,
// OPTIONAL STRING text column "content" with field id 1, PLAIN encoding, no compression.
type Options struct {
	// TextName is the text column's name; empty means DefaultTextName.
	TextName string
	// TextFieldID is the text column's field id; zero means DefaultTextFieldID.
	TextFieldID int32
	// PlainBinary writes the text column as BYTE_ARRAY without the STRING annotation.
	PlainBinary bool
	// Required makes the text column REQUIRED; a null text is then an error.
	Required bool
	// OmitText leaves the text column out (a file written before the column was added).
	OmitText bool
	// IntText writes the text column as INT32 (zero for every non-null row), a type text readers
	// must reject.
	IntText bool
	// ExtraString, when set, names an extra OPTIONAL STRING value column with field id
	// ExtraStringFieldID, holding ExtraStringValue in every row.
	ExtraString string
	// Thin leaves the _KEY_ columns out, as data-file.thin-mode does.
	Thin bool
	// Dictionary enables dictionary encoding (Paimon's Parquet default).
	Dictionary bool
	// RowGroupRows is the number of rows per row group; zero means a single row group.
	RowGroupRows int
	// PageSize is the data page size limit in bytes; zero means the library default (1 MiB).
	PageSize int64
	// PageIndex writes a column index and an offset index for every column chunk, as
	// parquet-java (Paimon's writer) does by default.
	PageIndex bool
	// Compression is the page compression codec (zero value: uncompressed).
	Compression compress.Compression
	// PageV2 writes data pages in the V2 format.
	PageV2 bool
	// TextEncoding, when not zero (PLAIN), encodes the text column's values with it (for
	// example DELTA_LENGTH_BYTE_ARRAY) instead of PLAIN or the dictionary.
	TextEncoding parquet.Encoding
	// FirstRow offsets the synthetic columns, so that several files can hold disjoint keys: row i
	// of the file has id and _KEY_id FirstRow+i+1 and _SEQUENCE_NUMBER FirstRow+i. Text
	// functions still receive the row's position in the file.
	FirstRow int64
}

// TextFunc returns the text of row i of the file (0-based), or null. Write calls it exactly once
// per row, in increasing row order; the returned bytes are copied, so the function may reuse its
// buffer on the next call.
type TextFunc func(i int) (value []byte, null bool)

// Stats describes a written file.
type Stats struct {
	// Rows is the number of rows written.
	Rows int64
	// NullTexts is the number of rows whose text is null.
	NullTexts int64
	// TextBytes is the total length of the non-null texts.
	TextBytes int64
	// RowGroups is the number of row groups.
	RowGroups int
	// FileBytes is the size of the file.
	FileBytes int64
}

// Schema returns the Parquet schema of a file written with o.
func (o Options) Schema() (*schema.GroupNode, error) {
	name := o.textName()
	id := o.textFieldID()
	rep := parquet.Repetitions.Optional
	if o.Required {
		rep = parquet.Repetitions.Required
	}
	var fields schema.FieldList
	if !o.Thin {
		fields = append(fields, schema.NewInt32Node("_KEY_id", parquet.Repetitions.Required, KeyFieldIDStart+IDFieldID))
	}
	vk, err := schema.NewPrimitiveNodeLogical("_VALUE_KIND", parquet.Repetitions.Required, schema.NewIntLogicalType(8, true), parquet.Types.Int32, -1, ValueKindFieldID)
	if err != nil {
		return nil, err
	}
	fields = append(fields,
		schema.NewInt64Node("_SEQUENCE_NUMBER", parquet.Repetitions.Required, SequenceNumberFieldID),
		vk,
		schema.NewInt32Node("id", parquet.Repetitions.Required, IDFieldID))
	if !o.OmitText {
		var text schema.Node
		switch {
		case o.IntText:
			text = schema.NewInt32Node(name, rep, id)
		case o.PlainBinary:
			text = schema.NewByteArrayNode(name, rep, id)
		default:
			if text, err = schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, id); err != nil {
				return nil, err
			}
		}
		fields = append(fields, text)
	}
	fields = append(fields, schema.NewInt32Node("payload", parquet.Repetitions.Optional, PayloadFieldID))
	if o.ExtraString != "" {
		extra, err := schema.NewPrimitiveNodeLogical(o.ExtraString, parquet.Repetitions.Optional, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, ExtraStringFieldID)
		if err != nil {
			return nil, err
		}
		fields = append(fields, extra)
	}
	return schema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, fields, -1)
}

func (o Options) textName() string {
	if o.TextName == "" {
		return DefaultTextName
	}
	return o.TextName
}

func (o Options) textFieldID() int32 {
	if o.TextFieldID == 0 {
		return DefaultTextFieldID
	}
	return o.TextFieldID
}

// Payload returns the payload of row i of a file written with o, and whether it is null: null
// for every third row, 10*(FirstRow+i) (truncated to 32 bits) otherwise.
func (o Options) Payload(i int) (int32, bool) {
	row := o.FirstRow + int64(i)
	if row%3 == 0 {
		return 0, true
	}
	return int32(row * 10), false
}

// Write writes rows rows to w, taking the texts from text. It does not close w. With rows == 0
// the file holds one empty row group.
func Write(w io.Writer, rows int, text TextFunc, o Options) (Stats, error) {
	if rows < 0 {
		return Stats{}, fmt.Errorf("negative row count %d", rows)
	}
	sc, err := o.Schema()
	if err != nil {
		return Stats{}, err
	}
	props := []parquet.WriterProperty{
		parquet.WithDictionaryDefault(o.Dictionary),
		parquet.WithCompression(o.Compression),
		parquet.WithStats(false),
	}
	if o.PageSize > 0 {
		// A small batch makes the writer check the page size limit often.
		props = append(props, parquet.WithDataPageSize(o.PageSize), parquet.WithBatchSize(64))
	}
	if o.PageV2 {
		props = append(props, parquet.WithDataPageVersion(parquet.DataPageV2))
	}
	if o.PageIndex {
		props = append(props, parquet.WithPageIndexEnabled(true))
	}
	if o.TextEncoding != parquet.Encodings.Plain {
		props = append(props, parquet.WithDictionaryFor(o.textName(), false), parquet.WithEncodingFor(o.textName(), o.TextEncoding))
	}
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	// sink hides any Close method of w: the Parquet writer closes a sink that has one.
	sink := struct{ io.Writer }{bw}
	pw, err := file.NewParquetWriterWithError(sink, sc, file.WithWriterProps(parquet.NewWriterProperties(props...)))
	if err != nil {
		return Stats{}, err
	}
	g := &generator{o: o, text: text}
	per := o.RowGroupRows
	if per <= 0 {
		per = max(rows, 1)
	}
	for start := 0; ; start += per {
		n := min(per, rows-start)
		if err := g.writeRowGroup(pw, start, n); err != nil {
			_ = pw.Close()
			return Stats{}, err
		}
		g.stats.RowGroups++
		if start+n >= rows {
			break
		}
	}
	if err := pw.Close(); err != nil {
		return Stats{}, err
	}
	if err := bw.Flush(); err != nil {
		return Stats{}, err
	}
	g.stats.FileBytes = cw.n
	return g.stats, nil
}

// WriteFile writes the file to path (created or truncated) and syncs it.
func WriteFile(path string, rows int, text TextFunc, o Options) (_ Stats, err error) {
	f, err := os.Create(path)
	if err != nil {
		return Stats{}, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	st, err := Write(f, rows, text, o)
	if err != nil {
		return Stats{}, err
	}
	return st, f.Sync()
}

// Bytes returns the file in memory.
func Bytes(rows int, text TextFunc, o Options) ([]byte, Stats, error) {
	var buf bytes.Buffer
	st, err := Write(&buf, rows, text, o)
	if err != nil {
		return nil, Stats{}, err
	}
	return buf.Bytes(), st, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// generator writes row groups, reusing its batch buffers.
type generator struct {
	o     Options
	text  TextFunc
	stats Stats

	i32   []int32
	i64   []int64
	defs  []int16
	bytes []parquet.ByteArray
	arena []byte
}

func (g *generator) writeRowGroup(pw *file.Writer, start, n int) error {
	rg, err := pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	first := g.o.FirstRow + int64(start)
	id := func(i int) int32 { return int32(first + int64(i) + 1) }
	if !g.o.Thin {
		if err := g.int32Column(rg, n, func(i int) (int32, bool) { return id(i), false }, false); err != nil {
			return err
		}
	}
	if err := g.seqColumn(rg, n, first); err != nil {
		return err
	}
	// _VALUE_KIND: every row is an INSERT (0).
	if err := g.int32Column(rg, n, func(int) (int32, bool) { return 0, false }, false); err != nil {
		return err
	}
	if err := g.int32Column(rg, n, func(i int) (int32, bool) { return id(i), false }, false); err != nil {
		return err
	}
	if !g.o.OmitText {
		if err := g.textColumn(rg, start, n); err != nil {
			return err
		}
	} else {
		g.countOmitted(start, n)
	}
	if err := g.int32Column(rg, n, func(i int) (int32, bool) {
		v, null := g.o.Payload(start + i)
		return v, null
	}, true); err != nil {
		return err
	}
	if g.o.ExtraString != "" {
		if err := g.extraColumn(rg, n); err != nil {
			return err
		}
	}
	return rg.Close()
}

// countOmitted consumes the text function for a file without a text column, so that the stats
// and the call sequence do not depend on OmitText.
func (g *generator) countOmitted(start, n int) {
	for i := range n {
		g.stats.Rows++
		if _, null := g.text(start + i); null {
			g.stats.NullTexts++
		}
	}
}

func (g *generator) int32Column(rg file.SerialRowGroupWriter, n int, value func(i int) (int32, bool), optional bool) error {
	cw, err := rg.NextColumn()
	if err != nil {
		return err
	}
	w := cw.(*file.Int32ColumnChunkWriter)
	for off := 0; off < n; off += writeBatch {
		m := min(writeBatch, n-off)
		g.i32 = g.i32[:0]
		g.defs = g.defs[:0]
		for i := off; i < off+m; i++ {
			v, null := value(i)
			if !null {
				g.i32 = append(g.i32, v)
			}
			if optional {
				g.defs = append(g.defs, int16(boolInt(!null)))
			} else if null {
				return fmt.Errorf("row %d: null in a required column", i)
			}
		}
		var defs []int16
		if optional {
			defs = g.defs
		}
		if _, err := w.WriteBatch(g.i32, defs, nil); err != nil {
			return err
		}
	}
	return cw.Close()
}

func (g *generator) seqColumn(rg file.SerialRowGroupWriter, n int, first int64) error {
	cw, err := rg.NextColumn()
	if err != nil {
		return err
	}
	w := cw.(*file.Int64ColumnChunkWriter)
	for off := 0; off < n; off += writeBatch {
		m := min(writeBatch, n-off)
		g.i64 = g.i64[:0]
		for i := off; i < off+m; i++ {
			g.i64 = append(g.i64, first+int64(i))
		}
		if _, err := w.WriteBatch(g.i64, nil, nil); err != nil {
			return err
		}
	}
	return cw.Close()
}

func (g *generator) textColumn(rg file.SerialRowGroupWriter, start, n int) error {
	cw, err := rg.NextColumn()
	if err != nil {
		return err
	}
	for off := 0; off < n; {
		// A batch ends after writeBatch rows or writeBatchBytes of text, whichever comes first.
		g.bytes = g.bytes[:0]
		g.defs = g.defs[:0]
		g.arena = g.arena[:0]
		ends := g.i64[:0] // end offsets of the values in the arena
		for ; off < n && len(g.defs) < writeBatch && len(g.arena) < writeBatchBytes; off++ {
			row := start + off
			v, null := g.text(row)
			g.stats.Rows++
			if null {
				if g.o.Required {
					return fmt.Errorf("row %d: null in a required text column", row)
				}
				g.stats.NullTexts++
				g.defs = append(g.defs, 0)
				continue
			}
			g.stats.TextBytes += int64(len(v))
			g.arena = append(g.arena, v...)
			ends = append(ends, int64(len(g.arena)))
			g.defs = append(g.defs, 1)
		}
		g.i64 = ends
		var defs []int16
		if !g.o.Required {
			defs = g.defs
		}
		if g.o.IntText {
			g.i32 = g.i32[:0]
			for range ends {
				g.i32 = append(g.i32, 0)
			}
			if _, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(g.i32, defs, nil); err != nil {
				return err
			}
			continue
		}
		// Slice the values only now: appending to the arena may have moved it.
		var begin int64
		for _, end := range ends {
			g.bytes = append(g.bytes, parquet.ByteArray(g.arena[begin:end:end]))
			begin = end
		}
		if _, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(g.bytes, defs, nil); err != nil {
			return err
		}
	}
	return cw.Close()
}

func (g *generator) extraColumn(rg file.SerialRowGroupWriter, n int) error {
	cw, err := rg.NextColumn()
	if err != nil {
		return err
	}
	w := cw.(*file.ByteArrayColumnChunkWriter)
	for off := 0; off < n; off += writeBatch {
		m := min(writeBatch, n-off)
		g.bytes = g.bytes[:0]
		g.defs = g.defs[:0]
		for range m {
			g.bytes = append(g.bytes, parquet.ByteArray(ExtraStringValue))
			g.defs = append(g.defs, 1)
		}
		if _, err := w.WriteBatch(g.bytes, g.defs, nil); err != nil {
			return err
		}
	}
	return cw.Close()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
