package pkft_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestCompactShards checks WithShard splits a table's (partition, bucket) pairs among n workers
// with no overlap and no gap: compacting shards 0..n-1 one after the other compacts every bucket
// exactly once, each in the shard ShardOf names, and a bad shard is refused.
func TestCompactShards(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/t"
	tbl, err := pkft.Create(ctx, path, pkft.TableDefinition{
		Columns:       []pkft.ColumnDefinition{{Name: "p", Type: "STRING"}, {Name: "id", Type: "INT"}, {Name: "v", Type: "STRING"}},
		PrimaryKeys:   []string{"p", "id"},
		PartitionKeys: []string{"p"},
		Options:       map[string]string{"bucket": "4"},
	})
	if err != nil {
		t.Fatal(err)
	}
	w, err := tbl.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "b", "c"} {
		for id := int32(0); id < 40; id++ {
			if err := w.Write(ctx, pkft.Insert, []any{p, id, fmt.Sprint(id)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Compact(ctx, pkft.WithShard(3, 3)); err == nil || !strings.Contains(err.Error(), "shard 3/3") {
		t.Fatalf("shard 3/3: %v, want a refusal", err)
	}
	const n = 3
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		res, err := tbl.Compact(ctx, pkft.WithShard(i, n))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range res.Buckets {
			key := fmt.Sprintf("%s/%d", b.Partition, b.Bucket)
			if _, dup := seen[key]; dup {
				t.Fatalf("%s compacted by shards %d and %d", key, seen[key], i)
			}
			seen[key] = i
			if got := pkft.ShardOf(b.Partition.String(), b.Bucket, n); got != i {
				t.Fatalf("%s compacted by shard %d, ShardOf says %d", key, i, got)
			}
		}
	}
	if len(seen) != 12 {
		t.Fatalf("shards compacted %d of the 12 (partition, bucket) pairs: %v", len(seen), seen)
	}
	shards := map[int]bool{}
	for _, s := range seen {
		shards[s] = true
	}
	if len(shards) < 2 {
		t.Fatalf("every pair fell into one shard: %v", seen)
	}
	// Nothing is left to compact.
	if res, err := tbl.Compact(ctx); err != nil || len(res.Buckets) != 0 && res.SnapshotID != 0 {
		t.Fatalf("after the shards: %+v, %v", res, err)
	}
}

// TestShardOfStable pins ShardOf's hash: workers of different builds must agree.
func TestShardOfStable(t *testing.T) {
	for _, c := range []struct {
		part   string
		bucket int32
		n      int
	}{{"", 0, 7}, {"region=eu/dt=2024-01-31", 5, 64}, {"p=a", 3, 1}} {
		got := pkft.ShardOf(c.part, c.bucket, c.n)
		if got < 0 || got >= c.n {
			t.Fatalf("ShardOf(%q, %d, %d) = %d", c.part, c.bucket, c.n, got)
		}
	}
	// FNV-1a 64 of "/0" is 0x07d69607b49d290a (computed independently).
	if got, want := pkft.ShardOf("", 0, 1<<30), int(uint64(0x07d69607b49d290a)%(1<<30)); got != want {
		t.Fatalf("ShardOf(\"\", 0, 2^30) = %d, want %d", got, want)
	}
}
