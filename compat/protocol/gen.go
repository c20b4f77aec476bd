//go:build ignore

// gen writes types.go, the Go types of the protocol's messages, from the schema files of this
// directory (go generate ./compat/protocol).
package main

import (
	"fmt"
	"os"

	"github.com/paimon-pkft/pkft/compat/protocol/internal/typegen"
)

func main() {
	src, err := typegen.Generate(os.DirFS("."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("types.go", src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
