package protocol

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/compat/protocol/internal/typegen"
)

// types.go is what typegen makes of the schemas: the types and the schemas do not drift.
func TestTypesMatchSchemas(t *testing.T) {
	want, err := typegen.Generate(schemaFiles)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("types.go")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(have, want) {
		return
	}
	hl, wl := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	line := 0
	for line < len(hl) && line < len(wl) && hl[line] == wl[line] {
		line++
	}
	got, exp := "(end of file)", "(end of file)"
	if line < len(hl) {
		got = hl[line]
	}
	if line < len(wl) {
		exp = wl[line]
	}
	t.Fatalf("types.go differs from the types the schemas generate from line %d:\n have %q\n want %q\nrun `go generate ./compat/protocol` to update it", line+1, got, exp)
}
