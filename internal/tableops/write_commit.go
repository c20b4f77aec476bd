package tableops

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// ErrCompactionAtCommit is matched by the error of a Writer.Commit whose APPEND snapshot was
// committed but whose compaction at commit was not: the rows are in the table (on level 0, where
// a later compaction picks them up) and the compaction's files were deleted. The result Commit
// returns with it describes the append.
var ErrCompactionAtCommit = errors.New("compaction at commit failed")

// WriteResult is the outcome of a committed write.
type WriteResult struct {
	// Snapshot is the committed APPEND snapshot; nil when nothing was written.
	Snapshot *snapshot.Snapshot
	// CompactSnapshot is the COMPACT snapshot of the compactions run at commit, committed right
	// after Snapshot as Java's FileStoreCommitImpl commits a writer's compact increment; nil when
	// no bucket compacted.
	CompactSnapshot *snapshot.Snapshot
	// Buckets describes each written bucket.
	Buckets []BucketWrite
	// Compactions describes each bucket the compaction at commit changed.
	Compactions []BucketCompaction
	// Commit counts conflicts, re-plans (buckets rebased on a new snapshot) and retries of both
	// snapshots.
	Commit CommitStats
	// ExpiredSnapshots is the number of snapshots the expiry after the commit expired.
	ExpiredSnapshots int
}

// BucketWrite is what a write did to one bucket.
type BucketWrite struct {
	Partition []byte
	Bucket    int32
	// NewFiles are the level-0 data files written.
	NewFiles []*meta.DataFileMeta
	// Built and Retired are the archive changes the bucket's full-text maintainer made;
	// CompactBuilt and CompactRetired those of them the COMPACT snapshot carries.
	Built, Retired               []*meta.IndexFileMeta
	CompactBuilt, CompactRetired []*meta.IndexFileMeta
}

// Commit prepares (if not done yet) and commits everything written as Java's batch commit does:
// one APPEND snapshot with the new level-0 files (and the index changes of buckets that did not
// compact), then, when compactions ran at commit, one COMPACT snapshot with their data transition,
// deletion vectors and archives, under the same commit user and identifier. With no rows written
// it commits nothing. On failure every generated file is deleted. When the APPEND snapshot landed
// but the COMPACT one could not, Commit returns the result of the append with an error: the rows
// are committed (on level 0) and the compaction's files are deleted.
//
// After a commit (also one that wrote nothing, as Java's expireForEmptyCommit), the table's
// snapshots are expired as Java's writer does unless write-only is set; an expiry failure is
// returned with the result, wrapped in ErrExpireAfterCommit.
func (w *Writer) Commit(ctx context.Context) (*WriteResult, error) {
	res, err := w.commitSnapshots(ctx)
	if err != nil {
		return res, err
	}
	if res.ExpiredSnapshots, err = w.expiry.run(ctx, w.t); err != nil {
		return res, err
	}
	return res, nil
}

// commitSnapshots commits the APPEND snapshot and the COMPACT snapshot of the compactions at
// commit (see Commit).
func (w *Writer) commitSnapshots(ctx context.Context) (_ *WriteResult, err error) {
	if err := w.PrepareCommit(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			var uncertain *UncertainCommitError
			if !errors.As(err, &uncertain) {
				err = errors.Join(err, w.Abort(ctx))
			}
		}
	}()
	if len(w.prepared) == 0 {
		w.done = true
		return &WriteResult{}, nil
	}
	snapshots := 1
	if len(w.compacted) > 0 {
		snapshots = 2
	}
	w.report(PhaseCommit, 0, snapshots)
	cres, err := commit.Run(ctx, w.t, w.request(snapshot.CommitAppend, w))
	var uncertain *UncertainCommitError
	if errors.As(err, &uncertain) {
		// The APPEND snapshot may reference the write's data files and archives: keep them.
		// The compactions were never committed: delete what they generated.
		return nil, errors.Join(err, w.discardCompactions(ctx))
	}
	if err != nil {
		return nil, err
	}
	res := &WriteResult{Snapshot: cres.Snapshot, Commit: cres.Stats}
	for _, m := range cres.Changes {
		bw := BucketWrite{Partition: m.Partition, Bucket: m.Bucket, NewFiles: m.NewFiles,
			Built: m.NewIndexFiles, Retired: m.DeletedIndexFiles}
		if cch := w.compacted[bucketKey{string(m.Partition), m.Bucket}]; cch != nil {
			bw.CompactBuilt = w.buckets[bucketKey{string(m.Partition), m.Bucket}].compaction.Built
			bw.CompactRetired = w.buckets[bucketKey{string(m.Partition), m.Bucket}].compaction.Retired
			bw.Built = slices.Concat(bw.Built, bw.CompactBuilt)
			bw.Retired = slices.Concat(bw.Retired, bw.CompactRetired)
		}
		res.Buckets = append(res.Buckets, bw)
	}
	// The append is the table's now: its files and the archives it carried are no longer ours
	// to delete. What remains pending belongs to the compactions.
	w.files = nil
	for _, m := range cres.Changes {
		w.archives.committed(m.NewIndexFiles)
	}
	for key := range w.pending {
		if w.compacted[key] == nil {
			delete(w.pending, key)
		}
	}
	w.report(PhaseCommit, 1, snapshots)
	if len(w.compacted) == 0 {
		w.done = true
		return res, nil
	}
	if err := w.commitCompactions(ctx, cres.Snapshot, res); err != nil {
		return res, fmt.Errorf("the write committed as snapshot %d: %w: %w", cres.Snapshot.ID, ErrCompactionAtCommit, err)
	}
	w.report(PhaseCommit, 2, snapshots)
	w.done = true
	return res, nil
}

// discardCompactions deletes what the compactions at commit generated (data and
// deletion-vector files, and the archives of their buckets' maintainers, which a compacting
// bucket's maintainer routes to the COMPACT snapshot only).
func (w *Writer) discardCompactions(ctx context.Context) error {
	if w.comp == nil {
		return nil
	}
	err := w.comp.abort(ctx)
	for key := range w.compacted {
		if c := w.pending[key]; c != nil {
			err = errors.Join(err, c.Abort(ctx))
			delete(w.pending, key)
		}
	}
	return err
}

// request is the commit request of one of the write's snapshots.
func (w *Writer) request(kind snapshot.CommitKind, p commit.Planner) commit.Request {
	return commit.Request{Conflict: commit.ErrWriteConflict, Kind: kind,
		User: w.cfg.commitUser, Identifier: w.cfg.identifier, MaxRetries: w.cfg.maxRetries, RetryWait: w.cfg.retryWait,
		BeforePublish: w.cfg.beforePublish, AfterPublish: w.cfg.afterPublish, Schema: w.r.Schema, Paths: w.r.Paths, Planner: p}
}

// commitCompactions commits the compactions run at commit as a COMPACT snapshot following the
// write's APPEND snapshot app. Planned on the table as app left it, a bucket another commit has
// changed since (levels above 0, index files) is compacted again from the new snapshot.
func (w *Writer) commitCompactions(ctx context.Context, app *snapshot.Snapshot, res *WriteResult) error {
	contents, err := w.t.Read(ctx, app)
	if err != nil {
		return err
	}
	after := map[commit.BucketKey]*table.Bucket{}
	for _, b := range contents.Buckets {
		after[commit.KeyOf(b.Partition, b.Bucket)] = b
	}
	ac := &atCommitCompaction{c: w.comp, pre: map[commit.BucketKey]*commit.Change{}}
	for key, cch := range w.compacted {
		k := commit.KeyOf([]byte(key.partition), key.bucket)
		cch.Basis = fingerprintCommit(after[k])
		ac.pre[k] = cch
		w.comp.selected[k] = true
		w.comp.results[k] = w.buckets[key].compaction
		if c := w.pending[key]; c != nil {
			if w.comp.work[k] == nil {
				w.comp.work[k] = &bucketWork{}
			}
			w.comp.work[k].pending = c
			delete(w.pending, key)
		}
	}
	cres, err := commit.Run(ctx, w.t, w.request(snapshot.CommitCompact, ac))
	if err != nil {
		return err
	}
	res.CompactSnapshot = cres.Snapshot
	for _, ch := range cres.Changes {
		w.archives.committed(ch.NewIndexFiles)
		w.comp.archives.committed(ch.NewIndexFiles)
	}
	res.Commit.Attempts += cres.Stats.Attempts
	res.Commit.Conflicts += cres.Stats.Conflicts
	res.Commit.Replaced += cres.Stats.Replaced
	res.Commit.Replans += cres.Stats.Replans
	for _, ch := range cres.Changes {
		if bc := w.comp.results[ch.Key()]; bc != nil && !ch.Empty() {
			res.Compactions = append(res.Compactions, *bc)
		}
	}
	w.comp.mu.Lock()
	clear(w.comp.work)
	w.comp.mu.Unlock()
	return nil
}

// atCommitCompaction is the planner of a write's COMPACT snapshot: the compactions planned at
// prepare time, and a bucket planned again (the strategy picking on the new snapshot) when a
// concurrent commit changed it.
type atCommitCompaction struct {
	c   *compaction
	pre map[commit.BucketKey]*commit.Change
}

func (a *atCommitCompaction) Fingerprint(key commit.BucketKey, b *table.Bucket) string {
	if _, ok := a.pre[key]; !ok {
		return ""
	}
	return fingerprintCommit(b)
}

func (a *atCommitCompaction) Plan(ctx context.Context, base *table.Contents, keys []commit.BucketKey) ([]*commit.Change, error) {
	if keys != nil {
		return a.c.Plan(ctx, base, keys)
	}
	out := make([]*commit.Change, 0, len(a.pre))
	for _, ch := range a.pre {
		out = append(out, ch)
	}
	return out, nil
}
