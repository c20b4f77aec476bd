package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/pqvalue"
	"github.com/paimon-pkft/pkft/internal/types"
)

// rowsFile writes a Parquet file of n rows in row groups of rgRows with small pages: id INT32,
// content STRING (null every 5th row), ts TIMESTAMP(6) as INT64 micros, small DECIMAL(9, 2) as
// INT32, big DECIMAL(20, 2) as FIXED_LEN_BYTE_ARRAY(9), day DATE.
func rowsFile(t testing.TB, n, rgRows int, pageIndex bool) []byte {
	t.Helper()
	return rowsFileEncoded(t, n, rgRows, pageIndex, false)
}

// rowsFileEncoded is rowsFile, its columns dictionary-encoded when dict is set.
func rowsFileEncoded(t testing.TB, n, rgRows int, pageIndex, dict bool) []byte {
	t.Helper()
	must := func(node pqschema.Node, err error) pqschema.Node {
		if err != nil {
			t.Fatal(err)
		}
		return node
	}
	fields := pqschema.FieldList{
		pqschema.NewInt32Node("id", parquet.Repetitions.Required, 0),
		must(pqschema.NewPrimitiveNodeLogical("content", parquet.Repetitions.Optional, pqschema.StringLogicalType{}, parquet.Types.ByteArray, -1, 1)),
		must(pqschema.NewPrimitiveNodeLogical("ts", parquet.Repetitions.Required, pqschema.NewTimestampLogicalType(false, pqschema.TimeUnitMicros), parquet.Types.Int64, -1, 2)),
		must(pqschema.NewPrimitiveNodeLogical("small", parquet.Repetitions.Required, pqschema.NewDecimalLogicalType(9, 2), parquet.Types.Int32, -1, 3)),
		must(pqschema.NewPrimitiveNodeLogical("big", parquet.Repetitions.Required, pqschema.NewDecimalLogicalType(20, 2), parquet.Types.FixedLenByteArray, 9, 4)),
		must(pqschema.NewPrimitiveNodeLogical("day", parquet.Repetitions.Required, pqschema.DateLogicalType{}, parquet.Types.Int32, -1, 5)),
	}
	root, err := pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	opts := []parquet.WriterProperty{parquet.WithDataPageSize(512), parquet.WithBatchSize(32), parquet.WithPageIndexEnabled(pageIndex), parquet.WithDictionaryDefault(dict)}
	if dict {
		// Compressed pages: arrow-go keeps a requested dictionary of distinct values only then.
		opts = append(opts, parquet.WithCompression(compress.Codecs.Zstd))
	}
	props := parquet.NewWriterProperties(opts...)
	pw := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	for start := 0; start < n; start += rgRows {
		rows := min(rgRows, n-start)
		rg := pw.AppendRowGroup()
		ids, texts, defs, ts, small, bigs, days := make([]int32, rows), []parquet.ByteArray{}, make([]int16, rows), make([]int64, rows), make([]int32, rows), make([]parquet.FixedLenByteArray, rows), make([]int32, rows)
		for j := range rows {
			i := start + j
			ids[j] = int32(i)
			if i%5 != 0 {
				defs[j] = 1
				texts = append(texts, parquet.ByteArray(fmt.Sprintf("text %d", i)))
			}
			ts[j] = int64(i)*1_000_001 - 5_000_000
			small[j] = int32(i) - 100
			bigs[j] = bigValue(i)
			days[j] = int32(19000 + i)
		}
		write := func(f func(cw file.ColumnChunkWriter) error) {
			cw, err := rg.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			if err := f(cw); err != nil {
				t.Fatal(err)
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(ids, nil, nil)
			return err
		})
		write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(texts, defs, nil)
			return err
		})
		write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch(ts, nil, nil)
			return err
		})
		write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(small, nil, nil)
			return err
		})
		write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.FixedLenByteArrayColumnChunkWriter).WriteBatch(bigs, nil, nil)
			return err
		})
		write(func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(days, nil, nil)
			return err
		})
		if err := rg.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bigValue is row i's DECIMAL(20, 2) unscaled value, negative for odd rows, as 9 big-endian
// two's complement bytes.
func bigValue(i int) parquet.FixedLenByteArray {
	v := new(big.Int).Mul(big.NewInt(int64(i)+1), big.NewInt(1_000_000_000_007))
	if i%2 == 1 {
		v.Neg(v)
	}
	out := make([]byte, 9)
	mod := new(big.Int).Lsh(big.NewInt(1), 72)
	u := new(big.Int).Mod(v, mod)
	b := u.Bytes()
	copy(out[9-len(b):], b)
	return out
}

// rowsWant is row i of rowsFile as readRows returns it for TestReadRows's columns (the last two
// read as null: one the file lacks, one unnamed).
func rowsWant(i int) []any {
	micros := int64(i)*1_000_001 - 5_000_000
	ms, rem := micros/1000, micros%1000
	if rem < 0 {
		ms--
		rem += 1000
	}
	unscaled := new(big.Int).Mul(big.NewInt(int64(i)+1), big.NewInt(1_000_000_000_007))
	if i%2 == 1 {
		unscaled.Neg(unscaled)
	}
	var text any = fmt.Sprintf("text %d", i)
	if i%5 == 0 {
		text = nil
	}
	return []any{int32(i), text, binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem * 1000)},
		binrow.Decimal{Unscaled: big.NewInt(int64(i) - 100), Scale: 2}, binrow.Decimal{Unscaled: unscaled, Scale: 2}, int32(19000 + i), nil, nil}
}

func TestReadRows(t *testing.T) {
	const n, rgRows = 20_000, 7_000
	cols := rowsCols
	positions := []int64{0, 1, 2, 5, 6, 1500, 1501, 6999, 7000, 7001, 9000, 13_999, 14_000, 19_998, 19_999}
	for _, pageIndex := range []bool{false, true} {
		t.Run(fmt.Sprintf("page-index=%v", pageIndex), func(t *testing.T) {
			checkRows(t, rowsFile(t, n, rgRows, pageIndex), positions)
		})
	}
	if _, err := readRows(context.Background(), bytes.NewReader(nil), 0, "data-x.orc", cols, positions); !errors.Is(err, dataformat.ErrUnreadable) ||
		!strings.Contains(err.Error(), "data file data-x.orc is ORC: pkft reads parquet and avro data files") {
		t.Fatalf("orc: %v, want the refusal naming the file", err)
	}
	data := rowsFile(t, 10, 10, false)
	if _, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", cols[:1], []int64{10}); err == nil || !strings.Contains(err.Error(), "row 10 is beyond the file's 10 rows") {
		t.Fatalf("row past the end: %v, want the error naming the row and the file's rows", err)
	}
	if _, err := readRows(context.Background(), bytes.NewReader(data[:len(data)/2]), int64(len(data)/2), "data-x.parquet", cols[:1], []int64{1}); err == nil {
		t.Fatal("truncated file: want an error")
	}
}

// TestReadRowsAvro: the rows asked of an Avro data file (several blocks) come back with their
// columns matched by name, nulls and logical types included; a column the file lacks and an
// unnamed one read as null; a row past the end is an error.
func TestReadRowsAvro(t *testing.T) {
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(`{"type":"record","name":"r","fields":[{"name":"_SEQUENCE_NUMBER","type":"long"},
		{"name":"id","type":"int"},{"name":"content","type":["null","string"]},
		{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},
		{"name":"small","type":["null",{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}]}]}`,
		&buf, ocf.WithBlockLength(50), ocf.WithCodec(ocf.ZStandard))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for i := 0; i < n; i++ {
		rec := map[string]any{"_SEQUENCE_NUMBER": int64(i), "id": i, "content": nil,
			"ts": map[string]any{"long.timestamp-micros": int64(i)*1_000_001 - 5_000_000}}
		if i%5 != 0 {
			rec["content"] = map[string]any{"string": fmt.Sprintf("text %d", i)}
		}
		small := big.NewInt(int64(i) - 100)
		b := small.Bytes()
		if small.Sign() < 0 {
			b = []byte{byte(int8(i - 100))}
		} else if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		rec["small"] = map[string]any{"bytes.decimal": b}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	cols := []column{{name: "id", typ: types.Int()}, {name: "content", typ: types.String()}, {name: "ts", typ: types.Timestamp(6)},
		{name: "small", typ: types.Decimal(9, 2)}, {name: "missing", typ: types.String()}, {}}
	positions := []int64{0, 1, 49, 50, 51, 500, 998, 999}
	rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.avro", cols, positions)
	if err != nil {
		t.Fatal(err)
	}
	for k, pos := range positions {
		i := int(pos)
		micros := int64(i)*1_000_001 - 5_000_000
		ms, rem := micros/1000, micros%1000
		if rem < 0 {
			ms--
			rem += 1000
		}
		var text any = fmt.Sprintf("text %d", i)
		if i%5 == 0 {
			text = nil
		}
		want := []any{int32(i), text, binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem * 1000)},
			binrow.Decimal{Unscaled: big.NewInt(int64(i) - 100), Scale: 2}, nil, nil}
		if got := fmt.Sprint(rows[k]); got != fmt.Sprint(want) {
			t.Fatalf("row %d = %v, want %v", pos, got, want)
		}
	}
	if _, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.avro", cols[:1], []int64{5, n}); err == nil ||
		!strings.Contains(err.Error(), "beyond") {
		t.Fatalf("row past the end: %v", err)
	}
}

// rowsCols are TestReadRows's columns of rowsFile.
var rowsCols = []column{
	{name: "id", typ: types.Int()}, {name: "content", typ: types.String()}, {name: "ts", typ: types.Timestamp(6)},
	{name: "small", typ: types.Decimal(9, 2)}, {name: "big", typ: types.Decimal(20, 2)}, {name: "day", typ: types.Date()},
	{name: "missing", typ: types.String()}, {},
}

// checkRows reads positions of data and compares them with rowsWant.
func checkRows(t *testing.T, data []byte, positions []int64) {
	t.Helper()
	rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", rowsCols, positions)
	if err != nil {
		t.Fatal(err)
	}
	for k, pos := range positions {
		if got, want := fmt.Sprint(rows[k]), fmt.Sprint(rowsWant(int(pos))); got != want {
			t.Fatalf("row %d = %v, want %v", pos, got, want)
		}
	}
}

// TestReadRowsDictionaryEncoded: with every column dictionary-encoded and the page index, the
// INT32, INT64 and BYTE_ARRAY columns are read by a dictChunk and the others (FIXED_LEN_BYTE_ARRAY
// here) by arrow-go's reader, and every row reads as written; without the page index every
// column is read by arrow-go's reader (a dictChunk seeks pages through the offset index).
func TestReadRowsDictionaryEncoded(t *testing.T) {
	checkRows(t, rowsFileEncoded(t, 3000, 1000, false, true), []int64{0, 1, 31, 32, 999, 1000, 1001, 2500, 2999})
	data := rowsFileEncoded(t, 3000, 1000, true, true)
	checkRows(t, data, []int64{0, 1, 31, 32, 999, 1000, 1001, 2500, 2999})
	win := &pageWindows{r: bytes.NewReader(data), size: int64(len(data)), of: map[int][][2]int64{}}
	pf, err := pqvalue.OpenRowReader(win, win.size, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for _, c := range rowsCols[:6] {
		idx := pf.MetaData().Schema.ColumnIndexByName(c.name)
		cur := &cursor{pf: pf, col: idx, descr: pf.MetaData().Schema.Column(idx), rg: -1, win: win}
		if _, err := cur.at(1500, c.typ); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		byDict := cur.descr.PhysicalType() != parquet.Types.FixedLenByteArray
		if (cur.dc != nil) != byDict || (cur.rdr != nil) == byDict {
			t.Errorf("%s (%s): read by a dictChunk %v, want %v", c.name, cur.descr.PhysicalType(), cur.dc != nil, byDict)
		}
		cur.close()
	}
}

// TestReadRowsCorruptOffsetIndex: the page index only spares reads; a file whose offset indexes
// are garbage reads every row as written, its pages in order.
func TestReadRowsCorruptOffsetIndex(t *testing.T) {
	for _, dict := range []bool{false, true} {
		t.Run(fmt.Sprintf("dictionary=%v", dict), func(t *testing.T) {
			data := rowsFileEncoded(t, 3000, 1000, true, dict)
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			corrupted := 0
			for rg := range pf.NumRowGroups() {
				for col := range pf.MetaData().Schema.NumColumns() {
					cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(col)
					if err != nil {
						t.Fatal(err)
					}
					if loc := cc.GetOffsetIndexLocation(); loc != nil {
						for i := loc.Offset; i < loc.Offset+int64(loc.Length); i++ {
							data[i] = 0xff
						}
						corrupted++
					}
				}
			}
			if corrupted != 3*6 {
				t.Fatalf("corrupted %d offset indexes, want 18", corrupted)
			}
			checkRows(t, data, []int64{0, 1, 31, 32, 999, 1000, 1001, 2500, 2999})
		})
	}
}

// writeColumnFile writes one required column in row groups, one write function a row group, in
// zstd pages with the page index, dictionary-encoded while the dictionary stays under 64 bytes: a
// chunk whose first batch (32 values) outgrows it is PLAIN without a dictionary page.
func writeColumnFile(t *testing.T, node pqschema.Node, groups ...func(file.ColumnChunkWriter) error) []byte {
	t.Helper()
	root, err := pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, pqschema.FieldList{node}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(256), parquet.WithBatchSize(32), parquet.WithPageIndexEnabled(true),
		parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(64), parquet.WithCompression(compress.Codecs.Zstd))
	pw := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	for _, g := range groups {
		writeRowGroup(t, pw.AppendRowGroup(), g)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadRowsDictionaryThenPlainRowGroup: a column whose first row group is dictionary-encoded
// (read by a dictChunk) and whose second is PLAIN without a dictionary (arrow-go's reader) reads
// each row from its own row group.
func TestReadRowsDictionaryThenPlainRowGroup(t *testing.T) {
	ints := func(f func(i int32) int32) func(file.ColumnChunkWriter) error {
		return func(cw file.ColumnChunkWriter) error {
			vs := make([]int32, 1000)
			for i := range vs {
				vs[i] = f(int32(i))
			}
			_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(vs, nil, nil)
			return err
		}
	}
	data := writeColumnFile(t, pqschema.NewInt32Node("id", parquet.Repetitions.Required, 1),
		ints(func(i int32) int32 { return i % 3 }), ints(func(i int32) int32 { return 5000 + i }))
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for rg, wantDict := range []bool{true, false} {
		cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		if cc.HasDictionaryPage() != wantDict {
			t.Fatalf("row group %d has a dictionary page: %v, want %v", rg, cc.HasDictionaryPage(), wantDict)
		}
	}
	positions := []int64{5, 500, 999, 1000, 1005, 1999}
	rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", []column{{name: "id", typ: types.Int()}}, positions)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{2, 2, 0, 5000, 5005, 5999}
	for k := range positions {
		if rows[k][0] != want[k] {
			t.Fatalf("row %d = %v, want %d", positions[k], rows[k][0], want[k])
		}
	}
}

// TestReadRowsInt96 reads an INT96 column (legacy writers' timestamps) as TIMESTAMP and
// TIMESTAMP_LTZ, Julian day and nanoseconds of the day, and refuses it as another type.
func TestReadRowsInt96(t *testing.T) {
	int96 := func(julian uint32, nanos uint64) (v parquet.Int96) {
		binary.LittleEndian.PutUint64(v[:8], nanos)
		binary.LittleEndian.PutUint32(v[8:], julian)
		return v
	}
	vals := []parquet.Int96{int96(2440588, 1_500_000), int96(2440587, 86_399_999_999_999), int96(2460000, 0)}
	data := writeColumnFile(t, pqschema.NewInt96Node("ts", parquet.Repetitions.Required, 1), func(cw file.ColumnChunkWriter) error {
		_, err := cw.(*file.Int96ColumnChunkWriter).WriteBatch(vals, nil, nil)
		return err
	})
	want := []binrow.Timestamp{{Millis: 1, NanoOfMilli: 500_000}, {Millis: -1, NanoOfMilli: 999_999}, {Millis: (2460000 - 2440588) * 86_400_000}}
	for _, typ := range []types.DataType{types.Timestamp(9), types.TimestampLTZ(9)} {
		rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", []column{{name: "ts", typ: typ}}, []int64{0, 1, 2})
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if rows[k][0] != want[k] {
				t.Fatalf("%s row %d = %v, want %v", typ.Root, k, rows[k][0], want[k])
			}
		}
	}
	_, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", []column{{name: "ts", typ: types.BigInt()}}, []int64{0})
	if err == nil || !strings.Contains(err.Error(), "cannot be read as") {
		t.Fatalf("INT96 read as BIGINT: %v, want a refusal", err)
	}
}
