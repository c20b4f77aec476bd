package kvfile_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// foreignColumn is one column of a Parquet file written by another writer: its name, its
// Parquet field id (-1: none) and its values.
type foreignColumn struct {
	name string
	id   int
	typ  arrow.DataType
	vals []any
}

// writeForeign writes cols as one Parquet file with pqarrow, giving field ids only where a
// column has one, and returns its path.
func writeForeign(t *testing.T, cols []foreignColumn) string {
	t.Helper()
	var fields []arrow.Field
	for _, c := range cols {
		f := arrow.Field{Name: c.name, Type: c.typ, Nullable: !strings.HasPrefix(c.name, "_")}
		if c.id >= 0 {
			f.Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(c.id)})
		}
		fields = append(fields, f)
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for j, c := range cols {
		for _, v := range c.vals {
			switch fb := b.Field(j).(type) {
			case *array.Int64Builder:
				fb.Append(v.(int64))
			case *array.Int8Builder:
				fb.Append(v.(int8))
			case *array.Int32Builder:
				if v == nil {
					fb.AppendNull()
				} else {
					fb.Append(v.(int32))
				}
			case *array.StringBuilder:
				if v == nil {
					fb.AppendNull()
				} else {
					fb.Append(v.(string))
				}
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "data-foreign-0.parquet")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, out, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// foreignTable is a table (id INT key, txt STRING, n INT) with the given options.
func foreignTable(opts map[string]string) *schema.TableSchema {
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	return &schema.TableSchema{Version: 3, PrimaryKeys: []string{"id"}, Options: o, Fields: []types.DataField{
		types.Field(0, "id", nn(types.Int())), types.Field(1, "txt", types.String()), types.Field(2, "n", types.Int()),
	}}
}

func readForeign(t *testing.T, s *schema.TableSchema, path string) ([]*kvfile.KeyValue, error) {
	t.Helper()
	layout, err := kvfile.NewLayoutForRead(s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := kvfile.Open(context.Background(), fileio.NewLocal(), path, filepath.Base(path), layout)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*kvfile.KeyValue
	for {
		kv, _, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, kv)
	}
}

// TestForeignParquetColumnsByIDOrName: a data file's columns are found by field id where the
// file has one and by name where it has none (Java matches by name): files without ids, with ids
// on the table fields only (paimon-rust) and without _KEY_ columns (thin, whatever the table
// option says) read back the same rows, sequence numbers and kinds; a file whose column is found
// neither way is an error naming the column and the file.
func TestForeignParquetColumnsByIDOrName(t *testing.T) {
	ids := []any{int32(3), int32(1), int32(2)}
	txts := []any{"c", nil, "b"}
	ns := []any{int32(30), int32(10), nil}
	seqs := []any{int64(7), int64(8), int64(9)}
	kinds := []any{int8(0), int8(3), int8(2)}
	want := []*kvfile.KeyValue{
		{Key: []any{int32(3)}, Seq: 7, Kind: types.Insert, Value: []any{int32(3), "c", int32(30)}},
		{Key: []any{int32(1)}, Seq: 8, Kind: types.Delete, Value: []any{int32(1), nil, int32(10)}},
		{Key: []any{int32(2)}, Seq: 9, Kind: types.UpdateAfter, Value: []any{int32(2), "b", nil}},
	}
	key := func(id int) foreignColumn {
		return foreignColumn{"_KEY_id", id, arrow.PrimitiveTypes.Int32, ids}
	}
	system := func(seqID, kindID int) []foreignColumn {
		return []foreignColumn{
			{"_SEQUENCE_NUMBER", seqID, arrow.PrimitiveTypes.Int64, seqs},
			{"_VALUE_KIND", kindID, arrow.PrimitiveTypes.Int8, kinds},
		}
	}
	values := func(idID, txtID, nID int) []foreignColumn {
		return []foreignColumn{
			{"id", idID, arrow.PrimitiveTypes.Int32, ids},
			{"txt", txtID, arrow.BinaryTypes.String, txts},
			{"n", nID, arrow.PrimitiveTypes.Int32, ns},
		}
	}
	seqID, kindID, keyID := kvfile.SequenceNumberFieldID, kvfile.ValueKindFieldID, kvfile.KeyFieldIDStart
	cat := func(parts ...[]foreignColumn) []foreignColumn {
		var out []foreignColumn
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := map[string][]foreignColumn{
		"no ids":                    cat([]foreignColumn{key(-1)}, system(-1, -1), values(-1, -1, -1)),
		"ids everywhere":            cat([]foreignColumn{key(keyID)}, system(seqID, kindID), values(0, 1, 2)),
		"ids on table fields only":  cat([]foreignColumn{key(-1)}, system(-1, -1), values(0, 1, 2)),
		"rust: no keys, value ids":  cat(system(-1, -1), values(0, 1, 2)),
		"no keys, no ids":           cat(system(-1, -1), values(-1, -1, -1)),
		"key without id, others id": cat([]foreignColumn{key(-1)}, system(seqID, kindID), values(0, 1, 2)),
	}
	for name, cols := range cases {
		path := writeForeign(t, cols)
		for _, opts := range []map[string]string{nil, {kvfile.ThinModeOption: "true"}} {
			got, err := readForeign(t, foreignTable(opts), path)
			if err != nil {
				t.Fatalf("%s (%v): %v", name, opts, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s (%v): read %v, want %v", name, opts, got, want)
			}
		}
	}

	// An id names a column only by that id: a column whose id is another field's is not taken
	// for it by name.
	path := writeForeign(t, cat(system(-1, -1), values(0, 5, 2)))
	got, err := readForeign(t, foreignTable(nil), path)
	if err != nil {
		t.Fatal(err)
	}
	for i, kv := range got {
		if kv.Value[1] != nil || kv.Value[0] != want[i].Value[0] {
			t.Fatalf("row %d: %v, want txt (id 1) read as null next to id %v", i, kv.Value, want[i].Value[0])
		}
	}

	for name, c := range map[string]struct {
		cols []foreignColumn
		want string
	}{
		"no sequence number": {cat(system(-1, -1)[1:], values(0, 1, 2)), "no _SEQUENCE_NUMBER column"},
		"no value kind":      {cat(system(-1, -1)[:1], values(0, 1, 2)), "no _VALUE_KIND column"},
		"sequence by a foreign id": {cat([]foreignColumn{{"_SEQUENCE_NUMBER", 77, arrow.PrimitiveTypes.Int64, seqs}},
			system(-1, -1)[1:], values(0, 1, 2)), "no _SEQUENCE_NUMBER column"},
		"no key at all": {cat(system(-1, -1), values(-1, -1, -1)[1:]), "no _KEY_id column and no id column"},
	} {
		path := writeForeign(t, c.cols)
		_, err := readForeign(t, foreignTable(nil), path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Fatalf("%s: error %v, want one naming %q and the file", name, err, c.want)
		}
	}
}
