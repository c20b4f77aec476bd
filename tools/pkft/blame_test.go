package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalPathWithColon: a relative local path whose first component holds a colon is a local
// table, not a URI of scheme "a": create, write and scan it.
func TestLocalPathWithColon(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("schema.json", []byte(`{"columns":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}],
		"primaryKeys":["id"],"options":{"bucket":"1"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := pkftRun(t, "create", "a:b", "--schema", "schema.json"); code != exitOK {
		t.Fatalf("create a:b: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "a:b", "schema", "schema-0")); err != nil {
		t.Fatalf("create a:b wrote no local schema: %v", err)
	}
	if _, err := pkftRunIn(t, `{"id":1,"v":"x"}`+"\n", "write", "a:b", "--quiet"); err != nil {
		t.Fatalf("write a:b: %v", err)
	}
	code, out, errOut := pkftRun(t, "scan", "a:b", "--json")
	if code != exitOK || !strings.Contains(out, `"v":"x"`) {
		t.Errorf("scan a:b: exit %d, %q, %s", code, out, errOut)
	}
	// A scheme with "//", or one of another file system Paimon reads, is still refused by name.
	for _, p := range []string{"gs://b/t", "hdfs:/t"} {
		if code, _, errOut := pkftRun(t, "state", p); code != exitFailed || !strings.Contains(errOut, "is not supported") {
			t.Errorf("state %s: exit %d, %s", p, code, errOut)
		}
	}
}

// TestWriteNamesJSONKinds: a row that is no JSON object, and a cell that is an array or an
// object, are refused naming the JSON kind found, not a Go type.
func TestWriteNamesJSONKinds(t *testing.T) {
	dir := goldenTable(t, "ft-default-partitioned", false)
	for in, want := range map[string]string{
		`[1, 2]`: "line 1: not a JSON object but an array",
		`"row"`:  "line 1: not a JSON object but a string",
		`{"region": "eu", "dt": "2024-01-31", "id": [1], "content": "x"}`:    "column id: a JSON array cannot be a INT NOT NULL",
		`{"region": "eu", "dt": "2024-01-31", "id": 1, "content": {"a": 1}}`: "column content: a JSON object cannot be a STRING",
	} {
		_, err := pkftRunIn(t, in+"\n", "write", dir, "--quiet")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "interface") {
			t.Errorf("write %s: %v, want %q", in, err, want)
		}
	}
}
