package main

import (
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// TestOutputsGolden checks the text outputs of scan and create against golden files in
// testdata/ (gotest.tools' golden; `go test ./tools/pkft -run TestOutputsGolden -update`
// rewrites them).
func TestOutputsGolden(t *testing.T) {
	tables := filepath.Join("..", "..", "testdata", "tables", "java")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"scan-composite-key.golden", []string{"scan", filepath.Join(tables, "composite-key"), "--limit", "5"}},
		{"scan-partitioned-dv-json.golden", []string{"scan", filepath.Join(tables, "partitioned-dv"), "--where", "region=eu", "--columns", "id,content", "--json", "--limit", "4"}},
		{"create-partitioned-dv.golden", []string{"create", filepath.Join(t.TempDir(), "t"), "--schema", filepath.Join(tables, "partitioned-dv", "schema", "schema-0")}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			code, out, errOut := pkftRun(t, c.args...)
			assert.Equal(t, code, 0, errOut)
			golden.Assert(t, out, c.golden)
		})
	}
}
