package pkft

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-pkft/pkft/internal/convert"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// ErrUnsupportedTable reports a table the Go writer, compaction and maintenance refuse: a table
// without a primary key, a non-fixed bucket mode, or a table option pkft refuses or does not know
// (another merge engine, a sequence field, a changelog producer, ...; `pkft options TABLE` lists
// them); the error names each option and value.
var ErrUnsupportedTable = tableops.ErrUnsupportedTable

// Writer writes rows into a primary-key table the way a Java batch writer does: rows go to the
// bucket Java computes, are merged by key per bucket (the last row of a key wins) and written as
// level-0 data files; at commit each bucket runs the compaction Java's writer runs (on a
// deletion-vector table level 0 moves up, with deletion vectors for the rows it replaces) and its
// full-text maintainer. Nothing is visible until [Writer.Commit]; [Writer.Abort] deletes
// everything written. A Writer is not safe for concurrent use.
type Writer struct {
	t      *Table
	w      *tableops.Writer
	types  []types.DataType
	schema *Schema
	parts  partitions
}

// NewWriter opens a writer on the table's latest snapshot (an empty table is fine). The
// full-text engine is needed only when the table has a full-text index; NewWriter then checks
// that it loads, so that a missing engine fails the write before anything is written or
// committed (the error matches [ErrEngineNotFound] when no engine was found).
func (t *Table) NewWriter(ctx context.Context, opts ...WriteOption) (*Writer, error) {
	var cfg writeConfig
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyWrite(&cfg)
	}
	engine, err := t.writerEngine(ctx)
	if err != nil {
		return nil, err
	}
	var topts []tableops.MaintainOption
	if cfg.commitUser != "" {
		topts = append(topts, tableops.WithCommitUser(cfg.commitUser))
	}
	if cfg.writeOnly {
		topts = append(topts, tableops.WithWriteOnly())
	}
	if cfg.indexNewRows {
		topts = append(topts, tableops.WithIndexNewRows())
	}
	if cfg.now != nil {
		topts = append(topts, tableops.WithClock(cfg.now))
	}
	if cfg.progress != nil {
		report := cfg.progress
		topts = append(topts, tableops.WithProgress(func(p tableops.Progress) {
			report(Progress{Phase: Phase(p.Phase), BucketsDone: p.Done, BucketsTotal: p.Total, RowsIndexed: p.RowsIndexed})
		}))
	}
	w, err := tableops.OpenWriter(ctx, t.t, engine, topts...)
	if err != nil {
		return nil, fmt.Errorf("open writer on %s: %w", t.path, err)
	}
	s := w.Schema()
	out := &Writer{t: t, w: w, types: make([]types.DataType, len(s.Fields)), schema: schemaOf(s), parts: partitionsOf(s)}
	for i, f := range s.Fields {
		out.types[i] = f.Type
	}
	return out, nil
}

// engineIfIndexed loads the engine when the latest schema has a full-text index.
func (t *Table) engineIfIndexed(ctx context.Context) (fulltext.Engine, error) {
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := pkfulltext.ResolveDefinition(s); errors.Is(err, pkfulltext.ErrNoIndex) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return t.loadEngine(ctx)
}

// Schema is the schema rows are written with (the table's latest when the writer opened).
func (w *Writer) Schema() *Schema { return w.schema }

// Write buffers one row of the given kind; a row that does not fit the schema is an error and
// nothing of it is buffered.
//
// The row holds one value per column, in [Writer.Schema] order; nil is NULL. Values are typed
// by their column as [Hit] values are: BOOLEAN bool, TINYINT int8, SMALLINT int16, INT int32,
// BIGINT int64, FLOAT float32, DOUBLE float64, CHAR and VARCHAR string, BINARY and VARBINARY
// []byte, DECIMAL a string in plain notation (at most the column's scale of fraction digits),
// DATE a time.Time (its calendar date) or an int32 day number, TIME an int32 of milliseconds of
// the day, TIMESTAMP and TIMESTAMP_LTZ a time.Time (UTC wall clock; no more fractional digits
// than the column's precision).
func (w *Writer) Write(ctx context.Context, kind RowKind, row []any) error {
	if len(row) != len(w.types) {
		return fmt.Errorf("row has %d values, the table %d columns", len(row), len(w.types))
	}
	values := make([]any, len(row))
	for i, v := range row {
		var err error
		if values[i], err = convert.FromGo(w.types[i], v); err != nil {
			return fmt.Errorf("column %s: %w", w.schema.Columns[i].Name, err)
		}
	}
	return w.w.Write(ctx, types.RowKind(kind), values)
}

// PrepareCommit writes the buffered rows into data files and runs the full-text maintainers;
// nothing is visible yet. [Writer.Commit] calls it when it was not called.
func (w *Writer) PrepareCommit(ctx context.Context) error { return w.w.PrepareCommit(ctx) }

// WriteResult is the outcome of [Writer.Commit].
type WriteResult struct {
	// SnapshotID is the committed APPEND snapshot, 0 when nothing was written.
	SnapshotID int64 `json:"snapshotId"`
	// CompactSnapshotID is the COMPACT snapshot of the compaction run at commit (Java's writer
	// compacts level 0 at every commit of a deletion-vector table), 0 when nothing compacted.
	CompactSnapshotID int64 `json:"compactSnapshotId"`
	// Compactions describes each bucket the compaction at commit changed.
	Compactions []CompactBucket `json:"compactions"`
	// Files is the number of data files written; Rows the records in them (after merging rows
	// of the same key).
	Files int   `json:"files"`
	Rows  int64 `json:"records"`
	// ArchivesBuilt and ArchivesRetired count the full-text maintainers' changes, in both
	// snapshots; CompactArchivesBuilt and CompactArchivesRetired those of them in the COMPACT
	// snapshot (CompactSnapshotID).
	ArchivesBuilt          int `json:"archivesBuilt"`
	ArchivesRetired        int `json:"archivesRetired"`
	CompactArchivesBuilt   int `json:"compactArchivesBuilt"`
	CompactArchivesRetired int `json:"compactArchivesRetired"`
	// Coverage counts the rows of the data files this write committed that are still in the
	// table at its last snapshot (those the compaction at commit moved up or left on level 0;
	// rewritten ones are the compaction's) and which of them no current full-text archive
	// covers, and why: new rows are searched once a compaction rewrites their files
	// ([WithIndexNewRows] at the write, [WithUncoveredCompaction] after it). Nil when the table
	// has no full-text index or nothing was committed.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Buckets has one entry per bucket written.
	Buckets []WriteBucket `json:"buckets"`
	// Commit counts the conflicts, re-plans and retries of the commit.
	Commit CommitStats `json:"commit"`
	// ExpiredSnapshots is the number of snapshots the expiry after the commit expired (Java's
	// writer expires snapshots after each commit unless write-only is set).
	ExpiredSnapshots int `json:"expiredSnapshots"`
}

// CommitStats counts what a commit went through: publications attempted, conflicts (another
// writer took the snapshot id first, or replaced the published snapshot), replaced snapshots
// alone, and buckets planned again on a newer snapshot.
type CommitStats struct {
	Attempts  int `json:"attempts"`
	Conflicts int `json:"conflicts"`
	Replaced  int `json:"replaced"`
	Replans   int `json:"replans"`
}

func commitStatsOf(s tableops.CommitStats) CommitStats {
	return CommitStats{Attempts: s.Attempts, Conflicts: s.Conflicts, Replaced: s.Replaced, Replans: s.Replans}
}

// WriteBucket is what [Writer.Commit] wrote to one bucket.
type WriteBucket struct {
	Partition Partition `json:"partition"`
	Bucket    int32     `json:"bucket"`
	// Files level-0 data files with Rows records were written.
	Files int   `json:"files"`
	Rows  int64 `json:"records"`
	// Built and Retired are the bucket's full-text archive changes.
	Built   []Archive `json:"built"`
	Retired []Archive `json:"retired"`
}

// Commit commits everything written as Java's batch writer does: an APPEND snapshot of the new
// level-0 files, then (unless the table or [WithWriteOnly] makes the writer write-only) a
// COMPACT snapshot of the compaction Java's writer runs at commit, which on a deletion-vector
// table moves level 0 up so that batch readers see the rows at once. Searches see them once a
// compaction has rewritten their files (see [Table.Search]): a file moved up unchanged is not
// indexed, as in Java, unless the table sets compaction.force-rewrite-all-files. On failure
// every generated file is deleted (except after an [UncertainCommitError]). When the APPEND
// snapshot committed but the COMPACT one did not, Commit returns the append's result and an
// error matching [ErrCompactionAtCommit]. After the commit the table's snapshots are expired as
// Java's writer expires them (see [Table.ExpireSnapshots]; not when write-only); when that
// fails, Commit returns its result and an error matching [ErrExpireAfterCommit].
func (w *Writer) Commit(ctx context.Context) (*WriteResult, error) {
	r, cerr := w.w.Commit(ctx)
	if cerr != nil && (r == nil || !(errors.Is(cerr, tableops.ErrCompactionAtCommit) || errorsIsExpire(cerr))) {
		return nil, opError(cerr, "commit write to %s", w.t.path)
	}
	res := &WriteResult{Buckets: make([]WriteBucket, 0, len(r.Buckets)), Compactions: []CompactBucket{}, Commit: commitStatsOf(r.Commit),
		ExpiredSnapshots: r.ExpiredSnapshots}
	if r.Snapshot != nil {
		res.SnapshotID = r.Snapshot.ID
	}
	if r.CompactSnapshot != nil {
		res.CompactSnapshotID = r.CompactSnapshot.ID
	}
	for _, b := range r.Compactions {
		cb, err := compactBucketOf(w.parts, b)
		if err != nil {
			return nil, err
		}
		res.Compactions = append(res.Compactions, cb)
	}
	var err error
	for _, b := range r.Buckets {
		wb := WriteBucket{Bucket: b.Bucket, Files: len(b.NewFiles)}
		if wb.Partition, err = w.parts.of(b.Partition); err != nil {
			return nil, err
		}
		for _, f := range b.NewFiles {
			wb.Rows += f.RowCount
		}
		if wb.Built, err = archivesOf(b.Built); err != nil {
			return nil, err
		}
		if wb.Retired, err = archivesOf(b.Retired); err != nil {
			return nil, err
		}
		res.Files += wb.Files
		res.Rows += wb.Rows
		res.ArchivesBuilt += len(wb.Built)
		res.ArchivesRetired += len(wb.Retired)
		res.CompactArchivesBuilt += len(b.CompactBuilt)
		res.CompactArchivesRetired += len(b.CompactRetired)
		res.Buckets = append(res.Buckets, wb)
	}
	if cerr != nil {
		return res, opError(cerr, "commit write to %s", w.t.path)
	}
	last := r.CompactSnapshot
	if last == nil {
		last = r.Snapshot
	}
	if last != nil {
		if res.Coverage, err = w.writtenCoverage(ctx, last, r.Buckets); err != nil {
			return res, fmt.Errorf("commit write to %s: committed as snapshot %d: %w", w.t.path, last.ID, err)
		}
	}
	return res, nil
}

// writtenCoverage is the coverage, at snapshot last, of the data files the write committed
// (buckets) that are still there; nil when the table has no full-text index.
func (w *Writer) writtenCoverage(ctx context.Context, last *snapshot.Snapshot, buckets []tableops.BucketWrite) (*Coverage, error) {
	s, err := w.t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	field, ok := inspect.FullTextField(s)
	if !ok {
		return nil, nil
	}
	written := map[bucketID]map[string]bool{}
	for _, b := range buckets {
		id := bucketID{string(b.Partition), b.Bucket}
		for _, f := range b.NewFiles {
			if written[id] == nil {
				written[id] = map[string]bool{}
			}
			written[id][f.FileName] = true
		}
	}
	contents, err := w.t.t.Read(ctx, last)
	if err != nil {
		return nil, fmt.Errorf("coverage of the written rows at snapshot %d: %w", last.ID, err)
	}
	total := &inspect.CoverageDump{Uncovered: []inspect.UncoveredDump{}}
	for _, b := range contents.Buckets {
		names := written[bucketID{string(b.Partition), b.Bucket}]
		if names == nil {
			continue
		}
		total.Add(inspect.FilesCoverage(field, b, func(f *meta.DataFileMeta) bool { return names[f.FileName] }))
	}
	return coverageOf(total), nil
}

// Abort discards everything written and deletes every generated file.
func (w *Writer) Abort(ctx context.Context) error { return w.w.Abort(ctx) }

// CompactBucket is what [Table.Compact] did to one bucket.
type CompactBucket struct {
	Partition Partition `json:"partition"`
	Bucket    int32     `json:"bucket"`
	// FilesBefore were removed from the bucket; FilesAfter were added (rewritten files, and
	// files moved to the top level as they are).
	FilesBefore int `json:"filesBefore"`
	FilesAfter  int `json:"filesAfter"`
	Rewritten   int `json:"rewritten"`
	Upgraded    int `json:"upgraded"`
	// RowsRead and RowsWritten count the records the rewrite read and wrote.
	RowsRead    int64 `json:"rowsRead"`
	RowsWritten int64 `json:"rowsWritten"`
	// Built and Retired are the full-text archive changes.
	Built   []Archive `json:"built"`
	Retired []Archive `json:"retired"`
	// DeletionVectorsRewritten reports a new deletion-vector index file for the bucket.
	DeletionVectorsRewritten bool          `json:"deletionVectorsRewritten"`
	Duration                 time.Duration `json:"durationNanos"`
}

// CompactResult is the outcome of [Table.Compact].
type CompactResult struct {
	// BaseSnapshotID is the snapshot compacted; 0 for a table without snapshots.
	BaseSnapshotID int64 `json:"baseSnapshotId"`
	// SnapshotID is the committed COMPACT snapshot, 0 when no bucket needed compaction.
	SnapshotID int64           `json:"snapshotId"`
	Buckets    []CompactBucket `json:"buckets"`
	Duration   time.Duration   `json:"durationNanos"`
	// Commit counts the conflicts, re-plans (buckets compacted again) and retries of the commit.
	Commit CommitStats `json:"commit"`
	// ExpiredSnapshots is the number of snapshots the expiry after the commit expired.
	ExpiredSnapshots int `json:"expiredSnapshots"`
}

// Compact fully compacts the selected buckets ([WithPartition], [WithBucket]; default all; at
// most [WithParallelism] at once; [WithProgress] reports buckets done and the rows the archive
// builds have read, without a total of rows) of a
// deduplicate primary-key table into its top level and commits one COMPACT snapshot, with the
// full-text archives of the new level built and the retired ones removed in the same snapshot,
// as Java's full compaction does. [WithMinorCompaction] lets the table's strategy pick instead;
// [WithUncoveredCompaction] rewrites only the files no archive can cover, in place at their level.
// On failure every generated file is deleted and nothing is committed.
func (t *Table) Compact(ctx context.Context, opts ...CompactOption) (*CompactResult, error) {
	start := time.Now()
	var cfg compactConfig
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyCompact(&cfg)
	}
	topts, err := t.selection(ctx, cfg.scope)
	if err != nil {
		return nil, err
	}
	topts = append(topts, cfg.commitOptions()...)
	if cfg.minor {
		topts = append(topts, tableops.WithMinorCompaction())
	}
	if cfg.uncovered {
		topts = append(topts, tableops.WithUncoveredCompaction())
	}
	if cfg.progress != nil {
		report := cfg.progress
		topts = append(topts, tableops.WithProgress(func(p tableops.Progress) {
			report(Progress{Phase: PhaseCompact, BucketsDone: p.Done, BucketsTotal: p.Total, RowsIndexed: p.RowsIndexed})
		}))
	}
	engine, err := t.engineIfIndexed(ctx)
	if err != nil {
		return nil, err
	}
	res := &CompactResult{Buckets: []CompactBucket{}}
	if base, err := t.t.Latest(ctx); err == nil {
		res.BaseSnapshotID = base.ID
	} else if !errors.Is(err, table.ErrNoSnapshot) {
		return nil, err
	}
	r, err := tableops.Compact(ctx, t.t, engine, topts...)
	if err != nil {
		return nil, opError(err, "compact %s", t.path)
	}
	res.Commit = commitStatsOf(r.Commit)
	res.ExpiredSnapshots = r.ExpiredSnapshots
	if r.Snapshot != nil {
		res.SnapshotID = r.Snapshot.ID
		res.BaseSnapshotID = r.Snapshot.ID - 1
	}
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	parts := partitionsOf(s)
	for _, b := range r.Buckets {
		cb, err := compactBucketOf(parts, b)
		if err != nil {
			return nil, err
		}
		res.Buckets = append(res.Buckets, cb)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// compactBucketOf is the facade's form of what a compaction did to one bucket.
func compactBucketOf(parts partitions, b tableops.BucketCompaction) (CompactBucket, error) {
	part, err := parts.of(b.Partition)
	if err != nil {
		return CompactBucket{}, err
	}
	built, err := archivesOf(b.Built)
	if err != nil {
		return CompactBucket{}, err
	}
	retired, err := archivesOf(b.Retired)
	if err != nil {
		return CompactBucket{}, err
	}
	return CompactBucket{Partition: part, Bucket: b.Bucket,
		FilesBefore: len(b.Before), FilesAfter: len(b.After), Rewritten: b.Rewritten, Upgraded: b.Upgraded,
		RowsRead: b.RowsRead, RowsWritten: b.RowsWritten, Built: built, Retired: retired,
		DeletionVectorsRewritten: b.DeletionVectors != nil, Duration: b.Duration}, nil
}
