package typegen

import (
	"strings"
	"testing"
	"testing/fstest"
)

// Each rule of the mapping: required, optional (zero admitted or not), nullable, enum, free-form,
// maps, nested structs named after their parent, and the plural of an array of structs.
func TestGenerate(t *testing.T) {
	fsys := fstest.MapFS{
		"do-it.request.json": {Data: []byte(`{
  "title": "do-it args: does it",
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1},
    "snapshotId": {"type": "integer", "minimum": 1},
    "bucket": {"type": "integer"},
    "ranked": {"type": "boolean"},
    "function": {"type": ["string", "null"]},
    "cardinality": {"type": ["integer", "null"]},
    "rows": {"type": "array", "items": {"type": "object", "properties": {"_rowKind": {"enum": ["+I", "-D"]}}}},
    "options": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
    "text": {},
    "entries": {"type": "array", "items": {"type": "object", "properties": {"kind": {"enum": ["ADD", "DELETE"]}}, "required": ["kind"], "additionalProperties": false}}
  },
  "required": ["path", "cardinality", "entries"],
  "additionalProperties": false
}`)},
		"do-it.response.json": {Data: []byte(`{"title": "do-it result: does it", "type": "object"}`)},
	}
	src, err := Generate(fsys)
	if err != nil {
		t.Fatal(err)
	}
	out := string(src)
	for _, want := range []string{
		"// DoItRequest is the args of command do-it (do-it.request.json): does it.",
		"Path string `json:\"path\"`",
		"SnapshotID int64 `json:\"snapshotId,omitempty\"`",
		"Bucket *int64 `json:\"bucket,omitempty\"`",
		"Ranked *bool `json:\"ranked,omitempty\"`",
		"Function *string `json:\"function,omitempty\"`",
		"Cardinality *int64 `json:\"cardinality\"`",
		"Rows []Object `json:\"rows,omitzero\"`",
		"Options map[string]*string `json:\"options,omitzero\"`",
		"Text json.RawMessage `json:\"text,omitempty\"`",
		"Entries []DoItRequestEntry `json:\"entries\"`",
		"// DoItRequestEntry is an element of DoItRequest.Entries.",
		"Kind string `json:\"kind\"`",
		"// Kind: one of \"ADD\", \"DELETE\".",
		"type DoItResponse Object",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the generated source lacks %s:\n%s", want, out)
		}
	}
}

// A keyword typegen does not type is refused by name rather than dropped.
func TestGenerateRefusesUnknownKeywords(t *testing.T) {
	fsys := fstest.MapFS{"x.request.json": {Data: []byte(`{"type": "object", "patternProperties": {}}`)}}
	if _, err := Generate(fsys); err == nil || !strings.Contains(err.Error(), "patternProperties") {
		t.Fatalf("error %v, want one naming patternProperties", err)
	}
}
