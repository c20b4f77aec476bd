package main

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
)

// TestSortedCommands: sorted-index-build, sorted-index-options, sorted-state and
// sorted-index-write answer with the Java runner's result shapes (a bitmap of no rows is
// {empty: true}, no file); a build writes its payload into dir with the level's source meta
// (files in name order) and refuses a key its type cannot take, by name; a state groups the
// level its payload covers and rejects a payload without source meta, then one of another field.
func TestSortedCommands(t *testing.T) {
	dir := t.TempDir()
	s := func(v string) *string { return &v }
	// The protocol leaves sources, data files, payloads and rows free-form: raw renders them.
	raw := func(v ...any) []json.RawMessage {
		out := make([]json.RawMessage, len(v))
		for i, e := range v {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = b
		}
		return out
	}
	sources := raw(
		sortedSource{FileName: "data-b", Values: []*string{s("3"), nil, s("-7"), s("3")}},
		sortedSource{FileName: "data-a", Values: []*string{s("12"), s("0")}},
	)
	build := func(index, sub string, sources []json.RawMessage) protocol.SortedIndexBuildRequest {
		return protocol.SortedIndexBuildRequest{IndexType: index, Type: "INT", FieldID: 5, Options: protocol.Object{},
			Dir: filepath.Join(dir, sub), Level: 2, Sources: sources}
	}
	opts := map[string]string{"fields.c.pk-btree.index.options": `{"block-size":"4 kb"}`}
	refused := map[string]string{"fields.c.pk-btree.index.options": `[1]`}
	sm, err := pkindex.NewSourceMeta(1, []pkindex.SourceFile{mustSource(t, "data-a", 3), mustSource(t, "data-b", 2)})
	if err != nil {
		t.Fatal(err)
	}
	smBytes, err := sm.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sm64 := base64.StdEncoding.EncodeToString(smBytes)
	sm2, err := pkindex.NewSourceMeta(2, []pkindex.SourceFile{mustSource(t, "data-c", 4)})
	if err != nil {
		t.Fatal(err)
	}
	sm2Bytes, err := sm2.Encode()
	if err != nil {
		t.Fatal(err)
	}
	stateArgs := protocol.SortedStateRequest{FieldID: 5, IndexType: "btree",
		DataFiles: raw(
			protocol.Object{"fileName": "data-b", "rowCount": 2, "level": 1, "compact": true},
			protocol.Object{"fileName": "data-a", "rowCount": 3, "level": 1, "compact": true},
			protocol.Object{"fileName": "data-c", "rowCount": 4, "level": 2, "compact": true},
		),
		Payloads: raw(
			protocol.Object{"indexType": "btree", "fileName": "index-good", "rowCount": 5, "fieldId": 5, "rowRangeStart": 0, "rowRangeEnd": 4, "sourceMeta": sm64},
			protocol.Object{"indexType": "btree", "fileName": "index-other-field", "rowCount": 4, "fieldId": 6, "rowRangeStart": 0, "rowRangeEnd": 3,
				"sourceMeta": base64.StdEncoding.EncodeToString(sm2Bytes)},
			protocol.Object{"indexType": "btree", "fileName": "index-no-meta", "rowCount": 5, "fieldId": 5, "rowRangeStart": 0, "rowRangeEnd": 4, "sourceMeta": nil},
		),
	}
	for _, sub := range []string{"btree", "bitmap"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	resps := session(t,
		[2]any{"sorted-index-build", build("btree", "btree", sources)},
		[2]any{"sorted-index-build", build("bitmap", "bitmap", sources)},
		[2]any{"sorted-index-build", build("btree", "btree", raw(sortedSource{FileName: "data-a", Values: []*string{s("x")}}))},
		// An unknown argument is sent as a map: no request type holds one.
		[2]any{"sorted-index-build", map[string]any{"indexType": "btree", "type": "INT", "fieldId": 5, "dir": dir, "level": 2, "sources": nil, "compact": true}},
		[2]any{"sorted-index-options", protocol.SortedIndexOptionsRequest{Options: opts, Column: "c", IndexType: "btree"}},
		[2]any{"sorted-index-options", protocol.SortedIndexOptionsRequest{Options: refused, Column: "c", IndexType: "btree"}},
		[2]any{"sorted-state", stateArgs},
		[2]any{"sorted-index-write", protocol.SortedIndexWriteRequest{IndexType: "btree", Type: "STRING", Options: protocol.Object{}, Dir: filepath.Join(dir, "btree"),
			Rows: []protocol.Object{{"key": "a", "rowId": 2}, {"key": nil, "rowId": 1}, {"key": "b", "rowId": 0}}}},
		[2]any{"sorted-index-write", protocol.SortedIndexWriteRequest{IndexType: "bitmap", Type: "STRING", Dir: filepath.Join(dir, "bitmap")}},
		[2]any{"sorted-index-write", protocol.SortedIndexWriteRequest{IndexType: "btree", Type: "INT", Dir: filepath.Join(dir, "btree"), Rows: []protocol.Object{{"key": "1.5", "rowId": 0}}}},
	)
	for i, index := range []string{"btree", "bitmap"} {
		// The schema leaves a build's result free-form (the Java runner's payload meta).
		var p struct {
			IndexType     string  `json:"indexType"`
			FileName      string  `json:"fileName"`
			FileSize      int64   `json:"fileSize"`
			RowCount      int64   `json:"rowCount"`
			RowRangeStart int64   `json:"rowRangeStart"`
			RowRangeEnd   int64   `json:"rowRangeEnd"`
			IndexFieldID  int32   `json:"indexFieldId"`
			IndexMeta     string  `json:"indexMeta"`
			SourceMeta    string  `json:"sourceMeta"`
			ExternalPath  *string `json:"externalPath"`
		}
		result(t, index+" build", resps[i], &p)
		if p.IndexType != index || p.RowCount != 6 || p.RowRangeStart != 0 || p.RowRangeEnd != 5 || p.IndexFieldID != 5 || p.ExternalPath != nil {
			t.Errorf("%s build: %+v", index, p)
		}
		st, err := os.Stat(filepath.Join(dir, index, p.FileName))
		if err != nil || st.Size() != p.FileSize {
			t.Errorf("%s build: payload %s of %d bytes: %v, %v", index, p.FileName, p.FileSize, st, err)
		}
		b, err := base64.StdEncoding.DecodeString(p.SourceMeta)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pkindex.DecodeSourceMeta(b)
		if err != nil {
			t.Fatal(err)
		}
		files := got.SourceFiles()
		if got.DataLevel() != 2 || len(files) != 2 || files[0].FileName() != "data-a" || files[0].RowCount() != 2 ||
			files[1].FileName() != "data-b" || files[1].RowCount() != 4 {
			t.Errorf("%s build: source meta level %d, %v", index, got.DataLevel(), files)
		}
		if p.IndexMeta == "" {
			t.Errorf("%s build: no index meta", index)
		}
	}
	for i, want := range []string{"IllegalArgumentException: args.sources data-a value 0", `IllegalArgumentException: args: json: unknown field "compact"`} {
		if r := resps[2+i]; r.OK || !strings.HasPrefix(errText(r), want) {
			t.Errorf("refused build %d: %+v, want %q", i, r, want)
		}
	}
	var o protocol.SortedIndexOptionsResponse
	result(t, "options", resps[4], &o)
	want, err := definition.IndexOptions(opts, "c", "btree")
	if err != nil || o.Error != nil || !maps.Equal(o.Options, want) || o.Options["btree-index.block-size"] != "4 kb" {
		t.Errorf("options: %+v, definition gives %v, %v", o, want, err)
	}
	o.Options, o.Error = nil, nil
	result(t, "refused options", resps[5], &o)
	_, werr := definition.IndexOptions(refused, "c", "btree")
	if o.Options != nil || o.Error == nil || werr == nil || *o.Error != werr.Error() {
		t.Errorf("refused options: %+v, definition refuses with %v", o, werr)
	}
	// The schema leaves a state's groups free-form.
	var st struct {
		Groups []struct {
			Level    int32    `json:"level"`
			Sources  []string `json:"sources"`
			Payloads []string `json:"payloads"`
		} `json:"groups"`
		Covered   []string `json:"covered"`
		Uncovered []string `json:"uncovered"`
		Rejected  []string `json:"rejected"`
	}
	result(t, "state", resps[6], &st)
	if len(st.Groups) != 1 || st.Groups[0].Level != 1 || !slices.Equal(st.Groups[0].Sources, []string{"data-a", "data-b"}) ||
		!slices.Equal(st.Groups[0].Payloads, []string{"index-good"}) || !slices.Equal(st.Covered, []string{"data-a", "data-b"}) ||
		!slices.Equal(st.Uncovered, []string{"data-c"}) || !slices.Equal(st.Rejected, []string{"index-no-meta", "index-other-field"}) {
		t.Errorf("state: %+v", st)
	}
	var w protocol.SortedIndexWriteResponse
	result(t, "write", resps[7], &w)
	var meta64 string
	if err := json.Unmarshal(w.Meta, &meta64); err != nil {
		t.Fatalf("write: meta %s: %v", w.Meta, err)
	}
	meta, err := base64.StdEncoding.DecodeString(meta64)
	if err != nil || w.FileName != "btree-index-file" || w.RowCount == nil || *w.RowCount != 3 || len(meta) == 0 {
		t.Errorf("write: %+v, %v", w, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "btree", w.FileName)); err != nil || st.Size() == 0 {
		t.Errorf("write: the file: %v, %v", st, err)
	}
	var empty protocol.SortedIndexWriteResponse
	if result(t, "empty write", resps[8], &empty); string(resps[8].Result) != `{"empty":true}` || !empty.Empty {
		t.Errorf("a bitmap of no rows: %s, want {empty: true}", resps[8].Result)
	}
	if _, err := os.Stat(filepath.Join(dir, "bitmap", "bitmap-index-file")); !os.IsNotExist(err) {
		t.Errorf("a bitmap of no rows left a file: %v", err)
	}
	if r := resps[9]; r.OK || !strings.HasPrefix(errText(r), "IllegalArgumentException: args.rows[0].key") {
		t.Errorf("an INT key 1.5: %+v", r)
	}
}

func mustSource(t *testing.T, name string, rows int64) pkindex.SourceFile {
	t.Helper()
	f, err := pkindex.NewSourceFile(name, rows)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
