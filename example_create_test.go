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
// full-text index on content), write Arrow record batches, count the rows no archive covers,
// index them, scan, maintain and search.
// The README shows this code without its error handling (TestReadmeExample checks it).
//
// A full-text archive covers only the data files a compaction rewrote, as in Java Paimon: rows
// on level 0 and files a compaction merely moves up are not searched. The first write's file is
// moved up unchanged, and the table's coverage counts its rows as moved-up; the uncovered
// compaction rewrites just that file and builds its level's archive. The second write passes
// WithIndexNewRows, so the compaction at commit rewrites its level-0 file and builds the archive
// in the write's commit.
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
		"bucket":                     "2",
		"deletion-vectors.enabled":   "true",
		"pk-full-text.index.columns": "content",
	}
	tbl, err := pkft.Create(ctx, filepath.Join(dir, "docs"), def) // schema-0 as Java writes it
	if err != nil {
		log.Fatal(err)
	}

	write := func(ids []int64, texts []string, opts ...pkft.WriteOption) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
		b.Field(1).(*array.StringBuilder).AppendValues(texts, nil)
		rec := b.NewRecordBatch()
		defer rec.Release()
		w, err := tbl.NewWriter(ctx, opts...)
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
	}
	// The first write into an empty table: the compaction at commit moves its files up
	// unchanged, as Java's does, so the rows are read at once but not searched.
	write([]int64{1, 2, 3}, []string{"a lake", "a striped zebra", "a river"})
	st, err := tbl.State(ctx) // coverage: the rows no current archive covers, and why
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range st.Coverage.Uncovered {
		fmt.Printf("not searched: %d rows, %s\n", u.Rows, u.Reason)
	}

	cr, err := tbl.Compact(ctx, pkft.WithUncoveredCompaction()) // rewrites just those files
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("backfill committed a snapshot:", cr.SnapshotID != 0)

	// WithIndexNewRows: the compaction at commit rewrites the level-0 files it would move up
	// and builds their archives, so these rows are searched from the commit on.
	write([]int64{4}, []string{"a zebra crossing"}, pkft.WithIndexNewRows())

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

	mr, err := tbl.Maintain(ctx) // builds the archives levels lack: none left here
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
	fmt.Println("rows not searched:", hits.Coverage.UncoveredRows)
	// Output:
	// not searched: 3 rows, moved-up
	// backfill committed a snapshot: true
	// rows with id >= 2: 3
	// maintenance: 0 archives built, 2 current
	// hit: [2] a striped zebra
	// hit: [4] a zebra crossing
	// rows not searched: 0
}
