package protocol

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documentedCommands returns the commands of compat/PROTOCOL.md's tables: the first column of
// every table headed "command", and the commands column of the roles table (headed "role").
func documentedCommands(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	tick := regexp.MustCompile("`([a-z0-9-]+)`")
	var out []string
	column := -1
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") {
			column = -1
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		switch head := strings.TrimSpace(cells[0]); {
		case column < 0 && head == "command":
			column = 0
			continue
		case column < 0 && head == "role":
			column = 1
			continue
		case column < 0 || strings.HasPrefix(head, "---") || column >= len(cells):
			continue
		}
		for _, m := range tick.FindAllStringSubmatch(cells[column], -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("PROTOCOL.md has no command tables")
	}
	return out
}

// Every command of PROTOCOL.md's tables has a request and a response schema, and every schema
// file is of a documented command or the envelope: the schemas and the document do not drift.
func TestSchemasCoverTheDocumentedCommands(t *testing.T) {
	s, err := Compile()
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedCommands(t)
	for _, want := range []string{"ping", "read", "search", "list-index", "create-table", "write", "compact",
		"minor-compact", "maintain", "pk-full-text-index-file-build", "source-meta-encode", "source-meta-decode",
		"maintainer-scenario", "sorted-maintainer-scenario", "dump"} {
		if !slices.Contains(documented, want) {
			t.Errorf("PROTOCOL.md's tables do not list %s", want)
		}
	}
	have := s.Commands()
	for _, c := range documented {
		if !slices.Contains(have, c) {
			t.Errorf("%s is documented but has no schemas (%s.request.json, %s.response.json)", c, c, c)
		}
	}
	for _, c := range have {
		if !slices.Contains(documented, c) {
			t.Errorf("schemas of %s, which PROTOCOL.md's tables do not list", c)
		}
	}
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*len(have) + 2; len(files) != want {
		t.Errorf("%d schema files, want %d (two per command and the envelope's two)", len(files), want)
	}
}

// The validator accepts the protocol's lines and refuses each kind of wrong one, naming the
// command, the direction, the schema file and the schema path.
func TestValidate(t *testing.T) {
	s, err := Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"id":1,"cmd":"ping","args":null}`,
		`{"id":1,"cmd":"ping"}`,
		`{"id":2,"cmd":"read","args":{"path":"/t"}}`,
		`{"id":3,"cmd":"search","args":{"path":"/t","query":"a b","limit":5,"ranked":true}}`,
		`{"id":4,"cmd":"write","args":{"path":"/t","rows":[{"id":1,"_rowKind":"-D"}],"dynamicOptions":{"a":null,"b":"1"}}}`,
	} {
		if err := s.ValidateRequest([]byte(line)); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	for _, c := range []struct{ line, want string }{
		{`{"id":0,"cmd":"ping"}`, "envelope.request.json: schema path /properties/id/minimum"},
		{`{"id":1,"cmd":"read","args":{"path":"/t"},"extra":1}`, "envelope.request.json: schema path /additionalProperties"},
		{`{"id":1,"cmd":"read","args":[]}`, "envelope.request.json"},
		{`{"id":1,"cmd":"write","args":{"path":"/t","rows":[{"_rowKind":"+X"}]}}`, "write request does not match write.request.json: schema path /properties/rows/items/properties/_rowKind/enum at /rows/0/_rowKind"},
		{`{"id":1,"cmd":"nope"}`, `no command "nope"`},
		{`not json`, "not JSON"},
	} {
		err := s.ValidateRequest([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.line, err, c.want)
		}
	}
	for _, c := range []struct{ cmd, line string }{
		{"read", `{"id":2,"ok":true,"result":{"rows":[{"id":1}]}}`},
		{"read", `{"id":2,"ok":false,"error":"IOException: gone"}`},
		{"list-index", `{"id":2,"ok":true,"result":{"archives":[{"partition":{},"bucket":0,"fileName":"f","status":"stale"}]}}`},
		{"sorted-index-write", `{"id":2,"ok":true,"result":{"empty":true}}`},
	} {
		if err := s.ValidateResponse(c.cmd, []byte(c.line)); err != nil {
			t.Errorf("%s %s: %v", c.cmd, c.line, err)
		}
	}
	for _, c := range []struct{ cmd, line, want string }{
		{"read", `{"id":2,"ok":true}`, "read response does not match envelope.response.json"},
		{"read", `{"id":2,"ok":false,"error":"x","result":{}}`, "envelope.response.json"},
		{"read", `{"id":2,"ok":true,"result":{"rows":{}}}`, "read.response.json: schema path /properties/rows/type at /rows"},
		{"list-index", `{"id":2,"ok":true,"result":{"archives":[{"partition":{},"bucket":0,"fileName":"f","status":"old"}]}}`, "at /archives/0/status"},
		{"search", `{"id":2,"ok":true,"result":{"snapshotId":1,"column":"c","query":"q","results":[{"key":{},"text":"t"}]}}`, "schema path /properties/results/items/required at /results/0"},
	} {
		err := s.ValidateResponse(c.cmd, []byte(c.line))
		var v *Violation
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want one containing %q", c.cmd, c.line, err, c.want)
		} else if v, _ = err.(*Violation); v == nil || v.Cmd != c.cmd || v.Direction != Response {
			t.Errorf("%s %s: %#v is not a response Violation of the command", c.cmd, c.line, err)
		}
	}
}
