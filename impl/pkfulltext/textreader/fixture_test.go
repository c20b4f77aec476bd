package textreader

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Field ids as Paimon assigns them (SpecialFields).
const (
	keyFieldIDStart     = math.MaxInt32 / 2
	sequenceNumberID    = math.MaxInt32 - 1
	valueKindID         = math.MaxInt32 - 2
	tableIDFieldID      = 0
	defaultTextFieldID  = 1
	tablePayloadFieldID = 2
)

// fixture describes a Paimon key-value Parquet data file for a table
// (id INT NOT NULL primary key, <text> STRING, payload INT): key fields with
// the _KEY_ prefix, _SEQUENCE_NUMBER, _VALUE_KIND, then the value fields,
// each carrying the Paimon field id.
type fixture struct {
	textName     string // default "content"
	textID       int32  // default 1
	plainBinary  bool   // BYTE_ARRAY without the STRING annotation
	required     bool   // REQUIRED text column (no nulls allowed)
	omitText     bool   // the file has no text column at all
	intText      bool   // the text column is INT32 (a type the reader rejects)
	extraString  string // name of an extra STRING value column with id 3
	thin         bool   // thin mode: no _KEY_ columns
	dict         bool   // dictionary-encode the text column
	rowGroupRows int    // rows per row group; 0 means a single row group
	pageSize     int64  // data page size limit; 0 means the library default
	compression  compress.Compression
	pageV2       bool
}

// text returns the value of row i, or null.
type textFunc func(i int) (value []byte, null bool)

func strs(values ...any) textFunc {
	return func(i int) ([]byte, bool) {
		switch v := values[i].(type) {
		case nil:
			return nil, true
		case string:
			return []byte(v), false
		default:
			panic(fmt.Sprintf("bad fixture value %T", v))
		}
	}
}

func (fx fixture) schema() (*schema.GroupNode, error) {
	name := fx.textName
	if name == "" {
		name = "content"
	}
	id := fx.textID
	if id == 0 {
		id = defaultTextFieldID
	}
	rep := parquet.Repetitions.Optional
	if fx.required {
		rep = parquet.Repetitions.Required
	}
	var fields schema.FieldList
	if !fx.thin {
		fields = append(fields, schema.NewInt32Node("_KEY_id", parquet.Repetitions.Required, keyFieldIDStart+tableIDFieldID))
	}
	vk, err := schema.NewPrimitiveNodeLogical("_VALUE_KIND", parquet.Repetitions.Required, schema.NewIntLogicalType(8, true), parquet.Types.Int32, -1, valueKindID)
	if err != nil {
		return nil, err
	}
	fields = append(fields,
		schema.NewInt64Node("_SEQUENCE_NUMBER", parquet.Repetitions.Required, sequenceNumberID),
		vk,
		schema.NewInt32Node("id", parquet.Repetitions.Required, tableIDFieldID))
	if !fx.omitText {
		var text schema.Node
		switch {
		case fx.intText:
			text = schema.NewInt32Node(name, rep, id)
		case fx.plainBinary:
			text = schema.NewByteArrayNode(name, rep, id)
		default:
			if text, err = schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, id); err != nil {
				return nil, err
			}
		}
		fields = append(fields, text)
	}
	fields = append(fields, schema.NewInt32Node("payload", parquet.Repetitions.Optional, tablePayloadFieldID))
	if fx.extraString != "" {
		extra, err := schema.NewPrimitiveNodeLogical(fx.extraString, parquet.Repetitions.Optional, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, 3)
		if err != nil {
			return nil, err
		}
		fields = append(fields, extra)
	}
	return schema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, fields, -1)
}

// write writes rows rows of the fixture to w.
func (fx fixture) write(w io.Writer, rows int, text textFunc) error {
	sc, err := fx.schema()
	if err != nil {
		return err
	}
	opts := []parquet.WriterProperty{
		parquet.WithDictionaryDefault(fx.dict),
		parquet.WithCompression(fx.compression),
		parquet.WithStats(false),
	}
	if fx.pageSize > 0 {
		opts = append(opts, parquet.WithDataPageSize(fx.pageSize), parquet.WithBatchSize(64))
	}
	if fx.pageV2 {
		opts = append(opts, parquet.WithDataPageVersion(parquet.DataPageV2))
	}
	pw, err := file.NewParquetWriterWithError(w, sc, file.WithWriterProps(parquet.NewWriterProperties(opts...)))
	if err != nil {
		return err
	}
	per := fx.rowGroupRows
	if per <= 0 {
		per = rows
	}
	for start := 0; start < rows || (rows == 0 && start == 0); start += max(per, 1) {
		n := min(per, rows-start)
		if err := fx.writeRowGroup(pw, start, n, text); err != nil {
			return err
		}
		if rows == 0 {
			break
		}
	}
	return pw.Close()
}

func (fx fixture) writeRowGroup(pw *file.Writer, start, n int, text textFunc) error {
	rg, err := pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	ids := make([]int32, n)
	seqs := make([]int64, n)
	kinds := make([]int32, n)
	payload := make([]int32, 0, n)
	payloadDefs := make([]int16, n)
	texts := make([]parquet.ByteArray, 0, n)
	textDefs := make([]int16, n)
	for i := range n {
		row := start + i
		ids[i] = int32(row + 1)
		seqs[i] = int64(row)
		if row%3 != 0 {
			payload = append(payload, int32(row*10))
			payloadDefs[i] = 1
		}
		if v, null := text(row); !null {
			texts = append(texts, v)
			textDefs[i] = 1
		} else if fx.required {
			return fmt.Errorf("row %d: null in a required text column", row)
		}
	}
	next := func() (file.ColumnChunkWriter, error) { return rg.NextColumn() }
	write := func(fn func(file.ColumnChunkWriter) error) error {
		cw, err := next()
		if err != nil {
			return err
		}
		if err := fn(cw); err != nil {
			return err
		}
		return cw.Close()
	}
	i32 := func(v []int32, defs []int16) func(file.ColumnChunkWriter) error {
		return func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(v, defs, nil)
			return err
		}
	}
	if !fx.thin {
		if err := write(i32(ids, nil)); err != nil {
			return err
		}
	}
	if err := write(func(cw file.ColumnChunkWriter) error {
		_, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch(seqs, nil, nil)
		return err
	}); err != nil {
		return err
	}
	if err := write(i32(kinds, nil)); err != nil {
		return err
	}
	if err := write(i32(ids, nil)); err != nil {
		return err
	}
	var defs []int16
	if !fx.required {
		defs = textDefs
	}
	if !fx.omitText {
		if fx.intText {
			vals := make([]int32, len(texts))
			if err := write(i32(vals, defs)); err != nil {
				return err
			}
		} else if err := write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(texts, defs, nil)
			return err
		}); err != nil {
			return err
		}
	}
	if err := write(i32(payload, payloadDefs)); err != nil {
		return err
	}
	if fx.extraString != "" {
		decoy := make([]parquet.ByteArray, n)
		decoyDefs := make([]int16, n)
		for i := range decoy {
			decoy[i] = parquet.ByteArray("decoy")
			decoyDefs[i] = 1
		}
		if err := write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(decoy, decoyDefs, nil)
			return err
		}); err != nil {
			return err
		}
	}
	return rg.Close()
}

// bytesOf writes the fixture into memory.
func (fx fixture) bytesOf(t testing.TB, rows int, text textFunc) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := fx.write(&buf, rows, text); err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	return buf.Bytes()
}

// names is a FieldNameFunc over a fixed map of (schema id, field id) -> name.
func names(m map[[2]int64]string) FieldNameFunc {
	return func(schemaID int64, fieldID int32) (string, error) {
		if n, ok := m[[2]int64{schemaID, int64(fieldID)}]; ok {
			return n, nil
		}
		return "", fmt.Errorf("schema %d field %d: %w", schemaID, fieldID, ErrFieldNotInSchema)
	}
}

// contentAt0 resolves field 1 in schema 0 to "content".
var contentAt0 = names(map[[2]int64]string{{0, defaultTextFieldID}: "content"})
