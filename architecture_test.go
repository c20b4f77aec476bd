package pkft_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/paimon-pkft/pkft"

// goPackage is what TestLayers needs of `go list -json`.
type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages runs go list -deps=false -json over the module's packages.
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v: %s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// relPath is a module package's path relative to the module ("." for the root).
func relPath(importPath string) (string, bool) {
	if importPath == modulePath {
		return ".", true
	}
	rel, ok := strings.CutPrefix(importPath, modulePath+"/")
	return rel, ok
}

// production reports whether a module package (relative path) is production code: not test
// support, not the conformance harness, not the deployment manifests' test.
func production(rel string) bool {
	for _, p := range []string{"internal/testing", "compat", "deploy"} {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return false
		}
	}
	return true
}

// readLayers reads the layer table of docs/architecture.md.
func readLayers(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| (\\d+) \\| `([^`]+)` \\|")
	layers := map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "<!-- layers: begin"):
			in = true
		case strings.HasPrefix(line, "<!-- layers: end"):
			in = false
		case in:
			if m := row.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				if _, dup := layers[m[2]]; dup {
					t.Errorf("docs/architecture.md lists %s twice", m[2])
				}
				layers[m[2]] = n
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(layers) == 0 {
		t.Fatal("docs/architecture.md has no layer table")
	}
	return layers
}

// TestLayers checks the module's import structure against docs/architecture.md: every
// production package has a layer and imports nothing of a higher layer, no production package
// depends on test support (go list -deps), and the table names no package that is gone.
func TestLayers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	layers := readLayers(t)
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		rel, ok := relPath(p.ImportPath)
		if !ok || !production(rel) {
			continue
		}
		seen[rel] = true
		layer, listed := layers[rel]
		if !listed {
			t.Errorf("%s has no layer: add it to the table of docs/architecture.md", rel)
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := relPath(imp)
			if !ok {
				continue
			}
			if !production(irel) {
				t.Errorf("%s imports %s, which is not production code", rel, irel)
				continue
			}
			if il, ok := layers[irel]; ok && il > layer {
				t.Errorf("%s (layer %d) imports %s of layer %d, a higher layer", rel, layer, irel, il)
			}
		}
		for _, dep := range p.Deps {
			if drel, ok := relPath(dep); ok && !production(drel) {
				t.Errorf("%s depends on %s (go list -deps): production code must not reach test support", rel, drel)
			}
		}
	}
	for rel := range layers {
		if !seen[rel] {
			t.Errorf("docs/architecture.md lists %s, which is not a production package of the module", rel)
		}
	}
}

// TestNoImplementationOutsideInternal checks that every implementation package lives under
// internal/, so that no other module can import it: the only importable packages are the
// library (the root), the command, and the harness.
func TestNoImplementationOutsideInternal(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH: %v", err)
	}
	for _, p := range listPackages(t) {
		rel, ok := relPath(p.ImportPath)
		if !ok {
			continue
		}
		switch {
		case rel == ".", rel == "tools/pkft", rel == "internal" || strings.HasPrefix(rel, "internal/"),
			strings.HasPrefix(rel, "compat/"), strings.HasPrefix(rel, "deploy/"):
		default:
			t.Errorf("%s is importable by other modules: implementation packages belong under internal/", rel)
		}
	}
}
