package kvfile_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// avroSchema is the writer schema Java's AvroSchemaConverter gives a key-value file of
// avroTable: nullable fields are unions with null first.
const avroSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
 {"name":"_KEY_id","type":"int"},
 {"name":"_SEQUENCE_NUMBER","type":"long"},
 {"name":"_VALUE_KIND","type":"int"},
 {"name":"id","type":"int"},
 {"name":"txt","type":["null","string"],"default":null},
 {"name":"extra","type":["null",{"type":"array","items":"long"}],"default":null},
 {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},
 {"name":"dec","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},
 {"name":"dt","type":["null",{"type":"int","logicalType":"date"}],"default":null},
 {"name":"si","type":["null","int"],"default":null}]}`

// avroTable is (id INT key, txt STRING, ts TIMESTAMP(6), dec DECIMAL(10,2), dt DATE, si
// SMALLINT, gone STRING) with file.format=avro; "gone" is not in the file, "extra" only there.
func avroTable(opts map[string]string) *schema.TableSchema {
	o := map[string]string{"bucket": "1", kvfile.FileFormatOption: "avro"}
	for k, v := range opts {
		o[k] = v
	}
	return &schema.TableSchema{Version: 3, PrimaryKeys: []string{"id"}, Options: o, Fields: []types.DataField{
		types.Field(0, "id", nn(types.Int())), types.Field(1, "txt", types.String()),
		types.Field(2, "ts", types.DataType{Root: types.RootTimestamp, Precision: 6}),
		types.Field(3, "dec", types.DataType{Root: types.RootDecimal, Precision: 10, Scale: 2}),
		types.Field(4, "dt", types.Date()), types.Field(5, "si", types.SmallInt()), types.Field(6, "gone", types.String()),
	}}
}

// writeAvro writes n records of avroSchema with codec, a few records per block, and returns the
// file's path and the records expected back.
func writeAvro(t *testing.T, codec ocf.CodecName, n int, name string) (string, []*kvfile.KeyValue) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ocf.NewEncoder(avroSchema, out, ocf.WithCodec(codec), ocf.WithBlockLength(7))
	if err != nil {
		t.Fatal(err)
	}
	var want []*kvfile.KeyValue
	for i := 0; i < n; i++ {
		rec := map[string]any{"_KEY_id": i, "_SEQUENCE_NUMBER": int64(1000 + i), "_VALUE_KIND": i % 4, "id": i,
			"txt": nil, "extra": nil, "ts": nil, "dec": nil, "dt": nil, "si": nil}
		value := []any{int32(i), nil, nil, nil, nil, nil, nil}
		if i%3 != 0 {
			rec["txt"] = map[string]any{"string": strings.Repeat("é", i%5) + "x"}
			rec["extra"] = map[string]any{"array": []any{int64(i), int64(-i)}}
			rec["ts"] = map[string]any{"long.timestamp-micros": int64(-1_500_000*i + 7)}
			rec["dec"] = map[string]any{"bytes.decimal": []byte{0xff, byte(i)}}
			rec["dt"] = map[string]any{"int.date": int32(19000 + i)}
			rec["si"] = map[string]any{"int": -300 * i}
			us := int64(-1_500_000*i + 7)
			ms, rem := us/1000, us%1000
			if rem < 0 {
				ms, rem = ms-1, rem+1000
			}
			value = []any{int32(i), strings.Repeat("é", i%5) + "x", binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem) * 1000},
				binrow.DecimalFromInt64(int64(i)-256, 2), int32(19000 + i), int16(-300 * i), nil}
		}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
		kind, _ := types.RowKindFromByte(byte(i % 4))
		want = append(want, &kvfile.KeyValue{Key: []any{int32(i)}, Seq: int64(1000 + i), Kind: kind, Value: value})
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path, want
}

// TestAvroDataFile: an Avro data file (file.format=avro) reads back by its writer schema, in
// every codec Java writes: rows, keys, sequence numbers and kinds, unions with null, logical
// types, a field only the file has (skipped) and one it lacks (null); OpenKeys and OpenColumns
// read the same values; the table's thin-mode option does not matter.
func TestAvroDataFile(t *testing.T) {
	ctx := context.Background()
	for _, codec := range []ocf.CodecName{ocf.Null, ocf.Deflate, ocf.Snappy, ocf.ZStandard} {
		path, want := writeAvro(t, codec, 40, "data-x-0.avro")
		for _, opts := range []map[string]string{nil, {kvfile.ThinModeOption: "true"}} {
			got, err := readForeign(t, avroTable(opts), path)
			if err != nil {
				t.Fatalf("%s: %v", codec, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: read\n%v\nwant\n%v", codec, got, want)
			}
		}
		layout, err := kvfile.NewLayoutForRead(avroTable(nil))
		if err != nil {
			t.Fatal(err)
		}
		r, err := kvfile.OpenKeys(ctx, fileio.NewLocal(), path, "data-x-0.avro", layout, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.NumRows() != 40 {
			t.Fatalf("%d rows, want 40", r.NumRows())
		}
		for i := 0; ; i++ {
			kv, pos, err := r.Next(ctx)
			if errors.Is(err, io.EOF) {
				if i != 40 {
					t.Fatalf("%d records", i)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if pos != int64(i) || kv.Seq != want[i].Seq || kv.Value[1] != want[i].Value[1] || kv.Value[2] != nil {
				t.Fatalf("OpenKeys row %d at %d: %v", i, pos, kv)
			}
			v, err := r.ReadValue()
			if err != nil || !reflect.DeepEqual(v, want[i].Value) {
				t.Fatalf("ReadValue row %d: %v %v", i, v, err)
			}
		}
		r.Close()
		cr, err := kvfile.OpenColumns(ctx, fileio.NewLocal(), path, "data-x-0.avro", layout, 5, 1, 6)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			vals, pos, err := cr.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if wantVals := []any{want[i].Value[5], want[i].Value[1], nil}; pos != int64(i) || !reflect.DeepEqual(vals, wantVals) {
				t.Fatalf("OpenColumns row %d: %v at %d, want %v", i, vals, pos, wantVals)
			}
		}
		cr.Close()
	}
}

// TestAvroDataFileErrors: an Avro file lacking a system column, holding a column of another
// type, or cut short is an error naming the file; an ORC data file is refused by name, with a
// read's message, by every reader.
func TestAvroDataFileErrors(t *testing.T) {
	ctx := context.Background()
	layout, err := kvfile.NewLayoutForRead(avroTable(nil))
	if err != nil {
		t.Fatal(err)
	}
	write := func(schemaJSON string, rec map[string]any) string {
		path := filepath.Join(t.TempDir(), "data-bad-0.avro")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := ocf.NewEncoder(schemaJSON, out)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
		enc.Close()
		out.Close()
		return path
	}
	noSeq := write(`{"type":"record","name":"r","fields":[{"name":"_VALUE_KIND","type":"int"},{"name":"id","type":"int"}]}`,
		map[string]any{"_VALUE_KIND": 0, "id": 1})
	if _, err := readForeign(t, avroTable(nil), noSeq); err == nil || !strings.Contains(err.Error(), "no _SEQUENCE_NUMBER column") || !strings.Contains(err.Error(), "data-bad-0.avro") {
		t.Fatalf("no sequence number: %v", err)
	}
	badType := write(`{"type":"record","name":"r","fields":[{"name":"_SEQUENCE_NUMBER","type":"long"},{"name":"_VALUE_KIND","type":"int"},{"name":"id","type":"int"},{"name":"txt","type":"double"}]}`,
		map[string]any{"_SEQUENCE_NUMBER": int64(1), "_VALUE_KIND": 0, "id": 1, "txt": 2.5})
	if _, err := readForeign(t, avroTable(nil), badType); err == nil || !strings.Contains(err.Error(), "column txt") || !strings.Contains(err.Error(), "data-bad-0.avro") {
		t.Fatalf("a double read as STRING: %v", err)
	}
	full, _ := writeAvro(t, ocf.Null, 40, "data-x-0.avro")
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(b) - 1, len(b) - 20, len(b) / 2, 30} {
		p := filepath.Join(t.TempDir(), "data-cut-0.avro")
		if err := os.WriteFile(p, b[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readForeign(t, avroTable(nil), p); err == nil || !strings.Contains(err.Error(), "data-cut-0.avro") {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	orc := filepath.Join(t.TempDir(), "data-o-0.orc")
	if err := os.WriteFile(orc, []byte("ORC"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = kvfile.Open(ctx, fileio.NewLocal(), orc, "data-o-0.orc", layout)
	if !errors.Is(err, dataformat.ErrUnreadable) || !strings.Contains(err.Error(), "data file data-o-0.orc is ORC: pkft reads parquet and avro data files") {
		t.Fatalf("ORC: %v", err)
	}
	if _, err := kvfile.OpenColumns(ctx, fileio.NewLocal(), orc, "data-o-0.orc", layout, 1); !errors.Is(err, dataformat.ErrUnreadable) {
		t.Fatalf("ORC columns: %v", err)
	}
	_ = avro.Null
}
