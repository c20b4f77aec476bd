package goldengen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The Go-written golden corpus: small tables pkft itself wrote, maintained or compacted (through
// the library facade, package pkft) under GoTablesDir, and what the Java runner (Paimon 2.0.0)
// reads from each under GoExpectedDir: Java's dump (with its full-text bucket state and plan),
// its rows and its ranked search answers to a fixed query set. make golden regenerates both
// (compat/runner, TestGolden -update); TestGolden checks Java still reads them as recorded, and
// internal/inspect's TestGoGolden checks, without Java, that today's Go reads them as Java did and
// that today's Go, given the same inputs, writes tables Java's recorded view still describes.
const (
	GoTablesDir   = "testdata/tables/go"
	GoExpectedDir = "compat/golden/go"
	// MaxGoCorpusBytes bounds the whole Go corpus on disk (tables and expected outputs).
	MaxGoCorpusBytes = 5 << 20
	// GoCommitUser is the commit user of every snapshot Go commits in the corpus.
	GoCommitUser = "pkft-golden"
)

// GoStep is one operation Go performs on a Go corpus table: a write of Rows (runner JSON forms,
// "_rowKind" "-D" deletes) committed as one snapshot, a full compaction, or a maintenance.
type GoStep struct {
	Rows     []map[string]any
	Compact  bool
	Maintain bool
}

// GoTableSpec is the schema of a Go corpus table that starts empty: Java's runner creates it
// (create-table writes only schema-0) and Go writes everything else.
type GoTableSpec struct {
	Fields        []Field
	PrimaryKeys   []string
	PartitionKeys []string
	Options       map[string]string
}

// GoTable is one table of the Go corpus: where it starts (a copy of a Java golden table, or an
// empty table of Create's schema) and what Go does to it.
type GoTable struct {
	Name string
	// BaseJava names the Java golden table (testdata/tables/java) the table starts as a copy
	// of; empty when it starts empty.
	BaseJava string
	// Create is the schema of a table that starts empty (BaseJava empty).
	Create *GoTableSpec
	Steps  []GoStep
}

// GoTables returns the Go corpus:
//
//   - go-maintained-jieba: a copy of Java's ft-jieba-renamed-late (jieba analyzer, the index
//     option set after the data, one bucket's levels without an archive); Go's Maintain builds
//     the missing archives;
//   - go-written-ngram: empty at first; Go writes (partitioned by STRING and DATE, 2 buckets,
//     deletion vectors, ngram analyzer, index-file-in-data-file-dir), updates and deletes, and
//     fully compacts twice;
//   - go-written-jieba: empty at first; Go writes (partitioned by STRING, 2 buckets, deletion
//     vectors, jieba analyzer), updates and deletes, compacts twice, then writes updates and
//     deletes that stay on level 0;
//   - go-compacted-java: a copy of Java's ft-default-partitioned (Java wrote, compacted and
//     archived it, then wrote updates and deletes); Go compacts it fully, retiring Java's
//     archives of the levels it changes.
func GoTables() []GoTable {
	ngram := `{"tokenizer":"ngram","ngram.min-gram":"2","ngram.max-gram":"3"}`
	return []GoTable{
		{Name: "go-maintained-jieba", BaseJava: "ft-jieba-renamed-late", Steps: []GoStep{{Maintain: true}}},
		{
			Name: "go-written-ngram",
			Create: &GoTableSpec{
				Fields: []Field{{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"},
					{"content", "STRING"}},
				PrimaryKeys: []string{"region", "dt", "id"}, PartitionKeys: []string{"region", "dt"},
				Options: map[string]string{
					"bucket": "2", "deletion-vectors.enabled": "true", "index-file-in-data-file-dir": "true",
					"pk-full-text.index.columns": "content", "fields.content.pk-full-text.index.options": ngram,
				},
			},
			Steps: writtenSteps(func(seed uint64, lo, hi int) []map[string]any {
				return partitionRows(seed, lo, hi, [][2]string{{"eu", "2024-01-31"}, {"中国", "2024-02-29"}})
			}, false),
		},
		{
			Name: "go-written-jieba",
			Create: &GoTableSpec{
				Fields:      []Field{{"lang", "STRING NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"}},
				PrimaryKeys: []string{"lang", "id"}, PartitionKeys: []string{"lang"},
				Options: map[string]string{
					"bucket": "2", "deletion-vectors.enabled": "true",
					"pk-full-text.index.columns": "content", "fields.content.pk-full-text.index.options": `{"tokenizer":"jieba"}`,
				},
			},
			Steps: writtenSteps(func(seed uint64, lo, hi int) []map[string]any {
				var rows []map[string]any
				for p, lang := range []string{"zh", "mixed"} {
					for _, r := range TextRows(seed+uint64(p)*1000, lo, hi) {
						r["lang"] = lang
						rows = append(rows, r)
					}
				}
				return rows
			}, true),
		},
		{Name: "go-compacted-java", BaseJava: "ft-default-partitioned", Steps: []GoStep{{Compact: true}}},
	}
}

// writtenSteps is the recipe of the tables Go writes from empty: two overlapping writes, a full
// compaction (the overlap makes it rewrite, so the top level gets an archive), a write of
// updates, deletes and new rows, a second full compaction (which retires the first archives);
// with tail, a last write of updates and deletes stays on level 0.
func writtenSteps(rows func(seed uint64, lo, hi int) []map[string]any, tail bool) []GoStep {
	steps := []GoStep{
		{Rows: rows(401, 0, 40)},
		{Rows: rows(402, 30, 60)},
		{Compact: true},
		{Rows: concat(rows(403, 0, 8), deletes(rows(404, 10, 16)), rows(405, 60, 70))},
		{Compact: true},
	}
	if tail {
		steps = append(steps, GoStep{Rows: concat(rows(406, 20, 24), deletes(rows(407, 40, 43)))})
	}
	return steps
}

// TextRows are rows id lo..hi-1 whose content comes from the multilingual corpus generator
// (nulls included).
func TextRows(seed uint64, lo, hi int) []map[string]any {
	gen := corpus.Generate(seed, hi)
	var rows []map[string]any
	for i := lo; i < hi; i++ {
		r := map[string]any{"id": i, "content": nil}
		if !gen[i].Null {
			r["content"] = gen[i].Text
		}
		rows = append(rows, r)
	}
	return rows
}

func partitionRows(seed uint64, lo, hi int, parts [][2]string) []map[string]any {
	var rows []map[string]any
	for p, part := range parts {
		for _, r := range TextRows(seed+uint64(p)*1000, lo, hi) {
			r["region"], r["dt"] = part[0], part[1]
			rows = append(rows, r)
		}
	}
	return rows
}

func deletes(rows []map[string]any) []map[string]any {
	for _, r := range rows {
		r["_rowKind"] = "-D"
	}
	return rows
}

func concat(parts ...[]map[string]any) []map[string]any {
	var out []map[string]any
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// GoStepResult is what one step committed.
type GoStepResult struct {
	// SnapshotID is the committed snapshot, 0 when the step committed nothing.
	SnapshotID int64
	// Built and Retired count the full-text archives the step built and retired.
	Built, Retired int
}

// Run performs the table's steps with pkft on the table at path (its base already in place),
// with engine building and searching archives.
func (g GoTable) Run(ctx context.Context, path string, engine fulltext.Engine) ([]GoStepResult, error) {
	t, err := pkft.Open(ctx, path, openconfig.WithEngine(engine))
	if err != nil {
		return nil, err
	}
	var out []GoStepResult
	for i, s := range g.Steps {
		var r GoStepResult
		switch {
		case s.Maintain:
			res, err := t.Maintain(ctx, pkft.WithCommitUser(GoCommitUser), pkft.WithParallelism(1))
			if err != nil {
				return nil, fmt.Errorf("%s step %d (maintain): %w", g.Name, i+1, err)
			}
			r.SnapshotID = res.SnapshotID
			r.Built, r.Retired, _ = res.Totals()
		case s.Compact:
			res, err := t.Compact(ctx, pkft.WithCommitUser(GoCommitUser), pkft.WithParallelism(1))
			if err != nil {
				return nil, fmt.Errorf("%s step %d (compact): %w", g.Name, i+1, err)
			}
			r.SnapshotID = res.SnapshotID
			for _, b := range res.Buckets {
				r.Built += len(b.Built)
				r.Retired += len(b.Retired)
			}
		default:
			res, err := write(ctx, t, s.Rows)
			if err != nil {
				return nil, fmt.Errorf("%s step %d (write): %w", g.Name, i+1, err)
			}
			r.SnapshotID = res.SnapshotID
			r.Built, r.Retired = res.ArchivesBuilt, res.ArchivesRetired
		}
		out = append(out, r)
	}
	return out, nil
}

// write writes rows with a write-only pkft.Writer and commits them.
func write(ctx context.Context, t *pkft.Table, rows []map[string]any) (*pkft.WriteResult, error) {
	sch, err := table.Open(fileio.NewLocal(), t.Path()).LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	// Write-only: the recipe's writes stay on level 0 until its compaction steps (the corpus
	// and the answers Java recorded of it were made so, and the tail write's level-0 rows are
	// what go-written-jieba exercises).
	w, err := t.NewWriter(ctx, pkft.WithCommitUser(GoCommitUser), pkft.WithWriteOnly())
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		kind, values, err := GoRow(sch, r)
		if err == nil {
			err = w.Write(ctx, pkft.RowKind(kind), values)
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("row %v: %w", r, err), w.Abort(ctx))
		}
	}
	return w.Commit(ctx)
}

// GoRow converts a row in the runner's JSON forms ("_rowKind" optional) to its kind and its
// values in schema order, in internal/binrow's Go forms. INT, BIGINT, STRING and DATE columns only.
func GoRow(s *schema.TableSchema, r map[string]any) (types.RowKind, []any, error) {
	kind := types.Insert
	if v, ok := r["_rowKind"]; ok && v != nil {
		str, _ := v.(string)
		k, err := types.ParseRowKind(str)
		if err != nil {
			return 0, nil, err
		}
		kind = k
	}
	out := make([]any, len(s.Fields))
	for i, f := range s.Fields {
		v := r[f.Name]
		if v == nil {
			continue
		}
		switch f.Type.Root {
		case types.RootInt:
			switch n := v.(type) {
			case int:
				out[i] = int32(n)
			case int32:
				out[i] = n
			default:
				return 0, nil, fmt.Errorf("%s: %T for INT", f.Name, v)
			}
		case types.RootBigInt:
			switch n := v.(type) {
			case int:
				out[i] = int64(n)
			case int64:
				out[i] = n
			default:
				return 0, nil, fmt.Errorf("%s: %T for BIGINT", f.Name, v)
			}
		case types.RootVarChar, types.RootChar:
			str, ok := v.(string)
			if !ok {
				return 0, nil, fmt.Errorf("%s: %T for STRING", f.Name, v)
			}
			out[i] = str
		case types.RootDate:
			str, _ := v.(string)
			d, err := time.Parse("2006-01-02", str)
			if err != nil {
				return 0, nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			out[i] = int32(d.Unix() / 86400)
		default:
			return 0, nil, fmt.Errorf("%s: type %s is not handled by the harness", f.Name, f.Type.SQLString())
		}
	}
	return kind, out, nil
}

// GoExpected is the content of compat/golden/go/<table>.json: how the table was made and what
// the Java runner read from it at generation time (Dump, Rows and each Search verbatim).
type GoExpected struct {
	Generator string `json:"generator"`
	// Base is "java/<table>" for a table that started as a copy of that Java golden table,
	// "empty" for one Java's runner created empty; BaseSnapshotID is the base's latest snapshot
	// (0 when empty).
	Base           string `json:"base"`
	BaseSnapshotID int64  `json:"baseSnapshotId"`
	// Steps names Go's operations in order, and the snapshot each committed.
	Steps []GoStepRecord `json:"steps"`
	// Dump is Java's dump (with its full-text bucket state and plan); Rows is Java's read.
	Dump json.RawMessage `json:"dump"`
	Rows json.RawMessage `json:"rows"`
	// Limit is the limit of every query; Search holds Java's ranked search result of each of
	// Queries ({snapshotId, column, query, results: [{key, text, score, bucket, dataFile,
	// rowPosition}]}), in Paimon's order.
	Limit   int               `json:"limit"`
	Queries []string          `json:"queries"`
	Search  []json.RawMessage `json:"search"`
}

// GoStepRecord is one recorded step: its operation (write, compact or maintain), the rows it
// wrote, and the snapshot it committed (0: none).
type GoStepRecord struct {
	Op         string `json:"op"`
	Rows       int    `json:"rows,omitempty"`
	SnapshotID int64  `json:"snapshotId"`
}

// Op names the step's operation.
func (s GoStep) Op() string {
	switch {
	case s.Maintain:
		return "maintain"
	case s.Compact:
		return "compact"
	}
	return "write"
}

// GoTablePath is where the Go golden table name lives under root.
func GoTablePath(root, name string) string { return filepath.Join(root, GoTablesDir, name) }

// GoExpectedPath is where the expected output of the Go golden table name lives under root.
func GoExpectedPath(root, name string) string {
	return filepath.Join(root, GoExpectedDir, name+".json")
}

// GoGoldenTables lists the Go golden tables checked in under root; none is an error.
func GoGoldenTables(root string) ([]string, error) {
	return listTables(filepath.Join(root, GoTablesDir))
}

// GoTableByName returns the corpus definition of the Go golden table name.
func GoTableByName(name string) (GoTable, bool) {
	for _, g := range GoTables() {
		if g.Name == name {
			return g, true
		}
	}
	return GoTable{}, false
}

// ReadGoExpected reads the expected output of the Go golden table name strictly.
func ReadGoExpected(root, name string) (*GoExpected, error) {
	path := GoExpectedPath(root, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var exp GoExpected
	if err := dec.Decode(&exp); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(exp.Dump) == 0 || len(exp.Rows) == 0 || len(exp.Queries) == 0 || len(exp.Search) != len(exp.Queries) {
		return nil, fmt.Errorf("%s lacks the dump, the rows or a search result per query", path)
	}
	return &exp, nil
}

// WriteGoExpected stores exp as the expected output of the Go golden table name.
func WriteGoExpected(root, name string, exp *GoExpected) error {
	data, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(GoExpectedPath(root, name), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write expected output of %s: %w", name, err)
	}
	return nil
}

// PrepareBase lays the start of table g at dest, without Java: a copy of its Java golden base
// table under root, or, for a table that starts empty, the schema files of its checked-in Go
// golden table (what Java's create-table wrote). It returns the base's latest snapshot id (0
// when empty).
func (g GoTable) PrepareBase(ctx context.Context, root, dest string) (int64, error) {
	if g.BaseJava != "" {
		if err := CopyDir(JavaTablePath(root, g.BaseJava), dest); err != nil {
			return 0, err
		}
		snap, err := table.Open(fileio.NewLocal(), dest).Latest(ctx)
		if err != nil {
			return 0, err
		}
		return snap.ID, nil
	}
	src := filepath.Join(GoTablePath(root, g.Name), "schema")
	entries, err := os.ReadDir(src)
	if err != nil {
		return 0, err
	}
	if len(entries) != 1 || entries[0].Name() != schema.FileName(0) {
		return 0, fmt.Errorf("%s: want only %s (the empty table), found %d files", src, schema.FileName(0), len(entries))
	}
	return 0, CopyDir(src, filepath.Join(dest, "schema"))
}

// BaseName is how GoExpected.Base records the table's start.
func (g GoTable) BaseName() string {
	if g.BaseJava != "" {
		return "java/" + g.BaseJava
	}
	return "empty"
}

// CopyDir copies the regular files under src to dst (created), keeping the tree.
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != src {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
