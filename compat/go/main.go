package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"

	"github.com/paimon-pkft/pkft/compat/protocol"
)

// request is one line of the harness: {"id", "cmd", "args"}.
type request struct {
	ID   int64           `json:"id"`
	Cmd  string          `json:"cmd"`
	Args json.RawMessage `json:"args"`
}

// response answers one request: a result or an error, never both.
type response struct {
	ID     int64  `json:"id"`
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// command serves one protocol command: its arguments (nil when absent) in, a JSON result out.
type command func(ctx context.Context, args json.RawMessage) (any, error)

// argError is a request the runner refuses: a missing or malformed argument, or one it does not
// honour. It is reported as "IllegalArgumentException: ..." as the Java runner reports them.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// commands are the served commands by name; searches share the handles of tables.
func commands(tables *searchTables) map[string]command {
	return map[string]command{
		"ping":                          nil, // answered by serve, which knows the names
		"read":                          cmdRead,
		"search":                        tables.cmdSearch,
		"list-index":                    cmdListIndex,
		"create-table":                  cmdCreateTable,
		"write":                         cmdWrite,
		"compact":                       cmdCompact,
		"minor-compact":                 cmdMinorCompact,
		"maintain":                      cmdMaintain,
		"configure-s3":                  cmdConfigureS3,
		"expire-snapshots":              cmdExpireSnapshots,
		"remove-orphan-files":           cmdRemoveOrphanFiles,
		"rewrite-metadata":              cmdRewriteMetadata,
		"manifest-values":               cmdManifestValues,
		"maintainer-scenario":           cmdMaintainerScenario,
		"sorted-maintainer-scenario":    cmdSortedMaintainerScenario,
		"source-meta-encode":            cmdSourceMetaEncode,
		"source-meta-decode":            cmdSourceMetaDecode,
		"pk-full-text-index-file-build": cmdIndexFileBuild,
		"bucket":                        cmdBucket,
		"pick":                          cmdPick,
		"sorted-index-build":            cmdSortedIndexBuild,
		"sorted-index-options":          cmdSortedIndexOptions,
		"sorted-index-write":            cmdSortedIndexWrite,
		"sorted-state":                  cmdSortedState,
	}
}

func main() {
	if len(os.Args) != 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: pkft-runner serve")
		os.Exit(2)
	}
	if err := serve(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pkft-runner:", err)
		os.Exit(1)
	}
}

// serve answers the requests of in, one per line, on out until in ends. Diagnostics go to
// errOut; a failed request is an error response, never the end of serve.
func serve(ctx context.Context, in io.Reader, out, errOut io.Writer) (err error) {
	ctx = withStorage(ctx)
	tables := &searchTables{}
	defer func() {
		if cerr := tables.close(); err == nil {
			err = cerr
		}
	}()
	cmds := commands(tables)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriter(out)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			resp := handle(ctx, cmds, names, line, errOut)
			b, merr := json.Marshal(resp)
			if merr != nil {
				b, _ = json.Marshal(response{ID: resp.ID, Error: "Error: rendering the result: " + merr.Error()})
			}
			if _, werr := w.Write(append(b, '\n')); werr != nil {
				return werr
			}
			if ferr := w.Flush(); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handle answers one request line.
func handle(ctx context.Context, cmds map[string]command, names []string, line []byte, errOut io.Writer) (resp response) {
	var req request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return response{Error: "IllegalArgumentException: malformed request: " + err.Error()}
	}
	resp.ID = req.ID
	defer func() {
		// A bug of this runner must not end it: report it as an error, stack on stderr.
		if p := recover(); p != nil {
			fmt.Fprintf(errOut, "pkft-runner: %s panicked: %v\n%s", req.Cmd, p, debug.Stack())
			resp = response{ID: req.ID, Error: fmt.Sprintf("RuntimeException: %s panicked: %v", req.Cmd, p)}
		}
	}()
	if req.Cmd == "ping" {
		return response{ID: req.ID, OK: true, Result: map[string]any{"runner": "go", "protocolVersion": protocol.Version, "commands": names, "pkftVersion": version()}}
	}
	cmd, ok := cmds[req.Cmd]
	if !ok {
		return response{ID: req.ID, Error: "unknown command: " + req.Cmd}
	}
	args := req.Args
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = nil
	}
	res, err := cmd(ctx, args)
	if err != nil {
		fmt.Fprintf(errOut, "pkft-runner: %s: %v\n", req.Cmd, err)
		kind := "Error"
		var ae *argError
		if errors.As(err, &ae) {
			kind = "IllegalArgumentException"
		}
		return response{ID: req.ID, Error: kind + ": " + err.Error()}
	}
	return response{ID: req.ID, OK: true, Result: res}
}

// version is the pkft module version the program was built from ("(devel)" in a checkout).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return "unknown"
}

// decodeArgs decodes args into v, refusing unknown fields by name: an argument the runner does
// not know is not honoured, so it is not accepted.
func decodeArgs(args json.RawMessage, v any) error {
	if args == nil {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return argErrorf("args: %v", err)
	}
	return nil
}
