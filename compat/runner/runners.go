package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/paimon-pkft/pkft/internal/goldengen"
)

// RepoRoot finds the repository root (the directory holding go.mod) from the working directory.
func RepoRoot() (string, error) { return goldengen.RepoRoot() }

// ErrUnavailable marks a runner that cannot be started on this machine (not built, no
// interpreter); the message says what is missing and how to provide it.
var ErrUnavailable = errors.New("runner unavailable")

// RunnerJar is the Java runner's jar, relative to the repository root (make runner builds it).
const RunnerJar = "compat/java/target/pkft-runner.jar"

// StartJava starts the Java runner as a local JVM, or in a container when PKFT_RUNNER=docker.
func StartJava(ctx context.Context) (*Process, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	if os.Getenv("PKFT_RUNNER") == "docker" {
		return startJavaContainer(ctx, root)
	}
	jar := filepath.Join(root, RunnerJar)
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("%w: Java runner jar %s is not built (make runner)", ErrUnavailable, jar)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("%w: no java on PATH", ErrUnavailable)
	}
	return Start(ctx, "java", []string{java, "-jar", jar, "serve"}, nil)
}

// startJavaContainer runs the runner image built from compat/java/Dockerfile with the Docker CLI,
// mounting the working directories the suite uses at the same paths.
func startJavaContainer(ctx context.Context, root string) (*Process, error) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		return nil, fmt.Errorf("%w: PKFT_RUNNER=docker but no docker CLI on PATH", ErrUnavailable)
	}
	if out, err := exec.CommandContext(ctx, docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: PKFT_RUNNER=docker but no Docker engine is reachable: %s", ErrUnavailable, out)
	}
	tmp := os.TempDir()
	name := fmt.Sprintf("pkft-runner-%d-%d", os.Getpid(), time.Now().UnixNano())
	p, err := Start(ctx, "java (container)", []string{docker, "run", "--rm", "-i", "--name", name,
		"-v", tmp + ":" + tmp, "-v", root + ":" + root,
		"pkft-runner:latest", "serve"}, nil)
	if err != nil {
		return nil, err
	}
	// Killing the docker client does not stop the container; remove it by name as well.
	p.onKill = func() { _ = exec.Command(docker, "rm", "-f", name).Run() }
	return p, nil
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

// JavaFullTextMissing is why the Java runner cannot run full-text engine commands: the Paimon
// modules that carry Java's full-text indexer and its native library are not obtainable here.
const JavaFullTextMissing = "the Java runner has no full-text engine: org.apache.paimon:paimon-full-text:2.0.0 " +
	"and org.apache.paimon:paimon-full-text-index:0.1.0 are not served by the Maven registry reachable here"

// HasCommands reports whether the runner serves every named command (from its ping).
func HasCommands(ctx context.Context, p *Process, names ...string) (bool, error) {
	var res struct {
		Commands []string `json:"commands"`
	}
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
