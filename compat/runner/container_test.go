package runner

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// requireDockerEnv makes the container mode's tests fail instead of skipping when there is no
// Docker engine, runner image or compose client (make compat-docker sets it).
const requireDockerEnv = "PKFT_REQUIRE_DOCKER"

// helperEnv makes TestContainerHelperProcess the child process of TestContainerKilledTestCleanedUp.
const helperEnv = "PKFT_CONTAINER_TEST_HELPER"

// needDocker returns a client of the Docker engine once the engine answers and the runner image
// exists; otherwise the test is skipped (or failed under PKFT_REQUIRE_DOCKER=1).
func needDocker(t *testing.T, ctx context.Context) *testcontainers.DockerClient {
	t.Helper()
	cli, err := dockerClient(ctx)
	if err != nil {
		testenv.Missing(t, requireDockerEnv, err.Error()+" (make docker-up)")
	}
	t.Cleanup(func() { _ = cli.Close() })
	img, err := cli.ImageInspect(ctx, RunnerImage())
	if err != nil {
		testenv.Missing(t, requireDockerEnv, fmt.Sprintf("runner image %s is not built (make docker-images): %v", RunnerImage(), err))
	}
	// The image must hold the runner jar of this tree, not one an earlier build left.
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	jar, err := os.ReadFile(filepath.Join(root, RunnerJar))
	if err != nil {
		testenv.Missing(t, requireDockerEnv, fmt.Sprintf("runner jar: %v (make runner)", err))
	}
	var labels map[string]string
	if img.Config != nil {
		labels = img.Config.Labels
	}
	if got, want := labels[RunnerJarLabel], fmt.Sprintf("%x", sha256.Sum256(jar)); got != want {
		testenv.Missing(t, requireDockerEnv, fmt.Sprintf("runner image %s was built from another runner jar (label %s %q, the jar's SHA-256 %s): make docker-images", RunnerImage(), RunnerJarLabel, got, want))
	}
	return cli
}

// containersOf lists the runner containers (any state) labelled with the process id pid.
func containersOf(t *testing.T, ctx context.Context, cli *testcontainers.DockerClient, pid int) []string {
	t.Helper()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", ContainerPIDLabel+"="+strconv.Itoa(pid)),
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

// gone reports whether the container no longer exists, waiting up to limit for it to go.
func gone(ctx context.Context, cli *testcontainers.DockerClient, id string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		_, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
		if cerrdefs.IsNotFound(err) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestContainerRunner starts the Java runner in its container (PKFT_RUNNER=docker), pings it
// over the attached stdin/stdout, and checks that closing the runner removes the container.
func TestContainerRunner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli := needDocker(t, ctx)
	t.Setenv("PKFT_RUNNER", "docker")
	p, err := StartJava(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ids := containersOf(t, ctx, cli, os.Getpid())
	if len(ids) == 0 {
		t.Fatalf("no runner container labelled with this process (%d) after StartJava", os.Getpid())
	}
	var res protocol.PingResponse
	if err := p.Call(ctx, "ping", nil, &res); err != nil {
		t.Fatal(err)
	}
	if res.Runner != "java" || !slices.Contains(res.Commands, "ping") {
		t.Fatalf("ping from the container: %+v", res)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for _, id := range ids {
		if !gone(ctx, cli, id, 30*time.Second) {
			t.Errorf("container %.12s still exists after the runner was closed", id)
		}
	}
}

// TestContainerRunnerCancelledCall kills the runner through a cancelled call: the container is
// removed at once and the process refuses further calls.
func TestContainerRunnerCancelledCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli := needDocker(t, ctx)
	t.Setenv("PKFT_RUNNER", "docker")
	p, err := StartJava(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	ids := containersOf(t, ctx, cli, os.Getpid())
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if err := p.Call(cctx, "ping", nil, nil); err == nil {
		t.Fatal("a call with a cancelled context succeeded")
	}
	// A call whose context ends while it waits kills the runner; model that directly.
	p.mu.Lock()
	p.kill()
	p.broken = fmt.Errorf("killed by the test")
	p.mu.Unlock()
	for _, id := range ids {
		if !gone(ctx, cli, id, 30*time.Second) {
			t.Errorf("container %.12s still exists after the runner was killed", id)
		}
	}
	if err := p.Call(ctx, "ping", nil, nil); err == nil {
		t.Fatal("a killed runner served a call")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close after kill: %v", err)
	}
}

// TestContainerHelperProcess is the child of TestContainerKilledTestCleanedUp: it starts a runner
// container, prints its id and blocks until it is killed. It does nothing in a normal run.
func TestContainerHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	ctx := context.Background()
	p, err := StartJava(ctx)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	if err := p.Call(ctx, "ping", nil, nil); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	cli, err := dockerClient(ctx)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	for _, id := range containersOf(t, ctx, cli, os.Getpid()) {
		fmt.Println("container", id)
	}
	fmt.Println("ready")
	time.Sleep(10 * time.Minute)
	os.Exit(3)
}

// TestContainerKilledTestCleanedUp kills (SIGKILL, no cleanup of its own) a test process while its
// runner container runs, and checks the container is removed: it removes itself once its input
// ends, and the next start of a runner (RemoveStaleContainers) removes it otherwise.
func TestContainerKilledTestCleanedUp(t *testing.T) {
	if os.Getenv(helperEnv) == "1" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli := needDocker(t, ctx)
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestContainerHelperProcess$", "-test.count=1")
	child.Env = append(os.Environ(), helperEnv+"=1", "PKFT_RUNNER=docker")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "container "); ok {
			ids = append(ids, id)
		}
		if line == "ready" || strings.HasPrefix(line, "error ") {
			if line != "ready" {
				t.Errorf("helper: %s", line)
			}
			break
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	_ = child.Wait()
	if len(ids) == 0 {
		t.Fatalf("the helper process reported no runner container; its stderr:\n%s", stderr.String())
	}
	if _, err := RemoveStaleContainers(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !gone(ctx, cli, id, 30*time.Second) {
			t.Errorf("container %.12s of the killed process %d still exists", id, child.Process.Pid)
		}
	}
}

// TestRemoveStaleContainers checks the sweep itself: a runner container, or a compose test
// project's, of a process that no longer runs is removed; those of a live process, and other
// compose projects, are kept.
func TestRemoveStaleContainers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli := needDocker(t, ctx)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	start := func(labels map[string]string) string {
		t.Helper()
		ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
			ContainerRequest: testcontainers.ContainerRequest{
				Image:      RunnerImage(),
				Entrypoint: []string{"sleep", "600"},
				Cmd:        []string{},
				Labels:     labels,
				HostConfigModifier: func(hc *container.HostConfig) {
					hc.NetworkMode = "none"
				},
			},
			Started: true,
			Logger:  tclog.NewNoopLogger(),
		})
		if err != nil {
			t.Fatal(err)
		}
		id := ctr.GetContainerID()
		t.Cleanup(func() { _ = removeContainer(context.Background(), cli, id) })
		return id
	}
	runner := func(pid int) map[string]string {
		return map[string]string{ContainerLabel: "1", ContainerPIDLabel: strconv.Itoa(pid)}
	}
	compose := func(project string) map[string]string {
		return map[string]string{composeProjectLabel: project}
	}
	stale := []string{
		start(runner(dead.Process.Pid)),
		start(compose(ComposeTestProjectPrefix + strconv.Itoa(dead.Process.Pid))),
	}
	kept := []string{
		start(runner(os.Getpid())),
		start(compose(ComposeTestProjectPrefix + strconv.Itoa(os.Getpid()))),
		start(compose("someone-elses-project")),
	}
	removed, err := RemoveStaleContainers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range stale {
		// Another test process's sweep may have removed it first; it must be gone either way.
		if !gone(ctx, cli, id, 30*time.Second) {
			t.Errorf("stale container %.12s still exists", id)
		}
	}
	for _, id := range kept {
		if slices.Contains(removed, id) {
			t.Errorf("container %.12s of a live process or of another project was removed", id)
		}
		if _, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{}); err != nil {
			t.Errorf("container %.12s that must be kept: %v", id, err)
		}
	}
}

// composeCommand finds a compose client: the docker CLI's compose plugin, or docker-compose.
func composeCommand() []string {
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}
	}
	if path, err := exec.LookPath("docker-compose"); err == nil {
		return []string{path}
	}
	return nil
}

// TestComposeRunner validates docker-compose.yml with the compose client that exists (config),
// brings the runner up as docs/java-runner.md documents, pings it through its attached stdin/stdout, and
// takes it down again, leaving no container behind.
func TestComposeRunner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli := needDocker(t, ctx)
	compose := composeCommand()
	if compose == nil {
		testenv.Missing(t, requireDockerEnv, "no compose client (docker compose or docker-compose; make docker-up installs one)")
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	project := ComposeTestProjectPrefix + strconv.Itoa(os.Getpid())
	warehouse := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		argv := append(append(slices.Clone(compose), "-f", filepath.Join(root, "docker-compose.yml"), "-p", project), args...)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "PKFT_WAREHOUSE="+warehouse, RunnerImageEnv+"="+RunnerImage())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		return string(out)
	}
	projectContainers := func(ctx context.Context) []string {
		list, err := cli.ContainerList(ctx, client.ContainerListOptions{
			All:     true,
			Filters: make(client.Filters).Add("label", "com.docker.compose.project="+project),
		})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range list.Items {
			ids = append(ids, c.ID)
		}
		return ids
	}
	t.Cleanup(func() {
		for _, id := range projectContainers(context.Background()) {
			_ = removeContainer(context.Background(), cli, id)
		}
	})

	cfg := run("config")
	if !strings.Contains(cfg, "runner:") || !strings.Contains(cfg, RunnerImage()) || !strings.Contains(cfg, warehouse) {
		t.Fatalf("compose config does not describe the runner service with image %s and warehouse %s:\n%s", RunnerImage(), warehouse, cfg)
	}
	run("up", "-d", "--no-build", "runner")
	ids := projectContainers(ctx)
	if len(ids) != 1 {
		t.Fatalf("compose up: %d containers in project %s, want 1", len(ids), project)
	}

	// Ping the service through its attached stdin and stdout, as the harness does.
	att, err := cli.ContainerAttach(ctx, ids[0], client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		t.Fatal(err)
	}
	defer att.Close()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	go func() { _, err := stdcopy.StdCopy(pw, &stderr, att.Reader); pw.CloseWithError(err) }()
	if _, err := att.Conn.Write([]byte(`{"id":1,"cmd":"ping","args":null}` + "\n")); err != nil {
		t.Fatal(err)
	}
	type lineOrErr struct {
		line []byte
		err  error
	}
	got := make(chan lineOrErr, 1)
	go func() { l, err := bufio.NewReader(pr).ReadBytes('\n'); got <- lineOrErr{l, err} }()
	var resp struct {
		ID     int64 `json:"id"`
		OK     bool  `json:"ok"`
		Result struct {
			Runner string `json:"runner"`
		} `json:"result"`
	}
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("read the compose runner's answer: %v; stderr: %s", r.err, stderr.String())
		}
		if err := json.Unmarshal(r.line, &resp); err != nil {
			t.Fatalf("compose runner's answer %q: %v", r.line, err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the compose runner did not answer a ping within 2 minutes; stderr: %s", stderr.String())
	}
	if !resp.OK || resp.ID != 1 || resp.Result.Runner != "java" {
		t.Fatalf("compose runner's ping: %+v", resp)
	}
	att.Close()

	run("down", "--timeout", "5")
	if left := projectContainers(ctx); len(left) != 0 {
		t.Fatalf("compose down left %d containers of project %s", len(left), project)
	}
}
