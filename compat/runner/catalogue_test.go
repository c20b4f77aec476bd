package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The markers of the generated case catalogue in docs/conformance.md.
const (
	catalogueBegin = "<!-- case catalogue: generated from the case table by TestCaseCatalogue (PKFT_UPDATE_DOCS=1 go test ./compat/runner -run TestCaseCatalogue); do not edit -->"
	catalogueEnd   = "<!-- end of the case catalogue -->"
)

// catalogueEnviron is the environment the catalogue is generated in: this one without any
// PKFT_IMPL_* variable, so that it lists the built-in implementations only, whatever the machine
// adds.
func catalogueEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ImplEnvPrefix) {
			env = append(env, kv)
		}
	}
	return env
}

// renderCatalogue is the case catalogue of ct: per family, one entry per description, naming its
// cases, their directions and the roles their sides take, then the description.
func renderCatalogue(ct *caseTable) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d cases in %d families (rows of the case table: a case in one direction each).\n", len(ct.rows), len(caseFamilies()))
	family := ""
	listed := map[[2]string]bool{}
	for i, c := range ct.rows {
		if c.Family != family {
			family = c.Family
			fmt.Fprintf(&sb, "\n### %s\n\n", family)
		}
		if listed[[2]string{family, c.Doc}] {
			continue // listed with the first row of its description
		}
		listed[[2]string{family, c.Doc}] = true
		var names, dirs []string
		var sides []caseSide
		for _, o := range ct.rows[i:] {
			if o.Family != family || o.Doc != c.Doc {
				continue
			}
			if !slices.Contains(names, o.Name) {
				names = append(names, o.Name)
			}
			if !slices.Contains(dirs, o.Direction) {
				dirs = append(dirs, o.Direction)
			}
			for _, s := range o.Sides {
				j := slices.IndexFunc(sides, func(x caseSide) bool { return x.Impl == s.Impl })
				if j < 0 {
					sides = append(sides, caseSide{Impl: s.Impl})
					j = len(sides) - 1
				}
				for _, r := range s.Roles {
					if !slices.Contains(sides[j].Roles, r) {
						sides[j].Roles = append(sides[j].Roles, r)
					}
				}
			}
		}
		var roles []string
		for _, s := range sides {
			var rs []string
			for _, r := range s.Roles {
				rs = append(rs, string(r))
			}
			roles = append(roles, s.Impl+" as "+strings.Join(rs, ", "))
		}
		entry := fmt.Sprintf("- %s (%s; %s) — %s", quoteAll(names), quoteAll(dirs), strings.Join(roles, "; "), c.Doc)
		sb.WriteString(wrapMarkdown(entry, 100, "  "))
	}
	return sb.String()
}

// quoteAll joins the code spans of xs with commas.
func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

// wrapMarkdown wraps s at width columns on spaces, continuation lines indented by indent.
func wrapMarkdown(s string, width int, indent string) string {
	var sb strings.Builder
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			sb.WriteString(line + "\n")
			line = indent + w
		default:
			line += " " + w
		}
	}
	sb.WriteString(line + "\n")
	return sb.String()
}

// TestCaseCatalogue checks that docs/conformance.md's case catalogue is the case table's (it
// rewrites it under PKFT_UPDATE_DOCS=1). Registering the table starts nothing: the test needs no
// runner, engine or Java.
func TestCaseCatalogue(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ct := conformanceCases(catalogueEnviron())
	for _, err := range ct.errs {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "conformance.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, catalogueBegin), strings.Index(doc, catalogueEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, catalogueBegin, catalogueEnd)
	}
	want := catalogueBegin + "\n\n" + renderCatalogue(ct) + "\n" + catalogueEnd
	if got := doc[i : j+len(catalogueEnd)]; got != want {
		if os.Getenv("PKFT_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(doc[:i]+want+doc[j+len(catalogueEnd):]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("%s's case catalogue is not the case table's: run PKFT_UPDATE_DOCS=1 go test ./compat/runner -run TestCaseCatalogue", path)
	}
}

// TestAddingACaseExample checks docs/adding-a-case.md's worked example: its Go block is at most
// 30 lines, the same lines are in compat/runner/library_test.go, and the case they add is in
// the table.
func TestAddingACaseExample(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "adding-a-case.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- worked example:"
	_, after, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("docs/adding-a-case.md has no %q", marker)
	}
	_, block, ok := strings.Cut(after, "```go\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok || strings.TrimSpace(block) == "" {
		t.Fatal("docs/adding-a-case.md has no Go block after the worked example's marker")
	}
	if n := strings.Count(block, "\n"); n > 26 {
		t.Errorf("the worked example adds a case in %d lines, more than 26", n)
	}
	src, err := os.ReadFile(filepath.Join(root, "compat", "runner", "library_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), block) {
		t.Errorf("docs/adding-a-case.md's worked example is not in compat/runner/library_test.go as written:\n%s", block)
	}
	rows := 0
	for _, c := range conformanceCases(catalogueEnviron()).rows {
		if strings.HasPrefix(c.Name, "table/scan-snapshots/") && c.Family == "library" && c.Direction == "java->go" {
			rows++
		}
	}
	if rows < 2 {
		t.Errorf("%d table/scan-snapshots rows in the library family", rows)
	}
}
