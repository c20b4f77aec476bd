package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// mutationImport is the package of the hand-written catalogue's switches: a branch it guards
// with mutation.On is compiled away by every build without the tag pkftmutation.
const mutationImport = "github.com/paimon-pkft/pkft/internal/mutation"

// tokenMutations is gremlins' table (internal/engine/mappings.go of v0.6.0): for each mutator
// type, the token it replaces and the token it puts in its place.
var tokenMutations = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT":   {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_ASSIGNMENTS":    {token.ADD_ASSIGN: token.SUB_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.REM_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN},
	"INVERT_BITWISE":        {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BWASSIGN":       {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN, token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":       {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"REMOVE_SELF_ASSIGNMENTS": {
		token.ADD_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
		token.MUL_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN,
		token.REM_ASSIGN: token.ASSIGN, token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN,
		token.SUB_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN,
	},
}

// Mutant is one mutant of gremlins' report: a mutator type at a token's position.
type Mutant struct {
	File   string // relative to the module's root, with forward slashes
	Line   int
	Column int    // 1-based, in bytes, as go/token counts
	Type   string // gremlins' name, e.g. CONDITIONALS_BOUNDARY
	Status string // gremlins' status of the dry run: RUNNABLE, NOT COVERED, SKIPPED
}

// ID names the mutant: file:line:column TYPE.
func (m Mutant) ID() string { return fmt.Sprintf("%s:%d:%d %s", m.File, m.Line, m.Column, m.Type) }

// TSV is the mutant as list prints it: file, line, column, type and status, tab-separated.
func (m Mutant) TSV() string {
	return fmt.Sprintf("%s\t%d\t%d\t%s\t%s", m.File, m.Line, m.Column, m.Type, m.Status)
}

// Package is the directory of the mutant's file: the package whose unit tests run first.
func (m Mutant) Package() string { return path.Dir(m.File) }

// ParseMutant reads the first four fields (file, line, column, type) of a tab-separated line.
func ParseMutant(line string) (Mutant, error) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	if len(f) < 4 {
		return Mutant{}, fmt.Errorf("mutant %q: want file, line, column and type", line)
	}
	l, err1 := strconv.Atoi(f[1])
	c, err2 := strconv.Atoi(f[2])
	if err := errors.Join(err1, err2); err != nil || l < 1 || c < 1 {
		return Mutant{}, fmt.Errorf("mutant %q: bad line or column", line)
	}
	if _, ok := tokenMutations[f[3]]; !ok {
		return Mutant{}, fmt.Errorf("mutant %q: unknown mutator type %q", line, f[3])
	}
	m := Mutant{File: f[0], Line: l, Column: c, Type: f[3]}
	if len(f) > 4 {
		m.Status = f[4]
	}
	return m, nil
}

// gremlinsReport is the part of gremlins' --output JSON that list reads.
type gremlinsReport struct {
	Files []struct {
		FileName  string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// Dropped is a mutant of gremlins' report that list leaves out, and why.
type Dropped struct {
	Mutant Mutant
	Why    string
}

// List reads gremlins' report of a run on the package directory pkg (its file names are relative
// to pkg) and returns its mutants sorted by file, line, column and type. It drops the mutants of
// files the package's normal build leaves out (build constraints: gremlins walks every .go file)
// and those the normal build compiles away (see deadRanges).
func List(root, pkg string, report []byte) (keep []Mutant, dropped []Dropped, err error) {
	var rep gremlinsReport
	if err := json.Unmarshal(report, &rep); err != nil {
		return nil, nil, fmt.Errorf("gremlins report: %w", err)
	}
	var all []Mutant
	for _, f := range rep.Files {
		file := path.Join(filepath.ToSlash(pkg), filepath.ToSlash(f.FileName))
		for _, m := range f.Mutations {
			all = append(all, Mutant{File: file, Line: m.Line, Column: m.Column, Type: m.Type, Status: m.Status})
		}
	}
	slices.SortFunc(all, func(a, b Mutant) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Column != b.Column {
			return a.Column - b.Column
		}
		return strings.Compare(a.Type, b.Type)
	})
	inBuild := map[string]bool{}
	dead := map[string][][2]token.Position{}
	for _, m := range all {
		if _, ok := inBuild[m.File]; !ok {
			in, err := builtNormally(root, m.File)
			if err != nil {
				return nil, nil, err
			}
			inBuild[m.File] = in
			if in {
				src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
				if err != nil {
					return nil, nil, err
				}
				if dead[m.File], err = deadRanges(m.File, src); err != nil {
					return nil, nil, err
				}
			}
		}
		switch {
		case !inBuild[m.File]:
			dropped = append(dropped, Dropped{m, "the file is not in the package's normal build"})
		case within(dead[m.File], m.Line, m.Column):
			dropped = append(dropped, Dropped{m, "compiled away: a branch guarded by mutation.On"})
		default:
			keep = append(keep, m)
		}
	}
	return keep, dropped, nil
}

// builtNormally reports whether file is one of its package's Go files in a build without tags.
func builtNormally(root, file string) (bool, error) {
	dir := filepath.Join(root, filepath.FromSlash(path.Dir(file)))
	p, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		var none *build.NoGoError
		if errors.As(err, &none) {
			return false, nil
		}
		return false, err
	}
	base := path.Base(file)
	return slices.Contains(p.GoFiles, base) || slices.Contains(p.CgoFiles, base), nil
}

// deadRanges returns the source ranges a build without the tag pkftmutation compiles away: the
// body of an if whose condition is a chain of && with a mutation.On call among its operands (a
// constant false), and that chain's other operands (whose values no longer matter). The &&
// operators of the chain stay: turning one into || makes the branch live.
func deadRanges(name string, src []byte) ([][2]token.Position, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == mutationImport {
			local = path.Base(p)
			if im.Name != nil {
				local = im.Name.Name
			}
		}
	}
	if local == "" {
		return nil, nil
	}
	isOn := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "On" {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && id.Name == local
	}
	var out [][2]token.Position
	span := func(n ast.Node) { out = append(out, [2]token.Position{fset.Position(n.Pos()), fset.Position(n.End())}) }
	ast.Inspect(f, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		var operands []ast.Expr
		var flatten func(e ast.Expr)
		flatten = func(e ast.Expr) {
			e = ast.Unparen(e)
			if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.LAND {
				flatten(b.X)
				flatten(b.Y)
				return
			}
			operands = append(operands, e)
		}
		flatten(ifs.Cond)
		if !slices.ContainsFunc(operands, isOn) {
			return true
		}
		span(ifs.Body)
		for _, o := range operands {
			if !isOn(o) {
				span(o)
			}
		}
		return true
	})
	return out, nil
}

// within reports whether line:column lies in one of the ranges (end exclusive).
func within(ranges [][2]token.Position, line, column int) bool {
	before := func(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 < c2 }
	for _, r := range ranges {
		if !before(line, column, r[0].Line, r[0].Column) && before(line, column, r[1].Line, r[1].Column) {
			return true
		}
	}
	return false
}

// errNoChange is Apply's answer for a mutant that would leave the source as it is (gremlins'
// INVERT_ASSIGNMENTS maps %= to itself).
var errNoChange = errors.New("the mutant changes nothing")

// Apply returns src with the mutant applied: the token at its line and column (an operator of
// an assignment, a binary or unary expression, an increment or decrement, a break or continue,
// the nodes gremlins mutates) replaced by the one gremlins' table gives for its type. Only that
// token's bytes change; gremlins reprints the whole file from its AST instead, to the same
// program.
func Apply(name string, src []byte, m Mutant) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	table := tokenMutations[m.Type]
	if table == nil {
		return nil, fmt.Errorf("%s: unknown mutator type", m.ID())
	}
	offset, from := -1, token.ILLEGAL
	ast.Inspect(f, func(n ast.Node) bool {
		var tok token.Token
		var pos token.Pos
		switch n := n.(type) {
		case *ast.AssignStmt:
			tok, pos = n.Tok, n.TokPos
		case *ast.BinaryExpr:
			tok, pos = n.Op, n.OpPos
		case *ast.BranchStmt:
			tok, pos = n.Tok, n.TokPos
		case *ast.IncDecStmt:
			tok, pos = n.Tok, n.TokPos
		case *ast.UnaryExpr:
			tok, pos = n.Op, n.OpPos
		default:
			return true
		}
		if p := fset.Position(pos); p.Line == m.Line && p.Column == m.Column {
			if _, ok := table[tok]; ok {
				offset, from = p.Offset, tok
			}
		}
		return true
	})
	if offset < 0 {
		return nil, fmt.Errorf("%s: no token there that %s mutates", m.ID(), m.Type)
	}
	to := table[from]
	if to == from {
		return nil, errNoChange
	}
	if !bytes.HasPrefix(src[offset:], []byte(from.String())) {
		return nil, fmt.Errorf("%s: the source at the position is not %q", m.ID(), from)
	}
	out := make([]byte, 0, len(src)+2)
	out = append(out, src[:offset]...)
	out = append(out, to.String()...)
	out = append(out, src[offset+len(from.String()):]...)
	return out, nil
}

// ApplyFile applies the mutant to root/m.File in place.
func ApplyFile(root string, m Mutant) error {
	p := filepath.Join(root, filepath.FromSlash(m.File))
	src, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	out, err := Apply(m.File, src, m)
	if err != nil {
		return err
	}
	return os.WriteFile(p, out, 0o644)
}

// DiffPath is where the script keeps a mutant's diff in dir.
func DiffPath(dir, id string) string {
	return filepath.Join(dir, strings.NewReplacer("/", "_", ":", "_", " ", "_").Replace(id)+".diff")
}
