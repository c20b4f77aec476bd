package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/compat/internal/differential"
	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// The maintainer's unit-level commands. Package pkft exposes no maintainer and no source meta,
// so these run the Go code the harness's in-process cases run (see the package doc).

// runScenario is the command that decodes a decision-differential script (Req, the command's
// request type), checks its family is one of families, runs it on the Go maintainer of that
// family (differential.RunGo) and answers its trace (Resp). The protocol leaves the script's
// restore and steps and the trace's states free-form: they are decoded into, and rendered from,
// compat/internal/differential's Script and Trace.
func runScenario[Req, Resp any](cmd string, families ...string) command {
	run := typed(func(ctx context.Context, req Req) (Resp, error) {
		var resp Resp
		var s differential.Script
		if err := reshape(req, &s, false); err != nil {
			return resp, argErrorf("args: not a decision-differential script: %v", err)
		}
		if !slices.Contains(families, s.Family) {
			return resp, argErrorf("%s runs scripts of family %q, not %q", cmd, families, s.Family)
		}
		tr, err := differential.RunGo(ctx, s)
		if err != nil {
			return resp, err
		}
		if err := reshape(tr, &resp, true); err != nil {
			return resp, fmt.Errorf("rendering the trace: %w", err)
		}
		return resp, nil
	})
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		if raw == nil {
			return nil, argErrorf("args: a decision-differential script is required")
		}
		return run(ctx, raw)
	}
}

// reshape re-encodes v as out, through its JSON: numbers stay exact (json.Number in a free-form
// object), and with strict a field out has no place for is an error rather than dropped.
func reshape(v, out any, strict bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if strict {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(out)
}

// cmdSourceMetaEncode encodes {level, files [{fileName, rowCount}]} as Paimon's
// PrimaryKeyIndexSourceMeta serializes it. Result: {bytes} (base64).
func cmdSourceMetaEncode(_ context.Context, m protocol.SourceMetaEncodeRequest) (protocol.SourceMetaEncodeResponse, error) {
	var none protocol.SourceMetaEncodeResponse
	level, err := int32Arg("args.level", m.Level)
	if err != nil {
		return none, err
	}
	files := make([]pkindex.SourceFile, 0, len(m.Files))
	for _, f := range m.Files {
		sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			return none, err
		}
		files = append(files, sf)
	}
	sm, err := pkindex.NewSourceMeta(level, files)
	if err != nil {
		return none, err
	}
	b, err := sm.Encode()
	if err != nil {
		return none, err
	}
	return protocol.SourceMetaEncodeResponse{Bytes: base64.StdEncoding.EncodeToString(b)}, nil
}

// cmdSourceMetaDecode decodes {bytes} (base64). Result: {level, files [{fileName, rowCount}]}.
func cmdSourceMetaDecode(_ context.Context, args protocol.SourceMetaDecodeRequest) (protocol.SourceMetaDecodeResponse, error) {
	var none protocol.SourceMetaDecodeResponse
	b, err := base64.StdEncoding.DecodeString(args.Bytes)
	if err != nil {
		return none, argErrorf("args.bytes: %v", err)
	}
	sm, err := pkindex.DecodeSourceMeta(b)
	if err != nil {
		return none, fmt.Errorf("decode: %w", err)
	}
	out := protocol.SourceMetaDecodeResponse{Level: int64(sm.DataLevel()), Files: []protocol.SourceMetaDecodeResponseFile{}}
	for _, f := range sm.SourceFiles() {
		out.Files = append(out.Files, protocol.SourceMetaDecodeResponseFile{FileName: f.FileName(), RowCount: f.RowCount()})
	}
	return out, nil
}

// int32Arg is an integer argument that must fit an int32.
func int32Arg(name string, v int64) (int32, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, argErrorf("%s %d does not fit an int32", name, v)
	}
	return int32(v), nil
}
