// Package scan reads the rows of a primary-key table's snapshot as Java Paimon 2.0.0's batch
// read returns them (AbstractBatchTableScan, MergeFileSplitRead): with deletion vectors enabled
// (and deletion-vectors.merge-on-read off) level-0 files are skipped (CoreOptions
// #batchScanSkipLevel0) and every other file is read with its deletion vector applied; without
// deletion vectors every level is read and merged by primary key with the deduplicate merge
// engine (the record with the highest sequence number wins, retractions drop the key).
package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/kvfile"
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

// Check refuses the tables whose batch read Go does not reproduce.
func Check(s *schema.TableSchema) error {
	if len(s.PrimaryKeys) == 0 {
		return fmt.Errorf("the table has no primary key (append tables are not scanned by Go): %w", ErrUnsupported)
	}
	if e := strings.ToLower(strings.TrimSpace(s.Options["merge-engine"])); e != "" && e != "deduplicate" {
		return fmt.Errorf("merge-engine %q: only deduplicate is merged by Go's scan: %w", e, ErrUnsupported)
	}
	if v := strings.TrimSpace(s.Options["sequence.field"]); v != "" {
		return fmt.Errorf("sequence.field %q: user-defined sequence fields are not merged by Go's scan: %w", v, ErrUnsupported)
	}
	mor, err := schema.BoolOption(s.Options, "deletion-vectors.merge-on-read", false)
	if err != nil {
		return err
	}
	if mor {
		return fmt.Errorf("deletion-vectors.merge-on-read = true: level 0 would be merged on read, which Go's scan does not do: %w", ErrUnsupported)
	}
	return nil
}

// Reader reads a snapshot's buckets one at a time.
type Reader struct {
	r       *restore.Restorer
	layout  *kvfile.Layout
	dvOn    bool
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
	if err := Check(r.Schema); err != nil {
		return nil, err
	}
	rd := &Reader{r: r}
	if rd.dvOn, err = schema.BoolOption(r.Schema.Options, "deletion-vectors.enabled", false); err != nil {
		return nil, err
	}
	if rd.layout, err = kvfile.NewLayoutForRead(r.Schema); err != nil {
		return nil, err
	}
	if opts.Filter != nil {
		if rd.filter, err = newFilter(r.Schema, rd.layout, opts.Filter, rd.dvOn); err != nil {
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
	reads, err := rd.plan(ctx, rb)
	if err != nil {
		return Bucket{}, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	rows, err := readBucket(ctx, rd.r, rb, rd.layout, rd.dvOn, reads)
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

func readBucket(ctx context.Context, r *restore.Restorer, rb *restore.RestoredBucket, layout *kvfile.Layout, dvOn bool, reads []fileRead) ([][]any, error) {
	var dvs map[string]dv.DeletionVector
	if dvOn && len(rb.DeletionVectorFiles()) > 0 {
		var err error
		if dvs, err = rb.ReadDeletionVectors(ctx, r); err != nil {
			return nil, err
		}
	}
	latest := map[string]*kvfile.KeyValue{}
	for _, fr := range reads {
		f := fr.File
		if fr.How == Pruned || fr.How == NoRows {
			continue
		}
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		rd, err := kvfile.Open(ctx, r.Table.FileIO, rb.DataPaths.ToPath(f.FileName, ext), f.FileName, layout)
		if err != nil {
			return nil, err
		}
		if rd.NumRows() != f.RowCount {
			rd.Close()
			return nil, fmt.Errorf("data file %s has %d rows, its metadata says %d", f.FileName, rd.NumRows(), f.RowCount)
		}
		vec := dvs[f.FileName]
		for {
			kv, pos, err := rd.Next(ctx)
			if err != nil {
				rd.Close()
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, err
			}
			if vec != nil && vec.IsDeleted(pos) {
				continue
			}
			if fr.positions != nil && !fr.positions.Contains(uint64(pos)) {
				continue
			}
			k, err := binrow.Encode(layout.KeyType, kv.Key)
			if err != nil {
				rd.Close()
				return nil, fmt.Errorf("data file %s: key: %w", f.FileName, err)
			}
			if old, ok := latest[string(k)]; !ok || kv.Seq >= old.Seq {
				latest[string(k)] = kv
			}
		}
	}
	kvs := make([]*kvfile.KeyValue, 0, len(latest))
	for _, kv := range latest {
		if kv.Kind == types.Insert || kv.Kind == types.UpdateAfter {
			kvs = append(kvs, kv)
		}
	}
	slices.SortFunc(kvs, func(a, b *kvfile.KeyValue) int { return binrow.CompareKeys(a.Key, b.Key) })
	rows := make([][]any, len(kvs))
	for i, kv := range kvs {
		rows[i] = kv.Value
	}
	return rows, nil
}
