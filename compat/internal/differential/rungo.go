package differential

import (
	"context"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// RunGo executes s on the Go maintainer of its family (pkfulltext.Maintainer, or the sorted
// family's maintainer.Maintainer) with the deterministic builder and a recording deleter, and
// returns its trace. The maintainer's own failures are part of the trace; an error means the
// script is invalid or the harness could not run it (for example a build goroutine that never
// settled).
func RunGo(ctx context.Context, s Script) (Trace, error) {
	if err := s.Validate(); err != nil {
		return Trace{}, fmt.Errorf("invalid script: %w", err)
	}
	payloads, err := restoredPayloadMetas(s.Family, s.FieldID, s.Restore.Payloads)
	if err != nil {
		return Trace{}, fmt.Errorf("restored payloads: %w", err)
	}
	e := &goExec{
		builder: newDetBuilder(s.Family, s.FieldID),
		deleter: &recordingDeleter{},
		known:   map[string]DataFile{},
	}
	for _, f := range s.Restore.DataFiles {
		e.known[f.Name] = f
	}

	var tr Trace
	m, err := newSubject(s, e.builder, e.deleter, dataFileMetas(s.Restore.DataFiles), payloads)
	if err != nil {
		tr.RestoreError, tr.RestoreMessage = classify(err), message(err)
		tr.Steps = []StepTrace{}
		return tr, nil
	}
	e.m = m
	defer func() {
		// Leave no build goroutine behind when the harness gives up half-way.
		if e.closed {
			return
		}
		e.builder.releaseLater()
		_ = m.close(context.WithoutCancel(ctx))
	}()

	if tr.Restored, err = m.state(); err != nil {
		return Trace{}, err
	}
	tr.Steps = make([]StepTrace, 0, len(s.Steps))
	var last commitHandle
	for i, st := range s.Steps {
		step, commit, err := e.step(ctx, st, last)
		if err != nil {
			return Trace{}, fmt.Errorf("step %d: %w", i, err)
		}
		last = commit
		tr.Steps = append(tr.Steps, step)
	}
	if tr.Close, err = e.close(ctx); err != nil {
		return Trace{}, fmt.Errorf("close: %w", err)
	}
	return tr, nil
}

// subject is the maintainer a script drives, whatever its family.
type subject interface {
	prepareCommit(ctx context.Context, app pkindex.DataIncrement, compact pkindex.CompactIncrement, st Step) (commitHandle, error)
	buildNotCompleted() bool
	close(ctx context.Context) error
	state() (State, error)
}

// commitHandle is a successful prepareCommit's result: its increments and its abort.
type commitHandle interface {
	increments() (app, compact *pkindex.IndexIncrement)
	abort(ctx context.Context) error
}

// newSubject restores the maintainer of s's family.
func newSubject(s Script, b *detBuilder, d *recordingDeleter, data []*meta.DataFileMeta, payloads []*meta.IndexFileMeta) (subject, error) {
	if s.sorted() {
		return newSortedSubject(s, b, d, data, payloads)
	}
	m, err := pkfulltext.NewMaintainer(s.FieldID, b, d, data, payloads)
	if err != nil {
		return nil, err
	}
	return fullTextSubject{m}, nil
}

// fullTextSubject drives pkfulltext.Maintainer.
type fullTextSubject struct{ m *pkfulltext.Maintainer }

func (f fullTextSubject) prepareCommit(ctx context.Context, app pkindex.DataIncrement, compact pkindex.CompactIncrement, st Step) (commitHandle, error) {
	c, err := f.m.PrepareCommit(ctx, app, compact, st.Wait)
	if err != nil {
		return nil, err
	}
	return fullTextCommit{c}, nil
}

func (f fullTextSubject) buildNotCompleted() bool         { return f.m.BuildNotCompleted() }
func (f fullTextSubject) close(ctx context.Context) error { return f.m.Close(ctx) }
func (f fullTextSubject) state() (State, error)           { return maintainerState(f.m) }

type fullTextCommit struct{ c *pkfulltext.Commit }

func (c fullTextCommit) increments() (app, compact *pkindex.IndexIncrement) {
	return c.c.AppendIncrement, c.c.CompactIncrement
}
func (c fullTextCommit) abort(ctx context.Context) error { return c.c.Abort(ctx) }

// goExec is the state of one RunGo.
type goExec struct {
	m       subject
	builder *detBuilder
	deleter *recordingDeleter
	// known maps each name to the data file the script last introduced under it, for
	// compactBefore.
	known  map[string]DataFile
	closed bool
}

// step runs one script step and returns its trace and the commit a following abort would abort.
func (e *goExec) step(ctx context.Context, st Step, last commitHandle) (StepTrace, commitHandle, error) {
	_, recs0 := e.builder.counts()
	del0 := e.deleter.count()
	out := StepTrace{Op: st.Op}

	// Builds left for later complete at the start of the step.
	if err := e.release(ctx); err != nil {
		return out, nil, err
	}

	var commit commitHandle
	switch st.Op {
	case OpPrepareCommit:
		for _, f := range st.Append {
			e.known[f.Name] = f
		}
		before := make([]*meta.DataFileMeta, len(st.CompactBefore))
		for i, name := range st.CompactBefore {
			f, ok := e.known[name]
			if !ok {
				f = DataFile{Name: name, Level: 0, Rows: 1, Source: SourceAppend}
			}
			before[i] = dataFileMeta(f)
		}
		for _, f := range st.CompactAfter {
			e.known[f.Name] = f
		}

		calls0, _ := e.builder.counts()
		e.builder.setOutcomes(st.Builds)
		c, err := e.m.prepareCommit(ctx,
			pkindex.DataIncrement{NewFiles: dataFileMetas(st.Append)},
			pkindex.CompactIncrement{CompactBefore: before, CompactAfter: dataFileMetas(st.CompactAfter)},
			st)
		// A non-waiting call that leaves a build pending started it; its goroutine must reach
		// the builder before the step's outcomes are withdrawn.
		if err == nil && !st.Wait && e.m.buildNotCompleted() {
			if werr := waitFor(ctx, "the pending build to reach the builder", func() bool {
				n, _ := e.builder.counts()
				return n > calls0
			}); werr != nil {
				return out, nil, werr
			}
		}
		if serr := e.settle(ctx); serr != nil {
			return out, nil, serr
		}
		e.builder.setOutcomes(nil)
		out.Error, out.Message = classify(err), message(err)
		if err == nil {
			commit = c
			app, compact := c.increments()
			out.Append, out.Compact = increment(app), increment(compact)
		}
	case OpAbort:
		if last == nil {
			out.Skipped = true
			break
		}
		err := last.abort(ctx)
		out.Error, out.Message = classify(err), message(err)
		if serr := e.settle(ctx); serr != nil {
			return out, nil, serr
		}
	default:
		return out, nil, fmt.Errorf("unknown op %q", st.Op)
	}

	out.Builds = e.builder.recordsSince(recs0)
	out.Deleted = e.deleter.since(del0)
	state, err := e.m.state()
	if err != nil {
		return out, nil, err
	}
	out.State = state
	return out, commit, nil
}

// close releases later builds, closes the maintainer and records what that did.
func (e *goExec) close(ctx context.Context) (CloseTrace, error) {
	_, recs0 := e.builder.counts()
	del0 := e.deleter.count()
	if err := e.release(ctx); err != nil {
		return CloseTrace{}, err
	}
	err := e.m.close(ctx)
	e.closed = true
	if serr := e.settle(ctx); serr != nil {
		return CloseTrace{}, serr
	}
	return CloseTrace{
		Error:   classify(err),
		Message: message(err),
		Builds:  e.builder.recordsSince(recs0),
		Deleted: e.deleter.since(del0),
	}, nil
}

// release lets builds left for later complete and waits until their goroutines are done.
func (e *goExec) release(ctx context.Context) error {
	if len(e.builder.releaseLater()) == 0 {
		return nil
	}
	return e.settle(ctx)
}

// settle waits until every build goroutine has exited, except those blocked waiting for their
// release.
func (e *goExec) settle(ctx context.Context) error {
	calls := e.builder.runningCalls()
	if len(calls) == 0 {
		return nil
	}
	ids := make([]uint64, len(calls))
	for i, c := range calls {
		ids[i] = c.goroutine
	}
	if err := waitGoroutinesExited(ctx, ids); err != nil {
		return fmt.Errorf("settle build goroutines: %w", err)
	}
	e.builder.markFinished(calls)
	return nil
}

// increment turns a Go increment into its trace form.
func increment(inc *pkindex.IndexIncrement) *Increment {
	if inc == nil {
		return nil
	}
	out := &Increment{New: []string{}, Deleted: []string{}}
	for _, p := range inc.NewIndexFiles {
		out.New = append(out.New, p.FileName)
	}
	for _, p := range inc.DeletedIndexFiles {
		out.Deleted = append(out.Deleted, p.FileName)
	}
	return out
}
