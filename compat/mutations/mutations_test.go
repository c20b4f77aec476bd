// Package mutations holds the catalogue of the conformance gate's mutations (README.md) and the
// test that keeps it honest: every catalogued name is a mutation of the source and every mutation
// of the source is catalogued, and a build without the tag pkftmutation contains none of them.
package mutations

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/mutation"
)

// minMutations is the least number of mutations the catalogue must hold (issue 34).
const minMutations = 15

// entry is one row of the catalogue.
type entry struct {
	name, rule, java, mutated string
}

// catalogue reads the table between the markers of README.md.
func catalogue(t *testing.T) []entry {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	begin, end := strings.Index(s, "<!-- mutations: begin -->"), strings.Index(s, "<!-- mutations: end -->")
	if begin < 0 || end < begin {
		t.Fatal("README.md: the mutations table's markers are missing")
	}
	var out []entry
	for _, line := range strings.Split(s[begin:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			t.Fatalf("README.md: row %q has %d cells, want 5", line, len(cells))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		out = append(out, entry{name: strings.Trim(cells[0], "`"), rule: cells[1], java: cells[2], mutated: cells[3]})
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	return root
}

var onCall = regexp.MustCompile(`mutation\.On\("([^"]*)"\)`)

// TestCatalogue: at least minMutations distinct names, each with its rule, Java source and
// mutated file filled in; each name is used by a mutation.On call in the file its row names, and
// every mutation.On call of the production source names a catalogued mutation.
func TestCatalogue(t *testing.T) {
	entries := catalogue(t)
	if len(entries) < minMutations {
		t.Fatalf("the catalogue holds %d mutations, want at least %d", len(entries), minMutations)
	}
	root := repoRoot(t)
	names := map[string]bool{}
	for _, e := range entries {
		if names[e.name] {
			t.Errorf("mutation %s is catalogued twice", e.name)
		}
		names[e.name] = true
		if e.rule == "" || e.java == "" || e.mutated == "" {
			t.Errorf("mutation %s: its rule, Java source and mutated file must all be given", e.name)
			continue
		}
		file := strings.Trim(strings.Fields(e.mutated)[0], "`")
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Errorf("mutation %s: %v", e.name, err)
			continue
		}
		if !bytes.Contains(src, []byte(`mutation.On("`+e.name+`")`)) {
			t.Errorf("mutation %s: %s has no mutation.On(%q)", e.name, file, e.name)
		}
	}

	used := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range onCall.FindAllSubmatch(src, -1) {
			used[string(m[1])] = true
			if !names[string(m[1])] {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: mutation %q is not in the catalogue (README.md)", rel, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range names {
		if !used[name] {
			t.Errorf("mutation %s is catalogued but no mutation.On call uses it", name)
		}
	}
}

// TestNormalBuildHasNoMutation: without the tag pkftmutation, mutation.On is false for every
// catalogued name whatever PKFT_MUTATION says, go list compiles the off file and not the on
// file, and the Go runner built normally does not even contain the mutations' names (the mutated
// branches are compiled away).
func TestNormalBuildHasNoMutation(t *testing.T) {
	if mutation.Enabled {
		t.Skip("this test binary was built with -tags pkftmutation; the normal build is what it checks")
	}
	entries := catalogue(t)
	for _, e := range entries {
		t.Setenv(mutation.Env, e.name)
		if mutation.On(e.name) {
			t.Errorf("mutation %s is on in a build without the pkftmutation tag", e.name)
		}
	}

	root := repoRoot(t)
	files := func(tags string) []string {
		cmd := exec.Command("go", "list", "-tags", tags, "-f", `{{join .GoFiles " "}}`, "./internal/mutation")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -tags %q: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	if got := files(""); slices.Contains(got, "mutation_on.go") || !slices.Contains(got, "mutation_off.go") {
		t.Errorf("go list -tags '' compiles %v, want mutation_off.go and not mutation_on.go", got)
	}
	if got := files("pkftmutation"); !slices.Contains(got, "mutation_on.go") || slices.Contains(got, "mutation_off.go") {
		t.Errorf("go list -tags pkftmutation compiles %v, want mutation_on.go and not mutation_off.go", got)
	}

	bin := filepath.Join(t.TempDir(), "pkft-runner")
	cmd := exec.Command("go", "build", "-o", bin, "./compat/go")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./compat/go: %v\n%s", err, out)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if bytes.Contains(b, []byte(e.name)) {
			t.Errorf("the normally built Go runner contains the mutation name %q", e.name)
		}
	}
}
