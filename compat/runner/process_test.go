package runner

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A runner that never answers: the call ends with its context, the process is stopped, and it
// serves no further calls; Close returns promptly.
func TestProcessStoppedMidCall(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipped: no python3 on PATH to stand in as a silent child process")
	}
	p, err := Start(context.Background(), "silent", []string{py, "-c", "import sys, time\nsys.stdin.readline()\ntime.sleep(60)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := p.Call(ctx, "ping", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call to a silent runner: %v, want the deadline", err)
	}
	err = p.Call(context.Background(), "ping", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("call after the runner was stopped: %v", err)
	}
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A runner that dies: the call reports it with the stderr tail, later calls fail the same way.
func TestProcessDiesMidCall(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipped: no python3 on PATH to stand in as a failing child process")
	}
	p, err := Start(context.Background(), "dying", []string{py, "-c", "import sys\nsys.stdin.readline()\nsys.stderr.write('boom\\n')\nsys.exit(3)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	err = p.Call(context.Background(), "ping", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "died") {
		t.Fatalf("call to a dying runner: %v", err)
	}
	if again := p.Call(context.Background(), "ping", nil, nil); again == nil || again.Error() != err.Error() {
		t.Fatalf("second call: %v, want %v", again, err)
	}
}

// A runner that prints something other than a response before answering: the stray line goes to
// the stderr tail and every call still gets its own response.
func TestProcessSkipsStrayStdoutLines(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipped: no python3 on PATH to stand in as a runner")
	}
	script := "import sys, json\n" +
		"for line in sys.stdin:\n" +
		"    req = json.loads(line)\n" +
		"    print('[warning] not a response', flush=True)\n" +
		"    print('[1, 2]', flush=True)\n" +
		"    print(json.dumps({'id': req['id'], 'ok': True, 'result': {'echo': req['cmd']}}), flush=True)\n"
	p, err := Start(context.Background(), "noisy", []string{py, "-c", script}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, cmd := range []string{"first", "second", "third"} {
		var res struct {
			Echo string `json:"echo"`
		}
		if err := p.Call(context.Background(), cmd, nil, &res); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if res.Echo != cmd {
			t.Errorf("%s: answered %q", cmd, res.Echo)
		}
	}
	if !strings.Contains(p.stderr.String(), "[stdout] [warning] not a response") {
		t.Errorf("stray line not kept with the stderr tail: %q", p.stderr.String())
	}
}
