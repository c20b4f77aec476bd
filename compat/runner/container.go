package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
)

// RunnerImageEnv names the environment variable that selects the runner image of container mode;
// DefaultRunnerImage is the one make docker-images builds.
const (
	RunnerImageEnv     = "PKFT_RUNNER_IMAGE"
	DefaultRunnerImage = "pkft-runner:latest"
)

// Labels on every runner container: ContainerLabel marks it as the harness's, ContainerPIDLabel
// names the process that started it, so a later run removes the containers of a process that died
// without removing its own (a killed test).
const (
	ContainerLabel    = "io.github.paimon-pkft.runner"
	ContainerPIDLabel = "io.github.paimon-pkft.runner.pid"
	// RunnerJarLabel is the label of a runner image holding the SHA-256 of the runner jar it was
	// built from (make docker-images sets it), so that a test can tell an image older than the
	// jar it would test.
	RunnerJarLabel = "io.github.paimon-pkft.runner.jar-sha256"
)

// ryukDisabledEnv is testcontainers-go's switch for its reaper container, which is pulled from an
// image registry; the harness removes its containers itself.
const ryukDisabledEnv = "TESTCONTAINERS_RYUK_DISABLED"

// RunnerImage is the runner image container mode uses: $PKFT_RUNNER_IMAGE, else DefaultRunnerImage.
func RunnerImage() string {
	if img := os.Getenv(RunnerImageEnv); img != "" {
		return img
	}
	return DefaultRunnerImage
}

// dockerClient connects to the Docker engine testcontainers-go finds (DOCKER_HOST, the default
// socket), reporting ErrUnavailable when none answers.
func dockerClient(ctx context.Context) (*testcontainers.DockerClient, error) {
	if os.Getenv(ryukDisabledEnv) == "" {
		// testcontainers-go reads its configuration once, from the environment; its reaper
		// cannot be pulled where no image registry is reachable.
		_ = os.Setenv(ryukDisabledEnv, "true")
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: PKFT_RUNNER=docker but no Docker engine is reachable (make docker-up): %v", ErrUnavailable, err)
	}
	return cli, nil
}

// RemoveStaleContainers removes the runner containers whose starting process no longer runs (a test
// killed before it could remove its own), those of the compose test included, and returns their
// IDs.
func RemoveStaleContainers(ctx context.Context) ([]string, error) {
	cli, err := dockerClient(ctx)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	return removeStale(ctx, cli)
}

func removeStale(ctx context.Context, cli *testcontainers.DockerClient) ([]string, error) {
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", ContainerLabel),
	})
	if err != nil {
		return nil, fmt.Errorf("list runner containers: %w", err)
	}
	items := list.Items
	// The compose test's project (ComposeTestProjectPrefix + pid) carries compose's labels only.
	list, err = cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", composeProjectLabel),
	})
	if err != nil {
		return nil, fmt.Errorf("list compose containers: %w", err)
	}
	items = append(items, list.Items...)
	var removed []string
	for _, c := range items {
		owner, ok := c.Labels[ContainerPIDLabel]
		if !ok {
			if owner, ok = strings.CutPrefix(c.Labels[composeProjectLabel], ComposeTestProjectPrefix); !ok {
				continue // a compose project of someone else's
			}
		}
		pid, err := strconv.Atoi(owner)
		if err == nil && processAlive(pid) {
			continue
		}
		if err := removeContainer(ctx, cli, c.ID); err != nil {
			return removed, err
		}
		removed = append(removed, c.ID)
	}
	return removed, nil
}

// ComposeTestProjectPrefix starts the compose project name of the compose test, which ends in the
// test process's id; composeProjectLabel is the label compose puts the project name in.
const (
	ComposeTestProjectPrefix = "pkft-compose-test-"
	composeProjectLabel      = "com.docker.compose.project"
)

// processAlive reports whether a process with this id runs on this machine.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// removeContainer force-removes a container; one already gone (or being removed by the engine,
// as auto-removed containers are when they exit) is not an error.
func removeContainer(ctx context.Context, cli *testcontainers.DockerClient, id string) error {
	_, err := cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err == nil || cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("remove runner container %.12s: %w", id, err)
}

// startJavaContainer starts the runner image through testcontainers-go and speaks the runner
// protocol over the container's attached stdin and stdout (no network: the container has none).
// The working directories the suite uses (the temporary directory, the repository) are mounted at
// the same paths, so table paths mean the same on both sides, and the engine library Go uses is
// passed to the runner; jvmFlags join the JVM's JAVA_TOOL_OPTIONS. The container is removed when
// the Process is closed or killed; it also removes itself when its input ends (the harness died),
// and RemoveStaleContainers, run at every start, removes any left by a killed process.
func startJavaContainer(ctx context.Context, root string, jvmFlags []string) (*Process, error) {
	schemas, err := protocol.Compile()
	if err != nil {
		return nil, fmt.Errorf("start the java runner: %w", err)
	}
	cli, err := dockerClient(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := removeStale(ctx, cli); err != nil {
		cli.Close()
		return nil, err
	}
	image := RunnerImage()
	if _, err := cli.ImageInspect(ctx, image); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w: runner image %s is not built (make docker-images): %v", ErrUnavailable, image, err)
	}

	tmp := os.TempDir()
	binds := []string{tmp + ":" + tmp, root + ":" + root}
	env := map[string]string{
		// The mounted temporary directory is shared by every runner container, whose JVMs are all
		// process 1: no perf-data file there (concurrent JVMs would contend for
		// hsperfdata_<user>/1), and the JVM's warnings on stderr, never on the protocol's stdout.
		// The runner image's entrypoint says the same; this covers any image.
		"JAVA_TOOL_OPTIONS": strings.Join(append([]string{"-XX:-UsePerfData -Xlog:disable -Xlog:all=warning:stderr"}, jvmFlags...), " "),
	}
	if found, err := native.Locate(ctx, ""); err == nil {
		lib := found.Path
		if !within(lib, root) && !within(lib, tmp) {
			binds = append(binds, lib+":"+lib+":ro")
		}
		env[native.LibPathEnv] = lib
	}
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image: image,
			Cmd:   []string{"serve"},
			Env:   env,
			Labels: map[string]string{
				ContainerLabel:    "1",
				ContainerPIDLabel: strconv.Itoa(os.Getpid()),
			},
			ConfigModifier: func(c *container.Config) {
				c.OpenStdin = true
				c.StdinOnce = true // the runner's stdin ends when the harness's connection does
				c.AttachStdin = true
				c.AttachStdout = true
				c.AttachStderr = true
				c.User = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
			},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.Binds = append(hc.Binds, binds...)
				hc.NetworkMode = "none"
				hc.AutoRemove = true
			},
		},
		Started: false,
		Logger:  tclog.NewNoopLogger(),
	}
	ctr, err := testcontainers.GenericContainer(ctx, req)
	if err != nil {
		if ctr != nil {
			_ = removeContainer(context.Background(), cli, ctr.GetContainerID())
		}
		cli.Close()
		return nil, fmt.Errorf("create runner container from %s: %w", image, err)
	}
	id := ctr.GetContainerID()
	c := &containerProc{cli: cli, id: id}
	fail := func(step string, err error) (*Process, error) {
		c.kill()
		return nil, fmt.Errorf("runner container %.12s: %s: %w", id, step, err)
	}
	att, err := cli.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return fail("attach", err)
	}
	c.conn = att.HijackedResponse
	// Registered before the start, so the exit of an auto-removed container is not missed.
	wait := cli.ContainerWait(context.Background(), id, client.ContainerWaitOptions{Condition: container.WaitConditionRemoved})
	if err := ctr.Start(ctx); err != nil {
		return fail("start", err)
	}

	tail := &tailBuffer{limit: 64 << 10}
	stdout, stdoutW := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(stdoutW, tail, c.conn.Reader)
		stdoutW.CloseWithError(errors.Join(err, io.EOF))
	}()
	c.waitFn = func() error {
		select {
		case r := <-wait.Result:
			if r.Error != nil && r.Error.Message != "" {
				return fmt.Errorf("container: %s", r.Error.Message)
			}
			if r.StatusCode != 0 && !c.wasKilled() {
				return fmt.Errorf("exited with %d", r.StatusCode)
			}
			return nil
		case err := <-wait.Error:
			if c.wasKilled() || cerrdefs.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("wait for the container: %w", err)
		}
	}
	p := newProcess("java (container)", c, stdout, tail, c)
	p.schemas = schemas
	return p, nil
}

// within reports whether path lies in dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// containerProc is a runner container seen as a process: its attached stdin, its exit, its
// removal.
type containerProc struct {
	cli    *testcontainers.DockerClient
	id     string
	conn   client.HijackedResponse
	waitFn func() error

	mu     sync.Mutex
	killed bool
}

// Write sends bytes to the runner's stdin.
func (c *containerProc) Write(p []byte) (int, error) { return c.conn.Conn.Write(p) }

// Close ends the runner's stdin (its signal to exit); the container stays attached for output.
func (c *containerProc) Close() error {
	if c.conn.Conn == nil {
		return nil
	}
	return c.conn.CloseWrite()
}

func (c *containerProc) wasKilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// wait blocks until the container has exited and been removed.
func (c *containerProc) wait() error {
	defer c.release()
	if c.waitFn == nil {
		return nil
	}
	return c.waitFn()
}

// kill removes the container at once.
func (c *containerProc) kill() {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = removeContainer(ctx, c.cli, c.id)
	if c.waitFn == nil {
		c.release()
	}
}

// release closes the connections to the engine.
func (c *containerProc) release() {
	if c.conn.Conn != nil {
		c.conn.Close()
	}
	_ = c.cli.Close()
}
