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

// ExampleCreate is a table's life: create it from an Arrow schema (a primary-key table with a
// full-text index on content), write an Arrow record batch, compact, scan, maintain and search.
// The README shows this code without its error handling (TestReadmeExample checks it).
//
// A full-text archive covers only the data files a compaction rewrote, as in Java Paimon: rows
// on level 0 and files a compaction merely moves up are not searched. The table option
// compaction.force-rewrite-all-files makes every compaction rewrite its files, the one the
// writer runs at commit included, so the rows are searchable from the commit on; the full
// compaction rewrites them again and builds the new archives, and Maintain then finds nothing
// left to build.
func ExampleCreate() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pkft-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "content", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	def, err := pkft.ArrowDefinition(sch) // or a TableDefinition of Paimon type names
	if err != nil {
		log.Fatal(err)
	}
	def.PrimaryKeys = []string{"id"}
	def.Options = map[string]string{
		"bucket":                             "2",
		"deletion-vectors.enabled":           "true",
		"pk-full-text.index.columns":         "content",
		"compaction.force-rewrite-all-files": "true", // compactions rewrite files, so archives cover them
	}
	tbl, err := pkft.Create(ctx, filepath.Join(dir, "docs"), def) // schema-0 as Java writes it
	if err != nil {
		log.Fatal(err)
	}

	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a lake", "a striped zebra", "a river"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	w, err := tbl.NewWriter(ctx)
	if err != nil {
		log.Fatal(err)
	}
	err = w.WriteRecord(ctx, rec) // columns by name; an optional _rowKind column
	if err != nil {
		log.Fatal(err)
	}
	_, err = w.Commit(ctx) // level-0 files, then the compaction at commit, as Java's writer does
	if err != nil {
		log.Fatal(err)
	}

	cr, err := tbl.Compact(ctx) // a full compaction: files rewritten, their archives built
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("compaction committed a snapshot:", cr.SnapshotID != 0)

	rr, err := tbl.Scan(ctx, pkft.Where("id >= 2")) // an array.RecordReader of the latest snapshot
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	rows := 0
	for rr.Next() {
		rows += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows with id >= 2:", rows)

	mr, err := tbl.Maintain(ctx) // builds the archives compacted levels lack: none left here
	if err != nil {
		log.Fatal(err)
	}
	built, _, unchanged := mr.Totals()
	fmt.Printf("maintenance: %d archives built, %d current\n", built, unchanged)

	hits, err := tbl.Search(ctx, "zebra") // ranked hits over every current archive
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits.Hits {
		fmt.Println("hit:", h.Key, *h.Text)
	}
	// Output:
	// compaction committed a snapshot: true
	// rows with id >= 2: 2
	// maintenance: 0 archives built, 2 current
	// hit: [2] a striped zebra
}
