package differential

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// Check verifies the invariants every correct maintainer satisfies on the trace tr of script s,
// whichever language produced it:
//
//   - restore: the current and retired payloads are the classification
//     (PkFullTextBucketIndexState.fromActiveDataFiles) of the restored payloads against the
//     eligible restored files;
//   - the active source files always equal the script's data transitions: applied by a
//     successful prepareCommit, untouched by a failed one, undone by an abort;
//   - no level ever has two current payloads, and every current payload is a restored one or one
//     the builder generated;
//   - a successful prepareCommit leaves nothing retired; when it also leaves no build pending
//     (always so when it waited), every current payload classifies as current against the active
//     files and the level planner has nothing left to do;
//   - a prepareCommit whose compact increment moves files puts all index changes in the compact
//     increment, any other in the append increment; an increment is present exactly when it
//     holds a change; its new payloads are current afterwards, its deleted ones were current or
//     retired before and are not current afterwards;
//   - a failed prepareCommit and an abort return no increment and restore the state from before
//     the call (the aborted call), cancelling any pending build;
//   - every archive the builder generated is, after every step, exactly one of: deleted (exactly
//     once), handed out as new in an increment that was not aborted, or the output of the one
//     pending build; a current built payload was handed out; the deleter only ever sees
//     generated archives;
//   - close fails nothing and leaves no generated archive unaccounted for: a pending build's
//     output is deleted.
//
// It returns every violation found, each naming its step.
func Check(s Script, tr Trace) error {
	c := &checker{s: s, tr: tr, built: map[string]BuildRecord{}, deleted: map[string]int{}, published: map[string]bool{}}
	for _, p := range s.Restore.Payloads {
		c.restored = append(c.restored, p.Name)
	}
	c.run()
	return errors.Join(c.errs...)
}

// checker walks a trace with a model of what it must look like.
type checker struct {
	s        Script
	tr       Trace
	restored []string
	built    map[string]BuildRecord // generated archives by name
	deleted  map[string]int
	// published are the archives handed out as new by a commit that was not aborted.
	published map[string]bool
	errs      []error
}

func (c *checker) failf(where, format string, args ...any) {
	if len(c.errs) < 20 {
		c.errs = append(c.errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
	}
}

func (c *checker) run() {
	if c.tr.RestoreError != "" {
		if len(c.tr.Steps) > 0 {
			c.failf("restore", "failed (%s) but %d steps ran", c.tr.RestoreError, len(c.tr.Steps))
		}
		return
	}
	active := map[string]DataFile{}
	for _, f := range c.s.Restore.DataFiles {
		if eligible(f) {
			active[f.Name] = f
		}
	}
	c.checkRestore(active)

	if len(c.tr.Steps) != len(c.s.Steps) {
		c.failf("trace", "%d steps, script has %d", len(c.tr.Steps), len(c.s.Steps))
		return
	}
	prev := c.tr.Restored
	history := []map[string]DataFile{}   // model before each step
	newByStep := make([][]string, 0, 16) // archives each step's commit handed out
	for i, st := range c.s.Steps {
		where := fmt.Sprintf("step %d (%s)", i, st.Op)
		got := c.tr.Steps[i]
		history = append(history, maps.Clone(active))
		newByStep = append(newByStep, nil)
		c.addBuilds(where, got.Builds)
		c.addDeleted(where, got.Deleted)
		if got.Op != st.Op {
			c.failf(where, "trace op %s", got.Op)
		}

		switch st.Op {
		case OpPrepareCommit:
			if got.Error == ErrClassNone {
				applyTransition(active, st)
				newByStep[i] = c.checkCommit(where, st, got, prev)
			} else {
				c.checkFailed(where, got, prev)
			}
		case OpAbort:
			aborted := i > 0 && c.s.Steps[i-1].Op == OpPrepareCommit && c.tr.Steps[i-1].Error == ErrClassNone &&
				!c.tr.Steps[i-1].Skipped
			if got.Skipped != !aborted {
				c.failf(where, "skipped = %v, want %v", got.Skipped, !aborted)
			}
			if aborted {
				active = maps.Clone(history[i-1])
				before := c.tr.Restored
				if i >= 2 {
					before = c.tr.Steps[i-2].State
				}
				c.checkRestored(where, "the aborted call", got, before)
				for _, n := range newByStep[i-1] {
					delete(c.published, n)
				}
			} else if !sameState(got.State, prev, true) {
				c.failf(where, "a skipped abort changed the state")
			}
		}
		c.checkActive(where, got.State, active)
		c.checkCurrent(where, got.State)
		c.checkAccounting(where, got.State, false)
		prev = got.State
	}

	cl := c.tr.Close
	c.addBuilds("close", cl.Builds)
	c.addDeleted("close", cl.Deleted)
	if cl.Error != ErrClassNone {
		c.failf("close", "error %s: %s", cl.Error, cl.Message)
	}
	c.checkAccounting("close", State{}, true)
}

func eligible(f DataFile) bool { return f.Source == SourceCompact && f.Level > 0 }

// applyTransition is Java's applyDataTransition on the model.
func applyTransition(active map[string]DataFile, st Step) {
	for _, name := range st.CompactBefore {
		if !slices.ContainsFunc(st.CompactAfter, func(f DataFile) bool { return f.Name == name }) {
			delete(active, name)
		}
	}
	for _, f := range st.CompactAfter {
		if eligible(f) {
			active[f.Name] = f
		}
	}
}

func (c *checker) checkRestore(active map[string]DataFile) {
	metas, err := restoredPayloadMetas(c.s.Family, c.s.FieldID, c.s.Restore.Payloads)
	if err != nil {
		c.failf("restore", "payloads: %v", err)
		return
	}
	state, err := pkfulltext.FromActiveDataFiles(c.s.FieldID, dataFileMetas(sortedFiles(active)), metas)
	if err != nil {
		c.failf("restore", "restored although classification fails: %v", err)
		return
	}
	if got, want := refNames(c.tr.Restored.Current), names(state.CurrentPayloads()); !slices.Equal(got, want) {
		c.failf("restore", "current %q, want %q", got, want)
	}
	if got, want := c.tr.Restored.Retired, names(state.StalePayloads()); !slices.Equal(got, want) {
		c.failf("restore", "retired %q, want %q", got, want)
	}
	if c.tr.Restored.BuildPending {
		c.failf("restore", "build pending after restore")
	}
	c.checkActive("restore", c.tr.Restored, active)
	c.checkCurrent("restore", c.tr.Restored)
}

// checkCommit checks a successful prepareCommit and returns the archives it handed out.
func (c *checker) checkCommit(where string, st Step, got StepTrace, prev State) []string {
	if len(got.State.Retired) > 0 {
		c.failf(where, "payloads still retired after a commit: %q", got.State.Retired)
	}
	if st.Wait && got.State.BuildPending {
		c.failf(where, "build pending after a waiting call")
	}
	if !got.State.BuildPending {
		c.checkFullyCurrent(where, got.State)
	}

	inc, other, route, otherRoute := got.Append, got.Compact, "append", "compact"
	if st.HasCompactTransition() {
		inc, other, route, otherRoute = got.Compact, got.Append, "compact", "append"
	}
	if other != nil {
		c.failf(where, "%s increment %+v, but changes go to the %s increment", otherRoute, *other, route)
	}
	if inc == nil {
		return nil
	}
	if len(inc.New) == 0 && len(inc.Deleted) == 0 {
		c.failf(where, "empty %s increment present (Java: Optional.empty())", route)
	}
	current := refNames(got.State.Current)
	before := append(refNames(prev.Current), prev.Retired...)
	for _, n := range inc.New {
		if _, ok := c.built[n]; !ok {
			c.failf(where, "new payload %s was not generated by the builder", n)
		}
		if !slices.Contains(current, n) {
			c.failf(where, "new payload %s is not current", n)
		}
		if c.published[n] {
			c.failf(where, "payload %s handed out twice", n)
		}
		c.published[n] = true
	}
	for _, n := range inc.Deleted {
		if !slices.Contains(before, n) {
			c.failf(where, "deleted payload %s was neither current nor retired before", n)
		}
		if slices.Contains(current, n) {
			c.failf(where, "deleted payload %s is still current", n)
		}
	}
	return inc.New
}

func (c *checker) checkFailed(where string, got StepTrace, prev State) {
	// An invalid append is rejected before anything happens; other failures roll back.
	c.checkRestored(where, "the call", got, prev)
	if got.Error == ErrClassInvalidAppend && got.State.BuildPending != prev.BuildPending {
		c.failf(where, "rejected append changed the pending build")
	}
}

// checkRestored checks a step that must leave no increment and the state before.
func (c *checker) checkRestored(where, what string, got StepTrace, before State) {
	if got.Append != nil || got.Compact != nil {
		c.failf(where, "increments after a failure or abort: append %v, compact %v", got.Append, got.Compact)
	}
	keepPending := got.Op == OpPrepareCommit && got.Error == ErrClassInvalidAppend
	if !sameState(got.State, before, keepPending) {
		c.failf(where, "state %+v, want the state before %s %+v", got.State, what, before)
	}
	if !keepPending && got.State.BuildPending {
		c.failf(where, "build still pending after rollback")
	}
}

// sameState compares current, retired and active payloads, and the pending flag when asked.
func sameState(a, b State, pending bool) bool {
	return slices.Equal(a.Current, b.Current) && slices.Equal(a.Retired, b.Retired) &&
		slices.Equal(a.Active, b.Active) && (!pending || a.BuildPending == b.BuildPending)
}

func (c *checker) checkActive(where string, st State, model map[string]DataFile) {
	if want := sortedFiles(model); !slices.Equal(st.Active, want) {
		c.failf(where, "active files %v, want %v", st.Active, want)
	}
}

// checkCurrent checks one payload per level and that every current payload is known.
func (c *checker) checkCurrent(where string, st State) {
	levels := map[int32]string{}
	for _, p := range st.Current {
		if other, ok := levels[p.Level]; ok {
			c.failf(where, "two current payloads on level %d: %s and %s", p.Level, other, p.Name)
		}
		levels[p.Level] = p.Name
		if _, err := c.payload(p.Name); err != nil {
			c.failf(where, "current payload: %v", err)
			continue
		}
		if level := c.levelOf(p.Name); level != p.Level {
			c.failf(where, "current payload %s reported on level %d, its source meta says %d", p.Name, p.Level, level)
		}
	}
}

// checkFullyCurrent checks that nothing is left to do: every current payload classifies as
// current against the active files and the planner finds no level needing work.
func (c *checker) checkFullyCurrent(where string, st State) {
	var payloads []*meta.IndexFileMeta
	for _, p := range st.Current {
		m, err := c.payload(p.Name)
		if err != nil {
			return // reported by checkCurrent
		}
		payloads = append(payloads, m)
	}
	view, err := pkfulltext.InspectBucket(c.s.FieldID, dataFileMetas(st.Active), payloads)
	if err != nil {
		c.failf(where, "classify current payloads: %v", err)
		return
	}
	if stale := names(view.State.StalePayloads()); len(stale) > 0 {
		c.failf(where, "no build pending, yet current payloads %q do not classify as current against the active files", stale)
	}
	if view.Plan != nil {
		c.failf(where, "no build pending, yet data level %d needs work (%d files)", view.Plan.DataLevel(), len(view.Plan.SourceFiles()))
	}
}

// checkAccounting checks the fate of every generated archive; final demands that none is left
// pending.
func (c *checker) checkAccounting(where string, st State, final bool) {
	current := refNames(st.Current)
	var limbo []string
	for _, n := range slices.Sorted(maps.Keys(c.built)) {
		if c.built[n].Name == "" {
			continue
		}
		cur, pub, del := slices.Contains(current, n), c.published[n], c.deleted[n] > 0
		switch {
		case del && (cur || pub):
			c.failf(where, "archive %s deleted but still current (%v) or handed out (%v)", n, cur, pub)
		case cur && !pub:
			c.failf(where, "archive %s is current but no live commit handed it out", n)
		case !del && !pub:
			limbo = append(limbo, n)
		}
	}
	switch {
	case final && len(limbo) > 0:
		c.failf(where, "archives neither deleted nor handed out after close: %q", limbo)
	case !final && len(limbo) > 1:
		c.failf(where, "archives neither deleted nor handed out: %q (at most the pending build's output may be)", limbo)
	case !final && len(limbo) == 1 && !st.BuildPending:
		c.failf(where, "archive %s neither deleted nor handed out, and no build is pending", limbo[0])
	}
}

func (c *checker) addBuilds(where string, recs []BuildRecord) {
	for _, r := range recs {
		if r.Name == "" {
			continue
		}
		if _, dup := c.built[r.Name]; dup {
			c.failf(where, "builder generated %s twice", r.Name)
		}
		c.built[r.Name] = r
	}
}

func (c *checker) addDeleted(where string, names []string) {
	for _, n := range names {
		if _, ok := c.built[n]; !ok {
			c.failf(where, "deleted %s, which the builder did not generate", n)
		}
		c.deleted[n]++
		if c.deleted[n] > 1 {
			c.failf(where, "deleted %s %d times", n, c.deleted[n])
		}
	}
}

// payload reconstructs the metadata of a restored or generated payload.
func (c *checker) payload(name string) (*meta.IndexFileMeta, error) {
	if r, ok := c.built[name]; ok {
		return builtMeta(c.s.Family, r.Name, c.s.FieldID, r.Level, r.Files, r.Outcome)
	}
	for _, p := range c.s.Restore.Payloads {
		if p.Name == name {
			return payloadMeta(c.s.Family, c.s.FieldID, p)
		}
	}
	return nil, fmt.Errorf("%s is neither restored nor generated", name)
}

func (c *checker) levelOf(name string) int32 {
	if r, ok := c.built[name]; ok {
		return r.Level
	}
	for _, p := range c.s.Restore.Payloads {
		if p.Name == name {
			return p.Level
		}
	}
	return 0
}

func sortedFiles(m map[string]DataFile) []DataFile {
	files := slices.Collect(maps.Values(m))
	if files == nil {
		files = []DataFile{}
	}
	sortFiles(files)
	return files
}

func refNames(refs []PayloadRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Name
	}
	return out
}

func names(payloads []*meta.IndexFileMeta) []string {
	out := make([]string, len(payloads))
	for i, p := range payloads {
		out[i] = p.FileName
	}
	return out
}
