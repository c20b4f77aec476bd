package main

import (
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestHelpSaysWhatTheRegistrySupports: create --help and compact --help name each index family
// and merge engine as the option registry decides it (a family or engine the registry honours is
// listed as honoured, one it refuses as refused), so the help cannot drift from what pkft does.
func TestHelpSaysWhatTheRegistrySupports(t *testing.T) {
	decide := func(key, value string) bool {
		for _, d := range pkft.DecideOptions(map[string]string{key: value}) {
			if d.Refused {
				return false
			}
		}
		return true
	}
	check := func(help, what, name string, honoured bool) {
		t.Helper()
		line := ""
		for _, l := range strings.Split(help, "\n") {
			if strings.Contains(l, "The "+what+" pkft honours:") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("no line about the %s in:\n%s", what, help)
		}
		ok, refusedPart, _ := strings.Cut(line, "; refused:")
		listed := func(s string) bool {
			for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' || r == ' ' || r == '(' }) {
				if f == name {
					return true
				}
			}
			return false
		}
		if honoured && !listed(ok) {
			t.Errorf("the registry honours %s, the help does not say so: %q", name, line)
		}
		if !honoured && !listed(refusedPart) {
			t.Errorf("the registry refuses %s, the help does not say so: %q", name, line)
		}
	}
	for _, cmd := range []string{"create", "compact"} {
		code, help, stderr := pkftRun(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", cmd, code, stderr)
		}
		for _, e := range mergeEngines {
			check(help, "merge engines", e, decide("merge-engine", e))
		}
		if cmd == "create" {
			for _, f := range indexFamilies {
				check(help, "primary-key index families", f.name, decide(f.option, "c"))
			}
		}
	}
}
