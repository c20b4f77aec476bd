package differential

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/maintainer"
)

// sortedSubject drives the sorted family's maintainer.Maintainer. Builds are retried without a
// pause (the Java maintainer's pause only delays its retries; the trace does not see it).
type sortedSubject struct{ m *maintainer.Maintainer }

func newSortedSubject(s Script, b *detBuilder, d *recordingDeleter, data []*meta.DataFileMeta, payloads []*meta.IndexFileMeta) (subject, error) {
	m, err := maintainer.NewMaintainer(s.FieldID, s.Family, b, d, data, payloads, maintainer.WithRetryBackoff(0))
	if err != nil {
		return nil, err
	}
	return sortedSubject{m}, nil
}

func (s sortedSubject) prepareCommit(ctx context.Context, app pkindex.DataIncrement, compact pkindex.CompactIncrement, st Step) (commitHandle, error) {
	c, err := s.m.PrepareCommit(ctx, app, compact, st.Wait, !st.NoBuildStart)
	if err != nil {
		return nil, err
	}
	return sortedCommit{c}, nil
}

func (s sortedSubject) buildNotCompleted() bool         { return s.m.BuildNotCompleted() }
func (s sortedSubject) close(ctx context.Context) error { return s.m.Close(ctx) }

// state reads the state a sorted trace records: the groups' payloads in the maintainer's order
// with the groups' levels, the restored payloads awaiting deletion, the active files, the
// pending flag and hasPendingMaintenance.
func (s sortedSubject) state() (State, error) {
	st := State{BuildPending: s.m.BuildNotCompleted(), Current: []PayloadRef{}, Retired: []string{}, Active: []DataFile{}}
	for _, g := range s.m.Groups() {
		for _, p := range g.Payloads {
			st.Current = append(st.Current, PayloadRef{Name: p.FileName, Level: g.DataLevel})
		}
	}
	for _, p := range s.m.PendingDeletions() {
		st.Retired = append(st.Retired, p.FileName)
	}
	for _, f := range s.m.ActiveSourceFiles() {
		df := DataFile{Name: f.FileName, Level: f.Level, Rows: f.RowCount}
		if f.FileSource != nil {
			df.Source = Source(f.FileSource.String())
		}
		st.Active = append(st.Active, df)
	}
	sortFiles(st.Active)
	pending, err := s.m.HasPendingMaintenance()
	if err != nil {
		return State{}, fmt.Errorf("read sorted maintainer state: %w", err)
	}
	st.PendingMaintenance = &pending
	return st, nil
}

type sortedCommit struct{ c *maintainer.Commit }

func (c sortedCommit) increments() (app, compact *pkindex.IndexIncrement) {
	return c.c.AppendIncrement, c.c.CompactIncrement
}
func (c sortedCommit) abort(ctx context.Context) error { return c.c.Abort(ctx) }

// GenerateSorted returns the sorted-family scenario of seed: the full-text scenario of the same
// seed (Generate) turned into one of a btree (odd seeds) or bitmap (even seeds) definition, with
// some prepareCommit calls that may not start a build and some build requests that fail only
// their first attempt or record another data level.
func GenerateSorted(seed int64) Script {
	s := Generate(seed)
	s.Family = FamilyBitmap
	if seed%2 != 0 {
		s.Family = FamilyBTree
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed5047ed))
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Op != OpPrepareCommit {
			continue
		}
		st.NoBuildStart = r.IntN(100) < 10
		for j, o := range st.Builds {
			if o != Succeed {
				continue
			}
			switch k := r.IntN(100); {
			case k < 12:
				st.Builds[j] = FailOnce
			case k < 20:
				st.Builds[j] = WrongLevel
			}
		}
		if len(st.Builds) == 0 && r.IntN(100) < 15 {
			st.Builds = []Outcome{FailOnce}
		}
	}
	return s
}

// CheckSortedSeeds is CheckSeeds for the sorted family: the scenarios of GenerateSorted, the
// invariants of CheckSorted, and a second Go run that must yield the same trace.
func CheckSortedSeeds(ctx context.Context, first int64, n int) error {
	return checkSeeds(ctx, first, n, GenerateSorted, CheckSorted)
}

// DifferentialSorted is Differential for the sorted family: the scenarios of GenerateSorted on
// Go's maintainer and on other (the Java runner's sorted-maintainer-scenario, Paimon's
// BucketedSortedIndexMaintainer) must have identical traces, and other's must satisfy
// CheckSorted.
func DifferentialSorted(ctx context.Context, first int64, n int, other func(context.Context, Script) (Trace, error)) error {
	return differential(ctx, first, n, GenerateSorted, CheckSorted, RunGo, other)
}

// DifferentialSortedWith is DifferentialSorted with the Go maintainer run by subject instead of
// RunGo (see DifferentialWith).
func DifferentialSortedWith(ctx context.Context, first int64, n int, subject, other func(context.Context, Script) (Trace, error)) error {
	return differential(ctx, first, n, GenerateSorted, CheckSorted, subject, other)
}

// CheckSorted verifies invariants every correct sorted maintainer satisfies on the trace tr of
// the sorted script s:
//
//   - the active source files always equal the script's data transitions: applied by a
//     successful prepareCommit, untouched by a failed one, undone by an abort;
//   - no level ever has two current payloads;
//   - a successful prepareCommit leaves nothing retired; one that waited with build starts
//     allowed leaves no build pending and no maintenance pending;
//   - index changes go to the compact increment exactly when the call moved data files, and an
//     increment is present exactly when it holds a change; every new payload was generated by
//     the builder;
//   - a failed prepareCommit and an abort return no increment and restore the state from before
//     the call (the aborted call), with no build pending;
//   - close fails nothing.
//
// It returns every violation found, each naming its step.
func CheckSorted(s Script, tr Trace) error {
	var errs []error
	failf := func(where, format string, args ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
		}
	}
	if tr.RestoreError != "" {
		if len(tr.Steps) > 0 {
			failf("restore", "failed (%s) but %d steps ran", tr.RestoreError, len(tr.Steps))
		}
		return errors.Join(errs...)
	}
	if len(tr.Steps) != len(s.Steps) {
		return fmt.Errorf("trace: %d steps, script has %d", len(tr.Steps), len(s.Steps))
	}
	active := map[string]DataFile{}
	for _, f := range s.Restore.DataFiles {
		if eligible(f) {
			active[f.Name] = f
		}
	}
	generated := map[string]bool{}
	history := []map[string]DataFile{}
	prev := tr.Restored
	for i, st := range s.Steps {
		where := fmt.Sprintf("step %d (%s)", i, st.Op)
		got := tr.Steps[i]
		history = append(history, maps.Clone(active))
		for _, b := range got.Builds {
			if b.Name != "" {
				generated[b.Name] = true
			}
		}
		restoredTo := func(what string, before State, keepPending bool) {
			if got.Append != nil || got.Compact != nil {
				failf(where, "increments after a failure or abort: append %v, compact %v", got.Append, got.Compact)
			}
			if !sameState(got.State, before, keepPending) {
				failf(where, "state %+v, want the state before %s %+v", got.State, what, before)
			}
			if !keepPending && got.State.BuildPending {
				failf(where, "build still pending after rollback")
			}
		}
		switch st.Op {
		case OpPrepareCommit:
			if got.Error != ErrClassNone {
				restoredTo("the call", prev, got.Error == ErrClassInvalidAppend)
				break
			}
			applyTransition(active, st)
			if len(got.State.Retired) > 0 {
				failf(where, "retired %v after a successful call", got.State.Retired)
			}
			if st.Wait && !st.NoBuildStart && (got.State.BuildPending ||
				got.State.PendingMaintenance == nil || *got.State.PendingMaintenance) {
				failf(where, "a waiting call left work: pending build %v, maintenance %v", got.State.BuildPending, got.State.PendingMaintenance)
			}
			inc, other := got.Append, got.Compact
			if st.HasCompactTransition() {
				inc, other = got.Compact, got.Append
			}
			if other != nil {
				failf(where, "changes in the wrong increment")
			}
			if inc != nil {
				if len(inc.New) == 0 && len(inc.Deleted) == 0 {
					failf(where, "an empty increment is present")
				}
				for _, n := range inc.New {
					if !generated[n] {
						failf(where, "new payload %s was never generated", n)
					}
				}
			}
		case OpAbort:
			aborted := i > 0 && s.Steps[i-1].Op == OpPrepareCommit && tr.Steps[i-1].Error == ErrClassNone
			if got.Skipped != !aborted {
				failf(where, "skipped = %v, want %v", got.Skipped, !aborted)
			}
			if aborted {
				active = maps.Clone(history[i-1])
				before := tr.Restored
				if i >= 2 {
					before = tr.Steps[i-2].State
				}
				restoredTo("the aborted call", before, false)
			}
		}
		if want := sortedFiles(active); !slices.Equal(got.State.Active, want) {
			failf(where, "active files %v, want %v", got.State.Active, want)
		}
		levels := map[int32]bool{}
		for _, p := range got.State.Current {
			if levels[p.Level] {
				failf(where, "two current payloads on level %d", p.Level)
			}
			levels[p.Level] = true
		}
		prev = got.State
	}
	if tr.Close.Error != ErrClassNone {
		failf("close", "error %s: %s", tr.Close.Error, tr.Close.Message)
	}
	return errors.Join(errs...)
}
