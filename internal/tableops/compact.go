package tableops

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pkmaintain"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// DeletionVectorsOption enables deletion vectors (CoreOptions DELETION_VECTORS_ENABLED).
const DeletionVectorsOption = "deletion-vectors.enabled"

// BucketCompaction is what a full compaction did to one bucket.
type BucketCompaction struct {
	Partition     []byte
	PartitionSpec []paths.PartitionKV
	Bucket        int32
	// Before are the data files removed (rewritten or moved); After the files produced (new
	// files at the top level, and moved files with their new level).
	Before, After []*meta.DataFileMeta
	// Rewritten counts the files rewritten; Upgraded the files moved to the top level as they
	// are (Java's upgrade: the file keeps its source, so it feeds no archive).
	Rewritten, Upgraded int
	// RowsRead and RowsWritten count the records the rewrite read and wrote.
	RowsRead, RowsWritten int64
	// Built and Retired are the full-text archive changes of the bucket's maintainer.
	Built, Retired []*meta.IndexFileMeta
	// DeletionVectors is the bucket's new deletion-vector index file, nil when unchanged.
	DeletionVectors *meta.IndexFileMeta
	Duration        time.Duration
}

// CompactResult is the outcome of Compact.
type CompactResult struct {
	// Snapshot is the committed COMPACT snapshot; nil when no selected bucket needed compaction.
	Snapshot *snapshot.Snapshot
	// ExpiredSnapshots is the number of snapshots the expiry after the commit expired.
	ExpiredSnapshots int
	// Buckets has one entry per compacted bucket, ordered by partition bytes then bucket.
	Buckets []BucketCompaction
	// Commit counts conflicts, re-plans (buckets compacted again on a new base) and retries.
	Commit CommitStats
}

// Compact runs a full compaction of the selected buckets of the table's latest snapshot as
// Java's writer does for a forced full compaction of a deduplicate, first-row or partial-update table
// (MergeTreeCompactManager#triggerCompaction(true), CompactStrategy#pickFullCompaction,
// MergeTreeCompactTask): every sorted run is compacted into the top level (num-levels - 1);
// overlapping files are merged by key (the table's merge function picks each key's record:
// deduplicate's last or first-row's first in sequence order, partial-update's merge of the
// non-null fields; retractions are dropped, deletion
// vectors applied, expired records dropped), large files that overlap nothing are moved
// up without rewriting (unless compaction.force-rewrite-all-files, or they hold expired
// records), and a bucket already compacted into the top level only rewrites the files that
// have deletion vectors (or expired records; every file when forced). Rewritten files lose their deletion vectors, and the bucket's
// deletion-vector index file is rewritten when that changes it. Each bucket's full-text
// maintainer receives the compaction (compactBefore / compactAfter) and waits for its builds, so
// the new top level's archive is built and the retired archives removed in the same COMPACT
// snapshot. Selected buckets that need no compaction still have their maintainer run, as Java's
// compaction creates a writer for each; what it builds or retires there (levels without a current
// archive) is committed in the same COMPACT snapshot, where Java commits an APPEND snapshot with
// those index changes first.
//
// The commit is package commit's: when another writer commits first, only the buckets whose
// levels above 0 or index files it changed are compacted again from the new snapshot (their
// earlier output deleted); the others keep their compaction, and all are committed together.
// Files the compaction deletes that are gone, or a bucket that keeps changing, fail it with
// ErrCompactConflict.
//
// Options: WithBuckets, WithParallelism, WithProgress (buckets done out of the selected ones;
// no row counts), WithCommitUser, WithCommitIdentifier, WithMaxRetries, WithBeforePublish,
// WithAfterPublish. engine may be nil when the table has no full-text index. On failure every
// generated file (data, deletion vectors, archives, manifests) is deleted and nothing is
// committed.
func Compact(ctx context.Context, t *table.Table, engine fulltext.Engine, opts ...MaintainOption) (*CompactResult, error) {
	cfg := maintainConfig{identifier: BatchCommitIdentifier, parallelism: runtime.NumCPU(), maxRetries: -1}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.commitUser == "" {
		cfg.commitUser = uuid.NewString()
	}
	if cfg.parallelism <= 0 {
		cfg.parallelism = 1
	}
	if cfg.uncovered && cfg.minor {
		return nil, errors.New("the uncovered and minor compactions exclude each other")
	}
	r, err := restoreWritable(ctx, t, engine)
	if err != nil {
		return nil, err
	}
	if cfg.uncovered && !r.HasIndexes() {
		return nil, errors.New("uncovered compaction: the table declares no primary-key index to cover its files")
	}
	if cfg.maxRetries < 0 {
		if cfg.maxRetries, err = commit.MaxRetriesOf(r.Schema.Options); err != nil {
			return nil, err
		}
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		return nil, err
	}
	expiry, err := newAtCommitExpiry(r.Schema, cfg)
	if err != nil {
		return nil, err
	}
	c, err := newCompaction(t, r, engine, layout, cfg, !cfg.minor)
	if err != nil {
		return nil, err
	}
	res, err := c.run(ctx)
	var uncertain *UncertainCommitError
	if errors.As(err, &uncertain) {
		return nil, err // the snapshot may reference every generated file: keep them
	}
	if err != nil {
		return nil, errors.Join(err, c.abort(ctx))
	}
	if res.ExpiredSnapshots, err = expiry.run(ctx, t); err != nil {
		return res, err
	}
	return res, nil
}

type compaction struct {
	t      *table.Table
	r      *restore.Restorer
	engine fulltext.Engine
	layout *kvfile.Layout
	cfg    maintainConfig

	// full is a forced full compaction; otherwise the table's strategy picks what to compact.
	full bool
	// opts are the compaction options the strategy reads.
	opts        mergetree.Options
	minFileSize int64
	// numBuckets is the table's bucket count (fixed bucket mode).
	numBuckets int
	dvEnabled  bool
	// merge is how records of one key merge (merge engine, ignore-delete, sequence fields).
	merge *mergetree.Merge
	// expire drops expired records (record-level.expire-time; nil without); schemas caches the
	// schemas of data files, whose statistics it reads.
	expire  *mergetree.RecordExpire
	schemas sync.Map

	// selected are the buckets the first plan compacts; work what each bucket's current plan
	// generated (to delete when it is planned again or the compaction fails); results what
	// each bucket's current plan did (nil when it needs nothing).
	mu       sync.Mutex
	selected map[commit.BucketKey]bool
	work     map[commit.BucketKey]*bucketWork
	results  map[commit.BucketKey]*BucketCompaction
	archives archiveTracker
	// started counts the buckets compacted, for progress; indexed the rows the archive builds
	// read; progressMu serializes the reports.
	started, finished atomic.Int64
	indexed           atomic.Int64
	progressMu        sync.Mutex
}

// report calls the progress callback (serialized) with the buckets finished and the rows the
// archive builds have read.
func (c *compaction) report() {
	if c.cfg.progress == nil {
		return
	}
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	c.cfg.progress(Progress{Done: int(c.finished.Load()), Total: int(c.started.Load()), RowsIndexed: c.indexed.Load()})
}

// countIndexed wraps a bucket's full-text readers to count the rows its builds read; nil
// without a progress callback.
func (c *compaction) countIndexed() func(pkfulltext.ReaderFactory) pkfulltext.ReaderFactory {
	if c.cfg.progress == nil {
		return nil
	}
	return func(inner pkfulltext.ReaderFactory) pkfulltext.ReaderFactory {
		return &countingReaders{inner: inner, add: func(n int64) {
			if n > 0 {
				c.indexed.Add(n)
				c.report()
			}
		}}
	}
}

// bucketWork is what one bucket's plan generated: data and deletion-vector files, and the
// maintainer's pending commit (whose Abort deletes its archives).
type bucketWork struct {
	files   []string
	pending *pkmaintain.Commit
}

// newCompaction prepares a compaction of t restored by r: a forced full one, or the strategy's
// pick in each bucket.
func newCompaction(t *table.Table, r *restore.Restorer, engine fulltext.Engine, layout *kvfile.Layout, cfg maintainConfig, full bool) (*compaction, error) {
	c := &compaction{t: t, r: r, engine: engine, layout: layout, cfg: cfg, full: full,
		selected: map[commit.BucketKey]bool{}, work: map[commit.BucketKey]*bucketWork{}, results: map[commit.BucketKey]*BucketCompaction{}}
	if err := c.options(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *compaction) options() error {
	opts := c.r.Schema.Options
	var err error
	if c.opts, err = mergetree.ParseOptions(opts); err != nil {
		return err
	}
	if c.numBuckets, err = numBuckets(c.r.Schema); err != nil {
		return err
	}
	if c.opts.NumLevels < 2 {
		return fmt.Errorf("option %s: %d levels leave no level to compact into", NumLevelsOption, c.opts.NumLevels)
	}
	target := int64(128 << 20)
	if v, ok := opts[kvfile.TargetFileSizeOption]; ok {
		var err error
		if target, err = schema.ParseMemorySize(v); err != nil {
			return fmt.Errorf("option %s: %w", kvfile.TargetFileSizeOption, err)
		}
	}
	ratio := 0.7
	if v, ok := opts[CompactionSmallFileOpt]; ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return fmt.Errorf("option %s: %w", CompactionSmallFileOpt, err)
		}
		ratio = f
	}
	c.minFileSize = int64(float64(target) * ratio)
	dvOn, err := schema.BoolOption(opts, DeletionVectorsOption, false)
	if err != nil {
		return err
	}
	c.dvEnabled = dvOn
	if c.merge, err = mergetree.ParseMerge(c.r.Schema, c.opts.NeedLookup); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	if c.expire, err = mergetree.ParseRecordExpire(c.r.Schema); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	return nil
}

func (c *compaction) track(rb *restore.RestoredBucket, paths ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := commit.KeyOf(rb.Partition, rb.Bucket)
	if c.work[key] == nil {
		c.work[key] = &bucketWork{}
	}
	c.work[key].files = append(c.work[key].files, paths...)
}

// discard deletes what the plans of the given buckets (every bucket when keys is nil)
// generated and undoes their maintainers' calls.
func (c *compaction) discard(ctx context.Context, keys []commit.BucketKey) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := keys == nil
	if all {
		for k := range c.work {
			keys = append(keys, k)
		}
	}
	var pending []*pkmaintain.Commit
	var files []string
	for _, k := range keys {
		if w := c.work[k]; w != nil {
			if w.pending != nil {
				pending = append(pending, w.pending)
			}
			files = append(files, w.files...)
		}
		delete(c.work, k)
		delete(c.results, k)
	}
	if all {
		return discardGenerated(ctx, c.t.FileIO, pending, files, &c.archives)
	}
	// The archives of the other buckets stay live: do not wait for every archive to be gone.
	return discardGenerated(ctx, c.t.FileIO, pending, files, nil)
}

// abort deletes every file the compaction generated and undoes the maintainers' calls.
func (c *compaction) abort(ctx context.Context) error { return c.discard(ctx, nil) }

func (c *compaction) run(ctx context.Context) (*CompactResult, error) {
	cres, err := commit.Run(ctx, c.t, commit.Request{Conflict: commit.ErrCompactConflict, Kind: snapshot.CommitCompact,
		User: c.cfg.commitUser, Identifier: c.cfg.identifier, MaxRetries: c.cfg.maxRetries, RetryWait: c.cfg.retryWait,
		BeforePublish: c.cfg.beforePublish, AfterPublish: c.cfg.afterPublish, Schema: c.r.Schema, Paths: c.r.Paths, Planner: c})
	if err != nil {
		return nil, err
	}
	res := &CompactResult{Snapshot: cres.Snapshot, Commit: cres.Stats}
	for _, ch := range cres.Changes {
		if bc := c.results[ch.Key()]; bc != nil && !ch.Empty() {
			res.Buckets = append(res.Buckets, *bc)
		}
	}
	c.mu.Lock()
	clear(c.work)
	c.mu.Unlock()
	return res, nil
}

// Fingerprint is fingerprintCommit for the buckets the compaction works on, "" for the others.
func (c *compaction) Fingerprint(key commit.BucketKey, b *table.Bucket) string {
	if !c.selected[key] {
		return ""
	}
	return fingerprintCommit(b)
}

// Plan compacts the given buckets of contents (when keys is nil, every selected bucket with
// data files), deleting what an earlier plan of them generated, and returns their changes.
func (c *compaction) Plan(ctx context.Context, contents *table.Contents, keys []commit.BucketKey) ([]*commit.Change, error) {
	first := keys == nil
	if !first {
		if err := c.discard(ctx, keys); err != nil {
			return nil, err
		}
	}
	want := map[commit.BucketKey]bool{}
	for _, k := range keys {
		want[k] = true
	}
	type job struct {
		key commit.BucketKey
		tb  *table.Bucket
		rb  *restore.RestoredBucket
	}
	var jobs []job
	var out []*commit.Change
	for _, b := range contents.Buckets {
		key := commit.KeyOf(b.Partition, b.Bucket)
		if !first && !want[key] {
			continue
		}
		delete(want, key)
		rb, err := c.r.RestoreBucket(b)
		if err != nil {
			return nil, err
		}
		if first && c.cfg.filter != nil && !c.cfg.filter(rb.PartitionSpec, rb.Bucket) {
			continue
		}
		if len(rb.DataFiles) == 0 {
			if !first {
				out = append(out, &commit.Change{Partition: b.Partition, Bucket: b.Bucket, Basis: fingerprintCommit(b)})
			}
			continue
		}
		if first {
			c.selected[key] = true
		}
		jobs = append(jobs, job{key, b, rb})
	}
	for k := range want {
		// A bucket the new snapshot no longer has: nothing to compact there.
		out = append(out, &commit.Change{Partition: []byte(k.Partition), Bucket: k.Bucket, Basis: fingerprintCommit(nil)})
	}
	c.started.Add(int64(len(jobs)))
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		sem      = make(chan struct{}, c.cfg.parallelism)
	)
	report := c.report
	if len(jobs) > 0 {
		report() // the buckets to compact are known: a bar can start at 0 of them
	}
	changes := make([]*commit.Change, len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx2.Done():
				return
			}
			defer func() { <-sem }()
			bc, msg, err := c.compactBucket(ctx2, j.tb, j.rb)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				mu.Unlock()
				return
			}
			if msg == nil {
				msg = &commit.Change{Partition: j.tb.Partition, Bucket: j.tb.Bucket}
			}
			msg.Basis = fingerprintCommit(j.tb)
			c.mu.Lock()
			c.results[j.key] = bc
			c.mu.Unlock()
			changes[i] = msg
			c.finished.Add(1)
			report()
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return append(out, changes...), nil
}

// compactBucket compacts one bucket; it returns nil results when the bucket needs nothing.
func (c *compaction) compactBucket(ctx context.Context, tb *table.Bucket, rb *restore.RestoredBucket) (*BucketCompaction, *commit.Change, error) {
	start := time.Now()
	if err := checkBucketCount(tb, c.numBuckets); err != nil {
		return nil, nil, err
	}
	bc, err := c.compactFiles(ctx, rb, rb.DataFiles, rb.DataFiles)
	if err != nil {
		return nil, nil, err
	}
	if bc == nil {
		bc = &BucketCompaction{Partition: rb.Partition, PartitionSpec: rb.PartitionSpec, Bucket: rb.Bucket}
	}
	if len(bc.Before) == 0 && !c.r.HasIndexes() {
		return nil, nil, nil
	}
	msg := &commit.Change{Partition: rb.Partition, Bucket: rb.Bucket, TotalBuckets: int32(c.numBuckets),
		CompactBefore: bc.Before, CompactAfter: bc.After}
	if c.r.HasIndexes() {
		key := commit.KeyOf(rb.Partition, rb.Bucket)
		mc, err := runIndexMaintainers(ctx, c.r, c.engine, &c.archives, rb, pkindex.DataIncrement{},
			pkindex.CompactIncrement{CompactBefore: bc.Before, CompactAfter: bc.After}, c.countIndexed())
		if err != nil {
			return nil, nil, err
		}
		c.mu.Lock()
		if c.work[key] == nil {
			c.work[key] = &bucketWork{}
		}
		c.work[key].pending = mc
		c.mu.Unlock()
		// A bucket the compaction leaves alone still has its maintainer run (Java creates a
		// writer, and so a maintainer, for every bucket it is asked to compact); its changes
		// then travel in the append increment, which Java commits as an APPEND snapshot before
		// the COMPACT one and Go commits in the COMPACT snapshot.
		for _, inc := range []*pkindex.IndexIncrement{mc.CompactIncrement, mc.AppendIncrement} {
			if inc == nil {
				continue
			}
			bc.Built = append(bc.Built, inc.NewIndexFiles...)
			bc.Retired = append(bc.Retired, inc.DeletedIndexFiles...)
			msg.NewIndexFiles = append(msg.NewIndexFiles, inc.NewIndexFiles...)
			msg.DeletedIndexFiles = append(msg.DeletedIndexFiles, inc.DeletedIndexFiles...)
		}
		if len(bc.Before) == 0 && len(msg.NewIndexFiles) == 0 && len(msg.DeletedIndexFiles) == 0 {
			if err := mc.Abort(ctx); err != nil {
				return nil, nil, err
			}
			c.mu.Lock()
			c.work[key].pending = nil
			c.mu.Unlock()
			return nil, nil, nil
		}
	}
	if bc.DeletionVectors != nil {
		msg.NewIndexFiles = append(msg.NewIndexFiles, bc.DeletionVectors)
	}
	bc.Duration = time.Since(start)
	return bc, msg, nil
}
