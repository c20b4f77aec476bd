package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// cliContract is what TestCLIContract runs one subcommand through. Command lines are after the
// subcommand's name; {table} is a fresh copy of the contract table (a Java table with a
// full-text index and archives), {missing} a path that holds nothing, {new} a new table's path
// and {schema} a table definition for it.
type cliContract struct {
	ok    []string // succeeds
	stdin string   // stdin of ok
	// badValues each give a flag a value the command refuses: usage errors.
	badValues [][]string
	// missing each lack a required flag or argument: usage errors.
	missing [][]string
	// tooMany has an argument too many: a usage error.
	tooMany []string
	// opError fails in the operation (exit 1) with an error containing opWant.
	opError []string
	opWant  string
	// noOpError says why the command has no operation that can fail (opError is nil).
	noOpError string
	// signal interrupts the command in a built binary during a long operation; nil with
	// noSignal saying why no real signal is meaningful.
	signal   func(t *testing.T, bin string)
	noSignal string
}

// contracts are the subcommands' contracts. TestCLIContract fails for a subcommand of the root
// that has none, so a new command cannot be left out.
func contracts() map[string]cliContract {
	const quick = "reads a few local files within milliseconds: no long operation to signal; the cancelled-context case covers an interrupted run"
	return map[string]cliContract{
		"create": {
			ok:        []string{"{new}", "--schema", "{schema}"},
			badValues: [][]string{{"{new}", "--schema", "{schema}", "--fs-option", "novalue"}},
			missing:   [][]string{{"{new}"}, {"--schema", "{schema}"}},
			tooMany:   []string{"{new}", "extra", "--schema", "{schema}"},
			opError:   []string{"{table}", "--schema", "{schema}"}, opWant: "creation is not allowed",
			noSignal: quick,
		},
		"dump": {
			ok:        []string{"{table}"},
			badValues: [][]string{{"{table}", "--snapshot", "-1"}, {"{table}", "--snapshot", "x"}},
			missing:   [][]string{{}},
			tooMany:   []string{"{table}", "extra"},
			opError:   []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"state": {
			ok:        []string{"{table}"},
			badValues: [][]string{{"{table}", "--snapshot", "-1"}, {"{table}", "--json=maybe"}},
			missing:   [][]string{{}},
			tooMany:   []string{"{table}", "extra"},
			opError:   []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"options": {
			ok:        []string{"{table}"},
			badValues: [][]string{{"{table}", "--json=maybe"}},
			missing:   [][]string{{}},
			tooMany:   []string{"{table}", "extra"},
			opError:   []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"rewrite-metadata": {
			ok:        []string{"{table}"},
			badValues: [][]string{{"{table}", "--log-level", "loud"}},
			missing:   [][]string{{}},
			tooMany:   []string{"{table}", "extra"},
			opError:   []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"version": {
			ok:        []string{},
			badValues: [][]string{{"--log-format", "xml"}},
			tooMany:   []string{"extra"},
			noOpError: "it reports a missing engine as its answer (exit 0) and reads no table",
			noSignal:  "it answers at once and reads no table",
		},
		"scan": {
			ok:        []string{"{table}", "--limit", "2"},
			badValues: [][]string{{"{table}", "--limit", "-1"}, {"{table}", "--limit", "x"}, {"{table}", "--snapshot", "-2"}},
			missing:   [][]string{{}},
			tooMany:   []string{"{table}", "extra"},
			opError:   []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"search": {
			ok: []string{"{table}", "--query", "lake"},
			badValues: [][]string{{"{table}", "-q", "x", "--limit", "-1"}, {"{table}", "-q", "x", "--limit", "0"},
				{"{table}", "-q", "x", "--timeout", "-1s"}, {"{table}", "-q", "x", "--limit", "many"}},
			missing: [][]string{{"{table}"}, {"{table}", "--query", " "}, {"--query", "x"}},
			tooMany: []string{"{table}", "extra", "-q", "x"},
			opError: []string{"{missing}", "-q", "x"}, opWant: "no Paimon table at",
			signal: signalSearch,
		},
		"write": {
			ok:    []string{"{table}"},
			stdin: `{"region":"eu","dt":"2024-01-31","id":7001,"content":"contract row"}` + "\n",
			badValues: [][]string{{"{table}", "--format", "xml"}, {"{table}", "--progress", "sometimes"},
				{"{table}", "--quiet", "--progress", "always"}},
			missing: [][]string{{}, {"{table}", "--format", "parquet"}},
			tooMany: []string{"{table}", "extra"},
			opError: []string{"{missing}"}, opWant: "no Paimon table at",
			signal: signalWrite,
		},
		"compact": {
			ok: []string{"{table}"},
			badValues: [][]string{{"{table}", "--strategy", "bogus"}, {"{table}", "--shard", "5/3"},
				{"{table}", "--parallel", "-1"}, {"{table}", "--bucket", "-1"}, {"{table}", "--progress", "sometimes"}},
			missing: [][]string{{}},
			tooMany: []string{"{table}", "extra"},
			opError: []string{"{missing}"}, opWant: "no Paimon table at",
			signal: func(t *testing.T, bin string) { signalBuild(t, bin, "compact") },
		},
		"expire-snapshots": {
			ok: []string{"{table}", "--retain-max", "100"},
			badValues: [][]string{{"{table}", "--older-than", "soon"}, {"{table}", "--retain-max", "x"},
				{"{table}", "--retain-min", "0"}},
			missing: [][]string{{}},
			tooMany: []string{"{table}", "extra"},
			opError: []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"remove-orphan-files": {
			ok: []string{"{table}", "--dry-run"},
			badValues: [][]string{{"{table}", "--older-than", "soon"}, {"{table}", "--older-than", "2999-01-01"},
				{"{table}", "--parallel", "-1"}, {"{table}", "--mode", "distributed"}},
			missing: [][]string{{}},
			tooMany: []string{"{table}", "extra"},
			opError: []string{"{missing}"}, opWant: "no Paimon table at",
			noSignal: quick,
		},
		"maintain": {
			ok: []string{"{table}", "--dry-run"},
			badValues: [][]string{{"{table}", "--shard", "5/3"}, {"{table}", "--parallel", "-2"},
				{"{table}", "--progress", "sometimes"}, {"{table}", "--watch", "--poll-interval", "0s"},
				{"{table}", "--listen", "127.0.0.1:0"}},
			missing: [][]string{{}},
			tooMany: []string{"{table}", "extra"},
			opError: []string{"{missing}"}, opWant: "no Paimon table at",
			signal: func(t *testing.T, bin string) { signalBuild(t, bin, "maintain") },
		},
	}
}

// contractSchema is the table definition create's cases use.
const contractSchema = `{"columns": [{"name": "id", "type": "INT"}, {"name": "content", "type": "STRING"}],
  "primaryKeys": ["id"], "options": {"bucket": "1"}}`

// TestCLIContract runs every subcommand of the root through success, each kind of usage error
// (unknown flag, bad flag value, missing required flag or argument, too many arguments), an
// operation error and an interruption, checking the exit status and the shape of stderr: an
// error is plain lines, the first "pkft: ...", never a log record; a refused command writes
// nothing.
func TestCLIContract(t *testing.T) {
	testenv.Native(t)
	all := contracts()
	var names []string
	for _, c := range newRoot(&bytes.Buffer{}, &logSetup{w: &bytes.Buffer{}}).Commands() {
		names = append(names, c.Name())
		if _, ok := all[c.Name()]; !ok {
			t.Errorf("subcommand %q has no CLI contract: add it to contracts()", c.Name())
		}
	}
	for name := range all {
		if !slices.Contains(names, name) {
			t.Errorf("contracts() names %q, which is no subcommand", name)
		}
	}
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(contractSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		c := all[name]
		t.Run(name, func(t *testing.T) {
			// expand returns the command line with a fresh table, and that table's directory.
			expand := func(args []string) ([]string, string) {
				table := goldenTable(t, "ft-default-partitioned", false)
				out := []string{name}
				for _, a := range args {
					a = strings.ReplaceAll(a, "{table}", table)
					a = strings.ReplaceAll(a, "{missing}", filepath.Join(t.TempDir(), "nothing"))
					a = strings.ReplaceAll(a, "{new}", filepath.Join(t.TempDir(), "new"))
					a = strings.ReplaceAll(a, "{schema}", schema)
					out = append(out, a)
				}
				return out, table
			}
			check := func(kind string, args []string, stdin string, ctx context.Context, want int, wantErr string) {
				t.Helper()
				line, table := expand(args)
				before := tableFiles(t, table)
				var out, errb bytes.Buffer
				code := runWith(ctx, line, strings.NewReader(stdin), &out, &errb)
				stderr := errb.String()
				if code != want {
					t.Errorf("%s: pkft %q: exit %d, want %d; stderr %q", kind, line, code, want, stderr)
				}
				if strings.Contains(stderr, "level=") || strings.Contains(stderr, `\n`) {
					t.Errorf("%s: pkft %q: stderr holds a log record or an escaped line break: %q", kind, line, stderr)
				}
				if want == exitOK {
					return
				}
				if !strings.HasPrefix(stderr, "pkft: ") || !strings.Contains(stderr, wantErr) || out.Len() != 0 {
					t.Errorf("%s: pkft %q: stdout %q, stderr %q: want nothing on stdout and an error 'pkft: ...' containing %q", kind, line, out.String(), stderr, wantErr)
				}
				if !sameFiles(before, tableFiles(t, table)) {
					t.Errorf("%s: pkft %q changed the table", kind, line)
				}
			}
			bg := context.Background()
			check("success", c.ok, c.stdin, bg, exitOK, "")
			unknown := append(slices.Clone(c.ok), "--no-such-flag")
			check("unknown flag", unknown, "", bg, exitUsage, "unknown flag: --no-such-flag")
			if len(c.badValues) == 0 {
				t.Error("no bad flag value case")
			}
			for _, a := range c.badValues {
				// The refusal names the flag, and not as an unknown one.
				var flag string
				for _, s := range a {
					if strings.HasPrefix(s, "--") {
						flag = s // the last flag is the bad one
					}
				}
				flag, _, _ = strings.Cut(flag, "=")
				check("bad flag value", a, "", bg, exitUsage, flag)
				line, _ := expand(a)
				if _, _, errs := pkftRun(t, line...); strings.Contains(errs, "unknown flag") {
					t.Errorf("pkft %q: %q: the flag is unknown", line, errs)
				}
			}
			if len(c.missing) == 0 && name != "version" {
				t.Error("no missing flag or argument case")
			}
			for _, a := range c.missing {
				check("missing flag or argument", a, "", bg, exitUsage, "")
			}
			check("too many arguments", c.tooMany, "", bg, exitUsage, "")
			if c.opError == nil && c.noOpError == "" {
				t.Error("no operation error case, and no reason why")
			}
			if c.opError != nil {
				check("operation error", c.opError, "", bg, exitFailed, c.opWant)
			}
			// Interrupted before the command could finish: a signal's context is done.
			if name != "version" {
				ctx, cancel := context.WithCancelCause(bg)
				cancel(errors.New("interrupt signal received"))
				check("interrupted", c.ok, c.stdin, ctx, exitInterrupted, "signal received")
			}
			if c.signal == nil && c.noSignal == "" {
				t.Error("no real signal case, and no reason why")
			}
		})
	}
	bin := buildPkft(t)
	for _, name := range names {
		if c := all[name]; c.signal != nil {
			t.Run(name+"/SIGINT", func(t *testing.T) { c.signal(t, bin) })
		}
	}
}

// interruptBinary sends SIGINT to the running cmd and checks it exits promptly with status 130,
// a plain error naming the signal on stderr and nothing on stdout.
func interruptBinary(t *testing.T, cmd *exec.Cmd, done <-chan error, stdout, stderr *bytes.Buffer) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("pkft %v still running 30s after SIGINT", cmd.Args[1:])
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("pkft %v: exit %d after SIGINT, want %d; stderr %q", cmd.Args[1:], code, exitInterrupted, stderr.String())
	}
	if !strings.HasPrefix(stderr.String(), "pkft: ") || !strings.Contains(stderr.String(), "signal received") || strings.Contains(stderr.String(), "level=") {
		t.Errorf("pkft %v: stderr %q, want 'pkft: ...' naming the signal", cmd.Args[1:], stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("pkft %v: stdout %q after SIGINT", cmd.Args[1:], stdout.String())
	}
}

// startBinary starts bin with args and returns the channel its Wait reports on.
func startBinary(t *testing.T, cmd *exec.Cmd) (<-chan error, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done, &stdout, &stderr
}

// signalWrite: SIGINT while pkft write waits on a stdin that stays open stops it with 130 and
// commits nothing.
func signalWrite(t *testing.T, bin string) {
	dir := goldenTable(t, "ft-default-partitioned", false)
	before := tableFiles(t, dir)
	cmd := exec.Command(bin, "write", dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	done, stdout, stderr := startBinary(t, cmd)
	fmt.Fprintln(in, `{"region":"eu","dt":"2024-01-31","id":7002,"content":"typed, then Ctrl-C"}`)
	time.Sleep(time.Second)
	interruptBinary(t, cmd, done, stdout, stderr)
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Error("an interrupted write changed the table")
	}
}

// signalSearch: SIGINT while the engine is busy with a slow query.
func signalSearch(t *testing.T, bin string) {
	dir := goldenTable(t, "ft-ngram-two-levels", false)
	cmd := exec.Command(bin, "search", dir, "--query", slowQuery())
	done, stdout, stderr := startBinary(t, cmd)
	select {
	case err := <-done:
		t.Fatalf("the search ended before the signal (%v): %s", err, stderr.String())
	case <-time.After(2 * time.Second):
	}
	interruptBinary(t, cmd, done, stdout, stderr)
}

// signalBuild: SIGINT to compact or maintain once the engine builds an archive (its build
// directory appeared) stops it with 130 and leaves the table's files as they were.
func signalBuild(t *testing.T, bin, command string) {
	dir := goldenTable(t, "partitioned-dv", false)
	var in strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&in, `{"region":"eu","dt":"2024-01-31","id":%d,"content":"lake river fox %d"}`+"\n", 100000+i, i)
	}
	if _, err := pkftRunIn(t, in.String(), "write", dir, "--write-only"); err != nil {
		t.Fatal(err)
	}
	if command == "maintain" {
		// Compacted without a full-text index, then indexed: maintain has archives to build.
		if _, err := pkftRunIn(t, "", "compact", dir); err != nil {
			t.Fatal(err)
		}
	}
	addFullText(t, dir)
	before := tableFiles(t, dir)
	base := t.TempDir()
	cmd := exec.Command(bin, command, dir, "--progress", "never", "--parallel", "1")
	cmd.Env = append(os.Environ(), "TMPDIR="+base)
	done, stdout, stderr := startBinary(t, cmd)
	deadline := time.Now().Add(2 * time.Minute)
	for building := false; !building; {
		select {
		case err := <-done:
			t.Fatalf("pkft %s ended before an archive build began (%v): %s", command, err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatalf("no engine build directory appeared under %s", base)
		}
		for _, d := range processDirs(t, base, cmd.Process.Pid) {
			if inside, _ := os.ReadDir(d); len(inside) > 0 {
				building = true
			}
		}
		time.Sleep(time.Millisecond)
	}
	interruptBinary(t, cmd, done, stdout, stderr)
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Errorf("an interrupted %s changed the table: new files %v", command, newFiles(before, tableFiles(t, dir)))
	}
}
