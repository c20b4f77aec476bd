package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/compat/internal/pickdiff"
	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/mergetree"
)

// pickArgs are pick's arguments: the level layouts of compat/internal/pickdiff (the Java runner's
// PickCommands documents their form).
type pickArgs struct {
	Layouts []pickdiff.Layout `json:"layouts"`
}

// cmdPick picks compactions over each level layout as the Java runner's pick does on Paimon's
// strategies, on Go's internal/mergetree (compat/internal/pickdiff's Run): the strategy of the layout's
// options and restored files (NewStrategy), then step by step on that one strategy the unit it
// or PickFullCompaction picks and the compaction TriggerCompaction starts, or an update of the
// kept levels. Each step reads the runner's clock (time.Now in the local zone) just before its
// pick, and again after it for hourChanged; creation times are wall clocks of the local zone.
// Result: {zone, layouts [{error} | {strategy, maxCompactInterval?, numLevels, needLookup,
// writeOnly, forceRewriteAllFiles, stopTrigger, steps [...]}]}, each step {millis, hour,
// hourChanged} with {error}, {unit, task} or, after an update, {unit: null, task: null, runs}.
func cmdPick(_ context.Context, req protocol.PickRequest) (protocol.PickResponse, error) {
	var none protocol.PickResponse
	if req.Layouts == nil {
		return none, argErrorf("args.layouts is required")
	}
	// The protocol leaves a layout free-form; the Go runner takes compat/internal/pickdiff's, strictly.
	var args pickArgs
	if err := reshape(req, &args, true); err != nil {
		return none, argErrorf("args: %v", err)
	}
	for i, l := range args.Layouts {
		for j, s := range l.Steps {
			switch s.Mode {
			case "normal", "full":
				if s.Before != nil || s.After != nil {
					return none, argErrorf("layout %d, step %d: before and after belong to update steps, not to mode %s", i, j, s.Mode)
				}
			case "update":
				if s.Files != nil || s.DeletionVectors != nil {
					return none, argErrorf("layout %d, step %d: an update step takes before and after, not files or deletionVectors", i, j)
				}
			default:
				return none, argErrorf("layout %d, step %d: mode %q is none of normal, full, update", i, j, s.Mode)
			}
		}
	}
	now := func(int) mergetree.Clock { return mergetree.ClockAt(time.Now()) }
	out := make([]protocol.Object, len(args.Layouts))
	for i, l := range args.Layouts {
		out[i] = layoutJSON(pickdiff.Run(l, time.Local, now))
	}
	return protocol.PickResponse{Zone: zoneName(), Layouts: out}, nil
}

// layoutJSON is a layout's result in the shape of the Java runner's: a failure before the first
// pick is {error} alone.
func layoutJSON(r pickdiff.LayoutResult) protocol.Object {
	if r.Error != "" {
		return protocol.Object{"error": r.Error}
	}
	steps := make([]protocol.Object, len(r.Steps))
	for i, s := range r.Steps {
		st := protocol.Object{"millis": s.Millis, "hour": s.Hour, "hourChanged": s.HourChanged}
		switch {
		case s.Error != "":
			st["error"] = s.Error
		case s.Runs != nil:
			st["unit"], st["task"], st["runs"] = nil, nil, s.Runs
		default:
			st["unit"], st["task"] = s.Unit, s.Task
		}
		steps[i] = st
	}
	out := protocol.Object{"strategy": r.Strategy, "numLevels": r.NumLevels, "needLookup": r.NeedLookup,
		"writeOnly": r.WriteOnly, "forceRewriteAllFiles": r.ForceRewrite, "stopTrigger": r.StopTrigger, "steps": steps}
	if r.MaxCompactInterval != nil {
		out["maxCompactInterval"] = *r.MaxCompactInterval
	}
	return out
}

// zoneName names the runner's local zone as Java's ZoneId.systemDefault does: the TZ
// environment variable, else the zone /etc/localtime links to, else Go's name of it.
func zoneName() string {
	if tz, ok := os.LookupEnv("TZ"); ok {
		if tz = strings.TrimPrefix(tz, ":"); tz != "" {
			return tz
		}
		return "UTC"
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(filepath.ToSlash(target), "zoneinfo/"); ok {
			return name
		}
	}
	return time.Local.String()
}
