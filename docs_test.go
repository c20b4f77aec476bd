package pkft_test

import (
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeMaxLines is the README's length limit: it is a landing page, the rest is in docs/.
const readmeMaxLines = 200

// The README's library example is ExampleCreate's code without its error handling, between
// these markers.
const (
	exampleBegin = "<!-- example: ExampleCreate of example_create_test.go without its error handling, checked by TestReadmeExample (PKFT_UPDATE_DOCS=1 go test -run TestReadmeExample . rewrites it) -->"
	exampleEnd   = "<!-- example: end -->"
)

// docPages lists the pages of docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("docs/ has no pages")
	}
	return pages
}

// protocolPage is the runner protocol, the documentation of compat/.
var protocolPage = filepath.Join("compat", "PROTOCOL.md")

// markdownFiles lists the documentation whose links TestDocLinks checks: the README, every page
// of docs/ and the runner protocol.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	return append([]string{"README.md", protocolPage}, docPages(t)...)
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeIsALandingPage checks the README stays short, names the two make commands and links
// to every page of docs/ and to the runner protocol.
func TestReadmeIsALandingPage(t *testing.T) {
	readme := readText(t, "README.md")
	if n := strings.Count(readme, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to docs/", n, readmeMaxLines)
	}
	for _, s := range []string{"make test", "make compat"} {
		if !strings.Contains(readme, s) {
			t.Errorf("README.md does not mention %q", s)
		}
	}
	linked := map[string]bool{}
	for _, l := range markdownLinks(readme) {
		if target, _, _ := strings.Cut(l, "#"); !isExternal(target) {
			linked[filepath.Clean(target)] = true
		}
	}
	for _, p := range append(docPages(t), protocolPage) {
		if !linked[p] {
			t.Errorf("README.md does not link to %s", p)
		}
	}
}

// TestDocPagesStartWithTheirPurpose checks every page of docs/ opens with its title and then a
// paragraph saying what the page is for, before any section, list, table or code.
func TestDocPagesStartWithTheirPurpose(t *testing.T) {
	for _, p := range docPages(t) {
		lines := strings.Split(readText(t, p), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || lines[1] != "" {
			t.Errorf("%s does not start with a title line and a blank line", p)
			continue
		}
		first := lines[2]
		if first == "" || strings.HasPrefix(first, "#") || strings.HasPrefix(first, "```") ||
			strings.HasPrefix(first, "- ") || strings.HasPrefix(first, "|") || strings.HasPrefix(first, "<!--") {
			t.Errorf("%s: the title is not followed by a paragraph of purpose but by %q", p, first)
		}
	}
}

// fence matches the opening or closing line of a fenced code block.
var fence = regexp.MustCompile("^\\s*```")

// prose returns text without its fenced code blocks and inline code spans, where a bracket or a
// parenthesis is no link.
func prose(text string) string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			in = !in
			out = append(out, "")
			continue
		}
		if in {
			out = append(out, "")
			continue
		}
		out = append(out, line)
	}
	return codeSpan.ReplaceAllString(strings.Join(out, "\n"), "code")
}

var (
	codeSpan   = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	heading    = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	slugDrop   = regexp.MustCompile(`[^\p{L}\p{M}\p{N}\p{Pc} -]`)
)

// markdownLinks returns the targets of the inline links of a markdown text, code left out.
func markdownLinks(text string) []string {
	var out []string
	for _, m := range inlineLink.FindAllStringSubmatch(prose(text), -1) {
		out = append(out, m[1])
	}
	return out
}

// isExternal reports a link with a scheme (https:, mailto:, ...), which TestDocLinks does not
// follow.
func isExternal(target string) bool {
	u, err := url.Parse(target)
	return err == nil && u.Scheme != ""
}

// headingAnchors returns the anchors GitHub gives the headings of a markdown text: the heading's
// text without its markup, lower-cased, with punctuation but '-' and '_' dropped and spaces
// turned into '-'; a repeated anchor gets -1, -2, ... appended.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	in := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			in = !in
			continue
		}
		m := heading.FindStringSubmatch(line)
		if in || m == nil {
			continue
		}
		title := inlineLink.ReplaceAllStringFunc(m[2], func(l string) string { return l[1:strings.Index(l, "](")] })
		title = strings.ReplaceAll(title, "`", "")
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// TestDocLinks checks every relative link of the README, of docs/ and of the runner protocol
// names an existing file or directory of the repository, and every #anchor into a markdown file
// one of its headings.
func TestDocLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = headingAnchors(string(b))
		return anchors[path], nil
	}
	checked := 0
	for _, p := range markdownFiles(t) {
		for _, link := range markdownLinks(readText(t, p)) {
			if isExternal(link) {
				continue
			}
			checked++
			rawTarget, fragment, hasFragment := strings.Cut(link, "#")
			target, err := url.PathUnescape(rawTarget)
			if err != nil {
				t.Errorf("%s: link %q: %v", p, link, err)
				continue
			}
			if filepath.IsAbs(target) {
				t.Errorf("%s: link %q is absolute, not relative to the repository", p, link)
				continue
			}
			file := p
			if target != "" {
				file = filepath.Join(filepath.Dir(p), target)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %q names no file: %v", p, link, err)
					continue
				}
			}
			if !hasFragment {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s: link %q has an anchor into a file that is not markdown", p, link)
				continue
			}
			a, err := anchorsOf(file)
			if err != nil {
				t.Errorf("%s: link %q: %v", p, link, err)
				continue
			}
			if !a[fragment] {
				names := make([]string, 0, len(a))
				for n := range a {
					names = append(names, n)
				}
				slices.Sort(names)
				t.Errorf("%s: link %q: %s has no heading with anchor %q (it has %q)", p, link, file, fragment, names)
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no relative links to check")
	}
	t.Logf("%d relative links checked", checked)
}

// TestHeadingAnchors pins the anchor rules TestDocLinks relies on to GitHub's.
func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# The pkft command\n## Adding an implementation: `PKFT_IMPL_<NAME>`\n" +
		"## How long make compat and make test take\n```\n# not a heading\n```\n## The sidecar: `maintain --watch`\n" +
		"## Status\n## Status\n")
	want := []string{"the-pkft-command", "adding-an-implementation-pkft_impl_name",
		"how-long-make-compat-and-make-test-take", "the-sidecar-maintain---watch", "status", "status-1"}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("anchors %q, want %q", names, want)
	}
}

// errorCheck matches an error check of the example: `if [init; ]err != nil { log.Fatal(err) }`.
var errorCheck = regexp.MustCompile(`(?m)^[ \t]*if (?:[^\n]*; )?err != nil \{\n[ \t]*log\.Fatal\(err\)\n[ \t]*\}\n`)

// errAssign matches an assignment whose last left-hand operand is err.
var errAssign = regexp.MustCompile(`^(\s*)((?:[\w.]+, )*)err (:?=) (.*)$`)

// withoutErrorHandling is the README form of an example's body: its error checks dropped and
// the errors it assigned discarded (`x, err := f()` becomes `x, _ := f()`, `err = f()` becomes
// `_ = f()`), gofmt-formatted.
func withoutErrorHandling(body string) (string, error) {
	body = errorCheck.ReplaceAllString(body, "")
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		m := errAssign.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lhs := append(strings.Split(strings.TrimSuffix(m[2], ", "), ", "), "_")
		if m[2] == "" {
			lhs = []string{"_"}
		}
		op := m[3]
		if !slices.ContainsFunc(lhs, func(s string) bool { return s != "_" }) {
			op = "="
		}
		lines[i] = m[1] + strings.Join(lhs, ", ") + " " + op + " " + m[4]
	}
	body = strings.Join(lines, "\n")
	if regexp.MustCompile(`\berr\b`).MatchString(body) {
		return "", fmt.Errorf("error handling left after the rewrite:\n%s", body)
	}
	src, err := format.Source([]byte("package p\n\nfunc _() {\n" + body + "}\n"))
	if err != nil {
		return "", fmt.Errorf("the example without error handling is not Go: %w\n%s", err, body)
	}
	s := string(src)
	s = s[strings.Index(s, "{\n")+2 : strings.LastIndex(s, "}")]
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		out = append(out, strings.TrimPrefix(line, "\t"))
	}
	return strings.Join(out, "\n") + "\n", nil
}

// exampleBody returns the source of the body of the function name in the Go file path.
func exampleBody(t *testing.T, path, name string) string {
	t.Helper()
	src := readText(t, path)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			from, to := fset.Position(fn.Body.Lbrace).Offset+1, fset.Position(fn.Body.Rbrace).Offset
			return strings.TrimPrefix(src[from:to], "\n")
		}
	}
	t.Fatalf("%s has no function %s", path, name)
	return ""
}

// TestReadmeExample checks that the README's library example is ExampleCreate, a runnable
// example with checked output, without its error handling; PKFT_UPDATE_DOCS=1 rewrites it.
func TestReadmeExample(t *testing.T) {
	code, err := withoutErrorHandling(exampleBody(t, "example_create_test.go", "ExampleCreate"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(code, "// Output:\n") || !strings.Contains(code, "tbl.Search(") {
		t.Fatalf("ExampleCreate no longer searches and checks its output:\n%s", code)
	}
	want := exampleBegin + "\n```go\n" + code + "```\n" + exampleEnd
	readme := readText(t, "README.md")
	i, j := strings.Index(readme, exampleBegin), strings.Index(readme, exampleEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", exampleBegin, exampleEnd)
	}
	if got := readme[i : j+len(exampleEnd)]; got != want {
		if os.Getenv("PKFT_UPDATE_DOCS") == "1" {
			if err := os.WriteFile("README.md", []byte(readme[:i]+want+readme[j+len(exampleEnd):]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("README.md's example is not ExampleCreate without its error handling: run PKFT_UPDATE_DOCS=1 go test -run TestReadmeExample .\nwant:\n%s", want)
	}
}

// TestWithoutErrorHandling pins the rewrite TestReadmeExample applies to the example.
func TestWithoutErrorHandling(t *testing.T) {
	body := "\tx, err := f()\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\terr = g(x)\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n" +
		"\t_, err = h()\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tif err := r.Err(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tfmt.Println(x) // Output: 1\n"
	got, err := withoutErrorHandling(body)
	if err != nil {
		t.Fatal(err)
	}
	want := "x, _ := f()\n_ = g(x)\n_, _ = h()\nfmt.Println(x) // Output: 1\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if _, err := withoutErrorHandling("\tif err != nil {\n\t\treturn err\n\t}\n"); err == nil {
		t.Error("error handling the rewrite does not know was left in without an error")
	}
}

// TestDocCodeFences checks every fenced code block of the README, of docs/ and of the runner
// protocol is closed, and every fence stands on a line of its own: a fence glued to code
// ("}```") is no fence, and the rest of the page would render as code.
func TestDocCodeFences(t *testing.T) {
	for _, p := range markdownFiles(t) {
		open := 0
		for i, line := range strings.Split(readText(t, p), "\n") {
			if fence.MatchString(line) {
				if open == 0 {
					open = i + 1
				} else {
					open = 0
				}
				continue
			}
			if strings.Contains(line, "```") {
				t.Errorf("%s:%d: a code fence not on a line of its own: %q", p, i+1, line)
			}
		}
		if open != 0 {
			t.Errorf("%s:%d: the code block opened here is never closed", p, open)
		}
	}
}

// apacheLicenseSHA256 is the SHA-256 of the Apache License 2.0 as the Apache Software Foundation
// publishes it (https://www.apache.org/licenses/LICENSE-2.0.txt).
const apacheLicenseSHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

// TestLicenseAndNotice: the clone carries the Apache License 2.0 unchanged (the project ports
// Apache-2.0 code and depends on Apache projects) and a NOTICE naming pkft and carrying Apache
// Paimon's notice, as the license's section 4(d) asks of a derivative work.
func TestLicenseAndNotice(t *testing.T) {
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if sum := fmt.Sprintf("%x", sha256.Sum256(license)); sum != apacheLicenseSHA256 {
		t.Errorf("LICENSE has SHA-256 %s, want the Apache License 2.0's %s", sum, apacheLicenseSHA256)
	}
	notice, err := os.ReadFile("NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pkft", "Apache Paimon", "The Apache Software Foundation"} {
		if !strings.Contains(string(notice), want) {
			t.Errorf("NOTICE does not name %q:\n%s", want, notice)
		}
	}
}
