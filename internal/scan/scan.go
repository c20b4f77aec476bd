// Package scan reads the rows of a primary-key table's snapshot as Java Paimon 2.0.0's batch
// read returns them (AbstractBatchTableScan, MergeTreeSplitGenerator, MergeFileSplitRead), for
// every merge engine Go implements (internal/mergetree.ParseMerge): with deletion vectors enabled
// (and deletion-vectors.merge-on-read off), and for first-row tables, level-0 files are skipped
// (CoreOptions#batchScanSkipLevel0). A bucket whose remaining files are all above level 0 and
// hold no delete rows, in a table with deletion vectors or the first-row engine or all in one
// level, is read raw (DataSplit#rawConvertible: every row the deletion vectors keep, no merge
// function applied, as Java's RawFile read does). Any other bucket is merged as
// MergeFileSplitRead#createMergeReader merges a split: its files cut into sections of
// overlapping key ranges (IntervalPartition), each section's sorted runs merged by key in the
// table's record order (sequence.field, then the sequence number), each key's records reduced by
// the table's merge function (ReducerMergeFunctionWrapper: a key's single record as it is;
// LookupMergeFunction for tables that need lookup), the deletion vectors applied, and results that
// are not an insert or update-after dropped (DropDeleteReader).
package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// ErrUnsupported reports a table whose batch read Go does not implement; the message names the
// option.
var ErrUnsupported = errors.New("table read not supported by Go's scan")

// Bucket is the live rows of one (partition, bucket).
type Bucket struct {
	// Partition is the serialized partition row.
	Partition []byte
	Bucket    int32
	// Rows hold every table field in schema order, in internal/binrow's value forms, by primary key.
	Rows [][]any
	// Files say how each data file the scan considered was read, in read order (level-0 files
	// skipped under deletion vectors are not listed).
	Files []FileRead
}

// How is what a scan did with one data file.
type How uint8

// The ways a data file is read.
const (
	// Whole: every row was read.
	Whole How = iota
	// Narrowed: the sorted-family indexes selected the rows read (FileRead.Ranges).
	Narrowed
	// NoRows: the indexes selected no row; the file was not read.
	NoRows
	// Pruned: the file's statistics rule out every row the filter accepts; not read.
	Pruned
)

// String names h.
func (h How) String() string {
	return [...]string{Whole: "whole", Narrowed: "narrowed", NoRows: "no-rows", Pruned: "pruned"}[h]
}

// FileRead is how one data file was read.
type FileRead struct {
	File *meta.DataFileMeta
	How  How
	// Ranges are the inclusive row-position ranges read from a Narrowed file.
	Ranges [][2]int64
	// Selected is the number of positions the index selected (Narrowed).
	Selected int64
	// Reason says why a file with a filter on indexed columns was read Whole.
	Reason string
}

// Options select what a scan reads.
type Options struct {
	// Partition, when set, selects the partitions it returns true for (given the serialized
	// partition row).
	Partition func(partition []byte) bool
	// Filter, when set, keeps only the rows it accepts (a predicate over the table's fields in
	// schema order). With deletion vectors the scan also does what Java's batch scan does with a
	// filter: it skips files whose statistics rule the filter out (KeyValueFileStoreScan's key
	// and value filters) and narrows the files of levels with a current sorted-family payload
	// (internal/pksorted/query); the rows are the same either way.
	Filter *predicate.Predicate
}

// Check refuses the tables whose batch read Go does not reproduce: append tables,
// deletion-vectors.merge-on-read, and the merges internal/mergetree.ParseMerge refuses (with the
// reason it names).
func Check(s *schema.TableSchema) error {
	_, err := parse(s)
	return err
}

// how is what a table's batch read does (see the package doc).
type how struct {
	merge *mergetree.Merge
	// dvOn is deletion-vectors.enabled; skipLevel0 is CoreOptions#batchScanSkipLevel0.
	dvOn, skipLevel0 bool
}

func parse(s *schema.TableSchema) (how, error) {
	if len(s.PrimaryKeys) == 0 {
		return how{}, fmt.Errorf("the table has no primary key (append tables are not scanned by Go): %w", ErrUnsupported)
	}
	mor, err := schema.BoolOption(s.Options, "deletion-vectors.merge-on-read", false)
	if err != nil {
		return how{}, err
	}
	if mor {
		return how{}, fmt.Errorf("deletion-vectors.merge-on-read = true: level 0 would be merged on read, which Go's scan does not do: %w", ErrUnsupported)
	}
	opts, err := mergetree.ParseOptions(s.Options)
	if err != nil {
		return how{}, fmt.Errorf("%v: %w", err, ErrUnsupported)
	}
	m, err := mergetree.ParseMerge(s, opts.NeedLookup)
	if err != nil {
		return how{}, fmt.Errorf("the table's merge (%s %q): %v: %w", mergetree.OptMergeEngine, s.Options[mergetree.OptMergeEngine], err, ErrUnsupported)
	}
	return how{merge: m, dvOn: opts.DeletionVectors, skipLevel0: opts.DeletionVectors || m.Engine == mergetree.FirstRow}, nil
}

// Reader reads a snapshot's buckets one at a time.
type Reader struct {
	r       *restore.Restorer
	layout  *kvfile.Layout
	how     how
	buckets []*table.Bucket
	filter  *filter
}

// Open plans the read of snap: the selected buckets, in the order of Table.Read's buckets. The
// table's latest schema must be the one its files were written with or a later one (internal/kvfile
// matches columns by field id). A nil snap reads nothing.
func Open(ctx context.Context, t *table.Table, snap *snapshot.Snapshot, opts Options) (*Reader, error) {
	r, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return nil, err
	}
	rd := &Reader{r: r}
	if rd.how, err = parse(r.Schema); err != nil {
		return nil, err
	}
	if rd.layout, err = kvfile.NewLayoutForRead(r.Schema); err != nil {
		return nil, err
	}
	if opts.Filter != nil {
		if rd.filter, err = newFilter(r.Schema, rd.layout, opts.Filter, rd.how.skipLevel0); err != nil {
			return nil, err
		}
	}
	if snap == nil {
		return rd, nil
	}
	contents, err := t.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	for _, b := range contents.Buckets {
		if opts.Partition == nil || opts.Partition(b.Partition) {
			rd.buckets = append(rd.buckets, b)
		}
	}
	return rd, nil
}

// Buckets is the number of buckets the read covers.
func (rd *Reader) Buckets() int { return len(rd.buckets) }

// ReadBucket reads the live rows of the i-th bucket, by primary key.
func (rd *Reader) ReadBucket(ctx context.Context, i int) (Bucket, error) {
	b := rd.buckets[i]
	rb, err := rd.r.RestoreBucket(b)
	if err != nil {
		return Bucket{}, err
	}
	reads, raw, err := rd.plan(ctx, rb)
	if err != nil {
		return Bucket{}, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	rows, err := rd.readBucket(ctx, rb, reads, raw)
	if err != nil {
		return Bucket{}, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	if rd.filter != nil {
		kept := rows[:0]
		for _, row := range rows {
			if rd.filter.pred.Test(row) {
				kept = append(kept, row)
			}
		}
		rows = kept
	}
	files := make([]FileRead, len(reads))
	for i, f := range reads {
		files[i] = f.FileRead
	}
	return Bucket{Partition: b.Partition, Bucket: b.Bucket, Rows: rows, Files: files}, nil
}

// Read returns the live rows of every selected bucket of snap (Open, then ReadBucket of each).
func Read(ctx context.Context, t *table.Table, snap *snapshot.Snapshot, opts Options) ([]Bucket, error) {
	rd, err := Open(ctx, t, snap, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Bucket, 0, rd.Buckets())
	for i := range rd.Buckets() {
		b, err := rd.ReadBucket(ctx, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// readBucket reads the rows of the files reads does not rule out: raw (every row the deletion
// vectors and the index positions keep) or merged by key with the table's merge function.
func (rd *Reader) readBucket(ctx context.Context, rb *restore.RestoredBucket, reads []fileRead, raw bool) ([][]any, error) {
	var dvs map[string]dv.DeletionVector
	if rd.how.dvOn && len(rb.DeletionVectorFiles()) > 0 {
		var err error
		if dvs, err = rb.ReadDeletionVectors(ctx, rd.r); err != nil {
			return nil, err
		}
	}
	var files []*meta.DataFileMeta
	positions := map[string]*roaring64.Bitmap{}
	for _, fr := range reads {
		if fr.How == Pruned || fr.How == NoRows {
			continue
		}
		files = append(files, fr.File)
		if fr.positions != nil {
			positions[fr.File.FileName] = fr.positions
		}
	}
	open := func(ctx context.Context, f *meta.DataFileMeta) (*kvfile.Reader, error) {
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		return kvfile.Open(ctx, rd.r.Table.FileIO, rb.DataPaths.ToPath(f.FileName, ext), f.FileName, rd.layout)
	}
	if raw {
		return readRaw(ctx, files, open, dvs, positions)
	}
	return rd.readMerged(ctx, files, open, dvs)
}

// readRaw reads each file's rows as they are, without merging (Java's raw read of a
// raw-convertible split), ordered by primary key. Such files hold no delete rows; a retraction
// found anyway (a file without a delete row count) is dropped.
func readRaw(ctx context.Context, files []*meta.DataFileMeta, open mergetree.OpenFile, dvs map[string]dv.DeletionVector, positions map[string]*roaring64.Bitmap) ([][]any, error) {
	var kvs []*kvfile.KeyValue
	for _, f := range files {
		r, err := open(ctx, f)
		if err != nil {
			return nil, err
		}
		if r.NumRows() != f.RowCount {
			r.Close()
			return nil, fmt.Errorf("data file %s has %d rows, its metadata says %d", f.FileName, r.NumRows(), f.RowCount)
		}
		vec, sel := dvs[f.FileName], positions[f.FileName]
		for {
			kv, pos, err := r.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.Close()
				return nil, err
			}
			if (vec != nil && vec.IsDeleted(pos)) || (sel != nil && !sel.Contains(uint64(pos))) || kv.IsRetract() {
				continue
			}
			kvs = append(kvs, kv)
		}
		r.Close()
	}
	slices.SortStableFunc(kvs, func(a, b *kvfile.KeyValue) int { return binrow.CompareKeys(a.Key, b.Key) })
	rows := make([][]any, len(kvs))
	for i, kv := range kvs {
		rows[i] = kv.Value
	}
	return rows, nil
}

// readMerged merges files by key as MergeFileSplitRead#createMergeReader does (see the package
// doc); the rows come by primary key.
func (rd *Reader) readMerged(ctx context.Context, files []*meta.DataFileMeta, open mergetree.OpenFile, dvs map[string]dv.DeletionVector) ([][]any, error) {
	keyed := make([]mergetree.KeyedFile, 0, len(files))
	for _, f := range files {
		lo, err := decodeKey(rd.layout.KeyType, f.MinKey)
		if err != nil {
			return nil, fmt.Errorf("min key of %s: %w", f.FileName, err)
		}
		hi, err := decodeKey(rd.layout.KeyType, f.MaxKey)
		if err != nil {
			return nil, fmt.Errorf("max key of %s: %w", f.FileName, err)
		}
		keyed = append(keyed, mergetree.KeyedFile{File: f, Min: lo, Max: hi})
	}
	var rows [][]any
	for _, section := range mergetree.IntervalPartition(keyed) {
		m, err := mergetree.NewMergeReader(ctx, section, open, dvs, nil, rd.how.merge)
		if err != nil {
			return nil, err
		}
		for {
			recs, err := m.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				m.Close()
				return nil, err
			}
			kv, err := rd.how.merge.Reduce(recs)
			if err != nil {
				m.Close()
				return nil, fmt.Errorf("merge of key %v: %w", recs[0].KV.Key, err)
			}
			if kv != nil && (kv.Kind == types.Insert || kv.Kind == types.UpdateAfter) {
				rows = append(rows, kv.Value)
			}
		}
		m.Close()
	}
	return rows, nil
}

// decodeKey decodes a serialized key row (a data file's min or max key).
func decodeKey(keyType types.DataType, b []byte) ([]any, error) {
	row, err := binrow.DeserializeBinaryRow(b)
	if err != nil {
		return nil, err
	}
	return row.Decode(keyType)
}
