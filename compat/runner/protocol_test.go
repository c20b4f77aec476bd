package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/compat/protocol"
)

// fakeRunner is a test double of a runner, not an implementation: it answers ping as the protocol
// says and read with a result of the wrong shape ("rows" a string), so that the harness's own
// validation is what is tested.
const fakeRunner = `
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "ping":
        res = {"runner": "fake", "protocolVersion": "1.0", "commands": ["ping", "read", "search"]}
    elif req["cmd"] == "read":
        res = {"rows": "not an array"}
    else:
        res = {"snapshotId": 1, "column": "text", "query": "q", "results": []}
    print(json.dumps({"id": req["id"], "ok": True, "result": res}), flush=True)
`

func startFake(t *testing.T) *Process {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("PKFT_REQUIRE_PYPAIMON") == "1" {
			t.Fatal("no python3 on PATH to run the fake runner (PKFT_REQUIRE_PYPAIMON=1: make provides Python)")
		}
		t.Skip("skipped: no python3 on PATH to run the fake runner")
	}
	p, err := StartProtocol(context.Background(), "fake", "", []string{py, "-c", fakeRunner}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// A runner answering a command with a result of the wrong shape fails the call with an error
// naming the command, the direction and the schema path; the runner stays usable, and a
// well-formed answer passes.
func TestProtocolMalformedResponseFailsTheCall(t *testing.T) {
	ctx := context.Background()
	p := startFake(t)
	if err := p.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatalf("a valid ping: %v", err)
	}
	var rows struct {
		Rows any `json:"rows"`
	}
	err := p.Call(ctx, "read", map[string]any{"path": "/t"}, &rows)
	var v *protocol.Violation
	if !errors.As(err, &v) {
		t.Fatalf("read answered {rows: string}: error %v, want a protocol violation", err)
	}
	if v.Cmd != "read" || v.Direction != protocol.Response || v.Schema != "read.response.json" {
		t.Fatalf("violation %+v", v)
	}
	for _, want := range []string{"fake runner: read:", "read response", "read.response.json", "schema path /properties/rows/type", "at /rows"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if rows.Rows != nil {
		t.Fatalf("the malformed result was decoded: %v", rows.Rows)
	}
	if err := p.Call(ctx, "search", map[string]any{"path": "/t", "query": "q"}, nil); err != nil {
		t.Fatalf("a valid search after the violation: %v", err)
	}
}

// A request of the wrong shape is refused before it is sent (the runner never sees it), and a
// command the protocol does not know is refused too; the runner stays usable.
func TestProtocolMalformedRequestIsNotSent(t *testing.T) {
	ctx := context.Background()
	p := startFake(t)
	for _, c := range []struct {
		cmd  string
		args any
		want string
	}{
		{"read", map[string]any{}, "schema path /required"},
		{"read", map[string]any{"path": "/t", "limit": 3}, "schema path /additionalProperties"},
		{"search", map[string]any{"path": "/t", "query": "q", "limit": "ten"}, "schema path /properties/limit/type"},
		{"frobnicate", nil, `no command "frobnicate"`},
	} {
		err := p.Call(ctx, c.cmd, c.args, nil)
		var v *protocol.Violation
		if !errors.As(err, &v) || v.Direction != protocol.Request || v.Cmd != c.cmd || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want a request violation containing %q", c.cmd, c.args, err, c.want)
		}
	}
	// The ids stay in step: the refused requests consumed none.
	if err := p.Call(ctx, "search", map[string]any{"path": "/t", "query": "q"}, nil); err != nil {
		t.Fatalf("a valid search after refused requests: %v", err)
	}
}

// A consumer case on a runner answering with the wrong shape fails: the violation reaches the
// case through Impl.Start (ping) and the consumer's call.
func TestProtocolViolationFailsConsumerImpl(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("PKFT_REQUIRE_PYPAIMON") == "1" {
			t.Fatal("no python3 on PATH to run the fake runner (PKFT_REQUIRE_PYPAIMON=1: make provides Python)")
		}
		t.Skip("skipped: no python3 on PATH to run the fake runner")
	}
	root := t.TempDir()
	impl := Impl{Name: "fake", Argv: []string{py, "-c", fakeRunner},
		Supports: &Supports{Commands: map[string]bool{"read": true, "search": true}}}
	p, err := impl.Start(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	err = consumerRead(context.Background(), p, &consumerTable{path: "/t"})
	if err == nil || !strings.Contains(err.Error(), "protocol violation: read response") {
		t.Fatalf("consumer read on a malformed runner: %v", err)
	}
}

// A runner answering ping with a protocol version of another major version, or with none, is
// refused at Impl.Start by name (its version and the harness's): its cases fail, not skip.
func TestProtocolOtherMajorVersionIsRefused(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("PKFT_REQUIRE_PYPAIMON") == "1" {
			t.Fatal("no python3 on PATH to run the fake runner (PKFT_REQUIRE_PYPAIMON=1: make provides Python)")
		}
		t.Skip("skipped: no python3 on PATH to run the fake runner")
	}
	for _, c := range []struct{ replace, want string }{
		{`"protocolVersion": "2.0"`, "the fake runner speaks protocol version 2.0, this harness speaks protocol version " + protocol.Version},
		{`"protocolVersion": "1.9"`, ""},
		{`"x": 0`, "the fake runner's ping has no protocolVersion"},
	} {
		runner := strings.Replace(fakeRunner, `"protocolVersion": "1.0"`, c.replace, 1)
		impl := Impl{Name: "fake", Argv: []string{py, "-c", runner}, Supports: &Supports{Commands: map[string]bool{"read": true}}}
		p, err := impl.Start(context.Background(), t.TempDir())
		if c.want == "" {
			if err != nil {
				t.Errorf("ping with %s: %v, want the runner started", c.replace, err)
			} else {
				_ = p.Close()
			}
			continue
		}
		var ve *protocol.VersionError
		if err == nil {
			_ = p.Close()
		}
		if !errors.As(err, &ve) || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ping with %s: error %v, want a version error containing %q (not unavailable)", c.replace, err, c.want)
		}
	}
}
