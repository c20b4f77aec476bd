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
// full-text index on content), write Arrow record batches, compact (with deletion vectors,
// Java's batch read sees rows once compacted, and the compaction builds the new level's
// archive), scan, maintain (nothing left to build) and search.
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
	def.Options = map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}
	tbl, err := pkft.Create(ctx, filepath.Join(tmp, "docs"), def)
	if err != nil {
		log.Fatal(err)
	}

	// Two writes (the second updates id 2), so that the compaction merges and rewrites files:
	// archives cover compacted files, not level-0 files moved up unchanged.
	for _, batch := range []struct {
		ids   []int64
		texts []string
	}{{[]int64{1, 2, 3}, []string{"a lake", "a zebra", "a river"}}, {[]int64{2}, []string{"a striped zebra"}}} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		b.Field(0).(*array.Int64Builder).AppendValues(batch.ids, nil)
		b.Field(1).(*array.StringBuilder).AppendValues(batch.texts, nil)
		rec := b.NewRecordBatch()
		b.Release()
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			log.Fatal(err)
		}
		err = w.WriteRecord(ctx, rec)
		rec.Release()
		if err != nil {
			log.Fatal(err)
		}
		if _, err := w.Commit(ctx); err != nil {
			log.Fatal(err)
		}
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

	mr, err := tbl.Maintain(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("maintenance committed a snapshot:", mr.SnapshotID != 0)

	hits, err := tbl.Search(ctx, "zebra")
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits.Hits {
		fmt.Println("hit:", h.Key, *h.Text)
	}
	// Output:
	// rows: 3
	// maintenance committed a snapshot: false
	// hit: [2] a striped zebra
}
