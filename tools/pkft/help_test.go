package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestRootExamplesFindHits runs the root --help's examples in order on a fresh table (the
// schema a full-text table's, the rows holding the searched words): every one succeeds, and the
// search at the end finds rows, as a new user running them expects.
func TestRootExamplesFindHits(t *testing.T) {
	testenv.Native(t)
	dir := t.TempDir()
	schema := `{"columns": [{"name": "id", "type": "INT"}, {"name": "content", "type": "STRING"}],
  "primaryKeys": ["id"], "options": {"bucket": "2", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}`
	rows := `{"id": 1, "content": "a lake format for streaming"}
{"id": 2, "content": "a table format"}
{"id": 3, "content": "lakes and rivers"}
`
	for name, data := range map[string]string{"docs.json": schema, "rows.jsonl": rows} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := newRoot(&bytes.Buffer{}, &logSetup{w: &bytes.Buffer{}})
	lines := strings.Split(strings.TrimSpace(root.Example), "\n")
	var last string
	for _, line := range lines {
		args := splitExample(t, line)
		if args[0] != "pkft" {
			t.Fatalf("example %q does not run pkft", line)
		}
		var stdin string
		var cmd []string
		for i := 1; i < len(args); i++ {
			a := strings.ReplaceAll(args[i], "/data/db.db", filepath.Join(dir, "db.db"))
			if a == "<" && i+1 < len(args) {
				data, err := os.ReadFile(filepath.Join(dir, args[i+1]))
				if err != nil {
					t.Fatalf("example %q: %v", line, err)
				}
				stdin = string(data)
				i++
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, a)); err == nil && !filepath.IsAbs(a) {
				a = filepath.Join(dir, a)
			}
			cmd = append(cmd, a)
		}
		var out, errb bytes.Buffer
		if code := runWith(context.Background(), cmd, strings.NewReader(stdin), &out, &errb); code != exitOK {
			t.Fatalf("example %q: exit %d, stderr %s", line, code, errb.String())
		}
		last = cmd[0] + ": " + out.String()
	}
	if !strings.HasPrefix(last, "search: ") || !strings.Contains(last, "lake format for streaming") {
		t.Errorf("the last example is no search that finds the rows with its words:\n%s", last)
	}
}

// splitExample splits an example line into words, a double-quoted word kept whole.
func splitExample(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	rest := strings.TrimSpace(line)
	for rest != "" {
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				t.Fatalf("unbalanced quote in %q", line)
			}
			out = append(out, rest[1:end+1])
			rest = strings.TrimSpace(rest[end+2:])
			continue
		}
		word, after, _ := strings.Cut(rest, " ")
		out = append(out, word)
		rest = strings.TrimSpace(after)
	}
	return out
}

// TestSearchHelpNamesTheBackfill: search --help names the compaction that makes moved-up rows
// searchable, compact --strategy uncovered, and compact accepts that strategy.
func TestSearchHelpNamesTheBackfill(t *testing.T) {
	root := newRoot(&bytes.Buffer{}, &logSetup{w: &bytes.Buffer{}})
	search, _, err := root.Find([]string{"search"})
	if err != nil {
		t.Fatal(err)
	}
	if help := strings.Join(strings.Fields(search.Long), " "); !strings.Contains(help, "pkft compact --strategy uncovered") ||
		!strings.Contains(help, "pkft write --index-new-rows") {
		t.Errorf("search --help does not name compact --strategy uncovered and write --index-new-rows:\n%s", search.Long)
	}
	compact, _, err := root.Find([]string{"compact"})
	if err != nil {
		t.Fatal(err)
	}
	if err := compact.Flags().Set("strategy", "uncovered"); err != nil {
		t.Fatal(err)
	}
	dir := goldenTable(t, "ft-default-partitioned", true)
	if code, _, errOut := pkftRun(t, "compact", dir, "--strategy", "uncovered"); code != exitOK {
		t.Errorf("compact --strategy uncovered: exit %d, %s", code, errOut)
	}
}
