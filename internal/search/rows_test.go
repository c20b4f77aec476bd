package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/types"
)

// rowsFile writes a Parquet file of n rows in row groups of rgRows with small pages: id INT32,
// content STRING (null every 5th row), ts TIMESTAMP(6) as INT64 micros, small DECIMAL(9, 2) as
// INT32, big DECIMAL(20, 2) as FIXED_LEN_BYTE_ARRAY(9), day DATE.
func rowsFile(t testing.TB, n, rgRows int, pageIndex bool) []byte {
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
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(512), parquet.WithBatchSize(32), parquet.WithPageIndexEnabled(pageIndex), parquet.WithDictionaryDefault(false))
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

func TestReadRows(t *testing.T) {
	const n, rgRows = 20_000, 7_000
	cols := []column{
		{name: "id", typ: types.Int()}, {name: "content", typ: types.String()}, {name: "ts", typ: types.Timestamp(6)},
		{name: "small", typ: types.Decimal(9, 2)}, {name: "big", typ: types.Decimal(20, 2)}, {name: "day", typ: types.Date()},
		{name: "missing", typ: types.String()}, {},
	}
	positions := []int64{0, 1, 2, 5, 6, 1500, 1501, 6999, 7000, 7001, 9000, 13_999, 14_000, 19_998, 19_999}
	for _, pageIndex := range []bool{false, true} {
		t.Run(fmt.Sprintf("page-index=%v", pageIndex), func(t *testing.T) {
			data := rowsFile(t, n, rgRows, pageIndex)
			rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", cols, positions)
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
				unscaled := new(big.Int).Mul(big.NewInt(int64(i)+1), big.NewInt(1_000_000_000_007))
				if i%2 == 1 {
					unscaled.Neg(unscaled)
				}
				var text any = fmt.Sprintf("text %d", i)
				if i%5 == 0 {
					text = nil
				}
				want := []any{int32(i), text, binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem * 1000)},
					binrow.Decimal{Unscaled: big.NewInt(int64(i) - 100), Scale: 2}, binrow.Decimal{Unscaled: unscaled, Scale: 2}, int32(19000 + i), nil, nil}
				if got := fmt.Sprint(rows[k]); got != fmt.Sprint(want) {
					t.Fatalf("row %d = %v, want %v", pos, got, want)
				}
			}
		})
	}
	if _, err := readRows(context.Background(), bytes.NewReader(nil), 0, "data-x.orc", cols, positions); !errors.Is(err, dataformat.ErrUnreadable) ||
		!strings.Contains(err.Error(), "data file data-x.orc is ORC: pkft reads parquet and avro data files") {
		t.Fatalf("orc: %v, want the refusal naming the file", err)
	}
	data := rowsFile(t, 10, 10, false)
	if _, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", cols[:1], []int64{10}); err == nil {
		t.Fatal("row past the end: want an error")
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
