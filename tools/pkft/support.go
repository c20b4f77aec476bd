package main

import (
	"strings"

	"github.com/paimon-pkft/pkft"
)

// indexFamilies are the primary-key index families of Paimon 2.0.0, by the option that declares
// their columns.
var indexFamilies = []struct{ name, option string }{
	{"pk-full-text", "pk-full-text.index.columns"},
	{"pk-btree", "pk-btree.index.columns"},
	{"pk-bitmap", "pk-bitmap.index.columns"},
	{"pk-vector", "pk-vector.index.columns"},
}

// mergeEngines are the values of Paimon 2.0.0's merge-engine option (CoreOptions.MergeEngine).
var mergeEngines = []string{"deduplicate", "partial-update", "aggregation", "first-row"}

// supportSplit splits names into those pkft's option registry honours and those it refuses,
// deciding each with the table options option(name) gives.
func supportSplit(names []string, option func(name string) map[string]string) (honoured, refused []string) {
	for _, n := range names {
		accepted := true
		for _, d := range pkft.DecideOptions(option(n)) {
			if d.Refused {
				accepted = false
			}
		}
		if accepted {
			honoured = append(honoured, n)
		} else {
			refused = append(refused, n)
		}
	}
	return honoured, refused
}

// indexSupport is the help texts' sentence about the index families, from the registry.
func indexSupport() string {
	names := make([]string, len(indexFamilies))
	for i, f := range indexFamilies {
		names[i] = f.name
	}
	honoured, refused := supportSplit(names, func(n string) map[string]string {
		for _, f := range indexFamilies {
			if f.name == n {
				return map[string]string{f.option: "c"}
			}
		}
		return nil
	})
	return supportSentence("primary-key index families", honoured, refused)
}

// mergeEngineSupport is the help texts' sentence about the merge engines, from the registry.
func mergeEngineSupport() string {
	honoured, refused := supportSplit(mergeEngines, func(n string) map[string]string {
		return map[string]string{"merge-engine": n}
	})
	return supportSentence("merge engines", honoured, refused)
}

func supportSentence(what string, honoured, refused []string) string {
	s := "The " + what + " pkft honours: " + orNone(honoured)
	if len(refused) > 0 {
		s += "; refused: " + orNone(refused)
	}
	return s + " (pkft options; docs/options.md)."
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
