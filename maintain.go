package pkft

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// Phase names the phase a [Progress] report is about.
type Phase string

// The phases [WithProgress] reports.
const (
	// PhaseBuild: [Table.Maintain] builds archives (buckets done, rows indexed of rows planned).
	PhaseBuild Phase = "build"
	// PhaseCompact: [Table.Compact] compacts buckets (buckets done); in [Writer.Commit], each
	// written bucket's compaction at commit and archive builds (buckets done, rows indexed so
	// far, RowsPlanned 0: the builds are planned as each bucket compacts).
	PhaseCompact Phase = "compact"
	// PhaseFlush: [Writer.Commit] writes the buffered rows into level-0 data files (buckets done).
	PhaseFlush Phase = "flush"
	// PhaseCommit: [Writer.Commit] publishes its snapshots (BucketsDone counts the snapshots
	// published out of BucketsTotal: the APPEND one, and the COMPACT one of a compaction at
	// commit).
	PhaseCommit Phase = "commit"
)

// Progress is one progress report of [Table.Maintain], [Table.Compact] or [Writer.Commit].
type Progress struct {
	// Phase is what is reported on.
	Phase Phase
	// BucketsDone out of BucketsTotal buckets have finished in the current round (a commit
	// rebased on another writer's snapshot starts a new round over the buckets it plans again).
	BucketsDone, BucketsTotal int
	// RowsIndexed source rows have been read into archives so far, out of RowsPlanned rows of
	// every build planned.
	RowsIndexed, RowsPlanned int64
	// Bucket is the bucket that just finished; nil when the report is about rows.
	Bucket *BucketResult
}

// Archive is one full-text archive (an index file of type full-text).
type Archive struct {
	// FileName is the index file's name; empty for an archive a dry run would build.
	FileName string `json:"fileName,omitempty"`
	// Level is the data level the archive covers.
	Level int32 `json:"level"`
	// RowCount is the number of source rows indexed; 0 for an archive a dry run would build.
	RowCount int64 `json:"rowCount"`
	// FileSize is the archive's size in bytes; 0 for an archive a dry run would build.
	FileSize int64 `json:"fileSize"`
}

// BucketResult is what maintenance did (or, in a dry run, would do) to one (partition, bucket).
type BucketResult struct {
	Partition Partition `json:"partition"`
	Bucket    int32     `json:"bucket"`
	// Built are the archives created; in a dry run, one entry per level that would be built.
	Built []Archive `json:"built"`
	// Retired are the stale archives removed from the index.
	Retired []Archive `json:"retired"`
	// Unchanged are the current archives kept as they were.
	Unchanged []Archive `json:"unchanged"`
	// RowsIndexed is the number of source rows the builds read (would read, in a dry run).
	RowsIndexed int64 `json:"rowsIndexed"`
	// Duration is the time the bucket took; 0 in a dry run.
	Duration time.Duration `json:"durationNanos"`
}

// Changed reports whether the bucket has archives built or retired.
func (b *BucketResult) Changed() bool { return len(b.Built) > 0 || len(b.Retired) > 0 }

// MaintainResult is the outcome of [Table.Maintain].
type MaintainResult struct {
	// DryRun is set when nothing was built or committed by request.
	DryRun bool `json:"dryRun"`
	// BaseSnapshotID is the snapshot the changes were planned on; 0 for a table without
	// snapshots.
	BaseSnapshotID int64 `json:"baseSnapshotId"`
	// SnapshotID is the snapshot committed; 0 when nothing was committed (nothing to do, or a
	// dry run).
	SnapshotID int64 `json:"snapshotId"`
	// Attempts is the number of publication attempts (more than 1 when other writers committed
	// first and the commit was rebased); 0 when nothing was committed.
	Attempts int `json:"attempts"`
	// Commit counts the conflicts, re-plans and retries of the commit.
	Commit CommitStats `json:"commit"`
	// ExpiredSnapshots is the number of snapshots the expiry after the commit expired.
	ExpiredSnapshots int `json:"expiredSnapshots"`
	// Buckets has one entry per selected bucket, ordered by partition then bucket.
	Buckets []BucketResult `json:"buckets"`
	// Coverage counts the data files and rows of the selected buckets that no current full-text
	// archive covers in the snapshot maintenance leaves (SnapshotID, else BaseSnapshotID), by
	// reason: after a commit, what maintenance cannot index (rows on level 0 or moved up without
	// a rewrite, which wait for a compaction that rewrites them); in a dry run, also the levels
	// the plan would build. Rows are the data files' row counts (physical rows). Nil for a table
	// without a full-text index or without a snapshot, and when CoverageError is set.
	Coverage *Coverage `json:"coverage,omitempty"`
	// CoverageError says why Coverage could not be computed after a commit (reading the
	// committed snapshot failed); the maintenance itself succeeded.
	CoverageError string `json:"coverageError,omitempty"`
	// Duration is the wall time of the whole call.
	Duration time.Duration `json:"durationNanos"`
}

// Totals sums the archives built, retired and unchanged over all buckets.
func (r *MaintainResult) Totals() (built, retired, unchanged int) {
	for _, b := range r.Buckets {
		built += len(b.Built)
		retired += len(b.Retired)
		unchanged += len(b.Unchanged)
	}
	return built, retired, unchanged
}

// Maintain brings the table's full-text archives up to date: for every selected (partition,
// bucket) of the latest snapshot it builds the archives of levels that have none or a stale one,
// and commits all created and retired archives as one new snapshot (an APPEND commit carrying
// only index changes, as Java's writer commits them). When every archive is current nothing is
// committed. Buckets are maintained in a bounded pool ([WithParallelism]).
//
// If another writer commits first, the commit is rebased on the new snapshot (buckets whose
// files changed are planned again) and retried, up to the table's commit.max-retries; it fails
// with [ErrCommitConflict] after that. On any failure every file the call wrote is deleted.
//
// With [WithDryRun] it reports the plan and writes nothing.
//
// The result's Coverage reads the snapshot maintenance leaves once more and counts the rows of
// the selected buckets that no archive covers even now — rows on level 0 or moved up without a
// rewrite, which only a compaction that rewrites them makes searchable — so that "every archive
// is current" is not taken for "every row is searchable".
func (t *Table) Maintain(ctx context.Context, opts ...MaintainOption) (*MaintainResult, error) {
	start := time.Now()
	var cfg maintainConfig
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyMaintain(&cfg)
	}
	topts, err := t.selection(ctx, cfg.scope)
	if err != nil {
		return nil, err
	}
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	parts := partitionsOf(s)
	if cfg.dryRun {
		base, plans, err := tableops.PlanMaintenance(ctx, t.t, topts...)
		if errors.Is(err, table.ErrNoSnapshot) {
			return &MaintainResult{DryRun: true, Buckets: []BucketResult{}, Duration: time.Since(start)}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("plan maintenance of %s: %w", t.path, err)
		}
		res := &MaintainResult{DryRun: true, BaseSnapshotID: base.ID, Buckets: make([]BucketResult, 0, len(plans))}
		selected := map[bucketID]bool{}
		for i := range plans {
			br, err := planResult(parts, &plans[i])
			if err != nil {
				return nil, err
			}
			res.Buckets = append(res.Buckets, br)
			selected[bucketID{string(plans[i].Partition), plans[i].Bucket}] = true
		}
		if res.Coverage, err = t.coverageOf(ctx, base, selected); err != nil {
			return nil, err
		}
		res.Duration = time.Since(start)
		return res, nil
	}
	// A table without a primary-key index is reported as such before the engine is looked for;
	// the engine is loaded only for a full-text index.
	sorted, err := definition.Resolve(s)
	if err != nil {
		return nil, opError(err, "maintain %s", t.path)
	}
	var engine fulltext.Engine
	if _, err := pkfulltext.ResolveDefinition(s); err != nil && (len(sorted) == 0 || !errors.Is(err, pkfulltext.ErrNoIndex)) {
		return nil, opError(err, "maintain %s", t.path)
	} else if err == nil {
		if engine, err = t.loadEngine(ctx); err != nil {
			return nil, err
		}
	}
	topts = append(topts, cfg.commitOptions()...)
	if cfg.progress != nil {
		report := cfg.progress
		topts = append(topts, tableops.WithProgress(func(p tableops.Progress) {
			out := Progress{Phase: PhaseBuild, BucketsDone: p.Done, BucketsTotal: p.Total, RowsIndexed: p.RowsIndexed, RowsPlanned: p.RowsPlanned}
			if p.Bucket != nil {
				if br, err := bucketResult(parts, p.Bucket); err == nil {
					out.Bucket = &br
				}
			}
			report(out)
		}))
	}
	r, err := tableops.Maintain(ctx, t.t, engine, topts...)
	if errors.Is(err, table.ErrNoSnapshot) {
		return &MaintainResult{Buckets: []BucketResult{}, Duration: time.Since(start)}, nil
	}
	if err != nil {
		return nil, opError(err, "maintain %s", t.path)
	}
	res := &MaintainResult{Attempts: r.Attempts, Commit: commitStatsOf(r.Commit), ExpiredSnapshots: r.ExpiredSnapshots,
		Buckets: make([]BucketResult, 0, len(r.Buckets))}
	if r.Base != nil {
		res.BaseSnapshotID = r.Base.ID
	}
	if r.Snapshot != nil {
		res.SnapshotID = r.Snapshot.ID
	}
	selected := map[bucketID]bool{}
	for i := range r.Buckets {
		br, err := bucketResult(parts, &r.Buckets[i])
		if err != nil {
			return nil, err
		}
		res.Buckets = append(res.Buckets, br)
		selected[bucketID{string(r.Buckets[i].Partition), r.Buckets[i].Bucket}] = true
	}
	left := r.Snapshot
	if left == nil {
		left = r.Base
	}
	if left != nil {
		// The commit has landed: a failure to read it back does not fail the maintenance.
		if res.Coverage, err = t.coverageOf(ctx, left, selected); err != nil {
			res.CoverageError = err.Error()
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}

// bucketID is a (partition, bucket): the serialized partition row and the bucket number.
type bucketID struct {
	partition string
	bucket    int32
}

// coverageOf reads snap and sums the full-text coverage of its buckets in selected; nil for a
// table whose latest schema has no full-text index.
func (t *Table) coverageOf(ctx context.Context, snap *snapshot.Snapshot, selected map[bucketID]bool) (*Coverage, error) {
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	field, ok := inspect.FullTextField(s)
	if !ok {
		return nil, nil
	}
	contents, err := t.t.Read(ctx, snap)
	if err != nil {
		return nil, fmt.Errorf("coverage of %s at snapshot %d: %w", t.path, snap.ID, err)
	}
	c, err := inspect.SnapshotCoverage(contents, field, func(b *table.Bucket) (bool, error) {
		return selected[bucketID{string(b.Partition), b.Bucket}], nil
	})
	if err != nil {
		return nil, fmt.Errorf("coverage of %s at snapshot %d: %w", t.path, snap.ID, err)
	}
	return coverageOf(c), nil
}

// selection returns the tableops options that select the buckets cfg names (none: every
// bucket).
func (t *Table) selection(ctx context.Context, cfg scope) ([]tableops.MaintainOption, error) {
	keep, err := t.bucketFilter(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var topts []tableops.MaintainOption
	if keep != nil {
		topts = append(topts, tableops.WithBuckets(keep))
	}
	return topts, nil
}

// commitOptions returns the tableops options for the parallelism and commit user set, if any.
func (cfg scope) commitOptions() []tableops.MaintainOption {
	var topts []tableops.MaintainOption
	if cfg.parallelism > 0 {
		topts = append(topts, tableops.WithParallelism(cfg.parallelism))
	}
	if cfg.commitUser != "" {
		topts = append(topts, tableops.WithCommitUser(cfg.commitUser))
	}
	if cfg.now != nil {
		topts = append(topts, tableops.WithClock(cfg.now))
	}
	return topts
}

// bucketFilter turns the partition and bucket selections into tableops' bucket filter (nil when
// everything is selected). Partition specs are matched against the typed partition values
// (search.MatchPartition) of the buckets the latest snapshot has; a partition that appears only
// in a snapshot committed later is matched by its directory values.
func (t *Table) bucketFilter(ctx context.Context, cfg scope) (func([]paths.PartitionKV, int32) bool, error) {
	if cfg.shard != nil && (cfg.shard.count < 1 || cfg.shard.index < 0 || cfg.shard.index >= cfg.shard.count) {
		return nil, fmt.Errorf("select buckets of %s: shard %d/%d: want 0 <= index < count", t.path, cfg.shard.index, cfg.shard.count)
	}
	if len(cfg.partitions) == 0 && len(cfg.buckets) == 0 && cfg.shard == nil {
		return nil, nil
	}
	var known map[string]bool // partition directory path -> selected
	if len(cfg.partitions) > 0 {
		s, err := t.latestSchema(ctx)
		if err != nil {
			return nil, err
		}
		if len(s.PartitionKeys) == 0 {
			return nil, fmt.Errorf("select partitions of %s: the table is not partitioned", t.path)
		}
		filters := make([]search.PartitionFilter, len(cfg.partitions))
		for i, spec := range cfg.partitions {
			if filters[i], err = search.MatchPartition(s, spec); err != nil {
				return nil, fmt.Errorf("select partitions of %s: %w", t.path, err)
			}
		}
		known = map[string]bool{}
		snap, err := t.t.Latest(ctx)
		if err != nil && !errors.Is(err, table.ErrNoSnapshot) {
			return nil, err
		}
		if snap != nil {
			contents, err := t.t.Read(ctx, snap)
			if err != nil {
				return nil, err
			}
			r, err := restore.NewRestorer(ctx, t.t)
			if err != nil {
				return nil, err
			}
			for _, b := range contents.Buckets {
				spec, err := r.PartitionSpec(b.Partition)
				if err != nil {
					return nil, err
				}
				key := dirKey(spec)
				if _, done := known[key]; done {
					continue
				}
				match := false
				for _, f := range filters {
					ok, err := f(b.Partition)
					if err != nil {
						return nil, err
					}
					match = match || ok
				}
				known[key] = match
			}
		}
	}
	specs := cfg.partitions
	buckets := make(map[int32]bool, len(cfg.buckets))
	for _, b := range cfg.buckets {
		buckets[b] = true
	}
	sh := cfg.shard
	return func(spec []paths.PartitionKV, bucket int32) bool {
		if len(buckets) > 0 && !buckets[bucket] {
			return false
		}
		if sh != nil && ShardOf(dirKey(spec), bucket, sh.count) != sh.index {
			return false
		}
		if len(specs) == 0 {
			return true
		}
		if match, ok := known[dirKey(spec)]; ok {
			return match
		}
		return matchDirectory(spec, specs)
	}, nil
}

// matchDirectory matches a partition by its directory values against any of specs.
func matchDirectory(dir []paths.PartitionKV, specs []map[string]string) bool {
	for _, spec := range specs {
		ok := true
		for _, kv := range dir {
			if v, given := spec[kv.Key]; given && v != kv.Value {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// dirKey is the directory path of a partition ("region=eu/dt=19753").
func dirKey(spec []paths.PartitionKV) string {
	parts := make([]string, len(spec))
	for i, kv := range spec {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, "/")
}

// archiveOf describes one full-text index file.
func archiveOf(f *meta.IndexFileMeta) (Archive, error) {
	a := Archive{FileName: f.FileName, RowCount: f.RowCount, FileSize: f.FileSize}
	if f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
		sm, err := pkindex.SourceMetaFromIndexFile(f.FileName, f.GlobalIndex.SourceMeta)
		if err != nil {
			return Archive{}, err
		}
		a.Level = sm.DataLevel()
	}
	return a, nil
}

func archivesOf(files []*meta.IndexFileMeta) ([]Archive, error) {
	out := make([]Archive, 0, len(files))
	for _, f := range files {
		a, err := archiveOf(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func bucketResult(parts partitions, b *tableops.BucketResult) (BucketResult, error) {
	out := BucketResult{Bucket: b.Bucket, Duration: b.Duration}
	var err error
	if out.Partition, err = parts.of(b.Partition); err != nil {
		return out, err
	}
	if out.Built, err = archivesOf(b.Built); err != nil {
		return out, err
	}
	if out.Retired, err = archivesOf(b.Retired); err != nil {
		return out, err
	}
	if out.Unchanged, err = archivesOf(b.Unchanged); err != nil {
		return out, err
	}
	for _, a := range out.Built {
		out.RowsIndexed += a.RowCount
	}
	return out, nil
}

func planResult(parts partitions, p *tableops.BucketPlan) (BucketResult, error) {
	out := BucketResult{Bucket: p.Bucket, RowsIndexed: p.BuildRows}
	var err error
	if out.Partition, err = parts.of(p.Partition); err != nil {
		return out, err
	}
	out.Built = make([]Archive, 0, len(p.BuildLevels))
	for _, l := range p.BuildLevels {
		out.Built = append(out.Built, Archive{Level: l})
	}
	if out.Retired, err = archivesOf(p.Retire); err != nil {
		return out, err
	}
	if out.Unchanged, err = archivesOf(p.Current); err != nil {
		return out, err
	}
	return out, nil
}
