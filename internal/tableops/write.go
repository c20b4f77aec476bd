package tableops

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkmaintain"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// KeyValueLayout returns the data file layout of a table schema.
func KeyValueLayout(s *schema.TableSchema) (*kvfile.Layout, error) { return kvfile.NewLayout(s) }

// Writer writes rows into a primary-key table the way a Java batch writer does
// (KeyValueFileStoreWrite, MergeTreeWriter): each row goes to the bucket Java computes, gets the
// bucket's next sequence number, and is buffered; at commit (or when the buffer is full) each
// bucket's buffer is sorted by key and sequence order, merged with the table's merge function
// (deduplicate, first-row, partial-update or aggregation) and written as level-0 data files. At
// commit each written bucket runs the compaction Java's writer runs then, and its primary-key
// index maintainers (full-text, pk-btree, pk-bitmap) are called with the new files as Java's
// writer calls them (waiting, as a batch commit does), so stale index files are retired and
// missing ones built in the same commit: one APPEND snapshot, followed by one COMPACT snapshot
// when a compaction ran.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	t      *table.Table
	r      *restore.Restorer
	layout *kvfile.Layout
	engine fulltext.Engine
	cfg    maintainConfig
	// expiry is the snapshot expiry after the commit.
	expiry   *atCommitExpiry
	contents *table.Contents
	restored map[bucketKey]*table.Bucket

	bucketKeys []string
	assign     *bucketer
	numBuckets int
	// kindFilter drops the rows Java's RowKindFilter drops (ignore-delete, ignore-update-before).
	ignoreDelete, ignoreUpdateBefore bool
	// merge merges a bucket's buffered records of one key (the table's merge function).
	merge *mergetree.Merge
	// rowKindIdx is the position of rowkind.field (-1: unset), whose value is a row's kind.
	rowKindIdx int
	partType   types.DataType
	partIdx    []int
	// rows is the write buffer: one pool of write-buffer-size for all the buckets' buffers
	// (Java's MemoryPoolFactory over one pool per writer), spilling when write-buffer-spillable.
	rows *rowBuffers

	buckets map[bucketKey]*bucketWriter
	order   []bucketKey
	// prepared are the buckets' append changes once PrepareCommit ran (nil before), compacted
	// their at-commit compactions (a bucket whose compaction picked nothing has none), pending
	// their maintainers' commits; files every data file written and not deleted.
	prepared  map[bucketKey]*commit.Change
	compacted map[bucketKey]*commit.Change
	pending   map[bucketKey]*pkmaintain.Commit
	// mu guards compacted and pending while PrepareCommit plans buckets in parallel.
	mu sync.Mutex
	// comp runs the compaction Java's writer runs at commit (nil for a write-only table); it
	// tracks the files those compactions generate.
	comp  *compaction
	files []string
	done  bool
	// archives follows the archive builds, so that a failure waits until cancelled builds have
	// deleted their output.
	archives archiveTracker
	// progressMu serializes the WithProgress reports; compactDone counts the buckets of
	// PhaseCompact finished out of compactTotal, indexed the rows full-text builds have read.
	progressMu   sync.Mutex
	compactDone  atomic.Int64
	compactTotal int
	indexed      atomic.Int64
}

// report tells the WithProgress callback (serialized) that done of total of a phase of the
// commit are finished.
func (w *Writer) report(phase string, done, total int) {
	if w.cfg.progress == nil {
		return
	}
	w.progressMu.Lock()
	defer w.progressMu.Unlock()
	w.cfg.progress(Progress{Phase: phase, Done: done, Total: total, RowsIndexed: w.indexed.Load()})
}

// reportCompact reports PhaseCompact's counters, read under the report lock so that reports
// from parallel buckets never go backwards.
func (w *Writer) reportCompact() {
	if w.cfg.progress == nil {
		return
	}
	w.progressMu.Lock()
	defer w.progressMu.Unlock()
	w.cfg.progress(Progress{Phase: PhaseCompact, Done: int(w.compactDone.Load()), Total: w.compactTotal, RowsIndexed: w.indexed.Load()})
}

// countIndexed wraps a bucket's full-text readers to count the rows its builds read
// (PhaseCompact); nil without a progress callback.
func (w *Writer) countIndexed() func(pkfulltext.ReaderFactory) pkfulltext.ReaderFactory {
	if w.cfg.progress == nil {
		return nil
	}
	return func(inner pkfulltext.ReaderFactory) pkfulltext.ReaderFactory {
		return &countingReaders{inner: inner, add: func(n int64) {
			if n > 0 {
				w.indexed.Add(n)
				w.reportCompact()
			}
		}}
	}
}

// bucketWriter is one bucket's writer state.
type bucketWriter struct {
	partition []byte
	bucket    int32
	restored  *restore.RestoredBucket
	nextSeq   int64
	rows      *bucketRows
	newFiles  []*meta.DataFileMeta
	// compaction is what the at-commit compaction did to the bucket (nil: nothing).
	compaction *BucketCompaction
}

// OpenWriter opens a writer on the table's latest snapshot (an empty table is fine). engine
// builds full-text archives; it may be nil when the table has no full-text index. Options:
// WithCommitUser, WithCommitIdentifier, WithMaxRetries, WithBeforePublish, WithAfterPublish,
// WithWriteOnly, WithParallelism, WithClock and WithProgress (the phases of the commit:
// PhaseFlush, PhaseCompact, PhaseCommit, each reported at its start and as it advances, up to
// Done = Total).
func OpenWriter(ctx context.Context, t *table.Table, engine fulltext.Engine, opts ...MaintainOption) (*Writer, error) {
	cfg := maintainConfig{identifier: BatchCommitIdentifier, maxRetries: -1, parallelism: runtime.NumCPU()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.commitUser == "" {
		cfg.commitUser = uuid.NewString()
	}
	r, err := restoreWritable(ctx, t, engine)
	if err != nil {
		return nil, err
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		return nil, err
	}
	if cfg.maxRetries < 0 {
		if cfg.maxRetries, err = commit.MaxRetriesOf(r.Schema.Options); err != nil {
			return nil, err
		}
	}
	expiry, err := newAtCommitExpiry(r.Schema, cfg)
	if err != nil {
		return nil, err
	}
	w := &Writer{t: t, r: r, layout: layout, engine: engine, cfg: cfg, restored: map[bucketKey]*table.Bucket{},
		buckets: map[bucketKey]*bucketWriter{}, expiry: expiry}
	w.numBuckets, _ = numBuckets(r.Schema)
	if w.ignoreDelete, err = ignoreDeleteOf(r.Schema.Options); err != nil {
		return nil, err
	}
	if w.ignoreUpdateBefore, err = schema.BoolOption(r.Schema.Options, IgnoreUpdateBeforeOpt, false); err != nil {
		return nil, err
	}
	if w.rowKindIdx, err = rowKindField(r.Schema); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	if w.bucketKeys, err = r.Schema.BucketKeys(); err != nil {
		return nil, err
	}
	fn, err := bucketFunction(r.Schema, w.bucketKeys)
	if err != nil {
		return nil, err
	}
	w.assign = newBucketer(r.Schema, w.bucketKeys, fn, w.numBuckets)
	w.partType = r.Schema.PartitionType()
	for _, k := range r.Schema.PartitionKeys {
		w.partIdx = append(w.partIdx, slices.IndexFunc(r.Schema.Fields, func(f types.DataField) bool { return f.Name == k }))
	}
	// The writer reports its own phases: its compaction (which plans again only on a rebase)
	// reports nothing.
	ccfg := cfg
	ccfg.progress = nil
	comp, err := newCompaction(t, r, engine, layout, ccfg, false)
	if err != nil {
		return nil, err
	}
	w.merge = comp.merge
	if cfg.indexNewRows {
		switch {
		case cfg.writeOnly || comp.opts.WriteOnly:
			return nil, errors.New("index new rows: a write-only writer runs no compaction at commit to rewrite its level-0 files")
		case !r.HasIndexes():
			return nil, errors.New("index new rows: the table declares no primary-key index to cover them")
		}
	}
	if !comp.opts.WriteOnly && !cfg.writeOnly {
		// MergeTreeCompactManagerFactory: a write-only writer has no compaction manager.
		w.comp = comp
	}
	if w.contents, err = commit.LatestContents(ctx, t); err != nil {
		return nil, err
	}
	for _, b := range w.contents.Buckets {
		k := commit.KeyOf(b.Partition, b.Bucket)
		w.restored[bucketKey{k.Partition, k.Bucket}] = b
	}
	if w.rows, err = newRowBuffers(r.Schema, layout); err != nil {
		return nil, err
	}
	return w, nil
}

// Schema is the schema rows are written with (the table's latest).
func (w *Writer) Schema() *schema.TableSchema { return w.r.Schema }

// Write buffers one row of the given kind (Insert, UpdateAfter, UpdateBefore or Delete). row
// holds every table field in schema order, in the Go forms of package binrow. The row is checked
// against the schema (types, NOT NULL) before anything is buffered. As Java's RowKindFilter does,
// -D and -U rows are dropped under ignore-delete, and -U rows under ignore-update-before.
func (w *Writer) Write(ctx context.Context, kind types.RowKind, row []any) error {
	if err := w.checkWrite(kind, row); err != nil {
		return err
	}
	// Encoding the whole row checks every value's type and the NOT NULL constraints; the
	// buffer keeps that encoding.
	encoded, err := binrow.Encode(w.layout.ValueType, row)
	if err != nil {
		return fmt.Errorf("row does not fit the schema: %w", err)
	}
	for i, f := range w.r.Schema.Fields {
		if row[i] == nil && f.Type.NotNull {
			return fmt.Errorf("field %s is NOT NULL", f.Name)
		}
	}
	return w.add(ctx, kind, slices.Clone(row), encoded)
}

// WriteOwned is [Writer.Write] for a row whose values the caller built in internal/binrow's forms
// for the schema's types and checked (NOT NULL columns non-nil, decimals within precision,
// timestamps within precision): the row is not validated again and the writer keeps it (the
// caller must not change it afterwards). It is the typed path beneath Write for callers that
// convert whole columns at once, such as Arrow record batches.
func (w *Writer) WriteOwned(ctx context.Context, kind types.RowKind, row []any) error {
	if err := w.checkWrite(kind, row); err != nil {
		return err
	}
	return w.add(ctx, kind, row, nil)
}

// checkWrite checks what every write checks: the writer is open, the kind and the row's width.
func (w *Writer) checkWrite(kind types.RowKind, row []any) error {
	if w.done {
		return errors.New("write after commit or abort")
	}
	if w.prepared != nil {
		return errors.New("write after prepare commit")
	}
	if kind < types.Insert || kind > types.Delete {
		return fmt.Errorf("row kind %d is not one of +I, -U, +U, -D", kind)
	}
	if len(row) != len(w.r.Schema.Fields) {
		return fmt.Errorf("row has %d fields, the table %d", len(row), len(w.r.Schema.Fields))
	}
	return nil
}

// add buffers a validated row the writer owns; encoded, when not nil, is the row as a binary row
// of the value type (of any kind). With rowkind.field the row's kind is the field's value,
// whatever kind the caller gave (TableWriteImpl through RowKindGenerator).
func (w *Writer) add(ctx context.Context, kind types.RowKind, row []any, encoded []byte) error {
	if w.rowKindIdx >= 0 {
		var err error
		if kind, err = rowKindOf(row[w.rowKindIdx]); err != nil {
			return err
		}
	}
	// RowKindFilter: the table writer drops these rows before anything else.
	if (kind == types.Delete && w.ignoreDelete) || (kind == types.UpdateBefore && (w.ignoreDelete || w.ignoreUpdateBefore)) {
		return nil
	}
	partVals := make([]any, len(w.partIdx))
	for i, idx := range w.partIdx {
		partVals[i] = row[idx]
	}
	part, err := binrow.NewBinaryRow(w.partType, partVals)
	if err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	bucket, err := w.assign.of(row)
	if err != nil {
		return err
	}
	key := bucketKey{string(part.Serialize()), int32(bucket)}
	bw, err := w.bucket(key)
	if err != nil {
		return err
	}
	kv := &kvfile.KeyValue{Key: make([]any, len(w.layout.KeyIndexes)), Seq: bw.nextSeq, Kind: kind, Value: row}
	for i, idx := range w.layout.KeyIndexes {
		kv.Key[i] = row[idx]
	}
	bw.nextSeq++
	return w.buffer(ctx, bw, kv, encoded)
}

// bucket returns the writer of a bucket, restoring it from the base snapshot on first use.
func (w *Writer) bucket(key bucketKey) (*bucketWriter, error) {
	if bw, ok := w.buckets[key]; ok {
		return bw, nil
	}
	tb := w.restored[key]
	if tb == nil {
		tb = &table.Bucket{Partition: []byte(key.partition), Bucket: key.bucket, TotalBuckets: int32(w.numBuckets)}
	}
	if err := checkBucketCount(tb, w.numBuckets); err != nil {
		return nil, err
	}
	rb, err := w.r.RestoreBucket(tb)
	if err != nil {
		return nil, err
	}
	// MergeTreeWriter continues after the largest sequence number of the restored files.
	next := int64(0)
	for _, f := range rb.DataFiles {
		next = max(next, f.MaxSequenceNumber+1)
	}
	bw := &bucketWriter{partition: []byte(key.partition), bucket: key.bucket, restored: rb, nextSeq: next}
	bw.rows = w.rows.newBucket(func(ctx context.Context) error { return w.flush(ctx, bw) })
	w.buckets[key] = bw
	w.order = append(w.order, key)
	return bw, nil
}

// Abort discards everything written: buffered rows, data files, archives built. It is safe to
// call after a failed PrepareCommit or Commit, and does nothing after a successful Commit.
func (w *Writer) Abort(ctx context.Context) error {
	if w.done {
		return nil
	}
	w.done = true
	rowsErr := w.rows.close()
	pending := make([]*pkmaintain.Commit, 0, len(w.pending))
	for _, c := range w.pending {
		pending = append(pending, c)
	}
	err := rowsErr
	if w.comp != nil {
		// First the compactions' work (their pending maintainer commits delete archives the
		// writer's tracker follows), then the writer's own.
		err = errors.Join(err, w.comp.abort(ctx))
	}
	err = errors.Join(err, discardGenerated(ctx, w.t.FileIO, pending, w.files, &w.archives))
	w.pending, w.files = nil, nil
	return err
}

// discardGenerated undoes what a failed write or compaction generated: it aborts the
// maintainers' pending commits (deleting the archives they built), deletes the data files, and
// waits (archives not nil) until every archive a build produced is gone. It returns every error,
// joined.
func discardGenerated(ctx context.Context, fio fileio.FileIO, pending []*pkmaintain.Commit, files []string, archives *archiveTracker) error {
	var errs []error
	for _, c := range pending {
		if err := c.Abort(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range files {
		if err := fio.Delete(context.WithoutCancel(ctx), p); err != nil {
			errs = append(errs, err)
		}
	}
	if archives != nil {
		errs = append(errs, archives.waitGone(archiveCleanupTimeout))
	}
	return errors.Join(errs...)
}
