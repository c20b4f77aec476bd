// Package runner is the Go side of the conformance harness: it starts the reference runners (the
// Java runner on the real Paimon jars, and the Python runner on the engine's official Python API)
// as child processes speaking JSON lines, and drives the conformance cases against them.
package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/paimon-pkft/pkft/compat/protocol"
)

// RemoteError is an error a runner reported for one request (ok: false); the runner itself is
// still usable.
type RemoteError struct {
	Runner string
	Cmd    string
	Msg    string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("%s runner: %s: %s", e.Runner, e.Cmd, e.Msg)
}

// Process is one runner child process serving requests in order. Call is safe for concurrent
// use; requests are serialized.
type Process struct {
	name string
	cmd  *exec.Cmd

	mu     sync.Mutex
	stdin  io.WriteCloser
	out    *bufio.Reader
	nextID int64
	stderr *tailBuffer
	// broken is set once the runner can no longer serve (killed, or its output failed); every
	// later Call returns it.
	broken error
	closed bool
	// ctl, when set, controls a runner that is not a child process (a container): it replaces
	// cmd's Wait and Kill.
	ctl procControl
	// schemas, when set, are the protocol's schemas (compat/protocol) every request and response
	// of this runner must match: a mismatch fails the call with a *protocol.Violation.
	schemas *protocol.Schemas
}

// StartProtocol is StartIn for a runner of the protocol of compat/PROTOCOL.md: it compiles the
// protocol's schemas (once, for this runner) and validates every request and response of its
// calls against them.
func StartProtocol(ctx context.Context, name, dir string, argv []string, env []string) (*Process, error) {
	schemas, err := protocol.Compile()
	if err != nil {
		return nil, fmt.Errorf("start %s runner: %w", name, err)
	}
	p, err := StartIn(ctx, name, dir, argv, env)
	if err != nil {
		return nil, err
	}
	p.schemas = schemas
	return p, nil
}

// procControl is the lifetime of a runner that is not a child process of the harness.
type procControl interface {
	// wait blocks until the runner has exited; an error says how it ended abnormally.
	wait() error
	// kill stops the runner at once.
	kill()
}

// newProcess wraps a runner whose streams are given and whose lifetime ctl controls.
func newProcess(name string, stdin io.WriteCloser, stdout io.Reader, stderr *tailBuffer, ctl procControl) *Process {
	return &Process{name: name, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: stderr, ctl: ctl}
}

// closeTimeout bounds how long Close waits for a runner to exit after its input ends.
const closeTimeout = 30 * time.Second

// Start launches argv (argv[0] the program) with the given extra environment and waits for
// nothing: the first Call tells whether it serves.
func Start(ctx context.Context, name string, argv []string, env []string) (*Process, error) {
	return StartIn(ctx, name, "", argv, env)
}

// StartIn is Start with the runner's working directory dir ("" for the harness's own).
func StartIn(ctx context.Context, name, dir string, argv []string, env []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("start runner: empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s runner: %w", name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s runner: %w", name, err)
	}
	tail := &tailBuffer{limit: 64 << 10}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s runner %q: %w", name, strings.Join(argv, " "), err)
	}
	return &Process{name: name, cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: tail}, nil
}

// Name is the runner's name: the implementation it serves ("java", "go", ...).
func (p *Process) Name() string { return p.name }

// Call sends one request and decodes the result into result (which may be nil). The args and the
// result are of the command's types of package protocol (protocol.SearchRequest and
// protocol.SearchResponse for search, ...), or of a type of the same JSON.
func (p *Process) Call(ctx context.Context, cmd string, args any, result any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.broken != nil {
		return p.broken
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("%s runner: encode %s: %w", p.name, cmd, err)
	}
	p.nextID++
	line, err := json.Marshal(protocol.EnvelopeRequest{ID: p.nextID, Cmd: cmd, Args: raw})
	if err != nil {
		return fmt.Errorf("%s runner: encode %s: %w", p.name, cmd, err)
	}
	if p.schemas != nil {
		if err := p.schemas.ValidateRequest(line); err != nil {
			p.nextID--
			return fmt.Errorf("%s runner: %s: %w", p.name, cmd, err)
		}
	}
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return p.died(cmd, err)
	}
	type read struct {
		line []byte
		err  error
	}
	ch := make(chan read, 1)
	go func() {
		for {
			l, err := p.out.ReadBytes('\n')
			if err == nil && !isResponseLine(l) {
				// Something other than a protocol response reached stdout (a JVM warning, a
				// library's print): keep it with the stderr tail for error messages and read on,
				// so that one stray line does not shift every later response.
				_, _ = p.stderr.Write(append([]byte("[stdout] "), l...))
				continue
			}
			ch <- read{l, err}
			return
		}
	}()
	var got read
	select {
	case got = <-ch:
	case <-ctx.Done():
		// The process is killed, which ends the blocked read; it serves no further calls.
		p.kill()
		p.broken = fmt.Errorf("%s runner was stopped during %s: %w", p.name, cmd, ctx.Err())
		return p.broken
	}
	if got.err != nil {
		return p.died(cmd, got.err)
	}
	if p.schemas != nil {
		if cmd == "ping" {
			if err := checkPingVersion(p.name, got.line); err != nil {
				return err
			}
		}
		if err := p.schemas.ValidateResponse(cmd, got.line); err != nil {
			return fmt.Errorf("%s runner: %s: %w", p.name, cmd, err)
		}
	}
	var resp protocol.EnvelopeResponse
	if err := json.Unmarshal(got.line, &resp); err != nil {
		return fmt.Errorf("%s runner: %s: undecodable response %.200q: %w", p.name, cmd, got.line, err)
	}
	if resp.ID != p.nextID {
		return fmt.Errorf("%s runner: %s: response id %d, want %d", p.name, cmd, resp.ID, p.nextID)
	}
	if !resp.OK {
		msg := ""
		if resp.Error != nil {
			msg = *resp.Error
		}
		return &RemoteError{Runner: p.name, Cmd: cmd, Msg: msg}
	}
	if result != nil {
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("%s runner: %s: decode result: %w", p.name, cmd, err)
		}
	}
	return nil
}

// checkPingVersion checks the protocol version of a protocol runner's ping response line (before
// its schema, so that a runner of another major version, whose answer may differ in more than
// that, is told so by name): a *protocol.VersionError unless the major versions agree. An error
// response is left to the caller.
func checkPingVersion(runner string, line []byte) error {
	var resp struct {
		OK     bool `json:"ok"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &resp) != nil || !resp.OK {
		return nil
	}
	return protocol.CheckVersion(runner, resp.Result.ProtocolVersion)
}

func (p *Process) died(cmd string, err error) error {
	p.broken = fmt.Errorf("%s runner died during %s: %w; its stderr ends with:\n%s", p.name, cmd, err, p.stderr.String())
	return p.broken
}

func (p *Process) kill() {
	if p.ctl != nil {
		p.ctl.kill()
		return
	}
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

// Close ends the runner: it closes stdin (the runner's signal to exit) and waits for it, killing
// it when it has not exited within closeTimeout.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	_ = p.stdin.Close()
	done := make(chan error, 1)
	wait := func() error { return p.cmd.Wait() }
	if p.ctl != nil {
		wait = p.ctl.wait
	}
	go func() { done <- wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(closeTimeout):
		p.kill()
		<-done
		return fmt.Errorf("%s runner did not exit within %s of its input ending; killed", p.name, closeTimeout)
	}
	if p.broken == nil {
		p.broken = fmt.Errorf("%s runner is closed", p.name)
	}
	if p.ctl != nil {
		if err != nil {
			return fmt.Errorf("%s runner: %w; stderr ends with:\n%s", p.name, err, p.stderr.String())
		}
		return nil
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return fmt.Errorf("%s runner: %w", p.name, err)
	}
	if exit != nil && exit.ExitCode() != 0 && !exit.Exited() {
		return nil // killed earlier by a cancelled call; that call reported it
	}
	if exit != nil && exit.ExitCode() != 0 {
		return fmt.Errorf("%s runner exited with %d; stderr ends with:\n%s", p.name, exit.ExitCode(), p.stderr.String())
	}
	return nil
}

// isResponseLine reports whether line is a JSON object carrying a response id.
func isResponseLine(line []byte) bool {
	var probe struct {
		ID *int64 `json:"id"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.ID != nil
}

// tailBuffer keeps the last limit bytes written to it: a runner's stderr, for error messages.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
