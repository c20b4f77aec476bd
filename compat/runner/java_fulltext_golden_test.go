package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// ftGoldenLimit is the limit of every query the full-text golden records: above any hit count
// of the corpus, so that every hit is recorded.
const ftGoldenLimit = 1000

// maxFullTextTableBytes bounds one full-text golden table.
const maxFullTextTableBytes = 1 << 20

// fullTextCommands are the runner commands the full-text golden needs.
var fullTextCommands = []string{"search", "archive-search"}

// generateJavaFullTextGolden writes every table of javaFullTextCorpus with the Java runner p in
// warehouse, checks it still exercises what it is in the corpus for, moves it under root's Java
// tables, and stores Java's dump and rows of it (as for every Java golden table) and its
// full-text expectations: the runner's search of engineQueries over the table and its
// archive-search of them over every archive.
func generateJavaFullTextGolden(ctx context.Context, p *Process, root, warehouse, generator string) error {
	if ok, err := HasCommands(ctx, p, fullTextCommands...); err != nil || !ok {
		return fmt.Errorf("the full-text golden tables need the runner's %v (make runner): %v", fullTextCommands, err)
	}
	for _, c := range javaFullTextCorpus() {
		dest, _, err := placeJavaGoldenTable(ctx, p, root, warehouse, generator, c, maxFullTextTableBytes)
		if err != nil {
			return err
		}
		if err := storeJavaFullTextRecord(ctx, p, root, c.name, dest, generator); err != nil {
			return err
		}
	}
	return nil
}

// storeJavaFullTextRecord records the full-text expectations of the Java golden table name at
// dest (javaFullTextRecord of engineQueries), checks they exercise the table and stores them.
func storeJavaFullTextRecord(ctx context.Context, p *Process, root, name, dest, generator string) error {
	ft, err := javaFullTextRecord(ctx, p, dest, engineQueries(), ftGoldenLimit)
	if err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	if err := ft.exercises(); err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	ft.Generator = generator
	return goldengen.WriteJavaFullTextExpected(root, name, &ft.JavaFullTextExpected)
}

// checkJavaCorpusSize fails when the Java corpus (tables and expected outputs, the scratch
// warehouse left out) takes more than goldengen.MaxJavaCorpusBytes.
func checkJavaCorpusSize(root string) error {
	var total int64
	for _, dir := range []string{goldengen.JavaTablesDir, goldengen.JavaExpectedDir} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".warehouse" {
				return filepath.SkipDir
			}
			if d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
			return nil
		})
		if err != nil {
			return err
		}
	}
	if total > goldengen.MaxJavaCorpusBytes {
		return fmt.Errorf("the Java corpus takes %d bytes, more than %d", total, goldengen.MaxJavaCorpusBytes)
	}
	return nil
}

// ftRecord is a full-text record under construction.
type ftRecord struct {
	goldengen.JavaFullTextExpected
}

// exercises fails when the queries hit nothing in the table or nothing in some archive: the
// record would check nothing there.
func (r *ftRecord) exercises() error {
	hit := false
	for _, s := range r.Search {
		var res protocol.SearchResponse
		if err := json.Unmarshal(s, &res); err != nil {
			return err
		}
		hit = hit || len(res.Results) > 0
	}
	if !hit {
		return errors.New("no query finds anything in the table")
	}
	for _, a := range r.Archives {
		n := 0
		for _, h := range a.Hits {
			if len(h.RowIDs) > 0 {
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("archive %s: none of %d queries hits anything", a.FileName, len(r.Queries))
		}
	}
	return nil
}

// javaFullTextRecord runs queries with limit through the runner p on the table at path: the
// search command on the table, and archive-search on each full-text archive of Java's dump.
func javaFullTextRecord(ctx context.Context, p *Process, path string, queries []string, limit int) (*ftRecord, error) {
	r := &ftRecord{goldengen.JavaFullTextExpected{Limit: limit, Queries: queries}}
	for _, q := range queries {
		var raw json.RawMessage
		if err := p.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": limit}, &raw); err != nil {
			return nil, fmt.Errorf("search %s: %w", q, err)
		}
		r.Search = append(r.Search, raw)
	}
	d, err := javaDump(ctx, p, path)
	if err != nil {
		return nil, err
	}
	for _, b := range d.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType != pkfulltext.IndexType {
				continue
			}
			if f.GlobalIndex == nil || f.GlobalIndex.SourceMeta == nil || f.GlobalIndex.SourceMeta.Error != "" {
				return nil, fmt.Errorf("archive %s has no readable source meta", f.FileName)
			}
			rel, err := findFile(path, f.FileName)
			if err != nil {
				return nil, err
			}
			a := goldengen.JavaArchiveHits{
				Bucket: b.Bucket, FileName: f.FileName, Path: rel,
				Level: f.GlobalIndex.SourceMeta.DataLevel, RowCount: f.RowCount,
			}
			for _, q := range queries {
				var h goldengen.JavaArchiveSearch
				if err := p.Call(ctx, "archive-search", map[string]any{"path": filepath.Join(path, rel), "query": q, "limit": limit}, &h); err != nil {
					return nil, fmt.Errorf("archive-search %s on %s: %w", q, f.FileName, err)
				}
				if h.RowIDs == nil {
					h.RowIDs, h.Scores = []int64{}, []float32{}
				}
				a.Hits = append(a.Hits, h)
			}
			r.Archives = append(r.Archives, a)
		}
	}
	return r, nil
}

// findFile returns the path, relative to dir, of the one file named name under dir.
func findFile(dir, name string) (string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == name {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d files named %s under the table", len(found), name)
	}
	return found[0], nil
}

// checkJavaFullTextGolden checks, for the Java golden table name when it has full-text
// expectations, that the runner p still returns the recorded search results and archive hits.
func checkJavaFullTextGolden(ctx context.Context, t *testing.T, p *Process, root, name string) {
	t.Helper()
	exp, ok, err := goldengen.ReadJavaFullTextExpected(root, name)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return
	}
	switch ok, err := HasCommands(ctx, p, fullTextCommands...); {
	case err != nil:
		t.Fatal(err)
	case !ok:
		testenv.Missing(t, testenv.RequireJavaFullTextEnv, JavaFullTextMissing)
	}
	now, err := javaFullTextRecord(ctx, p, goldengen.JavaTablePath(root, name), exp.Queries, exp.Limit)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range exp.Queries {
		got, err := decodeExact(now.Search[i])
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodeExact(exp.Search[i])
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(got, want); d != "" {
			t.Errorf("Java's search %s differs from %s (-now +golden):\n%s", q, goldengen.JavaFullTextExpectedPath(root, name), d)
		}
	}
	if d := cmp.Diff(now.Archives, exp.Archives); d != "" {
		t.Errorf("Java's archive searches differ from %s (-now +golden):\n%s", goldengen.JavaFullTextExpectedPath(root, name), d)
	}
}
