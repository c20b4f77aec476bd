package pkft_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// exampleTable copies the Java-written golden table testdata/tables/java/<name> into a
// temporary directory and names its text column "content" in pk-full-text.index.columns, the
// way Java's SchemaManager commits that option change (ALTER TABLE ... SET): the next schema
// file, the option appended, no snapshot. The golden tables were written before the option was
// set, so their compacted levels have no archive yet: what Maintain is for.
func exampleTable(name string) (dir string, cleanup func()) {
	tmp, err := os.MkdirTemp("", "pkft-example-")
	if err != nil {
		log.Fatal(err)
	}
	dir = filepath.Join(tmp, name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "tables", "java", name))); err != nil {
		log.Fatal(err)
	}
	if err := testtables.AddFullText(context.Background(), dir); err != nil {
		log.Fatal(err)
	}
	return dir, func() { os.RemoveAll(tmp) }
}

// Example opens a table written by Java Paimon without archives, maintains it and searches it.
func Example() {
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	defer cleanup()

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	res, err := tbl.Maintain(ctx)
	if err != nil {
		log.Fatal(err)
	}
	built, retired, unchanged := res.Totals()
	fmt.Printf("snapshot %d committed on %d: %d archives built, %d retired, %d unchanged\n",
		res.SnapshotID, res.BaseSnapshotID, built, retired, unchanged)

	hits, err := tbl.Search(ctx, "first", pkft.WithLimit(3))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits.Hits {
		fmt.Printf("%.4f %s\n", h.Score, *h.Text)
	}

	// Maintaining a table whose archives are current commits nothing.
	again, err := tbl.Maintain(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("committed again:", again.SnapshotID != 0)
	// Output:
	// snapshot 8 committed on 7: 16 archives built, 0 retired, 0 unchanged
	// 0.7357 first eu 2024-01-31 7
	// 0.7357 first eu 2024-01-31 9
	// 0.7357 first eu 2024-01-31 13
	// committed again: false
}

// ExampleTable_Maintain maintains one partition's bucket 0 and reports each bucket as it
// finishes.
func ExampleTable_Maintain() {
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	defer cleanup()

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	res, err := tbl.Maintain(ctx,
		pkft.WithPartition(map[string]string{"region": "us", "dt": "2024-01-31"}),
		pkft.WithBucket(0),
		pkft.WithParallelism(2),
		pkft.WithProgress(func(p pkft.Progress) {
			if p.Bucket != nil {
				fmt.Printf("done %d/%d: %s bucket %d\n", p.BucketsDone, p.BucketsTotal, p.Bucket.Partition, p.Bucket.Bucket)
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range res.Buckets {
		for _, a := range b.Built {
			fmt.Printf("%s bucket %d: level %d, %d rows\n", b.Partition, b.Bucket, a.Level, a.RowCount)
		}
	}
	fmt.Println("snapshot", res.SnapshotID)
	// Output:
	// done 1/1: region=us/dt=2024-01-31 bucket 0
	// region=us/dt=2024-01-31 bucket 0: level 4, 4 rows
	// region=us/dt=2024-01-31 bucket 0: level 5, 27 rows
	// snapshot 8
}

// ExampleTable_Maintain_dryRun shows what maintenance would do without building or writing
// anything.
func ExampleTable_Maintain_dryRun() {
	ctx := context.Background()
	dir, cleanup := exampleTable("two-levels")
	defer cleanup()

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	plan, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range plan.Buckets {
		for _, a := range b.Built {
			fmt.Printf("bucket %d: would build level %d\n", b.Bucket, a.Level)
		}
		fmt.Printf("bucket %d: %d rows to index\n", b.Bucket, b.RowsIndexed)
	}
	fmt.Println("committed:", plan.SnapshotID != 0)
	// Output:
	// bucket 0: would build level 4
	// bucket 0: would build level 5
	// bucket 0: 665 rows to index
	// committed: false
}

// ExampleTable_Search searches with one of the engine's JSON queries, in one partition.
func ExampleTable_Search() {
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	defer cleanup()

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tbl.Maintain(ctx); err != nil {
		log.Fatal(err)
	}
	res, err := tbl.Search(ctx, `{"match_phrase":{"query":"updated us"}}`,
		pkft.WithColumn("content"),
		pkft.WithPartition(map[string]string{"region": "us"}),
		pkft.WithLimit(4))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		region, dt, id := h.Key[0], h.Key[1].(time.Time), h.Key[2]
		fmt.Printf("%s %s %d: %s\n", region, dt.Format(time.DateOnly), id, *h.Text)
	}
	// Output:
	// us 2024-01-31 0: updated us 2024-01-31 0
	// us 2024-01-31 3: updated us 2024-01-31 3
	// us 2024-02-29 0: updated us 2024-02-29 0
	// us 2024-02-29 3: updated us 2024-02-29 3
}
