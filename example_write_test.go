package pkft_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/paimon-pkft/pkft"
)

// ExampleTable_NewWriter writes rows into a Java-written full-text table, compacts it so the
// rows reach a level with an archive, and searches them.
func ExampleTable_NewWriter() {
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	defer cleanup()

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("example"))
	if err != nil {
		log.Fatal(err)
	}
	// Rows are values in the order of the writer's schema.
	for _, c := range w.Schema().Columns {
		fmt.Printf("%s %s\n", c.Name, c.Type)
	}
	dt := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	for i, text := range []string{"a zebra crossing", "the zebra sleeps", "nothing here"} {
		if err := w.Write(ctx, pkft.Insert, []any{"eu", dt, int32(9000 + i), text}); err != nil {
			log.Fatal(err)
		}
	}
	// Deleting a row names its key (the other values do not matter).
	if err := w.Write(ctx, pkft.Delete, []any{"eu", dt, int32(9002), nil}); err != nil {
		log.Fatal(err)
	}
	wr, err := w.Commit(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("appended snapshot:", wr.SnapshotID > 0)
	// The table has deletion vectors: as Java's writer, the commit compacted level 0 in a
	// second snapshot, so the rows are searched at once.
	fmt.Println("compacted at commit:", wr.CompactSnapshotID == wr.SnapshotID+1)

	hits, err := tbl.Search(ctx, "zebra")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("hits:", len(hits.Hits))
	// Output:
	// region STRING NOT NULL
	// dt DATE NOT NULL
	// id INT NOT NULL
	// content STRING
	// appended snapshot: true
	// compacted at commit: true
	// hits: 2
}

// ExampleWriter_Abort shows that an aborted write leaves the table as it was.
func ExampleWriter_Abort() {
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	defer cleanup()

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	w, err := tbl.NewWriter(ctx)
	if err != nil {
		log.Fatal(err)
	}
	// A DATE can also be given as its day number (2024-01-31 is day 19753).
	if err := w.Write(ctx, pkft.Insert, []any{"eu", int32(19753), int32(1), "draft"}); err != nil {
		log.Fatal(err)
	}
	if err := w.PrepareCommit(ctx); err != nil { // data files are written here
		log.Fatal(err)
	}
	if err := w.Abort(ctx); err != nil { // and deleted here
		log.Fatal(err)
	}
	fmt.Println("aborted")
	// Output: aborted
}
