package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
)

func writeParquetFile(t *testing.T, path string, rec arrow.RecordBatch, rowGroup int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWrite_Parquet imports two Parquet files of every type (several row groups each) into a
// table created from their Arrow schema; the table's scan equals the files' rows. A file whose
// column does not fit the table fails with status 1 and commits nothing.
func TestWrite_Parquet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	def, err := pkft.ArrowDefinition(arrowrows.AllTypesSchema())
	if err != nil {
		t.Fatal(err)
	}
	def.PrimaryKeys = []string{"id"}
	def.Options = map[string]string{"bucket": "2"}
	tablePath := filepath.Join(dir, "t")
	tbl, err := pkft.Create(ctx, tablePath, def)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := arrowrows.AllTypesRecord(20000, 0, "a")
	defer a.Release()
	b, _ := arrowrows.AllTypesRecord(500, 20000, "b")
	defer b.Release()
	fa, fb := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	writeParquetFile(t, fa, a, 7000)
	writeParquetFile(t, fb, b, 100)
	code, out, errOut := pkftRun(t, "write", tablePath, "--format", "parquet", fa, fb)
	if code != 0 {
		t.Fatalf("write: status %d: %s", code, errOut)
	}
	if !strings.Contains(out, "20500 rows read") {
		t.Errorf("write printed %q", out)
	}
	rr, err := tbl.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got []string
	for rr.Next() {
		got = append(got, arrowrows.Canonical(rr.RecordBatch())...)
	}
	want := append(arrowrows.Canonical(a), arrowrows.Canonical(b)...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the table has %d rows, the files %d (or other values)", len(got), len(want))
	}

	bad := filepath.Join(dir, "bad.parquet")
	cols := []arrow.Array{a.Column(0), a.Column(4)}
	sch := arrow.NewSchema([]arrow.Field{a.Schema().Field(0), {Name: "i16", Type: a.Column(4).DataType(), Nullable: true}}, nil)
	writeParquetFile(t, bad, arrowRecord(sch, cols, a.NumRows()), 1000)
	before := tableFiles(t, tablePath)
	code, _, errOut = pkftRun(t, "write", tablePath, "--format", "parquet", bad)
	if after := tableFiles(t, tablePath); !sameFiles(before, after) {
		t.Errorf("a failed import changed the table: new files %v", newFiles(before, after))
	}
	if code != 1 || !strings.Contains(errOut, "does not fit SMALLINT") {
		t.Errorf("write of a mismatched file: status %d, stderr %q", code, errOut)
	}
	if code, _, _ := pkftRun(t, "write", tablePath, "--format", "parquet"); code == 0 {
		t.Error("write --format parquet without files succeeded")
	}
}

func arrowRecord(sch *arrow.Schema, cols []arrow.Array, n int64) arrow.RecordBatch {
	return array.NewRecordBatch(sch, cols, n)
}
