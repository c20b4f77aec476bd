package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// goGoldenLimit is the limit of every recorded search of the Go corpus: above any hit count,
// so every hit is recorded and the answers do not depend on how ties are cut.
const goGoldenLimit = 1000

// maxGoTableBytes bounds one Go golden table.
const maxGoTableBytes = 1 << 20

// goGoldenCommands are the runner commands the Go corpus needs.
var goGoldenCommands = []string{"create-table", "dump", "read", "search"}

// testGoldenGo regenerates the Go-written golden corpus with -update (after the Java corpus, on
// which two of its tables start); without it, it checks that Java's dump, rows and ranked
// search answers of every checked-in Go golden table equal those recorded at generation time.
func testGoldenGo(t *testing.T) {
	ctx := context.Background()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartJava(ctx)
	if err != nil {
		if update() {
			t.Fatalf("make golden needs the Java runner: %v", err)
		}
		testenv.Missing(t, testenv.RequireJavaEnv, err.Error())
	}
	defer p.Close()
	switch ok, err := HasCommands(ctx, p, goGoldenCommands...); {
	case err != nil:
		t.Fatal(err)
	case !ok:
		testenv.Missing(t, testenv.RequireJavaFullTextEnv, fmt.Sprintf("the Java runner lacks one of %v: rebuild it (make runner)", goGoldenCommands))
	}
	if update() {
		if err := generateGoGolden(ctx, p, root); err != nil {
			t.Fatal(err)
		}
	}
	names, err := goldengen.GoGoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(goldengen.GoTables()) {
		t.Errorf("%s holds %v; the corpus defines %d tables: run make golden", goldengen.GoTablesDir, names, len(goldengen.GoTables()))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			exp, err := goldengen.ReadGoExpected(root, name)
			if err != nil {
				t.Fatal(err)
			}
			now, err := javaGoView(ctx, p, goldengen.GoTablePath(root, name), exp.Queries, exp.Limit)
			if err != nil {
				t.Fatal(err)
			}
			where := goldengen.GoExpectedPath(root, name)
			for _, c := range []struct {
				what      string
				now, want json.RawMessage
			}{{"dump", now.Dump, exp.Dump}, {"rows", now.Rows, exp.Rows}} {
				if d := exactDiff(c.now, c.want); d != "" {
					t.Errorf("Java's %s of the Go-written table differs from %s (-now +golden):\n%s", c.what, where, d)
				}
			}
			for i, q := range exp.Queries {
				if d := exactDiff(now.Search[i], exp.Search[i]); d != "" {
					t.Errorf("Java's search %s differs from %s (-now +golden):\n%s", q, where, d)
				}
			}
		})
	}
}

// exactDiff compares two JSON documents with numbers kept as written.
func exactDiff(now, want json.RawMessage) string {
	a, err := decodeExact(now)
	if err != nil {
		return "undecodable: " + err.Error()
	}
	b, err := decodeExact(want)
	if err != nil {
		return "undecodable golden: " + err.Error()
	}
	return cmp.Diff(a, b)
}

// javaGoView is what the Java runner p reads from the table at path: its dump, its rows and its
// ranked search of each query with limit.
func javaGoView(ctx context.Context, p *Process, path string, queries []string, limit int) (*goldengen.GoExpected, error) {
	v := &goldengen.GoExpected{Limit: limit, Queries: queries}
	if err := p.Call(ctx, "dump", map[string]any{"path": path}, &v.Dump); err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	var read struct {
		Rows json.RawMessage `json:"rows"`
	}
	if err := p.Call(ctx, "read", map[string]any{"path": path}, &read); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	v.Rows = read.Rows
	for _, q := range queries {
		var raw json.RawMessage
		if err := p.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": limit, "ranked": true}, &raw); err != nil {
			return nil, fmt.Errorf("search %s: %w", q, err)
		}
		v.Search = append(v.Search, raw)
	}
	return v, nil
}

// generateGoGolden regenerates the Go corpus under root: every table of goldengen.GoTables is
// laid out (a copy of its Java golden base, or created empty by the Java runner), Go performs
// its steps through the pkft library, the result must still exercise what the table is for
// (Java's own state shows every archive current, and the steps built and retired what they are
// there for), and it moves into place with Java's dump, rows and ranked answers to the engine
// queries recorded beside it.
func generateGoGolden(ctx context.Context, p *Process, root string) error {
	lib, err := native.Load(ctx, "")
	if err != nil {
		return fmt.Errorf("the Go corpus needs the engine (make native): %w", err)
	}
	engine := native.Engine{Lib: lib}
	var ping struct {
		Runner        string `json:"runner"`
		PaimonVersion string `json:"paimonVersion"`
	}
	if err := p.Call(ctx, "ping", nil, &ping); err != nil {
		return err
	}
	tables, expected := filepath.Join(root, goldengen.GoTablesDir), filepath.Join(root, goldengen.GoExpectedDir)
	warehouse, err := goldengen.ResetDirs(tables, expected)
	if err != nil {
		return err
	}
	defer os.RemoveAll(warehouse)
	for _, g := range goldengen.GoTables() {
		if err := generateGoTable(ctx, p, engine, root, warehouse, g, ping.Runner, ping.PaimonVersion); err != nil {
			return fmt.Errorf("Go golden table %s: %w", g.Name, err)
		}
	}
	var total int64
	for _, dir := range []string{tables, expected} {
		size, err := goldengen.DirSize(dir)
		if err != nil {
			return err
		}
		total += size
	}
	if total > goldengen.MaxGoCorpusBytes {
		return fmt.Errorf("the Go corpus takes %d bytes, more than %d", total, goldengen.MaxGoCorpusBytes)
	}
	return nil
}

func generateGoTable(ctx context.Context, p *Process, engine native.Engine, root, warehouse string, g goldengen.GoTable, runner, paimonVersion string) error {
	var path string
	var baseID int64
	if g.BaseJava != "" {
		path = filepath.Join(warehouse, g.Name)
		var err error
		if baseID, err = g.PrepareBase(ctx, root, path); err != nil {
			return err
		}
	} else {
		fields := make([]field, len(g.Create.Fields))
		for i, f := range g.Create.Fields {
			fields[i] = field{f.Name, f.Type}
		}
		var err error
		path, err = createJavaTable(ctx, p, warehouse, g.Name, fields, g.Create.PrimaryKeys, g.Create.PartitionKeys, g.Create.Options, nil)
		if err != nil {
			return err
		}
	}
	results, err := g.Run(ctx, path, engine)
	if err != nil {
		return err
	}
	exp := &goldengen.GoExpected{
		Generator: fmt.Sprintf("pkft (Go, library facade) steps; Java's view: %s runner, Paimon %s (compat/java)", runner, paimonVersion),
		Base:      g.BaseName(), BaseSnapshotID: baseID,
	}
	for i, s := range g.Steps {
		if results[i].SnapshotID == 0 {
			return fmt.Errorf("step %d (%s) committed nothing", i+1, s.Op())
		}
		exp.Steps = append(exp.Steps, goldengen.GoStepRecord{Op: s.Op(), Rows: len(s.Rows), SnapshotID: results[i].SnapshotID})
	}
	if err := goStepsExercise(g, results); err != nil {
		return fmt.Errorf("no longer exercises what it is for: %w", err)
	}
	d, err := javaDump(ctx, p, path)
	if err != nil {
		return err
	}
	if err := goldenArchivesCurrent(d); err != nil {
		return fmt.Errorf("Java's state of Go's table: %w", err)
	}
	dest := goldengen.GoTablePath(root, g.Name)
	if err := os.Rename(path, dest); err != nil {
		return err
	}
	size, err := goldengen.DirSize(dest)
	if err != nil {
		return err
	}
	if size > maxGoTableBytes {
		return fmt.Errorf("%d bytes, more than %d", size, maxGoTableBytes)
	}
	if err := noWarehousePaths(ctx, dest, warehouse); err != nil {
		return err
	}
	view, err := javaGoView(ctx, p, dest, engineQueries(), goGoldenLimit)
	if err != nil {
		return err
	}
	var rows []any
	if json.Unmarshal(view.Rows, &rows) != nil || len(rows) == 0 {
		return errors.New("Java reads no rows")
	}
	hit := 0
	for _, s := range view.Search {
		var res javaRankedResult
		if err := json.Unmarshal(s, &res); err != nil {
			return err
		}
		if len(res.Results) > 0 {
			hit++
		}
	}
	if hit < len(view.Queries)/2 {
		return fmt.Errorf("only %d of %d queries hit anything", hit, len(view.Queries))
	}
	exp.Dump, exp.Rows, exp.Limit, exp.Queries, exp.Search = view.Dump, view.Rows, view.Limit, view.Queries, view.Search
	return goldengen.WriteGoExpected(root, g.Name, exp)
}

// goStepsExercise fails when Go's steps no longer do what the table is in the corpus for: a
// maintenance builds archives, the last compaction retires archives and builds the new level's.
func goStepsExercise(g goldengen.GoTable, results []goldengen.GoStepResult) error {
	last := -1
	for i, s := range g.Steps {
		if s.Maintain || s.Compact {
			last = i
		}
	}
	if last < 0 {
		return errors.New("no maintenance or compaction step")
	}
	r := results[last]
	if g.Steps[last].Maintain && r.Built == 0 {
		return errors.New("the maintenance built no archive")
	}
	if g.Steps[last].Compact && (r.Built == 0 || r.Retired == 0) {
		return fmt.Errorf("the last compaction built %d and retired %d archives", r.Built, r.Retired)
	}
	return nil
}

// goldenArchivesCurrent checks a dump of a full-text table: some archive exists, and in every
// bucket nothing is stale or planned and every eligible level has a current archive.
func goldenArchivesCurrent(d *inspect.Dump) error {
	archives := 0
	for _, b := range d.Buckets {
		where := fmt.Sprintf("partition %v bucket %d", b.Partition, b.Bucket)
		if b.State == nil || b.State.Error != "" {
			return fmt.Errorf("%s: no full-text state", where)
		}
		if len(b.State.Stale) > 0 || b.Plan != nil {
			return fmt.Errorf("%s: stale archives %v, plan %+v", where, b.State.Stale, b.Plan)
		}
		for lv := range b.State.Eligible {
			if _, ok := b.State.Current[lv]; !ok {
				return fmt.Errorf("%s: level %s has no current archive", where, lv)
			}
		}
		archives += len(b.State.Current)
	}
	if archives == 0 {
		return errors.New("no archive")
	}
	return nil
}
