package options

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	tableBegin = "<!-- options:begin: generated from internal/options by TestDocsOptionTable (PKFT_UPDATE_DOCS=1 go test ./internal/options -run TestDocsOptionTable rewrites it) -->"
	tableEnd   = "<!-- options:end -->"
)

// TestDocsOptionTable checks that the table of honoured and refused options in docs/options.md
// is the registry's, so the two cannot drift; PKFT_UPDATE_DOCS=1 rewrites it.
func TestDocsOptionTable(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "options.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, tableBegin, tableEnd)
	}
	want := tableBegin + "\n" + renderTable(New()) + tableEnd
	if got := doc[i : j+len(tableEnd)]; got != want {
		if os.Getenv("PKFT_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(doc[:i]+want+doc[j+len(tableEnd):]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("%s's option table is not the registry's: run PKFT_UPDATE_DOCS=1 go test ./internal/options -run TestDocsOptionTable", path)
	}
}

func renderTable(r *Registry) string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var honoured, refused strings.Builder
	count := map[Class]int{}
	maintainInert := 0
	// maintain is the class of the key for the index-only maintenance commit.
	maintain := func(e Entry) string {
		if e.MaintainInert != "" {
			maintainInert++
			return "inert: " + cell(e.MaintainInert)
		}
		return e.Class.String()
	}
	for _, e := range r.Entries() {
		count[e.Class]++
		switch e.Class {
		case Honoured:
			fmt.Fprintf(&honoured, "| `%s` | %s | `%s` | %s |\n", e.Key, cell(e.Reason), e.Test, maintain(e))
		case Refused:
			def := "(none)"
			if e.HasDefault {
				def = "`" + cell(e.Default) + "`"
			}
			fmt.Fprintf(&refused, "| `%s` | %s | %s | %s |\n", e.Key, def, cell(e.Reason), maintain(e))
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d keys are classified (`*` and `#` in a key stand for a column, type or class name): %d honoured, %d refused, %d inert.\n\n",
		len(r.Entries()), count[Honoured], count[Refused], count[Inert])
	fmt.Fprintf(&sb, "The class is the same for every operation (write, compact, maintain) except for %d keys the index-only maintenance commit "+
		"(`pkft maintain`, `maintain --watch`) accepts at any value because they cannot change what it writes (the last column says why); "+
		"it also accepts keys outside Paimon's namespaces (%s), which the other operations refuse as unknown.\n\n", maintainInert, reasonForeign)
	sb.WriteString("Honoured (for writes and compactions, values Go does not implement are refused, as the second column says):\n\n")
	sb.WriteString("| option | what Go does | checked by | maintain |\n| --- | --- | --- | --- |\n")
	sb.WriteString(honoured.String())
	sb.WriteString("\nRefused by writes and compactions when set to anything but the default:\n\n")
	sb.WriteString("| option | default | why | maintain |\n| --- | --- | --- | --- |\n")
	sb.WriteString(refused.String())
	return sb.String()
}
