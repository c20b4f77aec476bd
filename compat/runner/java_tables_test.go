package runner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// casesJavaTables registers the cases on tables the Java runner writes with the released Paimon 2.0.0
// classes: Go's canonical dump of each corpus table equals Java's (java->go); Java reads Go's
// metadata rewrite of each with the same dump and rows (go->java); source meta bytes are the
// same on both sides (go<->java); and Java classifies Go-written full-text payloads, correct and
// corrupt, the way Go does (java<->go). One JVM serves every case.
func casesJavaTables(ct *caseTable) {
	corpus := javaCorpus()
	jtf := javaTablesFixture(corpus)
	for _, c := range corpus {
		ct.add(caseRow{Name: "table/java-dump/" + c.name, Direction: "java->go", Doc: docTableJavaDumpTable,
			Sides: []caseSide{side("java", Writer, Compactor), side("go", Consumer)},
			Uses:  []caseUse{made(jtf)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				jt := jtf.in(ce)
				if err := jt.build(ctx, c); err != nil {
					return err
				}
				return jt.sameDumps(ctx, c.path)
			}})
	}
	impls, runners := consumerRunners(ct)
	// Every maintainer: go's rows on the tables of the cases above, another's on tables of its own.
	newTables := func() *fixture[*javaTables] { return javaTablesFixture(javaCorpus()) }
	forProducers(impls, []Role{Maintainer}, jtf, newTables, func(p string, pf *fixture[*javaTables]) {
		ct.add(caseRow{Name: "table/metadata-rewrite", Direction: as(p, "go->java"), Doc: docTableMetadataRewrite,
			Sides: []caseSide{side(p, Maintainer), side("java", Consumer)},
			Uses:  []caseUse{runnerOf(runners, p, "rewrite-metadata"), made(pf)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				jt := pf.in(ce)
				var errs []error
				for _, c := range jt.corpus {
					if err := jt.build(ctx, c); err != nil {
						errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
						continue
					}
					if err := jt.rewrite(ctx, ce.runner(p), c); err != nil {
						errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
					}
				}
				return errors.Join(errs...)
			}})
		ct.add(caseRow{Name: "source-meta/bytes", Direction: as(p, "go<->java"), Doc: docSourceMetaBytes,
			Sides: []caseSide{side(p, Maintainer), side("java", Maintainer)},
			Uses:  []caseUse{serving(pf, sourceMetaCommands...), runnerOf(runners, p, sourceMetaCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return sourceMetaBytes(ctx, pf.in(ce).proc, ce.runner(p))
			}})
	})
	casesSameLevelArchives(ct, jtf, corpus, impls, runners)
	for _, v := range corruptVariants() {
		ct.add(caseRow{Name: "state/corrupt/" + v.name, Direction: "java<->go", Doc: docStateCorruptVariant,
			Sides: []caseSide{side("java", Maintainer, Consumer), side("go", Maintainer, Consumer)},
			Uses:  []caseUse{made(jtf)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				jt := jtf.in(ce)
				if err := jt.buildStateTable(ctx); err != nil {
					return err
				}
				return jt.corruptCase(ctx, v)
			}})
	}
}

// javaTablesFixture is a javaTables over corpus with its own Java runner and directory, made on
// first use.
func javaTablesFixture(corpus []*corpusTable) *fixture[*javaTables] {
	return newFixture(func(t *testing.T) *javaTables {
		jt := &javaTables{dir: t.TempDir(), corpus: corpus}
		if p, err := StartJava(context.Background()); err != nil {
			jt.startErr = unavailable{testenv.RequireJavaEnv, err}
		} else {
			t.Cleanup(func() { p.Close() })
			jt.proc = p
		}
		return jt
	})
}

// Runner commands the cases use.
var (
	tableCommands      = []string{"create-table", "write", "compact", "read", "dump"}
	sourceMetaCommands = []string{"source-meta-encode", "source-meta-decode"}
	stateCommands      = append(slices.Clone(tableCommands), "alter-table")
)

// need fails unless the runner started and serves cmds.
func (jt *javaTables) need(ctx context.Context, cmds ...string) error {
	if jt.startErr != nil {
		return jt.startErr
	}
	switch ok, err := HasCommands(ctx, jt.proc, cmds...); {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("the Java runner lacks one of %v: rebuild it (make runner)", cmds)
	}
	return nil
}

// javaTables is the state shared by the cases of one casesJavaTables call.
type javaTables struct {
	proc     *Process
	startErr error
	dir      string
	corpus   []*corpusTable

	state *stateTable
}

// field is one column of a table the Java runner creates.
type field struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// row is one row for the Java runner's write ("_rowKind": "-D" deletes).
type row = map[string]any

// tableStep is one commit Java makes: a write (optionally with a full compaction of every bucket
// in the same commit) or, when rows is nil, a full compaction. A step with alter set commits
// no snapshot: it changes the schema with the runner's alter-table (its arguments but the path).
type tableStep struct {
	rows    []row
	compact bool
	alter   map[string]any
}

// corpusTable is one Java-written table of the corpus, built on first use.
type corpusTable struct {
	name          string
	fields        []field
	primaryKeys   []string
	partitionKeys []string
	options       map[string]string
	steps         []tableStep
	// exercises fails when the table does not show what it is in the corpus for.
	exercises func(path string, d *inspect.Dump) error

	built    bool
	buildErr error
	path     string
}

func javaCorpus() []*corpusTable {
	idContent := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	// The ngram table of the full-text corpus comes last: the format layer is checked on
	// archives built with ngram analyzer options too.
	return append([]*corpusTable{
		{
			name:        "full-compaction",
			fields:      append(slices.Clone(idContent), field{"n", "BIGINT"}),
			primaryKeys: []string{"id"},
			options:     map[string]string{"bucket": "1"},
			steps: []tableStep{
				{rows: withN(idRows(0, 40, "first")), compact: true},
				{rows: withN(idRows(20, 60, "second")), compact: true},
				{rows: append(withN(idRows(50, 70, "third")), deletes(idRows(0, 10, ""))...), compact: true},
			},
			exercises: func(_ string, d *inspect.Dump) error {
				if d.SnapshotID < 4 || !anyDataFile(d, func(f inspect.DataFileDump) bool { return f.Level > 0 && f.FileSource == "COMPACT" }) {
					return errors.New("no compacted file above level 0 after several fully compacted commits")
				}
				return nil
			},
		},
		{
			name: "partitioned-dv",
			fields: []field{
				{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"},
			},
			primaryKeys:   []string{"region", "dt", "id"},
			partitionKeys: []string{"region", "dt"},
			options:       map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"},
			steps:         dvSteps(partitionedRows),
			exercises:     hasDVRanges,
		},
		{
			name:        "index-in-data-dir",
			fields:      idContent,
			primaryKeys: []string{"id"},
			options: map[string]string{
				"bucket": "2", "deletion-vectors.enabled": "true", "index-file-in-data-file-dir": "true",
			},
			steps: dvSteps(idRows),
			exercises: func(path string, d *inspect.Dump) error {
				if err := hasDVRanges(path, d); err != nil {
					return err
				}
				// The option must have put the index files beside the data files.
				for _, b := range d.Buckets {
					for _, f := range b.IndexFiles {
						in := filepath.Join(path, fmt.Sprintf("bucket-%d", b.Bucket), f.FileName)
						if _, err := os.Stat(in); err != nil {
							return fmt.Errorf("index file %s is not in its bucket directory: %w", f.FileName, err)
						}
					}
				}
				return nil
			},
		},
		{
			name:        "two-levels",
			fields:      idContent,
			primaryKeys: []string{"id"},
			options:     twoLevelOptions(),
			steps:       twoLevelSteps(),
			exercises:   hasTwoLevels,
		},
		{
			name: "composite-key",
			fields: []field{
				{"price", "DECIMAL(10, 2) NOT NULL"}, {"ts", "TIMESTAMP(3) NOT NULL"}, {"content", "STRING"}, {"qty", "DECIMAL(10, 2)"},
			},
			primaryKeys: []string{"price", "ts"},
			// Deletion vectors, fully compacted away: index files without ranges.
			options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"},
			steps: []tableStep{
				{rows: compositeRows(0, 60, "first"), compact: true},
				{rows: append(compositeRows(56, 64, "second"), deletes(compositeRows(0, 4, ""))...)},
				{},
			},
			exercises: func(_ string, d *inspect.Dump) error {
				var types []string
				for _, f := range d.Schema.Fields {
					types = append(types, f.Type)
				}
				if len(d.Buckets) != 2 || !slices.Contains(types, "DECIMAL(10, 2) NOT NULL") || !slices.Contains(types, "TIMESTAMP(3) NOT NULL") {
					return fmt.Errorf("want 2 buckets with DECIMAL and TIMESTAMP key columns, got %d buckets of %v", len(d.Buckets), types)
				}
				for _, b := range d.Buckets {
					for _, f := range b.IndexFiles {
						if f.IndexType == meta.IndexTypeDeletionVectors && len(f.DeletionVectors) == 0 {
							return nil
						}
					}
				}
				return errors.New("no DELETION_VECTORS index file without ranges after full compaction")
			},
		},
	}, ftCorpusTable(ftNgramTable))
}

// idRows are rows id in [lo, hi) with content naming tag.
func idRows(lo, hi int, tag string) []row {
	var rows []row
	for i := lo; i < hi; i++ {
		rows = append(rows, row{"id": i, "content": fmt.Sprintf("%s row %d", tag, i)})
	}
	return rows
}

// withN gives every row a BIGINT n.
func withN(rows []row) []row {
	for _, r := range rows {
		r["n"] = int64(r["id"].(int)) * 1_000_003
	}
	return rows
}

func deletes(rows []row) []row {
	for _, r := range rows {
		r["_rowKind"] = "-D"
	}
	return rows
}

func partitionedRows(lo, hi int, tag string) []row {
	var rows []row
	for _, region := range []string{"eu", "us"} {
		for _, dt := range []string{"2024-01-31", "2024-02-29"} {
			for i := lo; i < hi; i++ {
				rows = append(rows, row{"region": region, "dt": dt, "id": i, "content": fmt.Sprintf("%s %s %s %d", tag, region, dt, i)})
			}
		}
	}
	return rows
}

func compositeRows(lo, hi int, tag string) []row {
	prices := []string{"12.50", "-3.05", "99999999.99", "0.01"}
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	var rows []row
	for i := lo; i < hi; i++ {
		ts := base.Add(time.Duration(i)*time.Hour + time.Duration(i*7%1000)*time.Millisecond)
		rows = append(rows, row{
			"price":   prices[i%len(prices)],
			"ts":      ts.Format("2006-01-02T15:04:05.000"),
			"content": fmt.Sprintf("%s %d", tag, i),
			"qty":     fmt.Sprintf("%d.%02d", i, i%100),
		})
	}
	return rows
}

// dvSteps writes a base and overlapping rows without compaction, compacts every bucket, then
// writes a few updates and deletes without compaction: Java's lookup compaction of that level-0
// file marks the replaced rows of the compacted files in deletion vectors.
func dvSteps(rows func(lo, hi int, tag string) []row) []tableStep {
	updates := rows(0, 6, "updated")
	return []tableStep{
		{rows: rows(0, 40, "first")},
		{rows: rows(30, 50, "second")},
		{},
		{rows: append(updates, deletes(rows(10, 13, ""))...)},
	}
}

// twoLevelOptions and twoLevelSteps make Java keep compacted files on two non-zero levels
// (levels 0..5 by default). Every commit writes one level-0 file, which the lookup compaction of
// a deletion-vector table picks at once with the runs above it whose size it reaches (Paimon's
// ForceUpLevel0Compaction and UniversalCompaction#pickForSizeRatio): two fully compacted commits
// leave a compacted file on level 5; a small write is then upgraded to level 4, and a larger one
// merged with it there.
func twoLevelOptions() map[string]string {
	return map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "target-file-size": "16 kb"}
}

func twoLevelSteps() []tableStep { return scaledTwoLevelSteps(2500) }

// scaledTwoLevelSteps is the recipe of twoLevelSteps with base rows in the first commit (2,500
// there) and the second commit's rows in proportion.
func scaledTwoLevelSteps(base int) []tableStep {
	spread := func(lo, hi int, tag string) []row {
		var rows []row
		for k := lo; k < hi; k++ {
			i := k * 7919 % 100_003
			rows = append(rows, row{"id": i, "content": fmt.Sprintf("%s %d %s", tag, i, strings.Repeat("x", 20))})
		}
		return rows
	}
	end := base * 32 / 25
	return []tableStep{
		{rows: spread(0, base, "base"), compact: true},
		{rows: spread(base*4/5, end, "second"), compact: true},
		{rows: spread(0, 10, "small")},
		{rows: append(spread(5, 25, "larger"), deletes(spread(end-10, end, ""))...)},
	}
}

func anyDataFile(d *inspect.Dump, pred func(inspect.DataFileDump) bool) bool {
	for _, b := range d.Buckets {
		if slices.ContainsFunc(b.DataFiles, pred) {
			return true
		}
	}
	return false
}

func hasDVRanges(_ string, d *inspect.Dump) error {
	for _, b := range d.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType == meta.IndexTypeDeletionVectors && len(f.DeletionVectors) > 0 {
				return nil
			}
		}
	}
	return errors.New("no DELETION_VECTORS index file with ranges: the table does not exercise deletion vectors")
}

func hasTwoLevels(_ string, d *inspect.Dump) error {
	for _, b := range d.Buckets {
		levels := map[int32]bool{}
		for _, f := range b.DataFiles {
			if f.Level > 0 && f.FileSource == "COMPACT" {
				levels[f.Level] = true
			}
		}
		if len(levels) >= 2 {
			return nil
		}
	}
	return errors.New("no bucket has compacted files on two non-zero levels")
}

// build creates and writes c with Java once; later calls return the first outcome.
func (jt *javaTables) build(ctx context.Context, c *corpusTable) error {
	if c.built {
		return c.buildErr
	}
	c.built = true
	if c.buildErr = jt.need(ctx, tableCommands...); c.buildErr != nil {
		return c.buildErr
	}
	c.path, c.buildErr = jt.create(ctx, c.name, c.fields, c.primaryKeys, c.partitionKeys, c.options, c.steps)
	if c.buildErr != nil {
		return c.buildErr
	}
	d, err := javaDump(ctx, jt.proc, c.path)
	if err != nil {
		c.buildErr = err
		return err
	}
	if err := c.exercises(c.path, d); err != nil {
		c.buildErr = fmt.Errorf("the corpus table no longer exercises what it is for: %w", err)
	}
	return c.buildErr
}

// create makes a table in a fresh warehouse with Java and commits steps; it returns the path.
func (jt *javaTables) create(ctx context.Context, name string, fields []field, pks, partKeys []string, options map[string]string, steps []tableStep) (string, error) {
	return createJavaTable(ctx, jt.proc, filepath.Join(jt.dir, name), name, fields, pks, partKeys, options, steps)
}

// createJavaTable makes the table name in warehouse with the Java runner p and commits steps; it
// returns the table's path.
func createJavaTable(ctx context.Context, p *Process, warehouse, name string, fields []field, pks, partKeys []string, options map[string]string, steps []tableStep) (string, error) {
	var created struct {
		Path string `json:"path"`
	}
	if partKeys == nil {
		partKeys = []string{}
	}
	err := p.Call(ctx, "create-table", map[string]any{
		"warehouse": warehouse, "database": "conformance", "table": strings.ReplaceAll(name, "-", "_"),
		"fields": fields, "primaryKeys": pks, "partitionKeys": partKeys, "options": options,
	}, &created)
	if err != nil {
		return "", err
	}
	path := strings.TrimPrefix(created.Path, "file:")
	for i, s := range steps {
		switch {
		case s.alter != nil:
			args := map[string]any{"path": path}
			for k, v := range s.alter {
				args[k] = v
			}
			err = p.Call(ctx, "alter-table", args, nil)
		case s.rows == nil:
			err = p.Call(ctx, "compact", map[string]any{"path": path}, nil)
		default:
			args := map[string]any{"path": path, "rows": s.rows}
			if s.compact {
				args["compact"] = "full"
			}
			err = p.Call(ctx, "write", args, nil)
		}
		if err != nil {
			return "", fmt.Errorf("step %d: %w", i, err)
		}
	}
	return path, nil
}

// javaDump is Java's canonical dump of the table at path.
func javaDump(ctx context.Context, p *Process, path string) (*inspect.Dump, error) {
	var raw json.RawMessage
	if err := p.Call(ctx, "dump", map[string]any{"path": path}, &raw); err != nil {
		return nil, err
	}
	var d inspect.Dump
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decode Java's dump: %w", err)
	}
	return &d, nil
}

// goDump is Go's canonical dump of the table at path, passed through its JSON form so that it
// compares with a decoded Java dump (numbers in partitions and index meta become float64).
func goDump(ctx context.Context, path string) (*inspect.Dump, error) {
	return goDumpOn(ctx, fileio.NewLocal(), path)
}

// goDumpOn is goDump of a table on the file system fio.
func goDumpOn(ctx context.Context, fio fileio.FileIO, path string) (*inspect.Dump, error) {
	d, err := inspect.TableDump(ctx, table.Open(fio, path), inspect.FullTextState)
	if err != nil {
		return nil, fmt.Errorf("go dump: %w", err)
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var out inspect.Dump
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// diffDumps compares Java's dump with Go's. Go's state also names the levels with duplicate
// archives (StateDump.Duplicates, which Java's dump does not carry): each archive it names must
// be one Java classifies stale in the same bucket; the field is otherwise left out of the
// comparison.
func diffDumps(java, golang *inspect.Dump) string {
	var bad []string
	for i, gb := range golang.Buckets {
		if gb.State == nil || len(gb.State.Duplicates) == 0 {
			continue
		}
		var javaStale []string
		if i < len(java.Buckets) && java.Buckets[i].State != nil {
			javaStale = java.Buckets[i].State.Stale
		}
		for _, d := range gb.State.Duplicates {
			for _, a := range d.Archives {
				if !slices.Contains(javaStale, a) {
					bad = append(bad, fmt.Sprintf("bucket %d: Go names %s a duplicate archive of level %d, Java does not classify it stale", gb.Bucket, a, d.Level))
				}
			}
		}
	}
	d := cmp.Diff(java, golang, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(inspect.StateDump{}, "Duplicates"))
	if len(bad) > 0 {
		d = strings.Join(bad, "\n") + "\n" + d
	}
	return d
}

// sameDumps checks Go's dump of the table at path equals Java's.
func (jt *javaTables) sameDumps(ctx context.Context, path string) error {
	j, err := javaDump(ctx, jt.proc, path)
	if err != nil {
		return err
	}
	g, err := goDump(ctx, path)
	if err != nil {
		return err
	}
	if d := diffDumps(j, g); d != "" {
		return fmt.Errorf("dumps differ (-java +go):\n%s", d)
	}
	return nil
}

type javaRows struct {
	Rows []map[string]any `json:"rows"`
}

// rewriteAnswer is a runner's answer to rewrite-metadata.
type rewriteAnswer = protocol.RewriteMetadataResponse

// rewrite re-encodes c's metadata with Go and checks Java reads the result: Java's dump equals
// Go's and, but for the snapshot id and commit kind, Java's dump before; Java reads the same
// rows.
func (jt *javaTables) rewrite(ctx context.Context, goP *Process, c *corpusTable) error {
	before, err := javaDump(ctx, jt.proc, c.path)
	if err != nil {
		return err
	}
	var rowsBefore, rowsAfter javaRows
	if err := jt.proc.Call(ctx, "read", map[string]any{"path": c.path}, &rowsBefore); err != nil {
		return err
	}
	var snap rewriteAnswer
	if err := goP.Call(ctx, "rewrite-metadata", map[string]any{"path": c.path}, &snap); err != nil {
		return fmt.Errorf("rewrite: %w", err)
	}
	if snap.SnapshotBefore != before.SnapshotID || snap.SnapshotAfter != before.SnapshotID+1 {
		return fmt.Errorf("Go's rewrite committed snapshot %d on %d, want the next of Java's %d", snap.SnapshotAfter, snap.SnapshotBefore, before.SnapshotID)
	}
	after, err := javaDump(ctx, jt.proc, c.path)
	if err != nil {
		return fmt.Errorf("Java dumping Go's snapshot: %w", err)
	}
	if after.SnapshotID != snap.SnapshotAfter || after.CommitKind != "COMPACT" {
		return fmt.Errorf("Java sees snapshot %d (%s), want Go's %d (COMPACT)", after.SnapshotID, after.CommitKind, snap.SnapshotAfter)
	}
	g, err := goDump(ctx, c.path)
	if err != nil {
		return err
	}
	if d := diffDumps(after, g); d != "" {
		return fmt.Errorf("dumps of Go's snapshot differ (-java +go):\n%s", d)
	}
	want := *before
	want.SnapshotID, want.CommitKind = after.SnapshotID, after.CommitKind
	if d := diffDumps(&want, after); d != "" {
		return fmt.Errorf("Java's dump changed across the rewrite (-before +after):\n%s", d)
	}
	if err := jt.proc.Call(ctx, "read", map[string]any{"path": c.path}, &rowsAfter); err != nil {
		return err
	}
	if len(rowsBefore.Rows) == 0 {
		return errors.New("the table has no rows: nothing compared")
	}
	if d := cmp.Diff(rowsBefore.Rows, rowsAfter.Rows); d != "" {
		return fmt.Errorf("rows Java reads changed across the rewrite (-before +after):\n%s", d)
	}
	return nil
}

// sourceMetaBytes checks Java's and Go's source meta bytes on file names in every width of
// modified UTF-8, up to the 65535-byte limit of writeUTF, and that both reject a name one byte
// over it. Go's side runs through the Go runner goP (the protocol's source-meta-encode and
// source-meta-decode), as Java's through p.
func sourceMetaBytes(ctx context.Context, p, goP *Process) error {
	// "\x00" takes two bytes in modified UTF-8 and a supplementary character six (a surrogate
	// pair), against one and four in UTF-8: the limit names are at the limit only when counted
	// as Java counts.
	atLimitNUL := "\x00" + strings.Repeat("中", 21844) + "a"
	atLimitEmoji := strings.Repeat("😀", 10922) + "abc"
	names := []string{
		"data-3f1c2a-0.parquet", "é", "中文", "😀", "a\x00b", "mixé中😀\x00z",
		atLimitNUL, atLimitEmoji, strings.Repeat("a", 65535),
	}
	counts := []int64{0, 1, 42, 1 << 40, math.MaxInt64, 7, 3, 5}
	if n := modifiedUTF8Len(atLimitNUL); n != 65535 {
		return fmt.Errorf("test bug: limit name takes %d bytes", n)
	}
	if n := modifiedUTF8Len(atLimitEmoji); n != 65535 {
		return fmt.Errorf("test bug: limit name takes %d bytes", n)
	}
	type fileJSON struct {
		FileName string `json:"fileName"`
		RowCount int64  `json:"rowCount"`
	}
	type metaJSON struct {
		Level int32      `json:"level"`
		Files []fileJSON `json:"files"`
	}
	cases := []metaJSON{{Level: 1}, {Level: 5}, {Level: math.MaxInt32}}
	for i, n := range names {
		cases[0].Files = append(cases[0].Files, fileJSON{n, counts[i%len(counts)]})
		cases[1].Files = append(cases[1].Files, fileJSON{n, counts[(i+3)%len(counts)]})
	}
	cases[2].Files = []fileJSON{{atLimitEmoji, 9}}
	for i := range names {
		cases = append(cases, metaJSON{Level: int32(i + 1), Files: []fileJSON{{names[i], counts[i%len(counts)]}}})
	}

	encode := func(p *Process, m metaJSON) ([]byte, error) {
		var res struct {
			Bytes string `json:"bytes"`
		}
		if err := p.Call(ctx, "source-meta-encode", m, &res); err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(res.Bytes)
	}
	goEncode := func(m metaJSON) ([]byte, error) { return encode(goP, m) }
	javaEncode := func(m metaJSON) ([]byte, error) { return encode(p, m) }
	short := func(m metaJSON) string {
		var parts []string
		for _, f := range m.Files {
			n := f.FileName
			if len(n) > 24 {
				n = fmt.Sprintf("%.24q...(%d bytes)", n, len(n))
			} else {
				n = strconv.Quote(n)
			}
			parts = append(parts, n)
		}
		return fmt.Sprintf("level %d %v", m.Level, parts)
	}
	for _, m := range cases {
		g, err := goEncode(m)
		if err != nil {
			return fmt.Errorf("%s: go encode: %w", short(m), err)
		}
		j, err := javaEncode(m)
		if err != nil {
			return fmt.Errorf("%s: %w", short(m), err)
		}
		if string(g) != string(j) {
			i := 0
			for i < len(g) && i < len(j) && g[i] == j[i] {
				i++
			}
			return fmt.Errorf("%s: go bytes (%d) differ from java bytes (%d) at offset %d", short(m), len(g), len(j), i)
		}
		// Go decodes Java's bytes.
		var got metaJSON
		if err := goP.Call(ctx, "source-meta-decode", map[string]any{"bytes": base64.StdEncoding.EncodeToString(j)}, &got); err != nil {
			return fmt.Errorf("%s: go decoding java's bytes: %w", short(m), err)
		}
		if d := cmp.Diff(m, got); d != "" {
			return fmt.Errorf("%s: go decodes java's bytes differently (-want +got):\n%.2000s", short(m), d)
		}
		// Java decodes Go's bytes.
		var jgot metaJSON
		if err := p.Call(ctx, "source-meta-decode", map[string]any{"bytes": base64.StdEncoding.EncodeToString(g)}, &jgot); err != nil {
			return fmt.Errorf("%s: %w", short(m), err)
		}
		if d := cmp.Diff(m, jgot); d != "" {
			return fmt.Errorf("%s: java decodes go's bytes differently (-want +got):\n%.2000s", short(m), d)
		}
	}
	// One byte over the limit, counted in modified UTF-8 (the first two are within it in plain
	// UTF-8).
	for _, over := range []string{atLimitNUL + "a", atLimitEmoji + "d", strings.Repeat("a", 65536)} {
		m := metaJSON{Level: 1, Files: []fileJSON{{"ok", 1}, {over, 2}}}
		_, gerr := goEncode(m)
		_, jerr := javaEncode(m)
		var remote *RemoteError
		switch {
		case gerr != nil && !errors.As(gerr, &remote):
			return gerr
		case gerr == nil && jerr == nil:
			return fmt.Errorf("%s: both sides encode a name of %d modified UTF-8 bytes", short(m), modifiedUTF8Len(over))
		case gerr == nil:
			return fmt.Errorf("%s: Java rejects it (%v), Go encodes it", short(m), jerr)
		case jerr == nil:
			return fmt.Errorf("%s: Go rejects it (%v), Java encodes it", short(m), gerr)
		case !errors.As(jerr, &remote):
			return jerr
		}
	}
	return nil
}

// modifiedUTF8Len is the length of s in Java's modified UTF-8 (DataOutput.writeUTF).
func modifiedUTF8Len(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == 0:
			n += 2
		case r < 0x80:
			n++
		case r < 0x800:
			n += 2
		case r < 0x10000:
			n += 3
		default:
			n += 6
		}
	}
	return n
}

// stateTable is the Java-written table the state cases commit crafted payloads to.
type stateTable struct {
	built    bool
	err      error
	path     string
	schemaID int64
	// base is the Java-written snapshot every variant's snapshot builds on.
	base *snapshot.Snapshot
	// textFieldID is the id of the indexed column, otherField that of another one.
	textFieldID int32
	otherField  int32
	bucket      *table.Bucket
	// eligible holds Java's eligible files of the bucket per level.
	eligible map[int32][]pkindex.SourceFile
	levels   []int32
	// target is the level the payloads under test are for: the one with the most eligible files
	// (the lowest of those); others are the other levels with eligible files.
	target int32
	others []int32
	// removed is a data file of the bucket an earlier snapshot had and the base has not.
	removed pkindex.SourceFile
}

// buildStateTable writes, with Java, a table whose bucket has compacted files on two non-zero
// levels and files removed by compaction, then sets pk-full-text.index.columns with Java's
// SchemaManager (Java cannot write a table with the option: its compaction needs the full-text
// indexer, which this runner lacks).
func (jt *javaTables) buildStateTable(ctx context.Context) error {
	if jt.state == nil {
		jt.state = &stateTable{}
	}
	st := jt.state
	if st.built {
		return st.err
	}
	st.built = true
	st.err = func() error {
		if err := jt.need(ctx, stateCommands...); err != nil {
			return err
		}
		path, err := jt.create(ctx, "state", []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil, twoLevelOptions(), twoLevelSteps())
		if err != nil {
			return err
		}
		st.path = path
		var altered struct {
			SchemaID int64 `json:"schemaId"`
		}
		if err := jt.proc.Call(ctx, "alter-table", map[string]any{
			"path": path, "setOptions": map[string]string{pkfulltext.ColumnsOption: "content"},
		}, &altered); err != nil {
			return err
		}
		st.schemaID = altered.SchemaID
		t := table.Open(fileio.NewLocal(), path)
		if st.base, err = t.Latest(ctx); err != nil {
			return err
		}
		sch, err := t.Schema(ctx, st.schemaID)
		if err != nil {
			return err
		}
		text, ok := sch.FieldByName("content")
		other, ok2 := sch.FieldByName("id")
		if !ok || !ok2 {
			return errors.New("schema lacks content or id")
		}
		st.textFieldID, st.otherField = int32(text.ID), int32(other.ID)
		contents, err := t.Read(ctx, st.base)
		if err != nil {
			return err
		}
		if len(contents.Buckets) != 1 {
			return fmt.Errorf("%d buckets, want 1", len(contents.Buckets))
		}
		st.bucket = contents.Buckets[0]

		// The eligible files per level as Java sees them once the option is set: commit the
		// base contents again under the new schema and ask Java's dump.
		if _, err := commitIndex(ctx, t, st.base, st.schemaID, contents.IndexEntries); err != nil {
			return err
		}
		d, err := javaDump(ctx, jt.proc, path)
		if err != nil {
			return err
		}
		if len(d.Buckets) != 1 || d.Buckets[0].State == nil || d.Buckets[0].State.Error != "" {
			return fmt.Errorf("Java's dump has no full-text state for the bucket: %+v", d.Buckets)
		}
		sizes := map[string]int64{}
		for _, f := range d.Buckets[0].DataFiles {
			sizes[f.FileName] = f.RowCount
		}
		st.eligible = map[int32][]pkindex.SourceFile{}
		for lv, names := range d.Buckets[0].State.Eligible {
			level, err := strconv.Atoi(lv)
			if err != nil {
				return err
			}
			for _, n := range names {
				sf, err := pkindex.NewSourceFile(n, sizes[n])
				if err != nil {
					return err
				}
				st.eligible[int32(level)] = append(st.eligible[int32(level)], sf)
			}
			st.levels = append(st.levels, int32(level))
		}
		slices.Sort(st.levels)
		if len(st.levels) < 2 {
			return fmt.Errorf("Java sees eligible files on levels %v, want two non-zero levels", st.levels)
		}
		st.target = st.levels[0]
		for _, lv := range st.levels {
			if len(st.eligible[lv]) > len(st.eligible[st.target]) {
				st.target = lv
			}
		}
		if len(st.eligible[st.target]) < 2 {
			return fmt.Errorf("no level has two eligible files (%v): source file order is not exercised", st.eligible)
		}
		for _, lv := range st.levels {
			if lv != st.target {
				st.others = append(st.others, lv)
			}
		}
		// A file an earlier snapshot had in the bucket and the base has not.
		live := map[string]bool{}
		for _, f := range st.bucket.DataFiles {
			live[f.FileName] = true
		}
		for id := st.base.ID - 1; id >= 1 && st.removed.FileName() == ""; id-- {
			s, err := t.Snapshots.Snapshot(ctx, id)
			if err != nil {
				return err
			}
			c, err := t.Read(ctx, s)
			if err != nil {
				return err
			}
			for _, b := range c.Buckets {
				for _, f := range b.DataFiles {
					if !live[f.FileName] && f.Level > 0 {
						if st.removed, err = pkindex.NewSourceFile(f.FileName, f.RowCount); err != nil {
							return err
						}
					}
				}
			}
		}
		if st.removed.FileName() == "" {
			return errors.New("no data file was removed by Java's compactions: the removed-file variant has nothing to name")
		}
		return nil
	}()
	return st.err
}

// commitIndex commits the next snapshot of t (a COMPACT commit, as Go writes them): the data
// files of base, and an index manifest of entries, under schema schemaID; it returns the new
// snapshot's id. Its base manifest list holds base's base and delta manifests, its delta list is
// empty: the commit changes no data file.
func commitIndex(ctx context.Context, t *table.Table, base *snapshot.Snapshot, schemaID int64, entries []meta.IndexManifestEntry) (int64, error) {
	latest, err := t.Latest(ctx)
	if err != nil {
		return 0, err
	}
	sch, err := t.Schema(ctx, schemaID)
	if err != nil {
		return 0, err
	}
	factory, err := paths.NewTableFactory(t.Root, sch.Options)
	if err != nil {
		return 0, err
	}
	contents, err := t.Read(ctx, base)
	if err != nil {
		return 0, err
	}
	opts := manifest.WriteOptions{Compression: sch.Options[tableops.ManifestCompressionOption]}
	write := func(path string, encode func(io.Writer) error) (string, int64, error) {
		out, err := t.FileIO.Create(ctx, path)
		if err != nil {
			return "", 0, err
		}
		if err := encode(out); err != nil {
			out.Abort()
			return "", 0, err
		}
		if err := out.Commit(ctx); err != nil {
			return "", 0, err
		}
		size, err := t.FileIO.FileSize(ctx, path)
		return paths.Name(path), size, err
	}
	all := append(slices.Clone(contents.BaseManifests), contents.DeltaManifests...)
	baseList, baseSize, err := write(factory.NewManifestList(), func(w io.Writer) error { return manifest.WriteManifestList(w, all, opts) })
	if err != nil {
		return 0, err
	}
	deltaList, deltaSize, err := write(factory.NewManifestList(), func(w io.Writer) error { return manifest.WriteManifestList(w, nil, opts) })
	if err != nil {
		return 0, err
	}
	index, _, err := write(factory.NewIndexManifest(), func(w io.Writer) error { return manifest.WriteIndexManifest(w, entries, opts) })
	if err != nil {
		return 0, err
	}
	id := uuid.NewString()
	next := *base
	next.Version = snapshot.CurrentVersion
	next.UUID = &id
	next.ID = latest.ID + 1
	next.SchemaID = schemaID
	next.BaseManifestList, next.BaseManifestListSize = baseList, &baseSize
	next.DeltaManifestList, next.DeltaManifestListSize = deltaList, &deltaSize
	next.ChangelogManifestList, next.ChangelogManifestListSize = nil, nil
	next.IndexManifest = &index
	next.CommitUser = "pkft-conformance"
	next.CommitIdentifier = math.MaxInt64
	next.CommitKind = snapshot.CommitCompact
	next.TimeMillis = time.Now().UnixMilli()
	next.DeltaRecordCount = 0
	next.ChangelogRecordCount = nil
	next.Operation = nil
	if err := t.Snapshots.Commit(ctx, &next); err != nil {
		return 0, err
	}
	return next.ID, nil
}

// payloadSpec describes one crafted full-text payload.
type payloadSpec struct {
	level   int32
	files   []pkindex.SourceFile
	fieldID int32
	// rowCountDelta is added to the payload's row count (its row range stays that of the files).
	rowCountDelta int64
	// sourceMeta, when set, replaces the encoded source meta.
	sourceMeta []byte
}

// corruptVariant is one state case: the payloads it commits, those for the target level being
// under test, and whether they must be current.
type corruptVariant struct {
	name string
	// payloads returns the crafted payloads; target lists the names of those under test.
	payloads func(st *stateTable) (specs []payloadSpec, target []int)
	current  bool
}

func corruptVariants() []corruptVariant {
	// correct is the payload Java's state wants for level lv.
	correct := func(st *stateTable, lv int32) payloadSpec {
		return payloadSpec{level: lv, files: st.eligible[lv], fieldID: st.textFieldID}
	}
	// withOthers puts a correct payload on every other level beside the ones under test.
	withOthers := func(st *stateTable, under ...payloadSpec) ([]payloadSpec, []int) {
		specs := slices.Clone(under)
		var target []int
		for i := range under {
			target = append(target, i)
		}
		for _, lv := range st.others {
			specs = append(specs, correct(st, lv))
		}
		return specs, target
	}
	return []corruptVariant{
		{name: "correct", current: true, payloads: func(st *stateTable) ([]payloadSpec, []int) {
			return withOthers(st, correct(st, st.target))
		}},
		{name: "wrong-row-count", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.rowCountDelta = 1
			return withOthers(st, p)
		}},
		{name: "wrong-source-row-count", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.files = slices.Clone(p.files)
			p.files[0], _ = pkindex.NewSourceFile(p.files[0].FileName(), p.files[0].RowCount()+1)
			return withOthers(st, p)
		}},
		{name: "two-payloads-one-level", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			return withOthers(st, correct(st, st.target), correct(st, st.target))
		}},
		{name: "other-field", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.fieldID = st.otherField
			return withOthers(st, p)
		}},
		{name: "unparsable-source-meta", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			good, _ := encodeSpec(p)
			p.sourceMeta = append(good, 0) // a trailing byte
			return withOthers(st, p)
		}},
		{name: "removed-file", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.files = append(slices.Clone(p.files), st.removed)
			sortSources(p.files)
			return withOthers(st, p)
		}},
		{name: "mixed-levels", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.files = append(slices.Clone(p.files), st.eligible[st.others[0]]...)
			sortSources(p.files)
			return withOthers(st, p)
		}},
		{name: "unsorted-sources", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.files = slices.Clone(p.files)
			slices.Reverse(p.files)
			return withOthers(st, p)
		}},
		{name: "missing-source", payloads: func(st *stateTable) ([]payloadSpec, []int) {
			p := correct(st, st.target)
			p.files = slices.Clone(p.files[1:])
			return withOthers(st, p)
		}},
	}
}

func sortSources(files []pkindex.SourceFile) {
	sort.SliceStable(files, func(i, j int) bool { return files[i].FileName() < files[j].FileName() })
}

func encodeSpec(p payloadSpec) ([]byte, error) {
	sm, err := pkindex.NewSourceMeta(p.level, p.files)
	if err != nil {
		return nil, err
	}
	return sm.Encode()
}

// corruptCase commits the variant's payloads beside the base snapshot's index files and checks
// Java's dump, state and plan included, equals Go's, and that both classify the payloads under
// test as the variant expects.
func (jt *javaTables) corruptCase(ctx context.Context, v corruptVariant) error {
	st := jt.state
	specs, target := v.payloads(st)
	t := table.Open(fileio.NewLocal(), st.path)
	base, err := t.Read(ctx, st.base)
	if err != nil {
		return err
	}
	entries := slices.Clone(base.IndexEntries)
	var names []string
	for i, p := range specs {
		sm := p.sourceMeta
		if sm == nil {
			if sm, err = encodeSpec(p); err != nil {
				return err
			}
		}
		var total int64
		for _, f := range p.files {
			total += f.RowCount()
		}
		name := fmt.Sprintf("pkft-crafted-%s-%d.index", v.name, i)
		names = append(names, name)
		entries = append(entries, meta.IndexManifestEntry{
			Kind: meta.FileKindAdd, Partition: st.bucket.Partition, Bucket: st.bucket.Bucket,
			IndexFile: meta.IndexFileMeta{
				IndexType: pkfulltext.IndexType, FileName: name, FileSize: 4096 + int64(i), RowCount: total + p.rowCountDelta,
				GlobalIndex: &meta.GlobalIndexMeta{
					RowRangeStart: 0, RowRangeEnd: total - 1, IndexFieldID: p.fieldID,
					IndexMeta: []byte(`{"crafted":true}`), SourceMeta: sm,
				},
			},
		})
	}
	id, err := commitIndex(ctx, t, st.base, st.schemaID, entries)
	if err != nil {
		return fmt.Errorf("commit crafted payloads: %w", err)
	}
	j, err := javaDump(ctx, jt.proc, st.path)
	if err != nil {
		return err
	}
	g, err := goDump(ctx, st.path)
	if err != nil {
		return err
	}
	if j.SnapshotID != id {
		return fmt.Errorf("Java dumps snapshot %d, want Go's %d", j.SnapshotID, id)
	}
	if d := diffDumps(j, g); d != "" {
		return fmt.Errorf("dumps differ (-java +go):\n%s", d)
	}
	// Sanity: the payloads under test are classified as the variant expects (on both sides,
	// which the diff above has shown agree).
	for side, d := range map[string]*inspect.Dump{"java": j, "go": g} {
		s := d.Buckets[0].State
		if s == nil || s.Error != "" {
			return fmt.Errorf("%s: no state: %+v", side, s)
		}
		current := map[string]bool{}
		for _, n := range s.Current {
			current[n] = true
		}
		for _, i := range target {
			switch isCurrent := current[names[i]]; {
			case v.current && !isCurrent:
				return fmt.Errorf("%s: payload %s is not current: state %+v", side, names[i], *s)
			case !v.current && (isCurrent || !slices.Contains(s.Stale, names[i])):
				return fmt.Errorf("%s: payload %s is not stale: state %+v", side, names[i], *s)
			}
		}
		// The next plan rebuilds the level under test unless its payload is current.
		switch p := d.Buckets[0].Plan; {
		case v.current && p != nil:
			return fmt.Errorf("%s: every level is current, yet a plan: %+v", side, *p)
		case !v.current && (p == nil || p.Level != st.target):
			return fmt.Errorf("%s: plan %+v, want a rebuild of level %d", side, p, st.target)
		}
		for i := len(target); i < len(specs); i++ {
			if !current[names[i]] {
				return fmt.Errorf("%s: the correct payload %s of level %d is not current: state %+v", side, names[i], specs[i].level, *s)
			}
		}
	}
	return nil
}

// docTableJavaDumpTable describes table/java-dump/<table>.
const docTableJavaDumpTable = "Java writes a corpus (full compaction; partitioned by STRING and DATE with deletion " +
	"vectors; `index-file-in-data-file-dir`; two non-zero levels; a DECIMAL + TIMESTAMP key); " +
	"`pkft dump` equals the Java runner's `dump`."

// docTableMetadataRewrite describes table/metadata-rewrite.
const docTableMetadataRewrite = "Go, through its runner (`rewrite-metadata`: `Table.RewriteMetadata`), re-encodes a " +
	"table's manifests, manifest lists and index manifest under new names and " +
	"commits them as the next snapshot (a manifest compaction); Java (and pypaimon) read Go's " +
	"snapshot with the same rows and files."

// docSourceMetaBytes describes source-meta/bytes.
const docSourceMetaBytes = "source meta for names in ASCII, `é`, `中文`, emoji, with a NUL, and at the 65,535-byte " +
	"limit: identical bytes, each side decodes the other's, both reject one byte over."

// docStateCorruptVariant describes state/corrupt/<variant>.
const docStateCorruptVariant = "index manifests with a correct payload and with every kind of corrupt one (wrong row " +
	"count, two on one level, other field, unparsable source meta, removed file, mixed levels, " +
	"...) on a Java-written table: Java's bucket state and plan (`PkFullTextBucketIndexState`, " +
	"`PrimaryKeyIndexLevels`) equal Go's."
