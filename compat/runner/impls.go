package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// ImplEnvPrefix starts the variables that add an implementation to the consumer cases:
// PKFT_IMPL_<NAME>=command starts its runner (compat/PROTOCOL.md) and
// PKFT_IMPL_<NAME>_SUPPORTS=path names its supports file.
const ImplEnvPrefix = "PKFT_IMPL_"

// supportsSuffix ends the variable naming an implementation's supports file.
const supportsSuffix = "_SUPPORTS"

// ConsumerCommands are the protocol commands the consumer cases use. Every supports file
// declares each of them, supported or not.
var ConsumerCommands = []string{"read", "search", "list-index"}

// The roles of the protocol (compat/PROTOCOL.md, "Roles"): an implementation declares the roles
// it takes in its supports file (role NAME) and every command of those roles, by command or
// unsupported.
const (
	RoleConsumer   = "consumer"
	RoleWriter     = "writer"
	RoleCompactor  = "compactor"
	RoleMaintainer = "maintainer"
)

// Roles are the protocol's roles, in the order of compat/PROTOCOL.md.
var Roles = []string{RoleConsumer, RoleWriter, RoleCompactor, RoleMaintainer}

// RoleCommands returns the commands of role (nil for an unknown role). The consumer's are
// ConsumerCommands.
func RoleCommands(role string) []string {
	switch role {
	case RoleConsumer:
		return slices.Clone(ConsumerCommands)
	case RoleWriter:
		return []string{"create-table", "write"}
	case RoleCompactor:
		return []string{"compact", "minor-compact"}
	case RoleMaintainer:
		return []string{"maintain", "pk-full-text-index-file-build", "source-meta-encode", "source-meta-decode",
			"maintainer-scenario", "sorted-maintainer-scenario"}
	}
	return nil
}

// roleOf returns the role whose commands include cmd, or "".
func roleOf(cmd string) string {
	for _, r := range Roles {
		if slices.Contains(RoleCommands(r), cmd) {
			return r
		}
	}
	return ""
}

// The built-in pypaimon 2.1.0 consumer: what PKFT_IMPL_PYPAIMON21 and PKFT_IMPL_PYPAIMON21_SUPPORTS
// default to (paths relative to the repository root, where every runner starts).
const (
	Pypaimon21Name     = "pypaimon21"
	Pypaimon21Venv     = ".cache/pypaimon21-venv"
	Pypaimon21Command  = Pypaimon21Venv + "/bin/python compat/python/pypaimon21_runner.py serve"
	Pypaimon21Supports = "compat/python/pypaimon21.supports"
)

// The built-in paimon-rust 0.4.0 consumer and writer: what PKFT_IMPL_RUST and PKFT_IMPL_RUST_SUPPORTS default
// to. make rust-runner builds compat/rust (its Cargo target directory outside the clone) and
// copies the program to RustProgram.
const (
	RustName     = "rust"
	RustProgram  = ".cache/rust-runner/pkft-rust-runner"
	RustCommand  = RustProgram + " serve"
	RustSupports = "compat/rust/rust.supports"
)

// The built-in Go implementation: pkft's own runner (compat/go), what PKFT_IMPL_GO and
// PKFT_IMPL_GO_SUPPORTS default to. make go-runner builds it into GoProgram.
const (
	GoName     = "go"
	GoProgram  = ".cache/go-runner/pkft-runner"
	GoCommand  = GoProgram + " serve"
	GoSupports = "compat/go/go.supports"
)

// Builtin is an implementation the consumer cases run by default: its runner's command line and
// supports file when PKFT_IMPL_<NAME> does not replace them, the variable that makes a missing
// runner a failure instead of a skip, and the make target that provides it.
type Builtin struct {
	Name, Command, Supports, RequireEnv, MakeTarget string
}

// Builtins are the default consumers, in the order their cases run.
var Builtins = []Builtin{
	{Pypaimon21Name, Pypaimon21Command, Pypaimon21Supports, "PKFT_REQUIRE_PYPAIMON", "make pypaimon21-env"},
	{RustName, RustCommand, RustSupports, "PKFT_REQUIRE_RUST", "make rust-runner"},
	{GoName, GoCommand, GoSupports, testenv.RequireGoEnv, "make go-runner"},
}

// ConsumerFeatures are parts of a consumer command a supports file may declare unsupported on
// their own: search-positions, the physical position (bucket, dataFile, rowPosition) of each
// ranked search hit. A consumer without it answers ranked searches without positions, and its
// ranked order is compared with Java's hit for hit, ties across partitions included.
var ConsumerFeatures = []string{"search-positions"}

// OptionalFeatures are arguments of the protocol's commands that only some runners serve, each
// declared by a supports file's feature line (feature NAME); a case that needs one runs only for
// the implementations declaring it, and is unsupported for the others:
//
//   - index-new-rows: write's indexNewRows, pkft's own WithIndexNewRows (the write's level-0 files
//     indexed at its commit), which Paimon's writers do not have (write/index-new-rows).
var OptionalFeatures = map[string]string{
	FeatureIndexNewRows: "write's indexNewRows (pkft's WithIndexNewRows: the write's level-0 files indexed at its commit)",
}

// FeatureIndexNewRows is the optional feature of write's indexNewRows argument.
const FeatureIndexNewRows = "index-new-rows"

// Impl is one implementation in the consumer cases, started through the protocol of
// compat/PROTOCOL.md.
type Impl struct {
	// Name is the lower-case name of the implementation: the consumer in direction names.
	Name string
	// Argv is the runner's command line; it starts in the repository root.
	Argv []string
	// Supports is the implementation's checked-in declaration of what it serves.
	Supports *Supports
	// Builtin is set for a default entry of Builtins whose PKFT_IMPL_<NAME> is not given: a
	// missing runner then skips its cases unless its Builtin.RequireEnv is 1.
	Builtin *Builtin
}

// Supports is what an implementation's supports file declares: which consumer commands it
// serves, which it does not (with the reason), and its documented upstream bugs.
type Supports struct {
	Path string
	// Roles are the roles the file declares (role NAME lines), in file order; a file without
	// role lines takes the consumer role.
	Roles       []string
	Commands    map[string]bool
	Unsupported map[string]string
	// Features are the optional features (OptionalFeatures) the file declares (feature NAME).
	Features map[string]bool
	Known    []KnownBug
}

// KnownBug is one documented bug of an implementation (a known-upstream line): the command on
// the table (PRODUCER/TABLE) fails with an error matching Expect (see Matches), because of Source (the
// upstream file) as Reason explains. The case's request is its reproduction.
type KnownBug struct {
	Command, Table, Expect, Source, Reason string
	// BySelector is set when an option:KEY=VALUE or key-type:TYPE line named the table: such a
	// line says tables with the option or key type may show the bug (one without an archive, or
	// without the values the bug needs, does not), so a pass is a pass; the lines naming tables
	// are the ones that notice an upstream fix.
	BySelector bool
}

// Matches tells whether err is the documented bug: its message contains the parts of Expect
// split at '*', in order, with TABLE in them standing for the table's directory name.
func (k KnownBug) Matches(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	_, name, _ := strings.Cut(k.Table, "/")
	for _, part := range strings.Split(strings.ReplaceAll(k.Expect, "TABLE", name), "*") {
		i := strings.Index(msg, part)
		if i < 0 {
			return false
		}
		msg = msg[i+len(part):]
	}
	return true
}

// optionSelector prefixes a known-upstream table selector naming every table that sets an
// option to a value: option:KEY=VALUE.
const optionSelector = "option:"

// keyTypeSelector prefixes a known-upstream table selector naming every table with a
// primary-key field of a type: key-type:TYPE, TYPE as Paimon's SQL string of the type without
// NOT NULL (TIMESTAMP(9)).
const keyTypeSelector = "key-type:"

// selects tells whether the selector of a known-upstream line (option:KEY=VALUE or
// key-type:TYPE) names a table of schema.
func selects(selector string, schema inspect.SchemaDump) bool {
	if sel, ok := strings.CutPrefix(selector, optionSelector); ok {
		key, value, _ := strings.Cut(sel, "=")
		return schema.Options[key] == value
	}
	if typ, ok := strings.CutPrefix(selector, keyTypeSelector); ok {
		for _, f := range schema.Fields {
			if slices.Contains(schema.PrimaryKeys, f.Name) && strings.TrimSuffix(f.Type, " NOT NULL") == typ {
				return true
			}
		}
	}
	return false
}

// KnownBugs returns every documented bug of command on table (PRODUCER/TABLE), whose schema is
// schema: the lines naming the table first, then the option:KEY=VALUE and key-type:TYPE lines
// that select it, each in file order. A table may show any of them (a table selected by two
// options fails on whichever the implementation checks first), so a case failing with the error
// of any one of them is that bug.
func (s *Supports) KnownBugs(command, table string, schema inspect.SchemaDump) []KnownBug {
	var out []KnownBug
	for _, k := range s.Known {
		if k.Command == command && k.Table == table {
			out = append(out, k)
		}
	}
	for _, k := range s.Known {
		if k.Command == command && selects(k.Table, schema) {
			k.Table, k.BySelector = table, true
			out = append(out, k)
		}
	}
	return out
}

// KnownBug returns the first of KnownBugs, if any.
func (s *Supports) KnownBug(command, table string, schema inspect.SchemaDump) (KnownBug, bool) {
	if bugs := s.KnownBugs(command, table, schema); len(bugs) > 0 {
		return bugs[0], true
	}
	return KnownBug{}, false
}

// LoadSupports reads a supports file: one declaration per line, '#' starting a comment:
//
//	role consumer|writer|compactor|maintainer
//	command NAME
//	feature NAME
//	unsupported NAME REASON...
//	known-upstream COMMAND PRODUCER/TABLE | EXPECTED ERROR TEXT | UPSTREAM FILE | REASON
//	known-upstream COMMAND option:KEY=VALUE | EXPECTED ERROR TEXT | UPSTREAM FILE | REASON
//	known-upstream COMMAND key-type:TYPE | EXPECTED ERROR TEXT | UPSTREAM FILE | REASON
//
// (the second form: every table whose options set KEY to VALUE; the third: every table with a
// primary-key field of type TYPE). A feature line declares one of OptionalFeatures served.
//
// Every command of ConsumerCommands, and every command of each declared role (RoleCommands),
// must be declared exactly once, by command or unsupported. A file without role lines takes the
// consumer role.
func LoadSupports(path string) (*Supports, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("supports file: %w", err)
	}
	defer f.Close()
	s := &Supports{Path: path, Commands: map[string]bool{}, Unsupported: map[string]string{}, Features: map[string]bool{}}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		bad := func(msg string) error { return fmt.Errorf("%s:%d: %s: %q", path, n, msg, line) }
		switch kind {
		case "role":
			if RoleCommands(rest) == nil {
				return nil, bad(fmt.Sprintf("want: role NAME, NAME one of %v", Roles))
			}
			if slices.Contains(s.Roles, rest) {
				return nil, bad("role " + rest + " is declared twice")
			}
			s.Roles = append(s.Roles, rest)
		case "command":
			if rest == "" || strings.Contains(rest, " ") {
				return nil, bad("want: command NAME")
			}
			s.Commands[rest] = true
		case "feature":
			if _, ok := OptionalFeatures[rest]; !ok {
				return nil, bad(fmt.Sprintf("want: feature NAME, NAME one of %v", slices.Sorted(maps.Keys(OptionalFeatures))))
			}
			if s.Features[rest] {
				return nil, bad("feature " + rest + " is declared twice")
			}
			s.Features[rest] = true
		case "unsupported":
			name, reason, _ := strings.Cut(rest, " ")
			if name == "" || strings.TrimSpace(reason) == "" {
				return nil, bad("want: unsupported NAME REASON")
			}
			if roleOf(name) == "" && !slices.Contains(ConsumerFeatures, name) {
				return nil, bad(fmt.Sprintf("unsupported names a command of a role (%v) or a consumer feature %v", Roles, ConsumerFeatures))
			}
			s.Unsupported[name] = strings.TrimSpace(reason)
		case "known-upstream":
			parts := strings.Split(rest, "|")
			if len(parts) != 4 {
				return nil, bad("want: known-upstream COMMAND PRODUCER/TABLE | EXPECTED ERROR | UPSTREAM FILE | REASON")
			}
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			cmd, table, _ := strings.Cut(parts[0], " ")
			table = strings.TrimSpace(table)
			sel, isOption := strings.CutPrefix(table, optionSelector)
			if isOption && !strings.Contains(sel, "=") {
				return nil, bad("want: known-upstream COMMAND option:KEY=VALUE | EXPECTED ERROR | UPSTREAM FILE | REASON")
			}
			typ, isKeyType := strings.CutPrefix(table, keyTypeSelector)
			if isKeyType && (typ == "" || strings.HasSuffix(typ, "NOT NULL")) {
				return nil, bad("want: known-upstream COMMAND key-type:TYPE | EXPECTED ERROR | UPSTREAM FILE | REASON (TYPE without NOT NULL)")
			}
			if cmd == "" || (!isOption && !isKeyType && !strings.Contains(table, "/")) || parts[1] == "" || parts[2] == "" || parts[3] == "" {
				return nil, bad("want: known-upstream COMMAND PRODUCER/TABLE | EXPECTED ERROR | UPSTREAM FILE | REASON")
			}
			s.Known = append(s.Known, KnownBug{Command: cmd, Table: table, Expect: parts[1], Source: parts[2], Reason: parts[3]})
		default:
			return nil, bad("unknown declaration " + kind)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("supports file %s: %w", path, err)
	}
	if len(s.Roles) == 0 {
		s.Roles = []string{RoleConsumer}
	}
	for _, c := range ConsumerCommands {
		if s.Commands[c] == (s.Unsupported[c] != "") {
			return nil, fmt.Errorf("%s: command %s must be declared exactly once, by command or unsupported", path, c)
		}
	}
	for _, r := range s.Roles {
		for _, c := range RoleCommands(r) {
			if s.Commands[c] == (s.Unsupported[c] != "") {
				return nil, fmt.Errorf("%s: role %s: command %s must be declared exactly once, by command or unsupported", path, r, c)
			}
		}
	}
	return s, nil
}

// Impls returns the implementations of the consumer cases: every entry of Builtins, by its
// defaults where PKFT_IMPL_<NAME> does not replace them, then one per other PKFT_IMPL_<NAME>
// variable of environ, by name. root is the repository root, against which relative supports
// paths are read.
func Impls(root string, environ []string) ([]Impl, error) {
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(k, ImplEnvPrefix) {
			vars[k] = v
		}
	}
	builtins := map[string]*Builtin{}
	var names []string
	for i := range Builtins {
		b := &Builtins[i]
		builtins[strings.ToUpper(b.Name)] = b
		names = append(names, strings.ToUpper(b.Name))
	}
	var others []string
	for k := range vars {
		name := strings.TrimPrefix(k, ImplEnvPrefix)
		if !strings.HasSuffix(k, supportsSuffix) && builtins[name] == nil {
			others = append(others, name)
		}
	}
	for k := range vars {
		name := strings.TrimSuffix(strings.TrimPrefix(k, ImplEnvPrefix), supportsSuffix)
		if strings.HasSuffix(k, supportsSuffix) && vars[ImplEnvPrefix+name] == "" && builtins[name] == nil {
			return nil, fmt.Errorf("%s is set but %s%s is not", k, ImplEnvPrefix, name)
		}
	}
	sort.Strings(others)
	names = append(names, others...)
	var out []Impl
	for _, name := range names {
		cmdline, given := vars[ImplEnvPrefix+name]
		supports := vars[ImplEnvPrefix+name+supportsSuffix]
		builtin := builtins[name]
		if builtin != nil {
			if !given {
				cmdline = builtin.Command
			}
			if supports == "" {
				supports = builtin.Supports
			}
		}
		if name == "" || strings.ToUpper(name) != name || strings.ContainsAny(name, " -") {
			return nil, fmt.Errorf("%s%s: the name must be upper case letters, digits and underscores", ImplEnvPrefix, name)
		}
		argv := strings.Fields(cmdline)
		if len(argv) == 0 {
			return nil, fmt.Errorf("%s%s is empty", ImplEnvPrefix, name)
		}
		if supports == "" {
			return nil, fmt.Errorf("%s%s needs its supports file in %s%s%s", ImplEnvPrefix, name, ImplEnvPrefix, name, supportsSuffix)
		}
		if !filepath.IsAbs(supports) {
			supports = filepath.Join(root, supports)
		}
		s, err := LoadSupports(supports)
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", ImplEnvPrefix, name, err)
		}
		impl := Impl{Name: strings.ToLower(name), Argv: argv, Supports: s}
		if builtin != nil && !given {
			impl.Builtin = builtin
		}
		out = append(out, impl)
	}
	return out, nil
}

// Start starts the implementation's runner in root and checks it answers ping. A runner whose
// program does not exist is ErrUnavailable.
func (i Impl) Start(ctx context.Context, root string) (*Process, error) {
	prog := i.Argv[0]
	if strings.Contains(prog, "/") {
		abs := prog
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, prog)
		}
		if _, err := os.Stat(abs); err != nil {
			hint := ""
			if i.Builtin != nil {
				hint = " (" + i.Builtin.MakeTarget + ")"
			}
			return nil, fmt.Errorf("%w: %s runner program %s is missing%s", ErrUnavailable, i.Name, abs, hint)
		}
	} else if _, err := exec.LookPath(prog); err != nil {
		return nil, fmt.Errorf("%w: %s runner program %s: %v", ErrUnavailable, i.Name, prog, err)
	}
	argv := append([]string(nil), i.Argv...)
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		argv[0] = filepath.Join(root, prog)
	}
	p, err := StartProtocol(ctx, i.Name, root, argv, nil)
	if err != nil {
		return nil, err
	}
	var ping protocol.PingResponse
	if err := p.Call(ctx, "ping", nil, &ping); err != nil {
		p.kill()
		_ = p.Close()
		var re *RemoteError
		var ve *protocol.VersionError
		if errors.As(err, &ve) {
			return nil, err
		}
		if errors.As(err, &re) {
			return nil, fmt.Errorf("the %s runner does not answer ping: %w", i.Name, err)
		}
		return nil, fmt.Errorf("%w: the %s runner does not serve: %v", ErrUnavailable, i.Name, err)
	}
	// The supports file and the runner must agree: a command declared supported is served.
	if i.Supports != nil {
		for c := range i.Supports.Commands {
			if !slices.Contains(ping.Commands, c) {
				_ = p.Close()
				return nil, fmt.Errorf("%s declares %s supported, but the %s runner's ping lists only %v", i.Supports.Path, c, i.Name, ping.Commands)
			}
		}
	}
	return p, nil
}
