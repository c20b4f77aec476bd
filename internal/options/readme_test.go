package options

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	readmeBegin = "<!-- options:begin: generated from internal/options by TestReadmeOptionTable (PKFT_UPDATE_README=1 go test ./internal/options -run TestReadmeOptionTable rewrites it) -->"
	readmeEnd   = "<!-- options:end -->"
)

// TestReadmeOptionTable checks README's table of honoured and refused options is the registry's,
// so the two cannot drift; PKFT_UPDATE_README=1 rewrites it.
func TestReadmeOptionTable(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, readmeBegin), strings.Index(readme, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", readmeBegin, readmeEnd)
	}
	want := readmeBegin + "\n" + renderTable(New()) + readmeEnd
	if got := readme[i : j+len(readmeEnd)]; got != want {
		if os.Getenv("PKFT_UPDATE_README") == "1" {
			if err := os.WriteFile(path, []byte(readme[:i]+want+readme[j+len(readmeEnd):]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatal("README.md's option table is not the registry's: run PKFT_UPDATE_README=1 go test ./internal/options -run TestReadmeOptionTable")
	}
}

func renderTable(r *Registry) string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var honoured, refused strings.Builder
	count := map[Class]int{}
	for _, e := range r.Entries() {
		count[e.Class]++
		switch e.Class {
		case Honoured:
			fmt.Fprintf(&honoured, "| `%s` | %s | `%s` |\n", e.Key, cell(e.Reason), e.Test)
		case Refused:
			def := "(none)"
			if e.HasDefault {
				def = "`" + cell(e.Default) + "`"
			}
			fmt.Fprintf(&refused, "| `%s` | %s | %s |\n", e.Key, def, cell(e.Reason))
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d keys are classified (`*` and `#` in a key stand for a column, type or class name): %d honoured, %d refused, %d inert.\n\n",
		len(r.Entries()), count[Honoured], count[Refused], count[Inert])
	sb.WriteString("Honoured (values Go does not implement are refused, as the second column says):\n\n")
	sb.WriteString("| option | what Go does | checked by |\n| --- | --- | --- |\n")
	sb.WriteString(honoured.String())
	sb.WriteString("\nRefused when set to anything but the default:\n\n")
	sb.WriteString("| option | default | why |\n| --- | --- | --- |\n")
	sb.WriteString(refused.String())
	return sb.String()
}
