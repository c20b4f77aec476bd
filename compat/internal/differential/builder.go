package differential

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// detBuilder is the deterministic builder of the package documentation for the Go maintainer.
// The executor sets the current step's outcomes before each call; builds with a later outcome
// block until the executor releases them at the next step.
//
// In a sorted-family script (family set) the maintainer retries a failed build, calling Build
// again from the same goroutine: an outcome then belongs to the request (the goroutine's first
// call), and later calls of that goroutine are further attempts of it, which never block.
type detBuilder struct {
	fieldID int32
	family  string

	mu       sync.Mutex
	outcomes []Outcome // the current step's remaining outcomes
	attempts map[string]int
	records  []BuildRecord
	calls    []*buildCall
	// tasks are the sorted family's build requests by goroutine id.
	tasks map[uint64]*buildTask
}

// buildTask is one sorted-family build request: its outcome and the attempts made so far.
type buildTask struct {
	outcome  Outcome
	attempts int
}

// buildCall is one invocation of Build, tracked so the executor can tell when the goroutine
// running it has finished.
type buildCall struct {
	goroutine uint64
	outcome   Outcome
	// release is closed by the executor to let a later outcome complete.
	release  chan struct{}
	released bool
	// finished is set once the executor saw the goroutine exit.
	finished bool
}

func newDetBuilder(family string, fieldID int32) *detBuilder {
	return &detBuilder{fieldID: fieldID, family: family, attempts: map[string]int{}, tasks: map[uint64]*buildTask{}}
}

// setOutcomes starts a step: its builds take outcomes from list.
func (b *detBuilder) setOutcomes(list []Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.outcomes = slices.Clone(list)
}

// Build implements pkfulltext.ArchiveBuilder and maintainer.Builder.
func (b *detBuilder) Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no files requested", ErrBuildFailed)
	}
	b.mu.Lock()
	if b.family != FamilyFullText {
		if task, ok := b.tasks[goroutineID()]; ok {
			task.attempts++
			attempt := task.attempts
			b.mu.Unlock()
			return b.materialize(files, task.outcome, attempt)
		}
	}
	outcome := Succeed
	if len(b.outcomes) > 0 {
		outcome, b.outcomes = b.outcomes[0], b.outcomes[1:]
	}
	call := &buildCall{goroutine: goroutineID(), outcome: outcome}
	attempt := 0
	if b.family != FamilyFullText {
		attempt = 1
		b.tasks[call.goroutine] = &buildTask{outcome: outcome, attempts: 1}
	}
	if outcome.later() {
		call.release = make(chan struct{})
	}
	b.calls = append(b.calls, call)
	b.mu.Unlock()

	if call.release != nil {
		select {
		case <-call.release:
		case <-ctx.Done():
			// Cancelled before it ran: like a queued Java task that never runs, it generates
			// nothing and leaves no record.
			return nil, ctx.Err()
		}
	}
	return b.materialize(files, outcome, attempt)
}

// materialize records the outcome of a request (attempt 0 for the full-text family, whose
// builds are tried once) and returns its payload or failure.
func (b *detBuilder) materialize(files []*meta.DataFileMeta, outcome Outcome, attempt int) (*meta.IndexFileMeta, error) {
	level := files[0].Level
	sources := sourceFilesOf(files)
	key := buildKey(sources, level)

	b.mu.Lock()
	defer b.mu.Unlock()
	rec := BuildRecord{Key: key, Level: level, Files: sources, Outcome: outcome, Attempt: attempt}
	if !outcome.generates() || (attempt > 0 && outcome.failsAttempt(attempt)) {
		b.records = append(b.records, rec)
		return nil, fmt.Errorf("%w: %s (%s)", ErrBuildFailed, key, outcome)
	}
	b.attempts[key]++
	rec.Name = fmt.Sprintf("%s-%d", key, b.attempts[key])
	m, err := builtMeta(b.family, rec.Name, b.fieldID, level, sources, outcome)
	if err != nil {
		return nil, err
	}
	b.records = append(b.records, rec)
	return m, nil
}

// releaseLater lets every blocked later build complete and returns their calls.
func (b *detBuilder) releaseLater() []*buildCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*buildCall
	for _, c := range b.calls {
		if c.release != nil && !c.released {
			c.released = true
			close(c.release)
			out = append(out, c)
		}
	}
	return out
}

// counts returns the number of calls and records so far.
func (b *detBuilder) counts() (calls, records int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls), len(b.records)
}

// recordsSince returns the records after the first n.
func (b *detBuilder) recordsSince(n int) []BuildRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.records[n:])
}

// runningCalls returns the calls whose goroutine may still be running: those not seen
// finished, except the blocked unreleased later builds.
func (b *detBuilder) runningCalls() []*buildCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*buildCall
	for _, c := range b.calls {
		if !c.finished && (c.release == nil || c.released) {
			out = append(out, c)
		}
	}
	return out
}

// markFinished records that the goroutines of calls have exited.
func (b *detBuilder) markFinished(calls []*buildCall) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range calls {
		c.finished = true
	}
}

// recordingDeleter records the archives the maintainer deletes, in call order.
type recordingDeleter struct {
	mu      sync.Mutex
	deleted []string
}

// DeleteIndexFile implements pkindex.IndexFileDeleter.
func (d *recordingDeleter) DeleteIndexFile(_ context.Context, f *meta.IndexFileMeta) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deleted = append(d.deleted, f.FileName)
	return nil
}

func (d *recordingDeleter) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.deleted)
}

func (d *recordingDeleter) since(n int) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.deleted[n:])
}
