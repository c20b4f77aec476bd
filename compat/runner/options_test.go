package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// javaOption is one option the Java runner's `options` command lists.
type javaOption struct {
	Key          string   `json:"key"`
	Class        string   `json:"class"`
	Type         string   `json:"type"`
	Default      *string  `json:"default"`
	FallbackKeys []string `json:"fallbackKeys"`
}

// casesOptions registers options/registry (java->go): every table option key of the Paimon build the
// Java runner runs on is classified by Go's registry (internal/options) under the same key, with
// Java's type, default and fallback keys, so a new Paimon version fails here until every new
// key is decided.
func casesOptions(ct *caseTable) {
	ct.add(caseRow{Name: "options/registry", Direction: "java->go", Doc: docOptionsRegistry,
		Sides: []caseSide{side("java", Writer), side("go", Writer)},
		Uses:  []caseUse{ownJava(unavailable{testenv.RequireJavaEnv, errors.New("the Java runner has no options command: rebuild it (make runner)")}, "options")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			p := ce.runner("java")
			var res struct {
				Options []javaOption `json:"options"`
				Missing []string     `json:"missing"`
			}
			if err := p.Call(ctx, "options", nil, &res); err != nil {
				return err
			}
			if len(res.Missing) > 0 {
				ce.T.Logf("option classes not in this Paimon build: %v", res.Missing)
			}
			return checkRegistry(options.New(), res.Options)
		}})
}

// checkRegistry returns an error listing every key of java the registry does not classify as
// Java declares it.
func checkRegistry(reg *options.Registry, java []javaOption) error {
	if len(java) < 100 {
		return fmt.Errorf("the Java runner listed %d options: too few for a Paimon build", len(java))
	}
	var problems []string
	declared := map[string]bool{}
	for _, o := range java {
		declared[o.Key] = true
		e, ok := reg.LookupExact(o.Key)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s (%s, %s): not classified", o.Key, o.Class, o.Type))
			continue
		case e.Key != o.Key:
			problems = append(problems, fmt.Sprintf("%s: classified only as a fallback key of %s", o.Key, e.Key))
			continue
		}
		if e.Source != o.Class || e.Type != o.Type {
			problems = append(problems, fmt.Sprintf("%s: Go has %s %s, Java %s %s", o.Key, e.Source, e.Type, o.Class, o.Type))
		}
		if (o.Default != nil) != e.HasDefault || (o.Default != nil && *o.Default != e.Default) {
			problems = append(problems, fmt.Sprintf("%s: Go's default %q (set %v), Java's %v", o.Key, e.Default, e.HasDefault, deref(o.Default)))
		}
		for _, k := range o.FallbackKeys {
			if !slices.Contains(e.Fallback, k) {
				problems = append(problems, fmt.Sprintf("%s: fallback key %s not in Go's entry", o.Key, k))
			}
		}
	}
	for _, e := range reg.Entries() {
		if e.Source != "" && !declared[e.Key] {
			problems = append(problems, fmt.Sprintf("%s: Go classifies a %s key this Paimon build does not declare", e.Key, e.Source))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("Go's option registry (internal/options) does not match the Paimon build's %d options:\n  %s", len(java), strings.Join(problems, "\n  "))
	}
	return nil
}

// TestCheckRegistryNamesUnclassifiedKeys checks the registry gate itself: a key, a default or a
// fallback key the registry does not have as Java declares it fails the case by name.
func TestCheckRegistryNamesUnclassifiedKeys(t *testing.T) {
	reg := options.New()
	var java []javaOption
	for _, e := range reg.Entries() {
		if e.Source == "" {
			continue
		}
		o := javaOption{Key: e.Key, Class: e.Source, Type: e.Type, FallbackKeys: e.Fallback}
		if e.HasDefault {
			o.Default = &e.Default
		}
		java = append(java, o)
	}
	if err := checkRegistry(reg, java); err != nil {
		t.Fatalf("the registry against its own keys: %v", err)
	}
	other := "42"
	changed := slices.Clone(java)
	changed[0].Default = &other
	changed = append(changed, javaOption{Key: "some.new-option", Class: "CoreOptions", Type: "Boolean"})
	changed[1].FallbackKeys = append(slices.Clone(changed[1].FallbackKeys), "old.key")
	err := checkRegistry(reg, changed)
	if err == nil {
		t.Fatal("a new key, a changed default and a new fallback key passed")
	}
	for _, want := range []string{"some.new-option", changed[0].Key + ": Go's default", "old.key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q: %v", want, err)
		}
	}
}

// docOptionsRegistry describes options/registry.
const docOptionsRegistry = "the Java runner's `options` command lists, by reflection over the `ConfigOption` fields of" +
	" `CoreOptions`, the format options (`OrcOptions`, `CsvOptions`, `JsonOptions`, " +
	"`TextOptions`), `IcebergOptions`, the global index options and `FlinkConnectorOptions` " +
	"(the runner runs on Paimon's Flink bundle), every table option key of the Paimon build " +
	"with its type, default and fallback keys; Go's registry (`internal/options`) must classify" +
	" each under the same key with the same default and fallback keys (see [Table " +
	"options](options.md)). Catalog option classes are not listed: they configure a catalog, " +
	"not a table."
