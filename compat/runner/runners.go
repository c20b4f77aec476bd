package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

// RepoRoot finds the repository root (the directory holding go.mod) from the working directory.
func RepoRoot() (string, error) { return goldengen.RepoRoot() }

// ErrUnavailable marks a runner that cannot be started on this machine (not built, no
// interpreter); the message says what is missing and how to provide it.
var ErrUnavailable = errors.New("runner unavailable")

// RunnerJar is the Java runner's jar, relative to the repository root (make runner builds it).
const RunnerJar = "compat/java/target/pkft-runner.jar"

// StartJava starts the Java runner as a local JVM, or in a container when PKFT_RUNNER=docker
// (startJavaContainer, through testcontainers-go).
// The runner's full-text stand-in loads the same engine library the Go binding finds
// (native.Locate), passed as the system property paimon.ftindex.lib (PAIMON_FTINDEX_LIB_PATH in a
// container); when Go finds none, the runner looks for it itself and reports what is missing.
//
// The JVM compiles with its first-tier compiler only (C1, [QuickJIT]) unless WithOptimizingJIT
// is given: a conformance runner lives for a few hundred small operations, over which the
// optimizing compiler's work costs more CPU than its code saves (about half the JVM's CPU in the
// table differential). What the runner computes is the same either way.
func StartJava(ctx context.Context, opts ...JavaOption) (*Process, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	if os.Getenv("PKFT_RUNNER") == "docker" {
		return startJavaContainer(ctx, root, javaFlags(opts))
	}
	return StartLocalJava(ctx, opts...)
}

// QuickJIT is the JVM flag the runner starts with unless WithOptimizingJIT is given: compile with
// C1 alone.
const QuickJIT = "-XX:TieredStopAtLevel=1"

// JavaOption adjusts how StartJava and StartLocalJava start the runner's JVM.
type JavaOption func(*javaConfig)

type javaConfig struct {
	optimizingJIT bool
}

// WithOptimizingJIT starts the JVM with its default tiered compilation (C1, then C2 for hot
// code): for measuring Java's steady-state speed (make bench), where the runner warms up first.
func WithOptimizingJIT() JavaOption {
	return func(c *javaConfig) { c.optimizingJIT = true }
}

// javaFlags are the JVM flags opts ask for.
func javaFlags(opts []JavaOption) []string {
	var c javaConfig
	for _, o := range opts {
		o(&c)
	}
	if c.optimizingJIT {
		return nil
	}
	return []string{QuickJIT}
}

// StartLocalJava starts the Java runner as a local JVM whatever PKFT_RUNNER says: the s3/* cases
// need a runner that reaches the S3 server on the loopback interface, which the runner's
// container (no network) cannot.
func StartLocalJava(ctx context.Context, opts ...JavaOption) (*Process, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	jar := filepath.Join(root, RunnerJar)
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("%w: Java runner jar %s is not built (make runner)", ErrUnavailable, jar)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("%w: no java on PATH", ErrUnavailable)
	}
	argv := append([]string{java}, javaFlags(opts)...)
	if found, err := native.Locate(ctx, ""); err == nil {
		argv = append(argv, "-Dpaimon.ftindex.lib="+found.Path)
	}
	return StartProtocol(ctx, "java", "", append(argv, "-jar", jar, "serve"), nil)
}

// StartPython starts the engine runner on the official Python API of paimon-ftindex, using the
// wheel make native unpacked into .cache/native/wheel.
func StartPython(ctx context.Context) (*Process, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	wheel := filepath.Join(root, ".cache/native/wheel")
	if _, err := os.Stat(filepath.Join(wheel, "paimon_ftindex")); err != nil {
		return nil, fmt.Errorf("%w: the paimon-ftindex wheel is not unpacked in %s (make native)", ErrUnavailable, wheel)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, fmt.Errorf("%w: no python3 on PATH", ErrUnavailable)
	}
	return Start(ctx, "python", []string{py, filepath.Join(root, "compat/python/engine_runner.py"), "serve"},
		[]string{"PYTHONPATH=" + wheel})
}

// JavaFullTextMissing is why the Java runner cannot run the full-text commands: it serves none
// (a runner jar built before they existed), so it must be rebuilt.
const JavaFullTextMissing = "the Java runner serves no full-text commands (archive-build, archive-search, search): " +
	"rebuild it with make runner"

// The packages of the two full-text indexers the Java runner can carry.
const (
	javaStandInPackage      = "io.github.paimonpkft.fulltext."
	javaPaimonModulePackage = "org.apache.paimon.fulltext.index."
)

// JavaFullTextNote says, for the matrix header, which Java classes the Java runner's full-text
// results come from, given the class of the full-text GlobalIndexerFactory it loaded (its ping).
func JavaFullTextNote(factory string) string {
	switch {
	case strings.HasPrefix(factory, javaStandInPackage):
		return "java: Paimon 2.0.0's own classes (writer, compaction, BucketedPrimaryKeyIndexMaintainer, PkFullTextIndexFile, " +
			"full-text read path), except the six classes of its paimon-full-text module (NativeFullText*), which the " +
			"Maven registry here does not serve: the runner's stand-ins for them (" + javaStandInPackage + "*) reach the " +
			"same engine core through the official wheel's C ABI (docs/java-runner.md)"
	case strings.HasPrefix(factory, javaPaimonModulePackage):
		return "java: Paimon 2.0.0's own classes throughout, including its paimon-full-text module"
	case factory == "":
		return "java: the runner loaded no full-text indexer"
	default:
		return "java: Paimon 2.0.0's own classes, full-text indexer " + factory
	}
}

// JavaFullTextIndexer is the class of the full-text GlobalIndexerFactory the Java runner loaded.
func JavaFullTextIndexer(ctx context.Context, p *Process) (string, error) {
	var res protocol.PingResponse
	if err := p.Call(ctx, "ping", nil, &res); err != nil {
		return "", err
	}
	if res.FullTextIndexer == nil {
		return "", nil
	}
	return *res.FullTextIndexer, nil
}

// HasCommands reports whether the runner serves every named command (from its ping).
func HasCommands(ctx context.Context, p *Process, names ...string) (bool, error) {
	var res protocol.PingResponse
	if err := p.Call(ctx, "ping", nil, &res); err != nil {
		return false, err
	}
	have := map[string]bool{}
	for _, c := range res.Commands {
		have[c] = true
	}
	for _, n := range names {
		if !have[n] {
			return false, nil
		}
	}
	return true, nil
}
