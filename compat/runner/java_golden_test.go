package runner

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
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// javaGoldenCorpus is the tables of the Java corpus (javaCorpus) that make golden checks in
// under testdata/tables/java: one unpartitioned bucket fully compacted at every commit; a table
// partitioned by STRING and DATE with deletion vectors holding ranges; one bucket with compacted
// files on two non-zero levels (the corpus recipe on a fifth of its rows, so that the table stays
// small); a DECIMAL(10, 2) + TIMESTAMP(3) key.
func javaGoldenCorpus() ([]*corpusTable, error) {
	corpus := map[string]*corpusTable{}
	for _, c := range javaCorpus() {
		corpus[c.name] = c
	}
	var out []*corpusTable
	for _, name := range []string{"full-compaction", "partitioned-dv", "two-levels", "composite-key"} {
		c := corpus[name]
		if c == nil {
			return nil, fmt.Errorf("no table %q in the Java corpus", name)
		}
		if name == "two-levels" {
			c.steps = scaledTwoLevelSteps(500)
		}
		out = append(out, c)
	}
	return out, nil
}

// testGoldenJava regenerates the Java golden corpus with -update; without it, it checks that
// Java's dump and rows of every checked-in Java golden table equal those stored at generation.
func testGoldenJava(t *testing.T) {
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
	switch ok, err := HasCommands(ctx, p, tableCommands...); {
	case err != nil:
		t.Fatal(err)
	case !ok:
		t.Fatalf("the Java runner lacks one of %v: rebuild it (make runner)", tableCommands)
	}
	if update() {
		if err := generateJavaGolden(ctx, p, root); err != nil {
			t.Fatal(err)
		}
	}
	names, err := goldengen.JavaGoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			exp, err := goldengen.ReadJavaExpected(root, name)
			if err != nil {
				t.Fatal(err)
			}
			path := goldengen.JavaTablePath(root, name)
			for _, c := range []struct {
				cmd    string
				stored json.RawMessage
			}{{"dump", exp.Dump}, {"read", exp.Rows}} {
				var now json.RawMessage
				if err := p.Call(ctx, c.cmd, map[string]any{"path": path}, &now); err != nil {
					t.Fatalf("%s: %v", c.cmd, err)
				}
				if c.cmd == "read" {
					var read struct {
						Rows json.RawMessage `json:"rows"`
					}
					if err := json.Unmarshal(now, &read); err != nil {
						t.Fatal(err)
					}
					now = read.Rows
				}
				got, err := decodeExact(now)
				if err != nil {
					t.Fatal(err)
				}
				want, err := decodeExact(c.stored)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(got, want); d != "" {
					t.Errorf("Java's %s differs from %s (-now +golden):\n%s", c.cmd, goldengen.JavaExpectedPath(root, name), d)
				}
			}
			checkJavaFullTextGolden(ctx, t, p, root, name)
			checkJavaSortedGolden(ctx, t, p, root, name)
		})
	}
}

// decodeExact decodes JSON keeping numbers as written (a BIGINT beyond 2^53 stays exact).
func decodeExact(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// generateJavaGolden regenerates the Java golden corpus under root: it removes the Java tables and
// expected outputs and places every table of javaGoldenCorpus (placeJavaGoldenTable), then the
// full-text and sorted-family tables with their expectations.
func generateJavaGolden(ctx context.Context, p *Process, root string) error {
	var ping struct {
		Runner        string `json:"runner"`
		PaimonVersion string `json:"paimonVersion"`
	}
	if err := p.Call(ctx, "ping", nil, &ping); err != nil {
		return err
	}
	generator := fmt.Sprintf("%s runner, Paimon %s (compat/java)", ping.Runner, ping.PaimonVersion)
	if only := goldenOnly(); len(only) > 0 {
		return regenerateJavaGoldenTables(ctx, p, root, generator, only)
	}
	tables, expected := filepath.Join(root, goldengen.JavaTablesDir), filepath.Join(root, goldengen.JavaExpectedDir)
	warehouse, err := goldengen.ResetDirs(tables, expected)
	if err != nil {
		return err
	}
	defer os.RemoveAll(warehouse)
	corpus, err := javaGoldenCorpus()
	if err != nil {
		return err
	}
	var total int64
	for _, c := range corpus {
		_, size, err := placeJavaGoldenTable(ctx, p, root, warehouse, generator, c, goldengen.MaxJavaTableBytes)
		if err != nil {
			return err
		}
		total += size
	}
	if total > goldengen.MaxJavaTotalBytes {
		return fmt.Errorf("the Java golden tables take %d bytes, more than %d", total, goldengen.MaxJavaTotalBytes)
	}
	if err := generateJavaFullTextGolden(ctx, p, root, warehouse, generator); err != nil {
		return err
	}
	if err := generateJavaSortedGolden(ctx, p, root, warehouse, generator); err != nil {
		return err
	}
	return checkJavaCorpusSize(root)
}

// goldenOnlyEnv names the Java golden tables (comma-separated) that TestGolden -update
// regenerates alone, the rest of the corpus staying as checked in; unset, it regenerates all.
const goldenOnlyEnv = "PKFT_GOLDEN_ONLY"

// goldenOnly returns the table names of PKFT_GOLDEN_ONLY.
func goldenOnly() map[string]bool {
	only := map[string]bool{}
	for _, name := range strings.Split(os.Getenv(goldenOnlyEnv), ",") {
		if name = strings.TrimSpace(name); name != "" {
			only[name] = true
		}
	}
	return only
}

// regenerateJavaGoldenTables regenerates the Java golden tables named in only (of
// javaGoldenCorpus and javaFullTextCorpus, the full-text ones with their expectations) and
// leaves every other table and expectation as it is.
func regenerateJavaGoldenTables(ctx context.Context, p *Process, root, generator string, only map[string]bool) error {
	warehouse := filepath.Join(root, goldengen.JavaTablesDir, ".warehouse")
	if err := os.MkdirAll(warehouse, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(warehouse)
	corpus, err := javaGoldenCorpus()
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, c := range corpus {
		if only[c.name] {
			if _, _, err := placeJavaGoldenTable(ctx, p, root, warehouse, generator, c, goldengen.MaxJavaTableBytes); err != nil {
				return err
			}
			done[c.name] = true
		}
	}
	for _, c := range javaFullTextCorpus() {
		if only[c.name] {
			dest, _, err := placeJavaGoldenTable(ctx, p, root, warehouse, generator, c, maxFullTextTableBytes)
			if err != nil {
				return err
			}
			if err := storeJavaFullTextRecord(ctx, p, root, c.name, dest, generator); err != nil {
				return err
			}
			done[c.name] = true
		}
	}
	for name := range only {
		if !done[name] {
			return fmt.Errorf("%s: %s is no table of the Java golden or full-text corpus", goldenOnlyEnv, name)
		}
	}
	return checkJavaCorpusSize(root)
}

// placeJavaGoldenTable writes c with the Java runner p in warehouse, checks it still exercises
// what it is in the corpus for, moves it to its golden path under root (replacing an earlier
// copy), checks it takes at most maxBytes and embeds no generation path, and stores Java's dump
// and rows of the moved table. It returns the golden path and the table's size.
func placeJavaGoldenTable(ctx context.Context, p *Process, root, warehouse, generator string, c *corpusTable, maxBytes int64) (string, int64, error) {
	name := c.name
	path, err := createJavaTable(ctx, p, warehouse, name, c.fields, c.primaryKeys, c.partitionKeys, c.options, c.steps)
	if err != nil {
		return "", 0, fmt.Errorf("table %s: %w", name, err)
	}
	d, err := javaDump(ctx, p, path)
	if err != nil {
		return "", 0, fmt.Errorf("table %s: %w", name, err)
	}
	if err := c.exercises(path, d); err != nil {
		return "", 0, fmt.Errorf("table %s no longer exercises what it is for: %w", name, err)
	}
	dest := goldengen.JavaTablePath(root, name)
	if err := os.RemoveAll(dest); err != nil {
		return "", 0, err
	}
	if err := os.Rename(path, dest); err != nil {
		return "", 0, fmt.Errorf("move table %s: %w", name, err)
	}
	size, err := goldengen.DirSize(dest)
	if err != nil {
		return "", 0, err
	}
	if size > maxBytes {
		return "", 0, fmt.Errorf("golden table %s is %d bytes, more than %d", dest, size, maxBytes)
	}
	if err := noWarehousePaths(ctx, dest, warehouse); err != nil {
		return "", 0, fmt.Errorf("table %s: %w", name, err)
	}
	exp := goldengen.JavaExpected{Generator: generator}
	if err := p.Call(ctx, "dump", map[string]any{"path": dest}, &exp.Dump); err != nil {
		return "", 0, fmt.Errorf("dump %s: %w", name, err)
	}
	var read struct {
		Rows json.RawMessage `json:"rows"`
	}
	if err := p.Call(ctx, "read", map[string]any{"path": dest}, &read); err != nil {
		return "", 0, fmt.Errorf("read %s: %w", name, err)
	}
	var rows []any
	if json.Unmarshal(read.Rows, &rows) != nil || len(rows) == 0 {
		return "", 0, fmt.Errorf("Java reads no rows from %s", dest)
	}
	exp.Rows = read.Rows
	if err := goldengen.WriteJavaExpected(root, name, &exp); err != nil {
		return "", 0, err
	}
	return dest, size, nil
}

// noWarehousePaths fails when a file of the table at path embeds the directory Java wrote it in
// (warehouse): the checked-in table must not depend on where it was generated. Metadata Paimon
// stores compressed (manifests) is checked through Go's reading of the latest snapshot: no live
// data or index file has an external path.
func noWarehousePaths(ctx context.Context, path, warehouse string) error {
	abs, err := filepath.Abs(warehouse)
	if err != nil {
		return err
	}
	err = filepath.WalkDir(path, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(abs)) {
			return fmt.Errorf("%s embeds the generation path %s", strings.TrimPrefix(file, path+"/"), abs)
		}
		return nil
	})
	if err != nil {
		return err
	}
	t := table.Open(fileio.NewLocal(), path)
	snap, err := t.Latest(ctx)
	if err != nil {
		return err
	}
	contents, err := t.Read(ctx, snap)
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range contents.Buckets {
		for _, f := range b.DataFiles {
			if f.ExternalPath != nil {
				errs = append(errs, fmt.Errorf("data file %s has the external path %s", f.FileName, *f.ExternalPath))
			}
		}
		for _, f := range b.IndexFiles {
			if f.ExternalPath != nil {
				errs = append(errs, fmt.Errorf("index file %s has the external path %s", f.FileName, *f.ExternalPath))
			}
		}
	}
	return errors.Join(errs...)
}
