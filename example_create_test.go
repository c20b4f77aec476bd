package pkft_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft"
)

// ExampleCreate creates a table from an Arrow schema, writes an Arrow record batch into it,
// compacts it (with deletion vectors, Java's batch read sees rows once compacted) and scans it.
func ExampleCreate() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "pkft-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "content", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	def, err := pkft.ArrowDefinition(sch)
	if err != nil {
		log.Fatal(err)
	}
	def.PrimaryKeys = []string{"id"}
	def.Options = map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}
	tbl, err := pkft.Create(ctx, filepath.Join(tmp, "docs"), def)
	if err != nil {
		log.Fatal(err)
	}

	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a lake", "a zebra", "a river"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	w, err := tbl.NewWriter(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.WriteRecord(ctx, rec); err != nil {
		log.Fatal(err)
	}
	if _, err := w.Commit(ctx); err != nil {
		log.Fatal(err)
	}
	if _, err := tbl.Compact(ctx); err != nil {
		log.Fatal(err)
	}

	rr, err := tbl.Scan(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	rows := 0
	for rr.Next() {
		rows += int(rr.RecordBatch().NumRows())
	}
	fmt.Println("rows:", rows)
	// Output: rows: 3
}
