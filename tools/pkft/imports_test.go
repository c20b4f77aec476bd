package main

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestBuiltOnTheLibraryOnly checks that the command is built on package pkft alone: none of its
// (non-test) files imports an impl or internal package of the module.
func TestBuiltOnTheLibraryOnly(t *testing.T) {
	const module = "github.com/paimon-pkft/pkft"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(path, module+"/") {
				t.Errorf("%s imports %s; the command may import only %s", name, path, module)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}
