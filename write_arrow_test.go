package pkft_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
)

func createAllTypes(t testing.TB, dir string, options map[string]string, partitioned bool) *pkft.Table {
	def, err := pkft.ArrowDefinition(arrowrows.AllTypesSchema())
	if err != nil {
		t.Fatal(err)
	}
	def.PrimaryKeys = []string{"id"}
	if partitioned {
		def.PrimaryKeys = []string{"id", "d"}
		def.PartitionKeys = []string{"d"}
	}
	def.Options = options
	tbl, err := pkft.Create(context.Background(), dir, def)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestWriteRecordEqualsWrite writes the same rows through WriteRecord and through Write into two
// tables created from the Arrow schema (partitioned and not, with and without deletion vectors),
// and checks both scans equal each other and the rows written (the DV table after a compaction,
// as Java's batch read sees level 0 only once compacted).
func TestWriteRecordEqualsWrite(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name        string
		options     map[string]string
		partitioned bool
	}{
		{"plain", map[string]string{"bucket": "2"}, false},
		{"dv-partitioned", map[string]string{"bucket": "3", "deletion-vectors.enabled": "true"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, rows := arrowrows.AllTypesRecord(300, 0, "")
			defer rec.Release()
			var scans [2][]string
			for i := range 2 {
				tbl := createAllTypes(t, filepath.Join(t.TempDir(), "t"), c.options, c.partitioned)
				w, err := tbl.NewWriter(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					if err := w.WriteRecord(ctx, rec); err != nil {
						t.Fatal(err)
					}
				} else {
					for _, r := range rows {
						if err := w.Write(ctx, pkft.Insert, r); err != nil {
							t.Fatal(err)
						}
					}
				}
				if _, err := w.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := tbl.Compact(ctx); err != nil {
					t.Fatal(err)
				}
				rr, err := tbl.Scan(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for rr.Next() {
					scans[i] = append(scans[i], canonicalRows(t, rr.RecordBatch())...)
				}
				rr.Release()
				slices.Sort(scans[i])
			}
			want := canonicalRows(t, rec)
			slices.Sort(want)
			if !slices.Equal(scans[0], want) {
				t.Errorf("WriteRecord then Scan differs from the record:\n%s", firstDiffs(scans[0], want))
			}
			if !slices.Equal(scans[0], scans[1]) {
				t.Errorf("WriteRecord and Write wrote different rows:\n%s", firstDiffs(scans[0], scans[1]))
			}
		})
	}
}

// TestWriteRecordRowKinds deletes through a _rowKind column and through WithRowKind, and checks
// the refusals: unknown columns, mismatched types, NULL keys, both kinds given; nothing of a
// refused batch is written.
func TestWriteRecordRowKinds(t *testing.T) {
	ctx := context.Background()
	tbl := createAllTypes(t, filepath.Join(t.TempDir(), "t"), map[string]string{"bucket": "1"}, false)
	rec, _ := arrowrows.AllTypesRecord(10, 0, "")
	defer rec.Release()
	w, err := tbl.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	mem := memory.DefaultAllocator
	build := func(fields []arrow.Field, fill func(b *array.RecordBuilder)) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
		defer b.Release()
		fill(b)
		return b.NewRecordBatch()
	}
	kinds := build([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: pkft.RowKindColumn, Type: arrow.BinaryTypes.String}},
		func(b *array.RecordBuilder) {
			b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
			b.Field(1).(*array.StringBuilder).AppendValues([]string{"-D", "+I"}, nil)
		})
	defer kinds.Release()
	del := build([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{3, 4}, nil)
	})
	defer del.Release()
	w, err = tbl.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord(ctx, kinds); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord(ctx, del, pkft.WithRowKind(pkft.Delete)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		rec  arrow.RecordBatch
		opts []pkft.RecordOption
		want string
	}{
		{kinds, []pkft.RecordOption{pkft.WithRowKind(pkft.Delete)}, "fixed row kind"},
		{build([]arrow.Field{{Name: "nope", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {}), nil, "not a column"},
		{build([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Float64}}, func(b *array.RecordBuilder) {}), nil, "does not fit BIGINT"},
		{build([]arrow.Field{{Name: "i16", Type: arrow.PrimitiveTypes.Int32}}, func(b *array.RecordBuilder) {}), nil, "int32 does not fit SMALLINT"},
		{build([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, func(b *array.RecordBuilder) { b.Field(0).AppendNull() }), nil, "NOT NULL"},
		{build([]arrow.Field{{Name: "i8", Type: arrow.PrimitiveTypes.Int8}}, func(b *array.RecordBuilder) { b.Field(0).(*array.Int8Builder).Append(1) }), nil, "id is NOT NULL"},
	} {
		if err := w.WriteRecord(ctx, bad.rec, bad.opts...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("WriteRecord: %v, want an error containing %q", err, bad.want)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	rr, err := tbl.Scan(ctx, pkft.WithColumns("id"))
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var ids []int64
	for rr.Next() {
		ids = append(ids, rr.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
	}
	if want := []int64{0, 2, 5, 6, 7, 8, 9}; !slices.Equal(ids, want) {
		t.Errorf("ids after the deletes: %v, want %v", ids, want)
	}
}

// TestWriteRecordNoRows writes batches of no rows (of every column, and of a column that is not
// the table's first): each buffers nothing, and the commit has nothing to commit.
func TestWriteRecordNoRows(t *testing.T) {
	ctx := context.Background()
	tbl := createAllTypes(t, filepath.Join(t.TempDir(), "t"), map[string]string{"bucket": "1"}, false)
	w, err := tbl.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := arrowrows.AllTypesRecord(0, 0, "")
	defer empty.Release()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil))
	defer b.Release()
	emptyS := b.NewRecordBatch()
	defer emptyS.Release()
	for _, rec := range []arrow.RecordBatch{empty, emptyS} {
		if err := w.WriteRecord(ctx, rec); err != nil {
			t.Fatalf("a batch of no rows: %v", err)
		}
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID != 0 || res.Rows != 0 {
		t.Fatalf("batches of no rows committed %+v", res)
	}
}

// TestWriteRecordWidens writes a batch whose integer and float columns are narrower than the
// table's (int32 for BIGINT, int8 for SMALLINT and INT, float32 for DOUBLE), which Paimon's casts
// widen safely: the scan reads the widened values.
func TestWriteRecordWidens(t *testing.T) {
	ctx := context.Background()
	tbl := createAllTypes(t, filepath.Join(t.TempDir(), "t"), map[string]string{"bucket": "1"}, false)
	w, err := tbl.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{-2147483648, 2147483647}, nil)
	b.Field(1).(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
	b.Field(2).(*array.Int8Builder).AppendValues([]int8{-1, 0}, []bool{true, false})
	b.Field(3).(*array.Float32Builder).AppendValues([]float32{0.5, -1.25}, nil)
	narrow := b.NewRecordBatch()
	defer narrow.Release()
	if err := w.WriteRecord(ctx, narrow); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	rows, _, err := arrowrows.Scan(ctx, tbl.Path(), pkft.WithColumns("id", "i16", "i32", "f64"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id=-2147483648|i16=-128|i32=-1|f64=0.5", "id=2147483647|i16=127|i32=null|f64=-1.25"}
	if !slices.Equal(rows, want) {
		t.Errorf("scan after the widened batch:\n%s", firstDiffs(rows, want))
	}
}

// BenchmarkWriteRecord writes the same rows through WriteRecord and through Write([]any) (the
// buffering only: no commit), reporting rows/s.
func BenchmarkWriteRecord(b *testing.B) {
	ctx := context.Background()
	const n = 4096
	rec, rows := arrowrows.AllTypesRecord(n, 0, "")
	defer rec.Release()
	for _, path := range []string{"arrow", "any"} {
		b.Run(path, func(b *testing.B) {
			tbl := createAllTypes(b, filepath.Join(b.TempDir(), "t"), map[string]string{"bucket": "4", "write-buffer-size": "1 gb"}, false)
			w, err := tbl.NewWriter(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Abort(ctx)
			b.ResetTimer()
			for range b.N {
				if path == "arrow" {
					if err := w.WriteRecord(ctx, rec); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, r := range rows {
					if err := w.Write(ctx, pkft.Insert, r); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
