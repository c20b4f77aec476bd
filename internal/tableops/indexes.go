package tableops

import (
	"context"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pkmaintain"
	sorted "github.com/paimon-pkft/pkft/internal/pksorted/maintainer"
	"github.com/paimon-pkft/pkft/internal/restore"
)

// newIndexMaintainer restores the primary-key index maintainers of one bucket (Java
// BucketedPrimaryKeyIndexMaintainer.Factory#create): the full-text one when the table has the
// index, one per sorted definition, each from the bucket's data files and source payloads, their
// builds and deletions reported to tracker. wrapText, when set, wraps the full-text builder's
// readers (progress counting).
func newIndexMaintainer(ctx context.Context, r *restore.Restorer, engine fulltext.Engine, tracker *archiveTracker,
	rb *restore.RestoredBucket, wrapText func(pkfulltext.ReaderFactory) pkfulltext.ReaderFactory) (*pkmaintain.Bucket, error) {
	var ft *pkfulltext.Maintainer
	if r.FullText != nil {
		indexFile := r.FullTextIndexFile(rb, engine)
		builder, err := r.FullTextBuilder(ctx, rb, indexFile)
		if err != nil {
			return nil, err
		}
		if mutation.On("archive-skips-deleted-rows") {
			// The archive indexes only the rows the deletion vectors keep (positions kept).
			dvs, err := rb.ReadDeletionVectors(ctx, r)
			if err != nil {
				return nil, err
			}
			builder.Readers = &liveTextReaders{inner: builder.Readers, deletions: dvs}
		}
		if wrapText != nil {
			builder.Readers = wrapText(builder.Readers)
		}
		ft, err = pkfulltext.NewMaintainer(r.FullText.FieldID, &trackedBuilder{inner: builder, tracker: tracker},
			&trackedDeleter{inner: indexFile, tracker: tracker}, rb.DataFiles, rb.SourcePayloads)
		if err != nil {
			return nil, fmt.Errorf("bucket %d: %w", rb.Bucket, err)
		}
	}
	var ss []*sorted.Maintainer
	for _, def := range r.Sorted {
		indexFile := r.SortedIndexFile(rb)
		builder, err := r.SortedBuilder(rb, def, indexFile)
		if err != nil {
			return nil, err
		}
		m, err := sorted.NewMaintainer(def.FieldID, def.IndexType, &trackedBuilder{inner: builder, tracker: tracker},
			&trackedDeleter{inner: indexFile, tracker: tracker}, rb.DataFiles, rb.SourcePayloads)
		if err != nil {
			return nil, fmt.Errorf("bucket %d: %w", rb.Bucket, err)
		}
		ss = append(ss, m)
	}
	b, err := pkmaintain.New(ft, ss)
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", rb.Bucket, err)
	}
	return b, nil
}

// runIndexMaintainers runs one bucket's primary-key index maintainers over the increments,
// waiting for their builds (a batch writer's prepareCommit(waitCompaction = true)). wrapText, when
// set, wraps the full-text builder's readers (progress counting).
func runIndexMaintainers(ctx context.Context, r *restore.Restorer, engine fulltext.Engine, tracker *archiveTracker,
	rb *restore.RestoredBucket, app pkindex.DataIncrement, compact pkindex.CompactIncrement,
	wrapText func(pkfulltext.ReaderFactory) pkfulltext.ReaderFactory) (_ *pkmaintain.Commit, err error) {
	mt, err := newIndexMaintainer(ctx, r, engine, tracker, rb, wrapText)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := mt.Close(ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	c, err := mt.PrepareCommit(ctx, app, compact, true)
	if err != nil {
		return nil, fmt.Errorf("primary-key index maintainers of bucket %d: %w", rb.Bucket, err)
	}
	return c, nil
}

// liveTextReaders is the mutation archive-skips-deleted-rows: every row a deletion vector deletes
// reads as a null text, so the archive keeps its position but not its text.
type liveTextReaders struct {
	inner     pkfulltext.ReaderFactory
	deletions map[string]dv.DeletionVector
}

func (l *liveTextReaders) Open(ctx context.Context, file *meta.DataFileMeta) (pkfulltext.TextReader, error) {
	r, err := l.inner.Open(ctx, file)
	if err != nil || l.deletions[file.FileName] == nil {
		return r, err
	}
	return &liveTextReader{TextReader: r, deletion: l.deletions[file.FileName]}, nil
}

type liveTextReader struct {
	pkfulltext.TextReader
	deletion dv.DeletionVector
}

func (r *liveTextReader) Next(ctx context.Context) (textreader.Row, error) {
	row, err := r.TextReader.Next(ctx)
	if err == nil && r.deletion.IsDeleted(row.Pos) {
		row.Null, row.Text = true, nil
	}
	return row, err
}
