package tableops

import (
	"context"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pkmaintain"
	"github.com/paimon-pkft/pkft/internal/table"
)

// PrepareCommit writes every buffered row into data files and runs each written bucket's
// compaction at commit and primary-key index maintainers; nothing is visible until Commit. After
// a failure the writer is aborted.
func (w *Writer) PrepareCommit(ctx context.Context) (err error) {
	if w.done {
		return errors.New("prepare after commit or abort")
	}
	if w.prepared != nil {
		return nil
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, w.Abort(ctx))
		}
	}()
	w.compacted = map[bucketKey]*commit.Change{}
	w.pending = map[bucketKey]*pkmaintain.Commit{}
	// The buffers share one memory pool: flush them one after the other, each one's memory going
	// back to the operating system once it is written.
	if err := w.rows.drain(); err != nil {
		return err
	}
	var written []bucketKey
	if len(w.order) > 0 {
		w.report(PhaseFlush, 0, len(w.order))
	}
	for i, key := range w.order {
		bw := w.buckets[key]
		if err := w.flush(ctx, bw); err != nil {
			return err
		}
		if len(bw.newFiles) > 0 {
			written = append(written, key)
		}
		w.report(PhaseFlush, i+1, len(w.order))
	}
	// Nothing is buffered any more and no row may be written after PrepareCommit: the write
	// buffer's memory goes back before the compactions need theirs.
	if err := w.rows.close(); err != nil {
		return err
	}
	// Then each written bucket's compaction at commit and index maintenance, up to
	// cfg.parallelism buckets at a time (Java's writer runs them on its compaction thread
	// while the writing thread goes on).
	changes, err := w.planBuckets(ctx, written)
	if err != nil {
		return err
	}
	prepared := map[bucketKey]*commit.Change{}
	for i, key := range written {
		prepared[key] = changes[i]
	}
	w.prepared = prepared
	return nil
}

// planBuckets plans the buckets keys (planBucket), cfg.parallelism at a time, reporting
// PhaseCompact as buckets finish; the changes are in the order of keys. After a failure it returns the first error once every bucket started
// has finished (what they generated is the writer's to abort).
func (w *Writer) planBuckets(ctx context.Context, keys []bucketKey) ([]*commit.Change, error) {
	changes := make([]*commit.Change, len(keys))
	if len(keys) > 0 {
		w.compactTotal = len(keys)
		w.compactDone.Store(0)
		w.reportCompact()
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, w.cfg.parallelism))
	for i, key := range keys {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			ch, err := w.planBucket(ctx, w.buckets[key], w.restored[key])
			changes[i] = ch
			if err == nil {
				w.compactDone.Add(1)
				w.reportCompact()
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return changes, nil
}

// planBucket plans a bucket's part of the write on the bucket tb of a base (nil: the base lacks
// it), restored as bw.restored: the compaction Java's writer runs at commit
// (MergeTreeWriter#flushWriteBuffer's triggerCompaction, waited for by a batch prepareCommit)
// over the restored files and the new level-0 files, then the bucket's full-text maintainer (when
// the table has the index) over the new files and that compaction. It returns the bucket's
// append change and records its compaction change in w.compacted.
func (w *Writer) planBucket(ctx context.Context, bw *bucketWriter, tb *table.Bucket) (*commit.Change, error) {
	key := bucketKey{string(bw.partition), bw.bucket}
	ch := &commit.Change{Partition: bw.partition, Bucket: bw.bucket, TotalBuckets: int32(w.numBuckets), NewFiles: bw.newFiles,
		Basis: w.fingerprint(tb)}
	bw.compaction = nil
	w.mu.Lock()
	delete(w.compacted, key)
	w.mu.Unlock()
	if w.comp != nil {
		bc, err := w.comp.compactFiles(ctx, bw.restored, slices.Concat(bw.restored.DataFiles, bw.newFiles), bw.restored.DataFiles)
		if err != nil {
			return nil, err
		}
		if bc != nil && len(bc.Before) > 0 {
			bw.compaction = bc
		}
	}
	var compact pkindex.CompactIncrement
	var cch *commit.Change
	if bc := bw.compaction; bc != nil {
		compact = pkindex.CompactIncrement{CompactBefore: bc.Before, CompactAfter: bc.After}
		cch = &commit.Change{Partition: bw.partition, Bucket: bw.bucket, TotalBuckets: int32(w.numBuckets),
			CompactBefore: bc.Before, CompactAfter: bc.After}
		w.mu.Lock()
		w.compacted[key] = cch
		w.mu.Unlock()
	}
	if w.r.HasIndexes() {
		c, err := runIndexMaintainers(ctx, w.r, w.engine, &w.archives, bw.restored, pkindex.DataIncrement{NewFiles: bw.newFiles}, compact,
			w.countIndexed())
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		w.pending[key] = c
		w.mu.Unlock()
		if c.AppendIncrement != nil {
			ch.NewIndexFiles = c.AppendIncrement.NewIndexFiles
			ch.DeletedIndexFiles = c.AppendIncrement.DeletedIndexFiles
		}
		if inc := c.CompactIncrement; inc != nil && cch != nil {
			cch.NewIndexFiles = append(cch.NewIndexFiles, inc.NewIndexFiles...)
			cch.DeletedIndexFiles = append(cch.DeletedIndexFiles, inc.DeletedIndexFiles...)
			bw.compaction.Built, bw.compaction.Retired = inc.NewIndexFiles, inc.DeletedIndexFiles
		}
	}
	if cch != nil && bw.compaction.DeletionVectors != nil {
		// AbstractFileStoreWrite#prepareCommit adds the deletion-vector file after the
		// primary-key index maintainers' files.
		cch.NewIndexFiles = append(cch.NewIndexFiles, bw.compaction.DeletionVectors)
	}
	return ch, nil
}
