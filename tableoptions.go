package pkft

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/table"
)

// OptionDecision is what pkft does with one option a table sets.
type OptionDecision struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Class is "honoured" (Go implements what Java does with it), "refused" (pkft does not
	// write, compact or maintain a table setting it to anything but Default), "inert" (it cannot
	// change what Go writes or how archives are built) or "unknown" (an option pkft does not
	// know, which is refused).
	Class string `json:"class"`
	// Refused reports that this option, as set, makes pkft refuse writes and compactions of the
	// table; Error then says why.
	Refused bool   `json:"refused"`
	Error   string `json:"error,omitempty"`
	// MaintainRefused reports that it also makes pkft refuse the index-only maintenance (pkft
	// maintain, maintain --watch), which accepts what cannot change what it writes (a changelog
	// producer, full-compaction triggers, keys outside Paimon's namespaces such as owner);
	// MaintainReason then says why the maintenance accepts an option writes refuse.
	MaintainRefused bool   `json:"maintainRefused"`
	MaintainReason  string `json:"maintainReason,omitempty"`
	// Reason says what Go does with the option, or why it refuses it or need not honour it.
	Reason string `json:"reason,omitempty"`
	// Test names the test that checks a honoured option against Java.
	Test string `json:"test,omitempty"`
	// Default is Java's default of the option, when it has one.
	Default *string `json:"default,omitempty"`
}

// TableOptions reads the latest schema of the table at path and returns what pkft does with
// each option it sets, ordered by key. Of opts, only [WithFileSystemOptions] matters here.
func TableOptions(ctx context.Context, path string, opts ...OpenOption) ([]OptionDecision, error) {
	if path == "" {
		return nil, errors.New("table options: empty path")
	}
	path = tablePath(path, openConfigOf(opts))
	fio, err := fileIOFor(path, openConfigOf(opts))
	if err != nil {
		return nil, fmt.Errorf("table options: %w", err)
	}
	s, err := table.Open(fio, path).LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("table options of %s: %w", path, err)
	}
	return DecideOptions(s.Options), nil
}

// DecideOptions returns what pkft does with each of opts, as a table setting them would be
// decided ([TableOptions]), ordered by key: for example whether an index family
// (pk-btree.index.columns) or a merge engine (merge-engine) is honoured or refused.
func DecideOptions(opts map[string]string) []OptionDecision {
	reg := options.New()
	decisions := reg.DecideAll(opts)
	out := make([]OptionDecision, len(decisions))
	for i, d := range decisions {
		m := reg.DecideFor(options.Maintain, d.Key, d.Value)
		o := OptionDecision{Key: d.Key, Value: d.Value, Class: "unknown", Reason: d.Entry.Reason, Test: d.Entry.Test}
		if d.Entry.Class != 0 {
			o.Class = d.Entry.Class.String()
		}
		if d.Entry.HasDefault {
			def := d.Entry.Default
			o.Default = &def
		}
		if d.Err != nil {
			o.Refused, o.Error = true, d.Err.Error()
			if m.Err == nil {
				o.MaintainReason = m.Reason
			}
		}
		o.MaintainRefused = m.Err != nil
		out[i] = o
	}
	return out
}
