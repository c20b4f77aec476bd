package pkft_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sectionBlock returns the first fenced code block after the heading line of a markdown text.
func sectionBlock(t *testing.T, text, headingLine string) []string {
	t.Helper()
	_, after, ok := strings.Cut(text, "\n"+headingLine+"\n")
	if !ok {
		t.Fatalf("no heading %q", headingLine)
	}
	_, after, ok = strings.Cut(after, "```\n")
	block, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatalf("no code block after %q", headingLine)
	}
	return strings.Split(strings.TrimSpace(block), "\n")
}

// TestReadmeInstallLines runs every line of the README's install block from the clone, as a new
// user would: each must be a command that works before the module is published (go install of
// a package of the clone), and the command it installs must run.
func TestReadmeInstallLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pkft command")
	}
	lines := sectionBlock(t, readText(t, "README.md"), "## Install")
	bin := t.TempDir()
	for _, line := range lines {
		cmdline, _, _ := strings.Cut(line, "#")
		args := strings.Fields(cmdline)
		if len(args) < 3 || args[0] != "go" || args[1] != "install" || !strings.HasPrefix(args[2], "./") {
			t.Errorf("README install line %q is not a go install of a package of the clone, which is all that works before the module is published", line)
			continue
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "GOBIN="+bin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmdline, err, out)
		}
		name := filepath.Join(bin, filepath.Base(args[len(args)-1]))
		if out, err := exec.Command(name, "--version").CombinedOutput(); err != nil {
			t.Errorf("%s --version after %q: %v\n%s", name, cmdline, err, out)
		}
	}
	readme := readText(t, "README.md")
	if strings.Contains(readme, "@latest") && !strings.Contains(readme, "Until the module is published") {
		t.Error("README names an @latest install without saying it works only once the module is published")
	}
}

// TestSetupNeedsRust: the README and docs/development.md name, among what a fresh machine
// provides, the Rust version scripts/rust-runner.sh requires (make test and make compat build the
// Rust runner).
func TestSetupNeedsRust(t *testing.T) {
	m := regexp.MustCompile(`Rust toolchain of at least (\d+\.\d+)`).FindStringSubmatch(readText(t, filepath.Join("scripts", "rust-runner.sh")))
	if m == nil {
		t.Fatal("scripts/rust-runner.sh names no minimum Rust version")
	}
	want := "Rust with cargo " + m[1] + " or later"
	for _, p := range []string{"README.md", filepath.Join("docs", "development.md")} {
		if !strings.Contains(strings.Join(strings.Fields(readText(t, p)), " "), want) {
			t.Errorf("%s does not say %q among what the machine provides", p, want)
		}
	}
}

// TestRaceClaim: the Makefile's gotest target runs the Go tests under -race but for the packages
// it filters out and the tests it skips (there: compat/runner and the crash points); the README
// and docs/development.md say so and name those.
func TestRaceClaim(t *testing.T) {
	mk := readText(t, "Makefile")
	_, recipe, ok := strings.Cut(mk, "\ngotest:")
	if !ok {
		t.Fatal("the Makefile has no gotest target")
	}
	recipe, _, _ = strings.Cut(recipe, "\n\n")
	if !strings.Contains(recipe, " -race ") {
		t.Fatalf("the gotest recipe does not run -race:\n%s", recipe)
	}
	var names []string
	for _, m := range regexp.MustCompile(`grep -v '/([\w/]+)\$\$'`).FindAllStringSubmatch(recipe, -1) {
		names = append(names, m[1])
	}
	if strings.Contains(recipe, "-skip '^TestCrashPoints") {
		names = append(names, "crash-point")
	}
	if len(names) == 0 {
		t.Fatalf("the gotest recipe excludes nothing: drop this test's exceptions\n%s", recipe)
	}
	for _, p := range []string{"README.md", filepath.Join("docs", "development.md")} {
		text := strings.Join(strings.Fields(readText(t, p)), " ")
		if strings.Contains(text, "every Go test under") {
			t.Errorf("%s says every Go test runs under -race", p)
		}
		i := strings.Index(text, "The Go tests run under `-race`")
		if i < 0 {
			t.Errorf("%s does not say which Go tests run under -race", p)
			continue
		}
		sentence, _, _ := strings.Cut(text[i:], ". ")
		for _, n := range names {
			if !strings.Contains(sentence, n) {
				t.Errorf("%s: %q does not name %s, which runs without -race", p, sentence, n)
			}
		}
	}
}
