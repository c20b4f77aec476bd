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

	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
)

// result decodes a response's result into v, failing unless the response is OK.
func result(t *testing.T, name string, r response, v any) {
	t.Helper()
	if !r.OK {
		t.Fatalf("%s: %+v", name, r)
	}
	b, err := json.Marshal(r.Result)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v in %s", name, err, b)
	}
}

// TestSortedCommands: sorted-index-build, sorted-index-options, sorted-state and
// sorted-index-write answer with the Java runner's result shapes (a bitmap of no rows is
// {empty: true}, no file); a build writes its payload into dir with the level's source meta
// (files in name order) and refuses a key its type cannot take, by name; a state groups the
// level its payload covers and rejects a payload without source meta, then one of another field.
func TestSortedCommands(t *testing.T) {
	dir := t.TempDir()
	s := func(v string) *string { return &v }
	sources := []map[string]any{
		{"fileName": "data-b", "values": []*string{s("3"), nil, s("-7"), s("3")}},
		{"fileName": "data-a", "values": []*string{s("12"), s("0")}},
	}
	build := func(index, sub string, values []map[string]any) map[string]any {
		return map[string]any{"indexType": index, "type": "INT", "fieldId": 5, "options": map[string]string{},
			"dir": filepath.Join(dir, sub), "level": 2, "sources": values}
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
	stateArgs := map[string]any{"fieldId": 5, "indexType": "btree",
		"dataFiles": []map[string]any{
			{"fileName": "data-b", "rowCount": 2, "level": 1, "compact": true},
			{"fileName": "data-a", "rowCount": 3, "level": 1, "compact": true},
			{"fileName": "data-c", "rowCount": 4, "level": 2, "compact": true},
		},
		"payloads": []map[string]any{
			{"indexType": "btree", "fileName": "index-good", "rowCount": 5, "fieldId": 5, "rowRangeStart": 0, "rowRangeEnd": 4, "sourceMeta": sm64},
			{"indexType": "btree", "fileName": "index-other-field", "rowCount": 4, "fieldId": 6, "rowRangeStart": 0, "rowRangeEnd": 3,
				"sourceMeta": base64.StdEncoding.EncodeToString(sm2Bytes)},
			{"indexType": "btree", "fileName": "index-no-meta", "rowCount": 5, "fieldId": 5, "rowRangeStart": 0, "rowRangeEnd": 4, "sourceMeta": nil},
		},
	}
	for _, sub := range []string{"btree", "bitmap"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	resps := session(t,
		[2]any{"sorted-index-build", build("btree", "btree", sources)},
		[2]any{"sorted-index-build", build("bitmap", "bitmap", sources)},
		[2]any{"sorted-index-build", build("btree", "btree", []map[string]any{{"fileName": "data-a", "values": []*string{s("x")}}})},
		[2]any{"sorted-index-build", map[string]any{"indexType": "btree", "type": "INT", "fieldId": 5, "dir": dir, "level": 2, "sources": nil, "compact": true}},
		[2]any{"sorted-index-options", map[string]any{"options": opts, "column": "c", "indexType": "btree"}},
		[2]any{"sorted-index-options", map[string]any{"options": refused, "column": "c", "indexType": "btree"}},
		[2]any{"sorted-state", stateArgs},
		[2]any{"sorted-index-write", map[string]any{"indexType": "btree", "type": "STRING", "options": map[string]string{}, "dir": filepath.Join(dir, "btree"),
			"rows": []map[string]any{{"key": "a", "rowId": 2}, {"key": nil, "rowId": 1}, {"key": "b", "rowId": 0}}}},
		[2]any{"sorted-index-write", map[string]any{"indexType": "bitmap", "type": "STRING", "dir": filepath.Join(dir, "bitmap"), "rows": nil}},
		[2]any{"sorted-index-write", map[string]any{"indexType": "btree", "type": "INT", "dir": filepath.Join(dir, "btree"), "rows": []map[string]any{{"key": "1.5", "rowId": 0}}}},
	)
	for i, index := range []string{"btree", "bitmap"} {
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
		if r := resps[2+i]; r.OK || !strings.HasPrefix(r.Error, want) {
			t.Errorf("refused build %d: %+v, want %q", i, r, want)
		}
	}
	var o struct {
		Options map[string]string `json:"options"`
		Error   *string           `json:"error"`
	}
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
	var w struct {
		FileName string `json:"fileName"`
		RowCount int64  `json:"rowCount"`
		Meta     string `json:"meta"`
	}
	result(t, "write", resps[7], &w)
	meta, err := base64.StdEncoding.DecodeString(w.Meta)
	if err != nil || w.FileName != "btree-index-file" || w.RowCount != 3 || len(meta) == 0 {
		t.Errorf("write: %+v, %v", w, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "btree", w.FileName)); err != nil || st.Size() == 0 {
		t.Errorf("write: the file: %v, %v", st, err)
	}
	var empty map[string]any
	result(t, "empty write", resps[8], &empty)
	if len(empty) != 1 || empty["empty"] != true {
		t.Errorf("a bitmap of no rows: %v, want {empty: true}", empty)
	}
	if _, err := os.Stat(filepath.Join(dir, "bitmap", "bitmap-index-file")); !os.IsNotExist(err) {
		t.Errorf("a bitmap of no rows left a file: %v", err)
	}
	if r := resps[9]; r.OK || !strings.HasPrefix(r.Error, "IllegalArgumentException: args.rows[0].key") {
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
