package tableops

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/table"
)

// fingerprint is what a bucket's part of the write depends on: the bucket count its files were
// written with, the largest sequence number (the write's rows are numbered after it) and, with
// a full-text index, the levels above 0 and the index files its maintainer planned on.
func (w *Writer) fingerprint(tb *table.Bucket) string {
	if tb == nil {
		return "absent"
	}
	maxSeq := int64(-1)
	for _, f := range tb.DataFiles {
		maxSeq = max(maxSeq, f.MaxSequenceNumber)
	}
	fp := fmt.Sprintf("buckets=%d seq=%d", tb.TotalBuckets, maxSeq)
	if w.r.HasIndexes() || w.comp != nil {
		fp += " " + fingerprintCommit(tb)
	}
	return fp
}

// Fingerprint is the fingerprint of the buckets the write adds files to, "" for the others.
func (w *Writer) Fingerprint(key commit.BucketKey, b *table.Bucket) string {
	if _, ok := w.prepared[bucketKey{key.Partition, key.Bucket}]; !ok {
		return ""
	}
	return w.fingerprint(b)
}

// Plan returns the prepared changes (keys nil), or rebases the given buckets onto contents: the
// bucket is restored from the new base; when the new base numbered rows at or above the write's
// first sequence number, the write's level-0 files of the bucket are written again with their
// sequence numbers moved after the base's (as a writer restored on that base would have
// numbered them), and the bucket's full-text maintainer runs again on the new base, its earlier
// archives deleted. A bucket whose bucket count changed cannot be rebased: ErrWriteConflict.
func (w *Writer) Plan(ctx context.Context, contents *table.Contents, keys []commit.BucketKey) ([]*commit.Change, error) {
	if keys == nil {
		out := make([]*commit.Change, 0, len(w.prepared))
		for _, key := range w.order {
			if ch, ok := w.prepared[key]; ok {
				out = append(out, ch)
			}
		}
		return out, nil
	}
	buckets := map[commit.BucketKey]*table.Bucket{}
	for _, b := range contents.Buckets {
		buckets[commit.KeyOf(b.Partition, b.Bucket)] = b
	}
	var out []*commit.Change
	for _, k := range keys {
		key := bucketKey{k.Partition, k.Bucket}
		bw := w.buckets[key]
		if bw == nil || w.prepared[key] == nil {
			continue
		}
		tb := buckets[k]
		if tb != nil && tb.TotalBuckets > 0 && int(tb.TotalBuckets) != w.numBuckets {
			return nil, fmt.Errorf("bucket %d: a concurrent commit wrote it with %d buckets, the write has %d: %w",
				k.Bucket, tb.TotalBuckets, w.numBuckets, commit.ErrWriteConflict)
		}
		if c := w.pending[key]; c != nil {
			if err := c.Abort(ctx); err != nil {
				return nil, fmt.Errorf("abort outdated plan of bucket %d: %w", k.Bucket, err)
			}
			delete(w.pending, key)
		}
		if w.comp != nil {
			if err := w.comp.discard(ctx, []commit.BucketKey{k}); err != nil {
				return nil, fmt.Errorf("discard outdated compaction of bucket %d: %w", k.Bucket, err)
			}
		}
		base := tb
		if base == nil {
			base = &table.Bucket{Partition: []byte(key.partition), Bucket: key.bucket, TotalBuckets: int32(w.numBuckets)}
		}
		rb, err := w.r.RestoreBucket(base)
		if err != nil {
			return nil, err
		}
		if err := w.renumber(ctx, bw, rb); err != nil {
			return nil, err
		}
		bw.restored = rb
		ch, err := w.planBucket(ctx, bw, tb)
		if err != nil {
			return nil, err
		}
		w.prepared[key] = ch
		out = append(out, ch)
	}
	return out, nil
}

// renumber rewrites the bucket's new files when rb numbered rows at or above their first
// sequence number, adding the same offset to every row's sequence number so that they follow
// rb's, and deletes the files it replaced.
func (w *Writer) renumber(ctx context.Context, bw *bucketWriter, rb *restore.RestoredBucket) error {
	baseMax, ownMin := int64(-1), int64(math.MaxInt64)
	for _, f := range rb.DataFiles {
		baseMax = max(baseMax, f.MaxSequenceNumber)
	}
	for _, f := range bw.newFiles {
		ownMin = min(ownMin, f.MinSequenceNumber)
	}
	if baseMax < ownMin {
		return nil
	}
	shift := baseMax + 1 - ownMin
	var out []*meta.DataFileMeta
	for _, f := range bw.newFiles {
		files, err := w.rewriteShifted(ctx, bw, rb, f, shift)
		if err != nil {
			return err
		}
		out = append(out, files...)
	}
	for _, f := range bw.newFiles {
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		p := bw.restored.DataPaths.ToPath(f.FileName, ext)
		if err := w.t.FileIO.Delete(context.WithoutCancel(ctx), p); err != nil {
			return fmt.Errorf("delete renumbered file %s: %w", f.FileName, err)
		}
		w.files = slices.DeleteFunc(w.files, func(x string) bool { return x == p })
	}
	bw.newFiles = out
	bw.nextSeq += shift
	return nil
}

func (w *Writer) rewriteShifted(ctx context.Context, bw *bucketWriter, rb *restore.RestoredBucket, f *meta.DataFileMeta, shift int64) (_ []*meta.DataFileMeta, err error) {
	ext := ""
	if f.ExternalPath != nil {
		ext = *f.ExternalPath
	}
	rd, err := kvfile.Open(ctx, w.t.FileIO, bw.restored.DataPaths.ToPath(f.FileName, ext), f.FileName, w.layout)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	rw, err := kvfile.NewRollingWriter(w.t.FileIO, w.layout, rb.DataPaths,
		kvfile.WriterOptions{Level: 0, Source: meta.FileSourceAppend, SchemaID: w.r.Schema.ID})
	if err != nil {
		return nil, err
	}
	defer func() {
		w.files = append(w.files, rw.Written()...)
		if err != nil {
			rw.Abort(ctx)
		}
	}()
	for {
		kv, _, err := rd.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("renumber %s: %w", f.FileName, err)
		}
		kv.Seq += shift
		if err := rw.Write(ctx, kv); err != nil {
			return nil, fmt.Errorf("renumber %s: %w", f.FileName, err)
		}
	}
	return rw.Close(ctx)
}
