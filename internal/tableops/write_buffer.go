package tableops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/mergetree/writebuffer"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// rowBuffers is a writer's write buffer, as Java's KeyValueFileStoreWrite sets it up: one memory
// pool of write-buffer-size (MemoryPoolFactory) shared by the writer's buckets, each bucket's
// records in a sort buffer (SortBufferWriteBuffer) that spills sorted runs to a local directory
// when write-buffer-spillable holds (Java's default; its IOManager's temp directory is here one
// the writer creates and removes). Records are kept as binary rows: the trimmed primary key
// (ordered by writebuffer.KeyComparator) and the whole value row.
type rowBuffers struct {
	pool    *writebuffer.Pool
	dir     string
	keys    *writebuffer.KeyComparator
	rowType types.DataType
	keyIdx  []int
	closed  bool
}

// newRowBuffers creates the write buffer of a writer of schema s (the options write-buffer-size,
// page-size, write-buffer-spillable, write-buffer-spill.max-disk-size,
// local-sort.max-num-file-handles, spill-compression and spill-compression.zstd-level) with
// its spill directory.
func newRowBuffers(s *schema.TableSchema, layout *kvfile.Layout) (*rowBuffers, error) {
	o, err := writebuffer.ParseOptions(s.Options)
	if err != nil {
		return nil, err
	}
	keys, err := writebuffer.NewKeyComparator(layout.KeyType)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pkft-write-buffer-")
	if err != nil {
		return nil, fmt.Errorf("write buffer: spill directory: %w", err)
	}
	pool, err := writebuffer.NewPool(o, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &rowBuffers{pool: pool, dir: dir, keys: keys, rowType: layout.ValueType, keyIdx: layout.KeyIndexes}, nil
}

// bucketRows is one bucket's sort buffer.
type bucketRows struct {
	rb  *rowBuffers
	buf *writebuffer.Buffer
}

// newBucket adds a bucket's buffer. flush writes the bucket's records out and clears its buffer;
// the pool calls it when another bucket needs the memory and this one cannot spill.
func (rb *rowBuffers) newBucket(flush func(context.Context) error) *bucketRows {
	return &bucketRows{rb: rb, buf: rb.pool.NewBuffer(rb.keys.Compare, flush)}
}

// put buffers kv; encoded, when not nil, is kv.Value already encoded as a binary row (its
// header byte is set to kv.Kind). false (no error) means the buffer cannot spill and is full.
func (b *bucketRows) put(ctx context.Context, kv *kvfile.KeyValue, encoded []byte) (bool, error) {
	key, err := b.rb.keys.Encode(kv.Key)
	if err != nil {
		return false, fmt.Errorf("write buffer: key: %w", err)
	}
	value := encoded
	if value != nil {
		value[0] = byte(kv.Kind)
	} else if value, err = binrow.EncodeWithKind(b.rb.rowType, kv.Kind, kv.Value); err != nil {
		return false, fmt.Errorf("write buffer: row: %w", err)
	}
	ok, err := b.buf.Put(ctx, writebuffer.Entry{Key: key, Seq: kv.Seq, Kind: byte(kv.Kind), Value: value})
	if err == nil {
		err = b.rb.keys.Err()
	}
	return ok, err
}

// isEmpty says the bucket buffers no record.
func (b *bucketRows) isEmpty() bool { return b.buf.IsEmpty() }

// forEachKey calls fn with the buffered records of each key, keys in order, a key's records by
// sequence number (SortBufferWriteBuffer#forEach before the merge function), merging the records
// in memory with the spilled runs. The buffer keeps its records until clear.
func (b *bucketRows) forEachKey(ctx context.Context, fn func([]*kvfile.KeyValue) error) error {
	var group []*kvfile.KeyValue
	var groupKey []byte
	err := b.buf.ForEach(ctx, func(e writebuffer.Entry) error {
		if len(group) > 0 && b.rb.keys.Compare(groupKey, e.Key) != 0 {
			if err := fn(group); err != nil {
				return err
			}
			group = nil
		}
		row, err := binrow.Decode(b.rb.rowType, e.Value)
		if err != nil {
			return fmt.Errorf("write buffer: row: %w", err)
		}
		kv := &kvfile.KeyValue{Key: make([]any, len(b.rb.keyIdx)), Seq: e.Seq, Kind: types.RowKind(e.Kind), Value: row}
		for i, idx := range b.rb.keyIdx {
			kv.Key[i] = row[idx]
		}
		group, groupKey = append(group, kv), e.Key
		return nil
	})
	if err == nil && len(group) > 0 {
		err = fn(group)
	}
	return errors.Join(err, b.rb.keys.Err())
}

// drain makes the pool return the memory of every buffer flushed from now on (writebuffer.Pool.Drain).
func (rb *rowBuffers) drain() error { return rb.pool.Drain() }

// clear drops the bucket's records and deletes its spilled runs.
func (b *bucketRows) clear() error { return b.buf.Clear() }

// close drops every bucket's records and removes the spill directory. It is idempotent.
func (rb *rowBuffers) close() error {
	if rb == nil || rb.closed {
		return nil
	}
	rb.closed = true
	// The pool's Close closes every bucket's buffer and gives its pages back.
	errs := []error{rb.pool.Close()}
	if err := os.RemoveAll(rb.dir); err != nil {
		errs = append(errs, fmt.Errorf("write buffer: remove spill directory: %w", err))
	}
	return errors.Join(errs...)
}

// buffer adds kv to bucket bw's buffer; a full buffer that cannot spill is written out first, as
// MergeTreeWriter#write flushes and puts again.
func (w *Writer) buffer(ctx context.Context, bw *bucketWriter, kv *kvfile.KeyValue, encoded []byte) error {
	ok, err := bw.rows.put(ctx, kv, encoded)
	if err != nil || ok {
		return err
	}
	if err := w.flush(ctx, bw); err != nil {
		return err
	}
	if ok, err = bw.rows.put(ctx, kv, encoded); err == nil && !ok {
		err = fmt.Errorf("write buffer: %s is too small to hold a single record", writebuffer.OptWriteBufferSize)
	}
	return err
}

// flush sorts and merges a bucket's buffer with the table's merge function and writes it as
// level-0 files (MergeTreeWriter#flushWriteBuffer).
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
