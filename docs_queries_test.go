package pkft_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// grammarOnly are the packages whose doc comments describe a query grammar with placeholders
// rather than give examples: the test-only bleve engine.
var grammarOnly = map[string]bool{filepath.Join("internal", "fulltext", "bleveengine"): true}

// docQueryFiles lists the files whose query examples users read: the README, the pages of
// docs/ and every Go source file (not tests) of the module.
func docQueryFiles(t *testing.T) []string {
	t.Helper()
	paths := append([]string{"README.md"}, docPages(t)...)
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || grammarOnly[p]) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// queryStart finds where a JSON query example begins: an object whose first key is a query type
// (including the misspelt ones the engine refuses, so a wrong example cannot hide).
var queryStart = regexp.MustCompile(`\{"(match|match_phrase|phrase|multi_match|boolean|bool|boost)"\s*:`)

// docQueries extracts every JSON query example from text: from each start, the balanced object
// (braces inside strings do not count); examples nested in another are part of it.
func docQueries(text string) []string {
	var out []string
	end := 0
	for _, loc := range queryStart.FindAllStringIndex(text, -1) {
		if loc[0] < end {
			continue
		}
		depth, inString, escaped := 0, false, false
		for i := loc[0]; i < len(text); i++ {
			c := text[i]
			switch {
			case escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			case !inString && c == '{':
				depth++
			case !inString && c == '}':
				depth--
			}
			if depth == 0 {
				out = append(out, text[loc[0]:i+1])
				end = i + 1
				break
			}
		}
		if end <= loc[0] {
			out = append(out, text[loc[0]:min(len(text), loc[0]+80)])
		}
	}
	return out
}

// docText is what users read of a file: a markdown page whole; of a Go file its comments, and of
// the command (tools/pkft) also its string literals, the help texts.
func docText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".go") {
		return string(b)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, b, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, g := range f.Comments {
		parts = append(parts, g.Text())
	}
	if filepath.Dir(path) != filepath.Join("tools", "pkft") {
		return strings.Join(parts, "\n")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil {
				parts = append(parts, v)
			}
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// TestDocumentedQueriesRun extracts every JSON query of the README and docs/, of the module's doc
// comments and of the command's help texts and runs it against a real archive (a Java-written table with
// current archives): each must be valid JSON and searched without an error.
func TestDocumentedQueriesRun(t *testing.T) {
	testenv.Native(t)
	var queries []string
	where := map[string]string{}
	for _, p := range docQueryFiles(t) {
		for _, q := range docQueries(docText(t, p)) {
			if _, seen := where[q]; !seen {
				queries = append(queries, q)
				where[q] = p
			}
		}
	}
	if len(queries) < 3 {
		t.Fatalf("found only %d query examples: %q", len(queries), queries)
	}
	dir := filepath.Join(t.TempDir(), "ft-default-partitioned")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "tables", "java", "ft-default-partitioned"))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if !json.Valid([]byte(q)) {
			t.Errorf("%s: the example %s is not valid JSON", where[q], q)
			continue
		}
		res, err := tbl.Search(ctx, q, pkft.WithLimit(5))
		if err != nil {
			t.Errorf("%s: the example %s fails: %v", where[q], q, err)
			continue
		}
		t.Logf("%s: %s: %d hit(s)", where[q], q, len(res.Hits))
	}
}
