package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/paimon-pkft/pkft/compat/differential"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// The maintainer's unit-level commands. Package pkft exposes no maintainer and no source meta,
// so these run the Go code the harness's in-process cases run (see the package doc).

// runScenario decodes a decision-differential script, checks its family is one of families, and
// runs it on the Go maintainer of that family (differential.RunGo). Result: its trace.
func runScenario(ctx context.Context, raw json.RawMessage, cmd string, families ...string) (any, error) {
	var s differential.Script
	if raw == nil {
		return nil, argErrorf("args: a decision-differential script is required")
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, argErrorf("args: not a decision-differential script: %v", err)
	}
	ok := false
	for _, f := range families {
		ok = ok || s.Family == f
	}
	if !ok {
		return nil, argErrorf("%s runs scripts of family %q, not %q", cmd, families, s.Family)
	}
	tr, err := differential.RunGo(ctx, s)
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// cmdMaintainerScenario runs a full-text decision-differential script on Go's full-text
// maintainer (pkfulltext.Maintainer) and answers its trace, as the Java runner's
// maintainer-scenario does on Paimon's BucketedFullTextIndexMaintainer.
func cmdMaintainerScenario(ctx context.Context, raw json.RawMessage) (any, error) {
	return runScenario(ctx, raw, "maintainer-scenario", differential.FamilyFullText)
}

// cmdSortedMaintainerScenario runs a sorted-family script (btree or bitmap) on Go's sorted
// maintainer and answers its trace, as the Java runner's sorted-maintainer-scenario does on
// Paimon's BucketedSortedIndexMaintainer.
func cmdSortedMaintainerScenario(ctx context.Context, raw json.RawMessage) (any, error) {
	return runScenario(ctx, raw, "sorted-maintainer-scenario", differential.FamilyBTree, differential.FamilyBitmap)
}

// sourceMetaJSON is a primary-key index source meta as the protocol carries it.
type sourceMetaJSON struct {
	Level int32            `json:"level"`
	Files []sourceFileJSON `json:"files"`
}

type sourceFileJSON struct {
	FileName string `json:"fileName"`
	RowCount int64  `json:"rowCount"`
}

// cmdSourceMetaEncode encodes {level, files [{fileName, rowCount}]} as Paimon's
// PrimaryKeyIndexSourceMeta serializes it. Result: {bytes} (base64).
func cmdSourceMetaEncode(_ context.Context, raw json.RawMessage) (any, error) {
	var m sourceMetaJSON
	if err := decodeArgs(raw, &m); err != nil {
		return nil, err
	}
	files := make([]pkindex.SourceFile, 0, len(m.Files))
	for _, f := range m.Files {
		sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			return nil, err
		}
		files = append(files, sf)
	}
	sm, err := pkindex.NewSourceMeta(m.Level, files)
	if err != nil {
		return nil, err
	}
	b, err := sm.Encode()
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes": base64.StdEncoding.EncodeToString(b)}, nil
}

// cmdSourceMetaDecode decodes {bytes} (base64). Result: {level, files [{fileName, rowCount}]}.
func cmdSourceMetaDecode(_ context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		Bytes string `json:"bytes"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(args.Bytes)
	if err != nil {
		return nil, argErrorf("args.bytes: %v", err)
	}
	sm, err := pkindex.DecodeSourceMeta(b)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	out := sourceMetaJSON{Level: sm.DataLevel(), Files: []sourceFileJSON{}}
	for _, f := range sm.SourceFiles() {
		out.Files = append(out.Files, sourceFileJSON{f.FileName(), f.RowCount()})
	}
	return out, nil
}
