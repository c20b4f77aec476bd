package tableops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/bucketfunc"
	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pkmaintain"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Table options the writer and the compaction check (CoreOptions).
const (
	MergeEngineOption       = "merge-engine"
	SequenceFieldOption     = "sequence.field"
	ChangelogProducerOption = "changelog-producer"
	IgnoreDeleteOption      = "ignore-delete"
	IgnoreUpdateBeforeOpt   = "ignore-update-before"
	WriteBufferSizeOption   = "write-buffer-size"
	NumLevelsOption         = "num-levels"
	NumSortedRunTrigger     = "num-sorted-run.compaction-trigger"
	CompactionSmallFileOpt  = "compaction.small-file-ratio"
	defaultWriteBufferBytes = 256 << 20
)

// ErrCompactionAtCommit is matched by the error of a Writer.Commit whose APPEND snapshot was
// committed but whose compaction at commit was not: the rows are in the table (on level 0, where
// a later compaction picks them up) and the compaction's files were deleted. The result Commit
// returns with it describes the append.
var ErrCompactionAtCommit = errors.New("compaction at commit failed")

// ErrUnsupportedTable reports a table whose configuration the Go writer and compaction do not
// implement; the message names the option.
var ErrUnsupportedTable = errors.New("table configuration not supported by the Go writer")

// restoreWritable opens a Restorer on the table's latest schema for a write or a compaction:
// the table must pass checkWritableTable, and a table with a primary-key full-text index needs an
// archive engine.
func restoreWritable(ctx context.Context, t *table.Table, engine fulltext.Engine) (*restore.Restorer, error) {
	r, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := checkWritableTable(r.Schema); err != nil {
		return nil, err
	}
	if r.FullText != nil && engine == nil {
		return nil, errors.New("the table has a primary-key full-text index: an archive engine is needed")
	}
	return r, nil
}

// checkWritableTable refuses what Go cannot write or compact the way Java would: tables without a
// primary key, bucket modes other than fixed, a bucket function Java could not create for the
// bucket key, and every table option the registry refuses (checkTableOptions).
func checkWritableTable(s *schema.TableSchema) error {
	if len(s.PrimaryKeys) == 0 {
		return fmt.Errorf("table has no primary key (append tables are not written by Go): %w", ErrUnsupportedTable)
	}
	if err := checkTableOptions(s); err != nil {
		return err
	}
	if _, err := numBuckets(s); err != nil {
		return err
	}
	keys, err := s.BucketKeys()
	if err != nil {
		return err
	}
	_, err = bucketFunction(s, keys)
	return err
}

// checkTableOptions refuses a table setting an option pkft's registry (internal/options) refuses, or
// one it does not know, naming every such key and value.
func checkTableOptions(s *schema.TableSchema) error {
	if err := options.New().Check(s.Options); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	return nil
}

func numBuckets(s *schema.TableSchema) (int, error) {
	v, ok := s.Options[schema.OptionBucket]
	if !ok {
		return 0, fmt.Errorf("bucket is not set (dynamic bucket mode is not supported): %w", ErrUnsupportedTable)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("option bucket: %w", err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("bucket = %d: only fixed bucket mode (bucket > 0) is supported: %w", n, ErrUnsupportedTable)
	}
	return n, nil
}

// KeyValueLayout returns the data file layout of a table schema.
func KeyValueLayout(s *schema.TableSchema) (*kvfile.Layout, error) { return kvfile.NewLayout(s) }

// BucketOf returns the bucket Java assigns to a row of the table (FixedBucketRowKeyExtractor): the
// bucket function the table's bucket-function.type selects (internal/bucketfunc) applied to the
// bucket-key BinaryRow and the bucket count. row holds every table field.
func BucketOf(s *schema.TableSchema, row []any) (int, error) {
	n, err := numBuckets(s)
	if err != nil {
		return 0, err
	}
	keys, err := s.BucketKeys()
	if err != nil {
		return 0, err
	}
	fn, err := bucketFunction(s, keys)
	if err != nil {
		return 0, err
	}
	return newBucketer(s, keys, fn, n).of(row)
}

// bucketFunction returns the table's bucket function for its bucket keys; a function Java could
// not create for the key types (mod of a STRING key, hive of a TIMESTAMP) is refused.
func bucketFunction(s *schema.TableSchema, keys []string) (bucketfunc.Func, error) {
	fn, err := bucketfunc.FromOptions(s.Options, s.ProjectedRowType(keys))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	return fn, nil
}

// bucketer assigns rows their bucket: the bucket keys' positions in a row and their row type,
// resolved once per writer. It is used by one goroutine.
type bucketer struct {
	idx  []int
	typ  types.DataType
	fn   bucketfunc.Func
	n    int
	vals []any // scratch: the key values of a row
}

func newBucketer(s *schema.TableSchema, keys []string, fn bucketfunc.Func, n int) *bucketer {
	b := &bucketer{typ: s.ProjectedRowType(keys), fn: fn, n: n}
	for _, k := range keys {
		b.idx = append(b.idx, slices.IndexFunc(s.Fields, func(f types.DataField) bool { return f.Name == k }))
	}
	return b
}

// of is the bucket of row (every table field).
func (b *bucketer) of(row []any) (int, error) {
	b.vals = b.vals[:0]
	for _, i := range b.idx {
		b.vals = append(b.vals, row[i])
	}
	data, err := binrow.Encode(b.typ, b.vals)
	if err != nil {
		return 0, fmt.Errorf("bucket key: %w", err)
	}
	return b.fn.Bucket(data, b.n)
}

// Writer writes rows into a primary-key table the way a Java batch writer does
// (KeyValueFileStoreWrite, MergeTreeWriter): each row goes to the bucket Java computes, gets the
// bucket's next sequence number, and is buffered; at commit (or when the buffer is full) each
// bucket's buffer is sorted by key and sequence order, merged with the table's merge function
// (deduplicate, first-row or partial-update) and written as level-0 data files. The commit is one APPEND snapshot; each bucket's full-text maintainer is
// called with the new files as Java's writer calls it (waiting, as a batch commit does), so
// stale archives are retired and missing ones built in the same snapshot.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	t        *table.Table
	r        *restore.Restorer
	layout   *kvfile.Layout
	engine   fulltext.Engine
	cfg      maintainConfig
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
// WithCommitUser, WithCommitIdentifier, WithMaxRetries, WithBeforePublish.
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
	w := &Writer{t: t, r: r, layout: layout, engine: engine, cfg: cfg, restored: map[bucketKey]*table.Bucket{},
		buckets: map[bucketKey]*bucketWriter{}}
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
	comp, err := newCompaction(t, r, engine, layout, cfg, false)
	if err != nil {
		return nil, err
	}
	w.merge = comp.merge
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
	if tb.TotalBuckets > 0 && int(tb.TotalBuckets) != w.numBuckets {
		return nil, fmt.Errorf("bucket %d: the table has %d buckets but the bucket's files were written with %d (rescaled tables are not supported): %w",
			key.bucket, w.numBuckets, tb.TotalBuckets, ErrUnsupportedTable)
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

// flush sorts and merges a bucket's buffer and writes it as level-0 files
// (MergeTreeWriter#flushWriteBuffer with the deduplicate merge function).
func (w *Writer) flush(ctx context.Context, bw *bucketWriter) error {
	if bw.rows.isEmpty() {
		return nil
	}
	rw, err := kvfile.NewRollingWriter(w.t.FileIO, w.layout, bw.restored.DataPaths,
		kvfile.WriterOptions{Level: 0, Source: meta.FileSourceAppend, SchemaID: w.r.Schema.ID})
	if err != nil {
		return err
	}
	err = bw.rows.forEachKey(ctx, func(records []*kvfile.KeyValue) error {
		kv, err := reduceKey(records, w.merge)
		if err != nil || kv == nil {
			return err
		}
		return rw.Write(ctx, kv)
	})
	if err == nil {
		err = bw.rows.clear()
	}
	if err != nil {
		w.files = append(w.files, rw.Written()...)
		rw.Abort(ctx)
		return fmt.Errorf("write bucket %d: %w", bw.bucket, err)
	}
	files, err := rw.Close(ctx)
	w.files = append(w.files, rw.Written()...)
	if err != nil {
		rw.Abort(ctx)
		return fmt.Errorf("write bucket %d: %w", bw.bucket, err)
	}
	bw.newFiles = append(bw.newFiles, files...)
	return nil
}

// reduceKey merges one key's buffered records, given in sequence order, as the table orders
// records of one key (sequence fields, then sequence number) with its merge function
// (SortBufferWriteBuffer#forEach through ReducerMergeFunctionWrapper; retractions are kept at
// level 0). It returns nil when the merge drops the key.
func reduceKey(records []*kvfile.KeyValue, merge *mergetree.Merge) (*kvfile.KeyValue, error) {
	slices.SortStableFunc(records, merge.Compare)
	group := make([]mergetree.Record, len(records))
	for i, kv := range records {
		group[i] = mergetree.Record{KV: kv, Level: -1}
	}
	return merge.Reduce(group)
}

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
}

// BucketWrite is what a write did to one bucket.
type BucketWrite struct {
	Partition []byte
	Bucket    int32
	// NewFiles are the level-0 data files written.
	NewFiles []*meta.DataFileMeta
	// Built and Retired are the archive changes the bucket's full-text maintainer made.
	Built, Retired []*meta.IndexFileMeta
}

// PrepareCommit writes every buffered row into data files and runs the buckets' full-text
// maintainers; nothing is visible until Commit. After a failure the writer is aborted.
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
	for _, key := range w.order {
		bw := w.buckets[key]
		if err := w.flush(ctx, bw); err != nil {
			return err
		}
		if len(bw.newFiles) > 0 {
			written = append(written, key)
		}
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

// planBuckets plans the buckets keys (planBucket), cfg.parallelism at a time; the changes are
// in the order of keys. After a failure it returns the first error once every bucket started
// has finished (what they generated is the writer's to abort).
func (w *Writer) planBuckets(ctx context.Context, keys []bucketKey) ([]*commit.Change, error) {
	changes := make([]*commit.Change, len(keys))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, w.cfg.parallelism))
	for i, key := range keys {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			ch, err := w.planBucket(ctx, w.buckets[key], w.restored[key])
			changes[i] = ch
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
		c, err := runIndexMaintainers(ctx, w.r, w.engine, &w.archives, bw.restored, pkindex.DataIncrement{NewFiles: bw.newFiles}, compact)
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

// Commit prepares (if not done yet) and commits everything written as Java's batch commit does:
// one APPEND snapshot with the new level-0 files (and the index changes of buckets that did not
// compact), then, when compactions ran at commit, one COMPACT snapshot with their data transition,
// deletion vectors and archives, under the same commit user and identifier. With no rows written
// it commits nothing. On failure every generated file is deleted. When the APPEND snapshot landed
// but the COMPACT one could not, Commit returns the result of the append with an error: the rows
// are committed (on level 0) and the compaction's files are deleted.
func (w *Writer) Commit(ctx context.Context) (_ *WriteResult, err error) {
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
			bw.Built = slices.Concat(bw.Built, w.buckets[bucketKey{string(m.Partition), m.Bucket}].compaction.Built)
			bw.Retired = slices.Concat(bw.Retired, w.buckets[bucketKey{string(m.Partition), m.Bucket}].compaction.Retired)
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
	if len(w.compacted) == 0 {
		w.done = true
		return res, nil
	}
	if err := w.commitCompactions(ctx, cres.Snapshot, res); err != nil {
		return res, fmt.Errorf("the write committed as snapshot %d: %w: %w", cres.Snapshot.ID, ErrCompactionAtCommit, err)
	}
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

// ignoreDeleteOf reads ignore-delete with its fallback keys (CoreOptions IGNORE_DELETE).
func ignoreDeleteOf(opts map[string]string) (bool, error) {
	for _, k := range []string{IgnoreDeleteOption, "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"} {
		if _, ok := opts[k]; ok {
			return schema.BoolOption(opts, k, false)
		}
	}
	return false, nil
}
