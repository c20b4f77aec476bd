package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Coverage is what each unit test of a package runs: the blocks of the package's functions
// (from Go cover profiles, one a test) and, for each test, the blocks it ran. It picks the tests a
// mutant's run needs: a test that never runs the mutated code cannot tell the mutant apart.
type Coverage struct {
	// blocks are the instrumented blocks, by file (the module-relative path).
	blocks map[string][]coverBlock
	// ran holds, per test, the indices (into blocks[file]) of the blocks it ran, by file.
	ran map[string]map[string][]int
}

// coverBlock is one instrumented block: from start to end (line, column; inclusive).
type coverBlock struct {
	startLine, startCol, endLine, endCol int
}

func (b coverBlock) holds(line, col int) bool {
	after := line > b.startLine || (line == b.startLine && col >= b.startCol)
	before := line < b.endLine || (line == b.endLine && col <= b.endCol)
	return after && before
}

// profileLine is a line of a cover profile: "importpath/file.go:L.C,L.C statements count".
var profileLine = regexp.MustCompile(`^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$`)

// ReadCoverage reads the cover profiles in dir, one a test, named <test>.cov; module is the
// module path the profiles' file names start with.
func ReadCoverage(dir, module string) (*Coverage, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.cov"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no cover profiles in %s", dir)
	}
	slices.Sort(names)
	c := &Coverage{blocks: map[string][]coverBlock{}, ran: map[string]map[string][]int{}}
	index := map[string]map[coverBlock]int{}
	for _, name := range names {
		test := strings.TrimSuffix(filepath.Base(name), ".cov")
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		err = c.read(f, test, module, index)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return c, nil
}

func (c *Coverage) read(r io.Reader, test, module string, index map[string]map[coverBlock]int) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	ran := map[string][]int{}
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if !strings.HasPrefix(line, "mode: ") {
				return fmt.Errorf("not a cover profile: %q", line)
			}
			continue
		}
		if line == "" {
			continue
		}
		m := profileLine.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("cover profile line %q", line)
		}
		file, ok := strings.CutPrefix(m[1], module+"/")
		if !ok {
			continue // another module's file
		}
		var n [6]int
		for i := range n {
			v, err := strconv.Atoi(m[2+i])
			if err != nil {
				return fmt.Errorf("cover profile line %q: %w", line, err)
			}
			n[i] = v
		}
		b := coverBlock{startLine: n[0], startCol: n[1], endLine: n[2], endCol: n[3]}
		if index[file] == nil {
			index[file] = map[coverBlock]int{}
		}
		i, ok := index[file][b]
		if !ok {
			i = len(c.blocks[file])
			index[file][b] = i
			c.blocks[file] = append(c.blocks[file], b)
		}
		if count := n[5]; count > 0 {
			ran[file] = append(ran[file], i)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if first {
		return fmt.Errorf("empty cover profile")
	}
	c.ran[test] = ran
	return nil
}

// Covering returns the tests that ran the block holding file:line:col, sorted, and whether any
// block holds it: code outside every block (a package-level variable's initializer, which runs
// before any test) is not told apart by coverage, and every test must run for it.
func (c *Coverage) Covering(file string, line, col int) (tests []string, inBlock bool) {
	var holding []int
	for i, b := range c.blocks[file] {
		if b.holds(line, col) {
			holding = append(holding, i)
		}
	}
	if len(holding) == 0 {
		return nil, false
	}
	for test, ran := range c.ran {
		for _, i := range ran[file] {
			if slices.Contains(holding, i) {
				tests = append(tests, test)
				break
			}
		}
	}
	slices.Sort(tests)
	return tests, true
}

// RunPattern is the go test -run pattern that runs exactly tests (top-level test names).
func RunPattern(tests []string) string {
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}
