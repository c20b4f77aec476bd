package pkfulltext

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// ArchiveBuilder builds one full-text archive over the given source files (Java
// PkFullTextIndexBuilder). The maintainer passes the complete set of eligible files of one data
// level, ordered by name; Java's single-file overload builds the same archive as a one-element
// list, so one method covers both. Build must honour ctx; on failure it should leave no file
// behind (Java deletes the files it allocated). If it fails after naming its output it may
// return that metadata together with the error, and the maintainer deletes it.
type ArchiveBuilder interface {
	// Build writes the archive for files and returns its metadata.
	Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error)
}

// IndexFileDeleter deletes an archive the maintainer generated and no longer needs (Java
// IndexFile.delete, reached through PkFullTextIndexFile); an error returned here fails the
// PrepareCommit call that needed the deletion, which then rolls back, and is joined into the
// result of Abort and Close. The type is shared with the sorted family's maintainer.
type IndexFileDeleter = pkindex.IndexFileDeleter

// DataIncrement is a writer's append increment (Java DataIncrement), shared by every
// primary-key index family: only NewFiles is read, and it must contain no index source files.
type DataIncrement = pkindex.DataIncrement

// CompactIncrement is the data transition of a compaction (Java CompactIncrement), shared by
// every primary-key index family.
type CompactIncrement = pkindex.CompactIncrement

// IndexIncrement lists the full-text archives one PrepareCommit call adds to and removes from
// the index manifest (Java FullTextIndexIncrement).
type IndexIncrement = pkindex.IndexIncrement

// Commit is what PrepareCommit prepared for Paimon's append or compact snapshot (Java
// FullTextIndexCommit). At most one of the increments is set.
type Commit struct {
	// AppendIncrement holds the changes for the append snapshot, or nil.
	AppendIncrement *IndexIncrement
	// CompactIncrement holds the changes for the compact snapshot, or nil.
	CompactIncrement *IndexIncrement

	abort func(ctx context.Context) error
}

// Abort undoes the call that returned c when the snapshot carrying it will not be committed
// (for example because another index family failed): it restores the maintainer's state from
// before that call, cancels any pending build and deletes the archives the call generated. As
// in Java, it is not guarded against repeated use or against calls made after c.
func (c *Commit) Abort(ctx context.Context) error {
	if c == nil || c.abort == nil {
		return nil
	}
	return c.abort(ctx)
}

// Maintainer keeps one full-text archive for each complete data level of one bucket (Java
// BucketedFullTextIndexMaintainer). It runs at most one archive build at a time, in a
// goroutine, and is safe for concurrent use. As with Java's synchronized methods, a
// PrepareCommit that waits for a build holds the maintainer until it returns; its ctx, not
// Close, is what interrupts it.
type Maintainer struct {
	textFieldID int32
	builder     ArchiveBuilder
	deleter     IndexFileDeleter
	levels      *pkindex.Levels[*meta.IndexFileMeta, *meta.DataFileMeta]

	mu      sync.Mutex
	current []*meta.IndexFileMeta
	retired []*meta.IndexFileMeta
	active  map[string]*meta.DataFileMeta
	pending *pendingBuild
}

// NewMaintainer restores a bucket's maintainer from its data files and index files. Eligible
// data files become the active sources; payloads classified current by [FromActiveDataFiles]
// are kept, stale ones are retired and removed by the next PrepareCommit.
func NewMaintainer(
	textFieldID int32,
	builder ArchiveBuilder,
	deleter IndexFileDeleter,
	restoredDataFiles []*meta.DataFileMeta,
	restoredPayloads []*meta.IndexFileMeta,
) (*Maintainer, error) {
	if builder == nil || deleter == nil {
		return nil, errors.New("restore full-text maintainer: builder and deleter are required")
	}
	m := &Maintainer{
		textFieldID: textFieldID,
		builder:     builder,
		deleter:     deleter,
		levels:      payloadLevels(),
		active:      map[string]*meta.DataFileMeta{},
	}
	for i, f := range restoredDataFiles {
		if f == nil {
			return nil, fmt.Errorf("restore full-text maintainer: data file %d is nil", i)
		}
		if pkindex.ShouldReadDataFile(f) {
			m.active[f.FileName] = f
		}
	}
	state, err := FromActiveDataFiles(textFieldID, m.activeFiles(), restoredPayloads)
	if err != nil {
		return nil, fmt.Errorf("restore full-text maintainer: %w", err)
	}
	m.current = state.current
	m.retired = state.stale
	if mutation.On("restore-keeps-stale") {
		// Stale archives are never retired: they stay in the index manifest.
		m.retired = nil
	}
	if err := m.validateActiveSourceRows(); err != nil {
		return nil, fmt.Errorf("restore full-text maintainer: %w", err)
	}
	return m, nil
}

// PrepareCommit brings the archives up to date with a writer's increments and returns the
// index changes to commit with them. Append files must not be index sources. The compact
// transition is applied to the active sources; then a finished build is accepted if it still
// fits, the next level needing work is planned, and a removal is applied or one background
// build started. With wait the call repeats this, blocking on builds, until nothing is pending;
// without it a running build is left for a later call. Changes go to the compact increment when
// compactIncrement moves data files, else to the append increment.
//
// On failure (including ctx ending while waiting, or a failed build, which is not retried
// within the call) the maintainer's state is restored, the pending build cancelled, and every
// archive generated in this call deleted.
func (m *Maintainer) PrepareCommit(ctx context.Context, appendIncrement DataIncrement, compactIncrement CompactIncrement, wait bool) (*Commit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()

	if err := pkindex.CheckNoNilFiles(appendIncrement.NewFiles, compactIncrement.CompactBefore, compactIncrement.CompactAfter); err != nil {
		return nil, fmt.Errorf("prepare full-text index commit: %w", err)
	}
	for _, f := range appendIncrement.NewFiles {
		if pkindex.ShouldReadDataFile(f) {
			return nil, errors.New("prepare full-text index commit: append files must not be primary-key full-text index sources")
		}
	}

	saved := m.snapshot()
	call := &callChanges{}
	if err := m.update(ctx, compactIncrement, wait, call); err != nil {
		err = fmt.Errorf("prepare full-text index commit: %w", err)
		return nil, errors.Join(err, m.rollback(ctx, saved, call.generated))
	}

	commit := &Commit{}
	commit.AppendIncrement, commit.CompactIncrement = pkindex.RouteChanges(call.created, call.removed, compactIncrement)
	generated := slices.Clone(call.generated)
	commit.abort = func(ctx context.Context) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.rollback(ctx, saved, generated)
	}
	return commit, nil
}

// BuildNotCompleted reports whether a background build is pending.
func (m *Maintainer) BuildNotCompleted() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending != nil
}

// Close cancels a pending build and makes sure its archive is deleted, waiting (as long as ctx
// allows) for the build goroutine to exit. The maintainer stays usable.
func (m *Maintainer) Close(ctx context.Context) error {
	m.mu.Lock()
	p := m.pending
	m.pending = nil
	m.mu.Unlock()
	if p == nil {
		return nil
	}
	err := p.Cancel(context.WithoutCancel(ctx), m.deleter)
	if werr := p.Wait(ctx, "the cancelled full-text archive build"); werr != nil {
		return errors.Join(err, fmt.Errorf("close full-text maintainer: %w", werr))
	}
	return errors.Join(err, p.OrphanErr())
}

// State classifies the current archives against the active source files.
func (m *Maintainer) State() (*BucketIndexState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return FromActiveDataFiles(m.textFieldID, m.activeFiles(), m.current)
}

// Payloads returns the current archives (a fresh slice).
func (m *Maintainer) Payloads() []*meta.IndexFileMeta {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.current)
}

// callChanges collects what one PrepareCommit call did.
type callChanges struct {
	created   []*meta.IndexFileMeta
	removed   []*meta.IndexFileMeta
	generated []*meta.IndexFileMeta
}

// savedState is the maintainer state a failed or aborted call restores.
type savedState struct {
	current []*meta.IndexFileMeta
	retired []*meta.IndexFileMeta
	active  map[string]*meta.DataFileMeta
}

func (m *Maintainer) snapshot() savedState {
	return savedState{current: slices.Clone(m.current), retired: slices.Clone(m.retired), active: maps.Clone(m.active)}
}

// update runs the body of PrepareCommit; the caller rolls back when it fails.
func (m *Maintainer) update(ctx context.Context, compact CompactIncrement, wait bool, call *callChanges) error {
	pkindex.ApplyCompactTransition(m.active, compact)
	call.removed = slices.Clone(m.retired)
	m.retired = nil

	for {
		done, err := m.finishPendingBuild(ctx, wait)
		if err != nil {
			return err
		}
		if done != nil {
			call.generated = append(call.generated, done.payload)
			ok, err := m.canAccept(done)
			if err != nil {
				return err
			}
			if ok {
				if err := m.removePayloads(ctx, done.plan.InputUnits(), call); err != nil {
					return err
				}
				m.current = append(m.current, done.payload)
				call.created = append(call.created, done.payload)
			} else if err := m.deleteGenerated(ctx, done.payload, call); err != nil {
				return err
			}
		}

		if m.pending == nil {
			plan, err := m.levels.Pick(m.current, m.active)
			if err != nil {
				return fmt.Errorf("plan full-text archive: %w", err)
			}
			if plan != nil {
				if plan.Removes() {
					if err := m.removePayloads(ctx, plan.InputUnits(), call); err != nil {
						return err
					}
					continue
				}
				m.startBuild(ctx, plan)
			}
		}
		if !wait || m.pending == nil {
			return nil
		}
	}
}

// completedBuild is a finished build taken over from the pending slot.
type completedBuild struct {
	plan    *pkindex.Plan[*meta.IndexFileMeta, *meta.DataFileMeta]
	payload *meta.IndexFileMeta
}

// finishPendingBuild takes the pending build's result when it has finished, waiting for it
// when blocking. It returns nil when there is no finished build.
func (m *Maintainer) finishPendingBuild(ctx context.Context, blocking bool) (*completedBuild, error) {
	p := m.pending
	if p == nil {
		return nil, nil
	}
	payload, finished, err := p.Take(ctx, blocking, fmt.Sprintf("full-text archive build of data level %d", p.plan.DataLevel()))
	if !finished {
		return nil, err
	}
	m.pending = nil
	if err != nil {
		return nil, fmt.Errorf("build full-text archive of data level %d: %w", p.plan.DataLevel(), err)
	}
	return &completedBuild{plan: p.plan, payload: payload}, nil
}

// canAccept reports whether a finished build may replace its level's archive: the plan and
// its inputs are still current, the output classifies as the single current archive of exactly
// the planned files, and no retained archive covers any of them.
func (m *Maintainer) canAccept(b *completedBuild) (bool, error) {
	inputs := b.plan.InputUnits()
	if mutation.On("late-build-accepted") {
		// A finished build is published even when its level changed while it ran.
		return true, nil
	}
	if !m.levels.IsCurrent(b.plan, m.active) {
		return false, nil
	}
	for _, in := range inputs {
		if !slices.ContainsFunc(m.current, func(c *meta.IndexFileMeta) bool { return pkindex.SameIndexFile(c, in) }) {
			return false, nil
		}
	}
	planned := b.plan.SourceFiles()
	out, err := FromActiveDataFiles(m.textFieldID, planned, []*meta.IndexFileMeta{b.payload})
	if err != nil {
		return false, fmt.Errorf("classify built full-text archive %s: %w", b.payload.FileName, err)
	}
	if len(out.current) != 1 {
		return false, nil
	}
	sm, err := payloadSourceMeta(b.payload)
	if err != nil {
		return false, err
	}
	if sm.DataLevel() != b.plan.DataLevel() {
		return false, nil
	}
	actual := sm.SourceFiles()
	if len(actual) != len(planned) {
		return false, nil
	}

	retained := slices.DeleteFunc(slices.Clone(m.current), func(c *meta.IndexFileMeta) bool {
		return slices.ContainsFunc(inputs, func(in *meta.IndexFileMeta) bool { return pkindex.SameIndexFile(c, in) })
	})
	covered := map[string]bool{}
	for _, r := range retained {
		rm, err := payloadSourceMeta(r)
		if err != nil {
			return false, err
		}
		for _, src := range rm.SourceFiles() {
			covered[src.FileName()] = true
		}
	}
	for i, a := range actual {
		want := planned[i]
		activeFile, ok := m.active[a.FileName()]
		if a.FileName() != want.FileName || a.RowCount() != want.RowCount ||
			!ok || activeFile.RowCount != a.RowCount() || covered[a.FileName()] {
			return false, nil
		}
	}
	return true, nil
}

// removePayloads drops inputs from the current archives; one created earlier in this call is
// deleted instead of being reported as removed.
func (m *Maintainer) removePayloads(ctx context.Context, inputs []*meta.IndexFileMeta, call *callChanges) error {
	for _, in := range inputs {
		var ok bool
		if m.current, ok = pkindex.RemoveIndexFile(m.current, in); !ok {
			return errors.New("full-text rebuild input is no longer active")
		}
		if call.created, ok = pkindex.RemoveIndexFile(call.created, in); ok {
			if err := m.deleteGenerated(ctx, in, call); err != nil {
				return err
			}
		} else {
			call.removed = append(call.removed, in)
		}
	}
	return nil
}

func (m *Maintainer) deleteGenerated(ctx context.Context, payload *meta.IndexFileMeta, call *callChanges) error {
	if err := m.deleter.DeleteIndexFile(ctx, payload); err != nil {
		return fmt.Errorf("delete generated full-text archive %s: %w", payload.FileName, err)
	}
	call.generated, _ = pkindex.RemoveIndexFile(call.generated, payload)
	return nil
}

// rollback restores saved, cancels the pending build and deletes generated; cleanup failures
// are returned joined.
func (m *Maintainer) rollback(ctx context.Context, saved savedState, generated []*meta.IndexFileMeta) error {
	ctx = context.WithoutCancel(ctx)
	m.current = slices.Clone(saved.current)
	m.retired = slices.Clone(saved.retired)
	m.active = maps.Clone(saved.active)

	var errs []error
	if p := m.pending; p != nil {
		m.pending = nil
		errs = append(errs, p.Cancel(ctx, m.deleter))
	}
	for _, g := range generated {
		if mutation.On("generated-left-on-abort") {
			// The call's archives are left behind when it is undone.
			break
		}
		if err := m.deleter.DeleteIndexFile(ctx, g); err != nil {
			errs = append(errs, fmt.Errorf("delete generated full-text archive %s: %w", g.FileName, err))
		}
	}
	return errors.Join(errs...)
}

func (m *Maintainer) startBuild(ctx context.Context, plan *pkindex.Plan[*meta.IndexFileMeta, *meta.DataFileMeta]) {
	files := plan.SourceFiles()
	m.pending = &pendingBuild{plan: plan, BackgroundBuild: pkindex.StartBackgroundBuild(ctx, archiveKind, m.deleter,
		func(ctx context.Context) (*meta.IndexFileMeta, error) {
			return pkindex.CallBuilder(ctx, archiveKind, func(ctx context.Context) (*meta.IndexFileMeta, error) {
				out, err := m.builder.Build(ctx, files)
				if err != nil && out == nil && ctx.Err() == nil && mutation.On("failed-build-retried") {
					// A failed build is tried once more within the same call instead of failing it.
					return m.builder.Build(ctx, files)
				}
				return out, err
			})
		})}
}

// validateActiveSourceRows rejects a current archive naming an active file with another row
// count.
func (m *Maintainer) validateActiveSourceRows() error {
	for _, p := range m.current {
		sm, err := payloadSourceMeta(p)
		if err != nil {
			return err
		}
		for _, src := range sm.SourceFiles() {
			if f, ok := m.active[src.FileName()]; ok && f.RowCount != src.RowCount() {
				return fmt.Errorf("full-text source %s row count does not match its active data file", src.FileName())
			}
		}
	}
	return nil
}

// activeFiles returns the active source files ordered by name.
func (m *Maintainer) activeFiles() []*meta.DataFileMeta {
	files := slices.Collect(maps.Values(m.active))
	slices.SortFunc(files, func(a, b *meta.DataFileMeta) int { return javaio.CompareJava(a.FileName, b.FileName) })
	return files
}

// pendingBuild is one background archive build (Java PendingBuild) with the plan it serves.
type pendingBuild struct {
	plan *pkindex.Plan[*meta.IndexFileMeta, *meta.DataFileMeta]
	*pkindex.BackgroundBuild
}

// archiveKind names full-text archives in the shared build machinery's errors.
const archiveKind = "full-text archive"

func payloadSourceMeta(p *meta.IndexFileMeta) (pkindex.SourceMeta, error) {
	if p.GlobalIndex == nil {
		return pkindex.SourceMeta{}, fmt.Errorf("index file %s has no global index meta", p.FileName)
	}
	return pkindex.SourceMetaFromIndexFile(p.FileName, p.GlobalIndex.SourceMeta)
}
