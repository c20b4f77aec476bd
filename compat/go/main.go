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
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft/compat/internal/differential"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// command serves one protocol command: its arguments (nil when absent) in, the JSON of its
// result out. Each is a typed function of the command's protocol types, adapted by typed.
type command func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// typed adapts f, a command of the protocol's request type Req and response type Resp
// (package compat/protocol), to a command: the args are decoded into a Req by decodeArgs, and
// the Resp f answers is encoded as the result.
func typed[Req, Resp any](f func(context.Context, Req) (Resp, error)) command {
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var req Req
		if err := decodeArgs(raw, &req); err != nil {
			return nil, err
		}
		resp, err := f(ctx, req)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("rendering the result: %w", err)
		}
		return b, nil
	}
}

// argError is a request the runner refuses: a missing or malformed argument, or one it does not
// honour. It is reported as "IllegalArgumentException: ..." as the Java runner reports them.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// commands are the served commands by name; searches share the handles of tables.
func commands(tables *searchTables) map[string]command {
	return map[string]command{
		"ping":                nil, // answered by serve, which knows the names
		"read":                typed(cmdRead),
		"search":              typed(tables.cmdSearch),
		"list-index":          typed(cmdListIndex),
		"create-table":        typed(cmdCreateTable),
		"write":               typed(cmdWrite),
		"compact":             typed(cmdCompact),
		"minor-compact":       typed(cmdMinorCompact),
		"maintain":            typed(cmdMaintain),
		"configure-s3":        typed(cmdConfigureS3),
		"expire-snapshots":    typed(cmdExpireSnapshots),
		"remove-orphan-files": typed(cmdRemoveOrphanFiles),
		"rewrite-metadata":    typed(cmdRewriteMetadata),
		"manifest-values":     typed(cmdManifestValues),
		// maintainer-scenario runs a full-text script on Go's full-text maintainer
		// (pkfulltext.Maintainer), as the Java runner's does on Paimon's
		// BucketedFullTextIndexMaintainer; sorted-maintainer-scenario a sorted-family script
		// (btree or bitmap) on Go's sorted maintainer, as the Java runner's does on Paimon's
		// BucketedSortedIndexMaintainer.
		"maintainer-scenario": runScenario[protocol.MaintainerScenarioRequest, protocol.MaintainerScenarioResponse](
			"maintainer-scenario", differential.FamilyFullText),
		"sorted-maintainer-scenario": runScenario[protocol.SortedMaintainerScenarioRequest, protocol.SortedMaintainerScenarioResponse](
			"sorted-maintainer-scenario", differential.FamilyBTree, differential.FamilyBitmap),
		"source-meta-encode":            typed(cmdSourceMetaEncode),
		"source-meta-decode":            typed(cmdSourceMetaDecode),
		"pk-full-text-index-file-build": typed(cmdIndexFileBuild),
		"bucket":                        typed(cmdBucket),
		"pick":                          typed(cmdPick),
		"sorted-index-build":            typed(cmdSortedIndexBuild),
		"sorted-index-options":          typed(cmdSortedIndexOptions),
		"sorted-index-write":            typed(cmdSortedIndexWrite),
		"sorted-state":                  typed(cmdSortedState),
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
				b, _ = json.Marshal(errorResponse(resp.ID, "Error: rendering the result: "+merr.Error()))
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
func handle(ctx context.Context, cmds map[string]command, names []string, line []byte, errOut io.Writer) (resp protocol.EnvelopeResponse) {
	var req protocol.EnvelopeRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return errorResponse(0, "IllegalArgumentException: malformed request: "+err.Error())
	}
	resp.ID = req.ID
	var (
		cmd command
		ok  bool
	)
	defer func() {
		// A bug of this runner must not end it: report it as an error, stack on stderr.
		if p := recover(); p != nil {
			fmt.Fprintf(errOut, "pkft-runner: %s panicked: %v\n%s", req.Cmd, p, debug.Stack())
			resp = errorResponse(req.ID, fmt.Sprintf("RuntimeException: %s panicked: %v", req.Cmd, p))
		}
	}()
	if req.Cmd == "ping" {
		cmd = typed(func(context.Context, protocol.PingRequest) (protocol.PingResponse, error) {
			return protocol.PingResponse{Runner: "go", ProtocolVersion: protocol.Version, Commands: names, PKFTVersion: new(version())}, nil
		})
	} else if cmd, ok = cmds[req.Cmd]; !ok {
		return errorResponse(req.ID, "unknown command: "+req.Cmd)
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
		return errorResponse(req.ID, kind+": "+err.Error())
	}
	return protocol.EnvelopeResponse{ID: req.ID, OK: true, Result: res}
}

// errorResponse is the response of a failed request.
func errorResponse(id int64, msg string) protocol.EnvelopeResponse {
	return protocol.EnvelopeResponse{ID: id, Error: &msg}
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
	return requireFields(args, v)
}

// requireFields refuses a request that lacks an argument its schema requires: the generated
// protocol types tag a required field without omitempty or omitzero, and decoding alone would take its absence
// for the zero value.
func requireFields(args json.RawMessage, v any) error {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(args, &present); err != nil {
		return argErrorf("args: %v", err)
	}
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
			continue
		}
		if _, ok := present[name]; !ok {
			return argErrorf("args: missing required argument %q", name)
		}
	}
	return nil
}
