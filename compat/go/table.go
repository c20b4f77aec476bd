package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft"
)

// openTable opens the table at path, which a request must name.
func openTable(ctx context.Context, path string) (*pkft.Table, error) {
	if path == "" {
		return nil, argErrorf("args.path (the table directory) is required")
	}
	return pkft.Open(ctx, path, openOptions(ctx, path)...)
}

// createTableArgs are create-table's arguments, as the Java runner's TableCommands takes them.
type createTableArgs struct {
	Warehouse     string                  `json:"warehouse"`
	Database      string                  `json:"database"`
	Table         string                  `json:"table"`
	Fields        []pkft.ColumnDefinition `json:"fields"`
	PrimaryKeys   []string                `json:"primaryKeys"`
	PartitionKeys []string                `json:"partitionKeys"`
	Options       map[string]string       `json:"options"`
}

// cmdCreateTable creates the table DATABASE.TABLE of the filesystem warehouse WAREHOUSE, in
// the directory a Paimon filesystem catalog gives it (WAREHOUSE/DATABASE.db/TABLE; database
// defaults to "default"). Result: {path}.
func cmdCreateTable(ctx context.Context, raw json.RawMessage) (any, error) {
	var args createTableArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.Warehouse == "" || args.Table == "" {
		return nil, argErrorf("args.warehouse and args.table are required")
	}
	if args.Database == "" {
		args.Database = "default"
	}
	path := filepath.Join(args.Warehouse, args.Database+".db", args.Table)
	if _, ok := objectStoreBucket(args.Warehouse); ok {
		path = strings.TrimSuffix(args.Warehouse, "/") + "/" + args.Database + ".db/" + args.Table
	}
	t, err := pkft.Create(ctx, path, pkft.TableDefinition{
		Columns: args.Fields, PrimaryKeys: args.PrimaryKeys, PartitionKeys: args.PartitionKeys, Options: args.Options,
	}, pkft.WithOpenOptions(openOptions(ctx, path)...))
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return map[string]any{"path": t.Path()}, nil
}

// writeArgs are write's arguments. Of the Java runner's, compact, compactBucket, readyFile and
// awaitFile are refused by name (pkft's writer has no compaction before its commit and no
// pause), and of dynamicOptions only write-only=true (WithWriteOnly). StringBytes names the
// string (CHAR, VARCHAR) fields whose values are base64 of their bytes, written as they are,
// malformed UTF-8 included (a JSON string cannot carry such bytes). IndexNewRows is pkft's
// WithIndexNewRows (the write's level-0 files indexed at its commit).
type writeArgs struct {
	Path           string             `json:"path"`
	Rows           []map[string]any   `json:"rows"`
	StringBytes    []string           `json:"stringBytes"`
	IndexNewRows   bool               `json:"indexNewRows"`
	DynamicOptions map[string]*string `json:"dynamicOptions"`
	Compact        any                `json:"compact"`
	CompactBucket  any                `json:"compactBucket"`
	ReadyFile      any                `json:"readyFile"`
	AwaitFile      any                `json:"awaitFile"`
}

// cmdWrite writes rows (objects by field name, _rowKind +I, -U, +U or -D, +I when absent) with
// one pkft Writer and commits once. Result: {rows}.
func cmdWrite(ctx context.Context, raw json.RawMessage) (any, error) {
	var args writeArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	for name, v := range map[string]any{"compact": args.Compact, "compactBucket": args.CompactBucket, "readyFile": args.ReadyFile, "awaitFile": args.AwaitFile} {
		if v != nil {
			return nil, argErrorf("args.%s is not supported by the Go runner: pkft's writer has no compaction before its commit and no pause between its writes and its commit", name)
		}
	}
	var opts []pkft.WriteOption
	if args.IndexNewRows {
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
		return nil, argErrorf("args.dynamicOptions %s=%s is not supported by the Go runner: pkft's writer takes write-only=true only (WithWriteOnly)", k, val)
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	w, err := t.NewWriter(ctx, opts...)
	if err != nil {
		return nil, err
	}
	sch := w.Schema()
	asBytes := map[string]bool{}
	for _, name := range args.StringBytes {
		c, ok := sch.Column(name)
		if !ok || (c.Type.Kind != pkft.KindChar && c.Type.Kind != pkft.KindVarChar) {
			_ = w.Abort(ctx)
			return nil, argErrorf("args.stringBytes: %s is not a string column of the table", name)
		}
		asBytes[name] = true
	}
	n := 0
	for i, r := range args.Rows {
		kind := pkft.Insert
		for k := range r {
			if _, ok := sch.Column(k); !ok && k != pkft.RowKindColumn {
				_ = w.Abort(ctx)
				return nil, argErrorf("row %d: the table has no column %s", i, k)
			}
		}
		if s, ok := r[pkft.RowKindColumn]; ok {
			str, _ := s.(string)
			if kind, err = pkft.ParseRowKind(str); err != nil {
				_ = w.Abort(ctx)
				return nil, argErrorf("row %d: %s: %v", i, pkft.RowKindColumn, err)
			}
		}
		vals := make([]any, len(sch.Columns))
		for j, c := range sch.Columns {
			if asBytes[c.Name] && r[c.Name] != nil {
				b64, ok := r[c.Name].(string)
				raw, err := base64.StdEncoding.DecodeString(b64)
				if !ok || err != nil {
					_ = w.Abort(ctx)
					return nil, argErrorf("row %d: column %s: want base64 of the string's bytes (args.stringBytes), got %v", i, c.Name, r[c.Name])
				}
				vals[j] = string(raw)
				continue
			}
			if vals[j], err = parseValue(c.Type, r[c.Name]); err != nil {
				_ = w.Abort(ctx)
				return nil, argErrorf("row %d: column %s: %v", i, c.Name, err)
			}
		}
		if err := w.Write(ctx, kind, vals); err != nil {
			_ = w.Abort(ctx)
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		n++
	}
	if _, err := w.Commit(ctx); err != nil {
		return nil, err
	}
	return map[string]any{"rows": n}, nil
}

// compactArgs are compact's arguments; dynamicOptions is refused (pkft's Compact takes the
// table's options as they are). Uncovered is pkft's WithUncoveredCompaction (rewrite only the
// files no archive covers).
type compactArgs struct {
	Path           string `json:"path"`
	DynamicOptions any    `json:"dynamicOptions"`
	Uncovered      bool   `json:"uncovered"`
}

// cmdCompact fully compacts every bucket of the latest snapshot and commits once, with the
// full-text archives of the new levels, as Table.Compact does. Result: {buckets}, the number of
// (partition, bucket) pairs with live files the compaction ran on.
func cmdCompact(ctx context.Context, raw json.RawMessage) (any, error) {
	var args compactArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.DynamicOptions != nil {
		return nil, argErrorf("args.dynamicOptions is not supported by the Go runner's compact: pkft's Compact takes the table's own options")
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	st, err := t.State(ctx)
	if err != nil {
		return nil, err
	}
	var opts []pkft.CompactOption
	if args.Uncovered {
		opts = append(opts, pkft.WithUncoveredCompaction())
	}
	if _, err := t.Compact(ctx, opts...); err != nil {
		return nil, err
	}
	return map[string]any{"buckets": len(st.Buckets)}, nil
}

// cmdMaintain brings the table's full-text archives up to date with Table.Maintain: one
// index-only commit, or none when every archive is current. Its only argument is path (the
// protocol's dynamicOptions are refused by name: pkft maintains with the table's own options).
// Result: {snapshotBefore, snapshotAfter (equal when nothing was committed), built, retired
// (the archives' file names), unchanged (a count)}.
func cmdMaintain(ctx context.Context, raw json.RawMessage) (any, error) {
	t, err := openPathArgs(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	res, err := t.Maintain(ctx)
	if err != nil {
		return nil, err
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
	return map[string]any{"snapshotBefore": res.BaseSnapshotID, "snapshotAfter": after,
		"built": built, "retired": retired, "unchanged": unchanged}, nil
}

// cmdRewriteMetadata re-encodes the latest snapshot's metadata with Table.RewriteMetadata and
// commits it as the next snapshot. Its only argument is path. Result: {snapshotBefore,
// snapshotAfter, commitKind}.
func cmdRewriteMetadata(ctx context.Context, raw json.RawMessage) (any, error) {
	t, err := openPathArgs(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	st, err := t.State(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.RewriteMetadata(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"snapshotBefore": st.SnapshotID, "snapshotAfter": res.SnapshotID, "commitKind": res.CommitKind}, nil
}

// pathArgs are the arguments of a command that names only a table.
type pathArgs struct {
	Path string `json:"path"`
}

// openPathArgs decodes the arguments of a command that names only a table and opens it.
func openPathArgs(ctx context.Context, raw json.RawMessage) (*pkft.Table, error) {
	var args pathArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	return openTable(ctx, args.Path)
}

// cmdRead reads every visible row of the latest snapshot with Table.Scan. Result: {rows}, each
// an object of every field, rendered as Values.java renders them, sorted by the primary key (or
// every field) as the Java runner sorts them.
func cmdRead(ctx context.Context, raw json.RawMessage) (any, error) {
	t, err := openPathArgs(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	sch, err := t.Schema(ctx)
	if err != nil {
		return nil, err
	}
	rd, err := t.Scan(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	rows := []map[string]any{}
	for rd.Next() {
		rec := rd.RecordBatch()
		if int(rec.NumCols()) != len(sch.Columns) {
			return nil, fmt.Errorf("the scan has %d columns, the schema %d", rec.NumCols(), len(sch.Columns))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make(map[string]any, len(sch.Columns))
			for j, c := range sch.Columns {
				v, err := renderArrow(c.Type, rec.Column(j), i)
				if err != nil {
					return nil, err
				}
				row[c.Name] = v
			}
			rows = append(rows, row)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	keys := sch.PrimaryKeys
	if len(keys) == 0 {
		for _, c := range sch.Columns {
			keys = append(keys, c.Name)
		}
	}
	sortRows(rows, keys)
	return map[string]any{"rows": rows}, nil
}

// sortRows sorts rendered rows by keys, field by field, as the Java runner's rowComparator.
func sortRows(rows []map[string]any, keys []string) {
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
