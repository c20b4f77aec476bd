package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
)

// measureShards generates the shards table once and, for each n of ShardCounts, maintains a
// fresh copy of it with n concurrent workers, worker i maintaining shard i of n
// (pkft.WithShard) with one worker of its own and its own commit, as n `pkft maintain --shard
// i/n` processes would. Each copy must end with one archive per bucket.
func measureShards(t *testing.T, ctx context.Context, dir string) []ShardResult {
	t.Helper()
	src := filepath.Join(dir, "src")
	if _, err := WriteTable(ctx, src, ShardTable()); err != nil {
		t.Fatal(err)
	}
	// One untimed maintenance first, so that the first timed run does not pay for the engine's
	// and the page cache's warm-up.
	warm := filepath.Join(dir, "warm")
	if err := os.CopyFS(warm, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if tbl, err := pkft.Open(ctx, warm); err != nil {
		t.Fatal(err)
	} else if _, err := tbl.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(warm); err != nil {
		t.Fatal(err)
	}
	var out []ShardResult
	for _, n := range ShardCounts() {
		copyDir := filepath.Join(dir, fmt.Sprintf("n%d", n))
		if err := os.CopyFS(copyDir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		res := ShardResult{Shards: n}
		results := make([]*pkft.MaintainResult, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tbl, err := pkft.Open(ctx, copyDir)
				if err == nil {
					results[i], err = tbl.Maintain(ctx, pkft.WithShard(i, n), pkft.WithParallelism(1))
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		res.Seconds = time.Since(start).Seconds()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%d shards: shard %d: %v", n, i, err)
			}
			r := results[i]
			built, _, _ := r.Totals()
			res.Archives += built
			if r.SnapshotID != 0 {
				res.Commits++
			}
			res.Conflicts += r.Commit.Conflicts
			res.Retries += max(r.Attempts-1, 0)
		}
		if res.Archives != ShardBuckets {
			t.Fatalf("%d shards built %d archives, want %d (one per bucket)", n, res.Archives, ShardBuckets)
		}
		if err := checkArchives(ctx, copyDir, ShardBuckets); err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if err := os.RemoveAll(copyDir); err != nil {
			t.Fatal(err)
		}
		t.Logf("shards %d: %.2fs, %d commits, %d conflicts, %d retries", n, res.Seconds, res.Commits, res.Conflicts, res.Retries)
		out = append(out, res)
	}
	return out
}
