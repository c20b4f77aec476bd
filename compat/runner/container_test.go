package runner

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestContainerRunner starts the Java runner in a container (PKFT_RUNNER=docker mode) and pings
// it. It needs a Docker engine and the runner image's inputs (make runner); without an engine it
// skips, saying so, as no machine this project runs on has one.
func TestContainerRunner(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("skipped: no docker CLI on PATH; container mode needs a Docker engine")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Skipf("skipped: no Docker engine is reachable (docker info: %v: %s)", err, out)
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.CommandContext(ctx, docker, "build", "-t", "pkft-runner:latest", filepath.Join(root, "compat/java"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build of the runner image (run make runner first): %v\n%s", err, out)
	}
	t.Setenv("PKFT_RUNNER", "docker")
	p, err := StartJava(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var res struct {
		Runner        string   `json:"runner"`
		PaimonVersion string   `json:"paimonVersion"`
		Commands      []string `json:"commands"`
	}
	if err := p.Call(ctx, "ping", nil, &res); err != nil {
		t.Fatal(err)
	}
	if res.Runner != "java" || len(res.Commands) == 0 {
		t.Fatalf("ping from the container: %+v", res)
	}
}
