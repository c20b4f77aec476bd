package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestCoverageCovering: the tests a mutant needs are those whose profile ran the block holding
// it; a block no test ran needs none, and a position outside every block (a package-level
// initializer) needs all.
func TestCoverageCovering(t *testing.T) {
	dir := t.TempDir()
	const mod = "example.com/m"
	profiles := map[string]string{
		"TestA": "mode: set\n" +
			mod + "/p/f.go:5.10,7.3 2 1\n" +
			mod + "/p/f.go:8.5,9.10 1 0\n" +
			mod + "/p/g.go:3.1,4.2 1 1\n" +
			"other.org/x/y.go:1.1,2.2 1 1\n",
		"TestB": "mode: set\n" +
			mod + "/p/f.go:5.10,7.3 2 0\n" +
			mod + "/p/f.go:8.5,9.10 1 1\n" +
			mod + "/p/g.go:3.1,4.2 1 1\n",
		"TestC": "mode: set\n" +
			mod + "/p/f.go:5.10,7.3 2 0\n" +
			mod + "/p/f.go:8.5,9.10 1 0\n" +
			mod + "/p/g.go:3.1,4.2 1 0\n",
	}
	for name, text := range profiles {
		if err := os.WriteFile(filepath.Join(dir, name+".cov"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := ReadCoverage(dir, mod)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file      string
		line, col int
		want      []string
		inBlock   bool
	}{
		{"p/f.go", 5, 10, []string{"TestA"}, true}, // a block's first column
		{"p/f.go", 6, 1, []string{"TestA"}, true},
		{"p/f.go", 7, 3, []string{"TestA"}, true}, // its last
		{"p/f.go", 8, 7, []string{"TestB"}, true},
		{"p/g.go", 4, 1, []string{"TestA", "TestB"}, true},
		{"p/f.go", 5, 9, nil, false}, // before the block: outside every block
		{"p/f.go", 7, 4, nil, false},
		{"p/f.go", 20, 1, nil, false},
		{"p/h.go", 1, 1, nil, false},
	} {
		got, in := c.Covering(tc.file, tc.line, tc.col)
		if in != tc.inBlock || !slices.Equal(got, tc.want) {
			t.Errorf("Covering(%s:%d:%d) = %v, %v; want %v, %v", tc.file, tc.line, tc.col, got, in, tc.want, tc.inBlock)
		}
	}
	// A block no test ran: in a block, no test.
	if err := os.WriteFile(filepath.Join(dir, "TestD.cov"), []byte("mode: set\n"+mod+"/p/k.go:1.1,3.1 1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err = ReadCoverage(dir, mod); err != nil {
		t.Fatal(err)
	}
	if got, in := c.Covering("p/k.go", 2, 1); !in || len(got) != 0 {
		t.Errorf("Covering of a block no test ran = %v, %v; want none, in a block", got, in)
	}

	pattern := RunPattern([]string{"TestA", "TestB/x"})
	re := regexp.MustCompile(pattern)
	for name, want := range map[string]bool{"TestA": true, "TestB/x": true, "TestAB": false, "TestB": false, "xTestA": false} {
		if re.MatchString(name) != want {
			t.Errorf("%s matches %q: %v, want %v", pattern, name, !want, want)
		}
	}

	// Bad profiles are errors, not empty coverage.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "TestX.cov"), []byte("p/f.go:1.1,2.2 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCoverage(bad, mod); err == nil {
		t.Error("a profile without its mode line was read")
	}
	if _, err := ReadCoverage(t.TempDir(), mod); err == nil {
		t.Error("a directory without profiles was read")
	}
}
