package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/bench"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// scaleShards is scale/shards (go->java): for each n of bench.ShardCounts(), a fresh copy on S3 of a
// 64-bucket table whose every bucket has one level without an archive is maintained by n
// concurrent `pkft maintain --shard i/n` processes (each with its own S3 client and commit).
// Afterwards every level is current by Java's state, Java reads every row it read before, and the
// buckets the shards built are exactly the unsharded plan's, each built by one shard only, the one
// pkft.ShardOf names. Wall time, commits and retries per n go into the matrix notes.
func (g *maintainGroup) scaleShards(ctx context.Context, env *s3Env) error {
	// Built before any timing.
	if _, err := pkftCLI(); err != nil {
		return err
	}
	local := filepath.Join(g.dir, "shards")
	if _, err := bench.WriteTable(ctx, local, bench.ShardTable()); err != nil {
		return err
	}
	var rowsBefore []map[string]any
	var notes []string
	for _, n := range bench.ShardCounts() {
		path := fmt.Sprintf("s3://%s/shards/n%d", s3Bucket, n)
		javaPath := "s3a://" + strings.TrimPrefix(path, "s3://")
		if err := testtables.Upload(ctx, env.fs, local, path); err != nil {
			return err
		}
		_, plans, err := tableops.PlanMaintenance(ctx, table.Open(env.fs, path))
		if err != nil {
			return err
		}
		planned := map[int32]bool{}
		for _, p := range plans {
			if len(p.BuildLevels) > 0 {
				planned[p.Bucket] = true
			}
		}
		if len(planned) != bench.ShardBuckets {
			return fmt.Errorf("the unsharded plan builds %d buckets, want all %d", len(planned), bench.ShardBuckets)
		}
		if rowsBefore == nil {
			if rowsBefore, err = javaRead(ctx, g.proc, javaPath); err != nil {
				return err
			}
			if len(rowsBefore) != bench.ShardBuckets*bench.ShardRowsPerBucket {
				return fmt.Errorf("Java reads %d rows of the generated table, want %d", len(rowsBefore), bench.ShardBuckets*bench.ShardRowsPerBucket)
			}
		}
		fsArgs := []string{"--fs-option", "s3.endpoint=" + env.srv.Endpoint, "--fs-option", "s3.access-key=" + env.cfg.AccessKey, "--fs-option", "s3.secret-key=" + env.cfg.SecretKey}
		results := make([]shardResult, n)
		errs := make([]error, n)
		start := time.Now()
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := append([]string{"maintain", path, "--shard", fmt.Sprintf("%d/%d", i, n), "--json", "--parallel", "1", "--commit-user", fmt.Sprintf("shard-%d-of-%d", i, n)}, fsArgs...)
				out, err := runPKFT(ctx, args...)
				if err != nil {
					errs[i] = err
					return
				}
				errs[i] = json.Unmarshal(out, &results[i])
			}()
		}
		wg.Wait()
		wall := time.Since(start)
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("n=%d: %w", n, err)
		}
		builtBy := map[int32]int{}
		commits, retries := 0, 0
		for i, r := range results {
			if r.SnapshotID != 0 {
				commits++
			}
			retries += r.Commit.Conflicts
			for _, b := range r.Buckets {
				if len(b.Built) == 0 {
					continue
				}
				if prev, dup := builtBy[b.Bucket]; dup {
					return fmt.Errorf("n=%d: bucket %d built by shards %d and %d", n, b.Bucket, prev, i)
				}
				if s := pkft.ShardOf("", b.Bucket, n); s != i {
					return fmt.Errorf("n=%d: bucket %d built by shard %d, pkft.ShardOf names %d", n, b.Bucket, i, s)
				}
				builtBy[b.Bucket] = i
			}
		}
		built := map[int32]bool{}
		for b := range builtBy {
			built[b] = true
		}
		if d := cmp.Diff(planned, built); d != "" {
			return fmt.Errorf("n=%d: the shards' builds differ from the unsharded plan (-plan +shards):\n%s", n, d)
		}
		d, err := javaDump(ctx, g.proc, javaPath)
		if err != nil {
			return err
		}
		if err := allCurrent(d); err != nil {
			return fmt.Errorf("n=%d: Java's state after the shards: %w", n, err)
		}
		if len(d.Buckets) != bench.ShardBuckets {
			return fmt.Errorf("n=%d: Java's dump shows %d buckets, want %d", n, len(d.Buckets), bench.ShardBuckets)
		}
		rowsAfter, err := javaRead(ctx, g.proc, javaPath)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(rowsBefore, rowsAfter); diff != "" {
			return fmt.Errorf("n=%d: rows Java reads changed across the shards' maintenance (-before +after):\n%s", n, diff)
		}
		notes = append(notes, fmt.Sprintf("n=%d: %s, %d commits, %d retries", n, wall.Round(10*time.Millisecond), commits, retries))
	}
	report.AddNote(fmt.Sprintf("scale/shards: %d buckets x %d rows on S3, `pkft maintain --shard i/n` processes at once: %s", bench.ShardBuckets, bench.ShardRowsPerBucket, strings.Join(notes, "; ")))
	return nil
}

// shardResult is the part of `pkft maintain --json` (pkft.MaintainResult) scale/shards reads.
type shardResult struct {
	SnapshotID int64 `json:"snapshotId"`
	Commit     struct {
		Conflicts int `json:"conflicts"`
	} `json:"commit"`
	Buckets []struct {
		Bucket int32             `json:"bucket"`
		Built  []json.RawMessage `json:"built"`
	} `json:"buckets"`
}
