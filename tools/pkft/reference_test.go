package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command reference of docs/cli.md lies between these markers.
const (
	referenceBegin = "<!-- command reference: generated from the CLI's flags by TestCommandReference (PKFT_UPDATE_DOCS=1 go test ./tools/pkft -run TestCommandReference rewrites it) -->\n"
	referenceEnd   = "<!-- command reference: end -->"
)

// valueNames names the value of a flag of a type whose usage names none (`NAME`).
var valueNames = map[string]string{"int": "N", "int32": "N", "int64": "N", "int32Slice": "N", "duration": "DURATION"}

// flagSynopsis renders a flag as the reference lists it: [--name] for a switch, else
// [--name VALUE] with the value's name from its usage (`VALUE`) or its type; a required flag
// without brackets.
func flagSynopsis(cmd *cobra.Command, f *pflag.Flag) string {
	s := "--" + f.Name
	if f.Value.Type() != "bool" {
		name, _ := pflag.UnquoteUsage(f)
		if strings.Contains(f.Usage, "`") {
			s += " " + name
		} else if v, ok := valueNames[f.Value.Type()]; ok {
			s += " " + v
		} else {
			s += " VALUE"
		}
	}
	if ann := f.Annotations[cobra.BashCompOneRequiredFlag]; (len(ann) > 0 && ann[0] == "true") || strings.Contains(cmd.Use, " --"+f.Name+" ") {
		return s
	}
	return "[" + s + "]"
}

// commandReference renders every subcommand of root with every flag, and the flags of every
// command, from the command tree itself.
func commandReference(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString("```\n")
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		use, _, _ := strings.Cut(c.Use, " --") // flags named in Use are listed below
		line := "pkft " + use
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				line += " " + flagSynopsis(c, f)
			}
		})
		b.WriteString(line + "\n    " + c.Short + "\n")
	}
	line := "pkft COMMAND ..."
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			line += " " + flagSynopsis(root, f)
		}
	})
	b.WriteString(line + "\n    the flags of every command\n")
	b.WriteString("pkft --version | --help | COMMAND --help\n```\n")
	return b.String()
}

// TestCommandReference: docs/cli.md's command reference is the one the CLI's command tree
// generates, every subcommand with every flag; PKFT_UPDATE_DOCS=1 rewrites it.
func TestCommandReference(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, referenceBegin)
	j := strings.Index(doc, referenceEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/cli.md has no %q ... %q", referenceBegin, referenceEnd)
	}
	want := commandReference(newRoot(&bytes.Buffer{}, &logSetup{w: &bytes.Buffer{}}))
	got := doc[i+len(referenceBegin) : j]
	if got == want {
		return
	}
	if os.Getenv("PKFT_UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(doc[:i+len(referenceBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/cli.md's command reference is stale (PKFT_UPDATE_DOCS=1 go test ./tools/pkft -run TestCommandReference rewrites it); want:\n%s", want)
}

// TestCommandReferenceListsEveryFlag: the generated reference names every subcommand and every
// flag of each.
func TestCommandReferenceListsEveryFlag(t *testing.T) {
	root := newRoot(&bytes.Buffer{}, &logSetup{w: &bytes.Buffer{}})
	ref := commandReference(root)
	for _, c := range root.Commands() {
		_, block, ok := strings.Cut(ref, "\npkft "+c.Name())
		if !ok {
			t.Errorf("the reference lacks %s", c.Name())
			continue
		}
		block, _, _ = strings.Cut(block, "\n")
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(block+" ", "--"+f.Name+" ") && !strings.Contains(block, "--"+f.Name+"]") {
				t.Errorf("the reference's %s line lacks --%s", c.Name(), f.Name)
			}
		})
	}
	_, global, _ := strings.Cut(ref, "\npkft COMMAND ...")
	global, _, _ = strings.Cut(global, "\n")
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(global, "--"+f.Name+" ") {
			t.Errorf("the reference's line of every command's flags lacks --%s", f.Name)
		}
	})
}
