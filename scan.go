package pkft

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft/internal/convert"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/scan"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// ErrUnsupportedRead reports a table whose batch read Go's [Table.Scan] does not reproduce
// (deletion-vectors.merge-on-read, append tables, and the merges Go's writer refuses as well, such
// as field aggregate functions on a partial-update table); the error names the option.
var ErrUnsupportedRead = scan.ErrUnsupported

// ScanOption configures [Table.Scan].
type ScanOption interface{ applyScan(*scanConfig) }

type scanConfig struct {
	snapshotID int64
	partitions []map[string]string
	columns    []string
	batchRows  int
	where      []string
	report     *ScanReport
}

func (o partitionOption) applyScan(c *scanConfig) { c.partitions = append(c.partitions, o) }

type scanOption func(*scanConfig)

func (o scanOption) applyScan(c *scanConfig) { o(c) }

// WithColumns projects a scan onto the named columns, in that order (default: every column).
func WithColumns(columns ...string) ScanOption {
	return scanOption(func(c *scanConfig) { c.columns = append([]string{}, columns...) })
}

// WithBatchRows sets the most rows a record batch of a scan holds (default 4096).
func WithBatchRows(n int) ScanOption { return scanOption(func(c *scanConfig) { c.batchRows = n }) }

// Where keeps only the rows the predicate expr accepts, as Java Paimon 2.0.0's batch read with
// the same filter returns them (its ReadBuilder#withFilter with the read's executeFilter): a
// predicate in SQL syntax over any columns, such as
//
//	price >= 3 AND (tag = 'x' OR tag IN ('y', 'z')) AND note IS NOT NULL
//
// with =, <>, <, <=, >, >=, [NOT] IN (...), IS [NOT] NULL, AND, OR and parentheses; literals are
// numbers, 'strings', TRUE/FALSE, and quoted dates 'YYYY-MM-DD', times and timestamps
// 'YYYY-MM-DD HH:MM:SS[.f...]' (TIMESTAMP_LTZ in UTC). Several Where options are joined by AND.
// An unknown column, a literal of the wrong type and any other syntax (NOT, BETWEEN, LIKE, NULL
// literals, functions) make Scan fail with an error that names it.
//
// With deletion vectors the scan plans as Java's does: files whose statistics rule the filter out
// are not read, and the part of the filter on pk-btree / pk-bitmap columns is answered by the
// current sorted payload of each level, so that only the selected rows of those files are kept
// (a file with none is not opened; files of levels without a current payload are read whole);
// the whole filter is then applied
// to every row, after the deletion vectors. [WithScanReport] tells how each file was read.
func Where(expr string) ScanOption {
	return scanOption(func(c *scanConfig) { c.where = append(c.where, expr) })
}

// ScanReport tells how a scan read each data file. [Table.Scan] fills it as the reader reaches
// each bucket: it is complete once the reader is exhausted.
type ScanReport struct {
	// Files are the data files the scan considered, bucket by bucket in read order (under
	// deletion vectors, level-0 files are never read and not listed).
	Files []ScanFile `json:"files"`
}

// ScanFile is how one data file was read.
type ScanFile struct {
	Partition Partition `json:"partition"`
	Bucket    int32     `json:"bucket"`
	File      string    `json:"file"`
	Level     int32     `json:"level"`
	RowCount  int64     `json:"rowCount"`
	// How is "whole" (every row read), "narrowed" (the sorted index selected the rows in
	// Ranges), "no-rows" (the index selected none; not read) or "pruned" (the file's statistics
	// rule the filter out; not read).
	How string `json:"how"`
	// Ranges are the inclusive [from, to] row positions read from a narrowed file.
	Ranges [][2]int64 `json:"ranges,omitempty"`
	// Selected is the number of rows the index selected in a narrowed file.
	Selected int64 `json:"selected,omitempty"`
	// Reason says why a file was read whole although the filter touches indexed columns.
	Reason string `json:"reason,omitempty"`
}

// Narrowed returns the names of the files the sorted index narrowed (How "narrowed" or
// "no-rows").
func (r *ScanReport) Narrowed() []string {
	var out []string
	for _, f := range r.Files {
		if f.How == "narrowed" || f.How == "no-rows" {
			out = append(out, f.File)
		}
	}
	return out
}

// WithScanReport makes the scan record in r how it read each data file (see [ScanReport]).
func WithScanReport(r *ScanReport) ScanOption {
	return scanOption(func(c *scanConfig) { c.report = r })
}

// WithScanSnapshot scans snapshot id instead of the latest one.
func WithScanSnapshot(id int64) ScanOption {
	return scanOption(func(c *scanConfig) { c.snapshotID = id })
}

// Scan reads the rows of the latest snapshot ([WithScanSnapshot]: another one) as Java Paimon
// 2.0.0's batch read returns them, as Arrow record batches, for every merge engine
// (deduplicate, first-row, partial-update, aggregation) and sequence.field: with deletion vectors
// enabled, and on first-row tables, level-0 files are not read (rows written since the last
// compaction are not visible until compacted, as in Java) and the deletion vectors are applied;
// a bucket whose files hold no delete rows is then read as it is, any other bucket (and every
// bucket of other tables, all levels) is merged by primary key with the table's merge function,
// as Java's merge read does. [WithPartition] selects partitions,
// [WithColumns] projects. Rows come bucket by bucket (partitions and buckets in manifest order),
// each bucket's by primary key; a bucket is read when the reader reaches it (at most one
// bucket's rows are held at a time, read under ctx, which must stay live while the reader is
// used), and a failure to read one ends the reader with its Err. Column types map to Arrow as [ArrowDefinition] maps them back
// (TIME as time32[ms], TIMESTAMP(p) with the unit of p's digits, TIMESTAMP_LTZ with time zone
// UTC). A table with no snapshot yields no rows. The caller releases the reader.
func (t *Table) Scan(ctx context.Context, opts ...ScanOption) (array.RecordReader, error) {
	cfg := scanConfig{batchRows: 4096}
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyScan(&cfg)
	}
	if cfg.batchRows <= 0 {
		return nil, fmt.Errorf("scan %s: batch size %d is not positive", t.path, cfg.batchRows)
	}
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	if err := scan.Check(s); err != nil {
		return nil, fmt.Errorf("scan %s: %w", t.path, err)
	}
	var snap *snapshot.Snapshot
	if cfg.snapshotID > 0 {
		if snap, err = t.t.Snapshots.Snapshot(ctx, cfg.snapshotID); err != nil {
			return nil, fmt.Errorf("scan %s: snapshot %d: %w", t.path, cfg.snapshotID, err)
		}
	} else if snap, err = t.t.Latest(ctx); err != nil && !errors.Is(err, table.ErrNoSnapshot) {
		return nil, fmt.Errorf("scan %s: %w", t.path, err)
	}
	var filters []search.PartitionFilter
	for _, spec := range cfg.partitions {
		if len(s.PartitionKeys) == 0 {
			return nil, fmt.Errorf("scan %s: the table is not partitioned", t.path)
		}
		f, err := search.MatchPartition(s, spec)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", t.path, err)
		}
		filters = append(filters, f)
	}
	idx := make([]int, 0, len(s.Fields))
	if cfg.columns == nil {
		for i := range s.Fields {
			idx = append(idx, i)
		}
	}
	for _, c := range cfg.columns {
		i := -1
		for j, f := range s.Fields {
			if f.Name == c {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("scan %s: column %s is not a column of the table", t.path, c)
		}
		idx = append(idx, i)
	}
	fields := make([]arrow.Field, len(idx))
	for k, i := range idx {
		f := s.Fields[i]
		if fields[k], err = convert.ArrowField(f.Name, f.Type); err != nil {
			return nil, fmt.Errorf("scan %s: column %s: %w", t.path, f.Name, err)
		}
	}
	var filterErr error
	sopts := scan.Options{}
	if len(cfg.where) > 0 {
		var parts []*predicate.Predicate
		for _, w := range cfg.where {
			p, err := predicate.Parse(w, s.Fields)
			if err != nil {
				return nil, fmt.Errorf("scan %s: where %q: %w", t.path, w, err)
			}
			parts = append(parts, p)
		}
		sopts.Filter = predicate.NewAnd(parts...)
	}
	if len(filters) > 0 {
		sopts.Partition = func(p []byte) bool {
			for _, f := range filters {
				ok, err := f(p)
				if err != nil && filterErr == nil {
					filterErr = err
				}
				if ok {
					return true
				}
			}
			return false
		}
	}
	var rd *scan.Reader
	if rd, err = scan.Open(ctx, t.t, snap, sopts); err != nil {
		return nil, fmt.Errorf("scan %s: %w", t.path, err)
	}
	if filterErr != nil {
		return nil, fmt.Errorf("scan %s: %w", t.path, filterErr)
	}
	rr := &recordReader{ctx: ctx, path: t.path, rd: rd, idx: idx, names: s.FieldNames(),
		schema: arrow.NewSchema(fields, nil), batchRows: cfg.batchRows, report: cfg.report, parts: partitionsOf(s)}
	if cfg.report != nil {
		cfg.report.Files = nil
	}
	rr.refs.Store(1)
	return rr, nil
}

// recordReader is the array.RecordReader of [Table.Scan]: it reads one bucket at a time and
// cuts its rows into record batches.
type recordReader struct {
	ctx       context.Context
	path      string
	rd        *scan.Reader
	idx       []int
	names     []string
	schema    *arrow.Schema
	batchRows int
	refs      atomic.Int64
	report    *ScanReport
	parts     partitions

	bucket int     // next bucket to read
	rows   [][]any // rows of the current bucket not yet returned
	cur    arrow.RecordBatch
	err    error
}

func (r *recordReader) Retain() { r.refs.Add(1) }

func (r *recordReader) Release() {
	if r.refs.Add(-1) == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *recordReader) Schema() *arrow.Schema { return r.schema }

func (r *recordReader) Err() error { return r.err }

func (r *recordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch.
//
// Deprecated: use RecordBatch.
func (r *recordReader) Record() arrow.RecordBatch { return r.cur }

func (r *recordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	for len(r.rows) == 0 {
		if r.bucket >= r.rd.Buckets() {
			return false
		}
		if err := r.ctx.Err(); err != nil {
			r.err = fmt.Errorf("scan %s: %w", r.path, err)
			return false
		}
		b, err := r.rd.ReadBucket(r.ctx, r.bucket)
		if err != nil {
			r.err = fmt.Errorf("scan %s: %w", r.path, err)
			return false
		}
		r.bucket++
		r.rows = b.Rows
		if r.report != nil {
			part, err := r.parts.of(b.Partition)
			if err != nil {
				r.err = fmt.Errorf("scan %s: %w", r.path, err)
				return false
			}
			for _, f := range b.Files {
				r.report.Files = append(r.report.Files, ScanFile{Partition: part, Bucket: b.Bucket,
					File: f.File.FileName, Level: f.File.Level, RowCount: f.File.RowCount, How: f.How.String(),
					Ranges: f.Ranges, Selected: f.Selected, Reason: f.Reason})
			}
		}
	}
	n := min(len(r.rows), r.batchRows)
	b := array.NewRecordBuilder(memory.DefaultAllocator, r.schema)
	defer b.Release()
	for _, row := range r.rows[:n] {
		for k, i := range r.idx {
			if err := convert.AppendValue(b.Field(k), row[i]); err != nil {
				r.err = fmt.Errorf("scan %s: column %s: %w", r.path, r.names[i], err)
				return false
			}
		}
	}
	r.rows = r.rows[n:]
	r.cur = b.NewRecordBatch()
	return true
}
