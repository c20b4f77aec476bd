package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exitStatusMarker precedes the exit-status table in docs/cli.md.
const exitStatusMarker = "<!-- exit-status table: generated from tools/pkft/exit.go's exitStatuses -->\n"

// exitStatusRows renders exitStatuses as the rows of docs/cli.md's table.
func exitStatusRows() string {
	var b strings.Builder
	b.WriteString("| status | meaning |\n| --- | --- |\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "| %d | %s |\n", s.code, s.meaning)
	}
	return b.String()
}

// TestExitStatusTableInDocs: docs/cli.md's exit-status table is exitStatuses, and every
// status run returns is in it.
func TestExitStatusTableInDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, exitStatusMarker)
	if i < 0 {
		t.Fatalf("docs/cli.md has no %q", exitStatusMarker)
	}
	got := doc[i+len(exitStatusMarker):]
	if j := strings.Index(got, "\n\n"); j >= 0 {
		got = got[:j+1]
	}
	if want := exitStatusRows(); got != want {
		t.Errorf("docs/cli.md's exit-status table:\n%s\nwant (from exitStatuses):\n%s", got, want)
	}
	codes := map[int]bool{}
	for _, s := range exitStatuses {
		codes[s.code] = true
	}
	for _, c := range []int{exitOK, exitFailed, exitUsage, exitInterrupted} {
		if !codes[c] {
			t.Errorf("exit status %d is not documented in exitStatuses", c)
		}
	}
}

// --log-format and --log-level configure the logs of long work: JSON or text records, at or
// above the level.
func TestLogFlags(t *testing.T) {
	for _, c := range []struct {
		format, level string
		want          []string // substrings of the output, in order; nil: nothing logged
	}{
		{"json", "info", []string{`"level":"INFO","msg":"maintained","snapshot":3}`, `"level":"WARN","msg":"round failed"`}},
		{"text", "warn", []string{`level=WARN msg="round failed"`}},
		{"text", "error", nil},
	} {
		var b strings.Builder
		logs := &logSetup{w: &b, format: c.format, level: c.level}
		if err := logs.configure(); err != nil {
			t.Fatal(err)
		}
		logs.get().Debug("debugging")
		logs.get().Info("maintained", "snapshot", 3)
		logs.get().Warn("round failed")
		out := b.String()
		if c.want == nil && out != "" {
			t.Errorf("%s at %s: %q, want nothing", c.format, c.level, out)
		}
		rest := out
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s at %s: %q lacks %q", c.format, c.level, out, w)
				break
			}
			rest = rest[i+len(w):]
		}
		if strings.Contains(out, "debugging") || (c.level != "info" && strings.Contains(out, "maintained")) {
			t.Errorf("%s at %s: %q logs below the level", c.format, c.level, out)
		}
	}
}
