package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// openTable opens the table at path, which a request must name.
func openTable(ctx context.Context, path string) (*pkft.Table, error) {
	if path == "" {
		return nil, argErrorf("args.path (the table directory) is required")
	}
	return pkft.Open(ctx, path, openOptions(ctx, path)...)
}

// cmdCreateTable creates the table DATABASE.TABLE of the filesystem warehouse WAREHOUSE, in
// the directory a Paimon filesystem catalog gives it (WAREHOUSE/DATABASE.db/TABLE; database
// defaults to "default"). Result: {path}.
func cmdCreateTable(ctx context.Context, args protocol.CreateTableRequest) (protocol.CreateTableResponse, error) {
	var none protocol.CreateTableResponse
	if args.Warehouse == "" || args.Table == "" {
		return none, argErrorf("args.warehouse and args.table are required")
	}
	if args.Database == "" {
		args.Database = "default"
	}
	path := filepath.Join(args.Warehouse, args.Database+".db", args.Table)
	if _, ok := objectStoreBucket(args.Warehouse); ok {
		path = strings.TrimSuffix(args.Warehouse, "/") + "/" + args.Database + ".db/" + args.Table
	}
	columns := make([]pkft.ColumnDefinition, len(args.Fields))
	for i, f := range args.Fields {
		columns[i] = pkft.ColumnDefinition{Name: f.Name, Type: f.Type}
	}
	t, err := pkft.Create(ctx, path, pkft.TableDefinition{
		Columns: columns, PrimaryKeys: args.PrimaryKeys, PartitionKeys: args.PartitionKeys, Options: args.Options,
	}, pkft.WithOpenOptions(openOptions(ctx, path)...))
	if err != nil {
		return none, err
	}
	defer t.Close()
	return protocol.CreateTableResponse{Path: t.Path()}, nil
}

// cmdWrite writes rows (objects by field name, _rowKind +I, -U, +U or -D, +I when absent) with
// one pkft Writer and commits once. Of the Java runner's arguments, compact, compactBucket,
// readyFile and awaitFile are refused by name (pkft's writer has no compaction before its commit
// and no pause), and of dynamicOptions only write-only=true (WithWriteOnly) is taken.
// stringBytes names the string (CHAR, VARCHAR) fields whose values are base64 of their bytes,
// written as they are, malformed UTF-8 included (a JSON string cannot carry such bytes);
// indexNewRows is pkft's WithIndexNewRows (the write's level-0 files indexed at its commit).
// Result: {rows}.
func cmdWrite(ctx context.Context, args protocol.WriteRequest) (protocol.WriteResponse, error) {
	var none protocol.WriteResponse
	for name, given := range map[string]bool{"compact": args.Compact != "", "compactBucket": args.CompactBucket != nil, "readyFile": args.ReadyFile != nil, "awaitFile": args.AwaitFile != nil} {
		if given {
			return none, argErrorf("args.%s is not supported by the Go runner: pkft's writer has no compaction before its commit and no pause between its writes and its commit", name)
		}
	}
	var opts []pkft.WriteOption
	if args.IndexNewRows != nil && *args.IndexNewRows {
		opts = append(opts, pkft.WithIndexNewRows())
	}
	for k, v := range args.DynamicOptions {
		if k == "write-only" && v != nil && *v == "true" {
			opts = append(opts, pkft.WithWriteOnly())
			continue
		}
		val := "null"
		if v != nil {
			val = *v
		}
		return none, argErrorf("args.dynamicOptions %s=%s is not supported by the Go runner: pkft's writer takes write-only=true only (WithWriteOnly)", k, val)
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	w, err := t.NewWriter(ctx, opts...)
	if err != nil {
		return none, err
	}
	sch := w.Schema()
	asBytes := map[string]bool{}
	for _, name := range args.StringBytes {
		c, ok := sch.Column(name)
		if !ok || (c.Type.Kind != pkft.KindChar && c.Type.Kind != pkft.KindVarChar) {
			_ = w.Abort(ctx)
			return none, argErrorf("args.stringBytes: %s is not a string column of the table", name)
		}
		asBytes[name] = true
	}
	n := 0
	for i, r := range args.Rows {
		kind := pkft.Insert
		for k := range r {
			if _, ok := sch.Column(k); !ok && k != pkft.RowKindColumn {
				_ = w.Abort(ctx)
				return none, argErrorf("row %d: the table has no column %s", i, k)
			}
		}
		if s, ok := r[pkft.RowKindColumn]; ok {
			str, _ := s.(string)
			if kind, err = pkft.ParseRowKind(str); err != nil {
				_ = w.Abort(ctx)
				return none, argErrorf("row %d: %s: %v", i, pkft.RowKindColumn, err)
			}
		}
		vals := make([]any, len(sch.Columns))
		for j, c := range sch.Columns {
			if asBytes[c.Name] && r[c.Name] != nil {
				b64, ok := r[c.Name].(string)
				raw, err := base64.StdEncoding.DecodeString(b64)
				if !ok || err != nil {
					_ = w.Abort(ctx)
					return none, argErrorf("row %d: column %s: want base64 of the string's bytes (args.stringBytes), got %v", i, c.Name, r[c.Name])
				}
				vals[j] = string(raw)
				continue
			}
			if vals[j], err = parseValue(c.Type, r[c.Name]); err != nil {
				_ = w.Abort(ctx)
				return none, argErrorf("row %d: column %s: %v", i, c.Name, err)
			}
		}
		if err := w.Write(ctx, kind, vals); err != nil {
			_ = w.Abort(ctx)
			return none, fmt.Errorf("row %d: %w", i, err)
		}
		n++
	}
	if _, err := w.Commit(ctx); err != nil {
		return none, err
	}
	return protocol.WriteResponse{Rows: int64(n)}, nil
}

// cmdCompact fully compacts every bucket of the latest snapshot and commits once, with the
// full-text archives of the new levels, as Table.Compact does. Result: {buckets}, the number of
// (partition, bucket) pairs with live files the compaction ran on. dynamicOptions is refused
// (pkft's Compact takes the table's options as they are); uncovered is pkft's
// WithUncoveredCompaction (rewrite only the files no archive covers).
func cmdCompact(ctx context.Context, args protocol.CompactRequest) (protocol.CompactResponse, error) {
	var none protocol.CompactResponse
	if args.DynamicOptions != nil {
		return none, argErrorf("args.dynamicOptions is not supported by the Go runner's compact: pkft's Compact takes the table's own options")
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	st, err := t.State(ctx)
	if err != nil {
		return none, err
	}
	var opts []pkft.CompactOption
	if args.Uncovered != nil && *args.Uncovered {
		opts = append(opts, pkft.WithUncoveredCompaction())
	}
	if _, err := t.Compact(ctx, opts...); err != nil {
		return none, err
	}
	return protocol.CompactResponse{Buckets: int64(len(st.Buckets))}, nil
}

// cmdMaintain brings the table's full-text archives up to date with Table.Maintain: one
// index-only commit, or none when every archive is current. Its only argument is path (the
// protocol's dynamicOptions are refused by name: pkft maintains with the table's own options).
// Result: {snapshotBefore, snapshotAfter (equal when nothing was committed), built, retired
// (the archives' file names), unchanged (a count)}.
func cmdMaintain(ctx context.Context, args protocol.MaintainRequest) (protocol.MaintainResponse, error) {
	var none protocol.MaintainResponse
	if args.DynamicOptions != nil {
		return none, argErrorf("args.dynamicOptions is not supported by the Go runner's maintain: pkft maintains with the table's own options")
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	res, err := t.Maintain(ctx)
	if err != nil {
		return none, err
	}
	built, retired := []string{}, []string{}
	unchanged := 0
	for _, b := range res.Buckets {
		for _, a := range b.Built {
			if a.FileName != "" {
				built = append(built, a.FileName)
			}
		}
		for _, a := range b.Retired {
			retired = append(retired, a.FileName)
		}
		unchanged += len(b.Unchanged)
	}
	after := res.SnapshotID
	if after == 0 {
		after = res.BaseSnapshotID
	}
	return protocol.MaintainResponse{SnapshotBefore: res.BaseSnapshotID, SnapshotAfter: after,
		Built: built, Retired: retired, Unchanged: new(int64(unchanged))}, nil
}

// cmdRewriteMetadata re-encodes the latest snapshot's metadata with Table.RewriteMetadata and
// commits it as the next snapshot. Its only argument is path. Result: {snapshotBefore,
// snapshotAfter, commitKind}.
func cmdRewriteMetadata(ctx context.Context, args protocol.RewriteMetadataRequest) (protocol.RewriteMetadataResponse, error) {
	var none protocol.RewriteMetadataResponse
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	st, err := t.State(ctx)
	if err != nil {
		return none, err
	}
	res, err := t.RewriteMetadata(ctx)
	if err != nil {
		return none, err
	}
	return protocol.RewriteMetadataResponse{SnapshotBefore: st.SnapshotID, SnapshotAfter: res.SnapshotID, CommitKind: res.CommitKind}, nil
}

// cmdRead reads every visible row of the latest snapshot with Table.Scan. Result: {rows}, each
// an object of every field, rendered as Values.java renders them, sorted by the primary key (or
// every field) as the Java runner sorts them.
func cmdRead(ctx context.Context, args protocol.ReadRequest) (protocol.ReadResponse, error) {
	var none protocol.ReadResponse
	if args.SnapshotID != 0 {
		return none, argErrorf("args.snapshotId is not supported by the Go runner: pkft's Scan reads the latest snapshot")
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	sch, err := t.Schema(ctx)
	if err != nil {
		return none, err
	}
	rd, err := t.Scan(ctx)
	if err != nil {
		return none, err
	}
	defer rd.Release()
	rows := []protocol.Object{}
	for rd.Next() {
		rec := rd.RecordBatch()
		if int(rec.NumCols()) != len(sch.Columns) {
			return none, fmt.Errorf("the scan has %d columns, the schema %d", rec.NumCols(), len(sch.Columns))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make(protocol.Object, len(sch.Columns))
			for j, c := range sch.Columns {
				v, err := renderArrow(c.Type, rec.Column(j), i)
				if err != nil {
					return none, err
				}
				row[c.Name] = v
			}
			rows = append(rows, row)
		}
	}
	if err := rd.Err(); err != nil {
		return none, err
	}
	keys := sch.PrimaryKeys
	if len(keys) == 0 {
		for _, c := range sch.Columns {
			keys = append(keys, c.Name)
		}
	}
	sortRows(rows, keys)
	return protocol.ReadResponse{Rows: rows}, nil
}

// sortRows sorts rendered rows by keys, field by field, as the Java runner's rowComparator.
func sortRows(rows []protocol.Object, keys []string) {
	sort.SliceStable(rows, func(a, b int) bool {
		for _, k := range keys {
			if c := compareRendered(rows[a][k], rows[b][k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
}

// errNoColumn is returned when a search names no column and the table indexes not exactly one.
var errNoColumn = errors.New("args.column is required")

// indexColumn is the column a search without args.column searches: the table's only full-text
// column.
func indexColumn(t *pkft.Table) (string, error) {
	c := t.FullTextColumn()
	if c == "" {
		return "", fmt.Errorf("%w: the table has no single pk-full-text.index.columns column", errNoColumn)
	}
	return c, nil
}
