package pkft

import (
	"context"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
)

// ErrEngineNotFound reports that the full-text engine library was found nowhere pkft looks; its
// message says how to install it and where pkft looked.
var ErrEngineNotFound = native.ErrNotFound

// EngineInstallCommand installs the engine pkft is built and tested against, in the Python on
// PATH, where pkft finds it.
const EngineInstallCommand = native.InstallCommand

// loadEngine returns the table's engine: the configured one, else the native engine, looked
// for (with ctx) on the first call and loaded only when an archive is built or searched. A
// lookup that fails is kept, and reported when the engine is used, unless ctx ended during it.
func (t *Table) loadEngine(ctx context.Context) (fulltext.Engine, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.engine == nil {
		lazy, err := native.NewLazy(ctx, t.engineLibrary)
		if err != nil {
			return nil, err
		}
		t.engine = lazy
	}
	return t.engine, nil
}

// writerEngine is engineIfIndexed for a writer, which also checks that the engine loads: a
// writer's commit builds archives (its compaction at commit builds those of the level it writes,
// after the APPEND snapshot is committed; its maintainer those of the restored levels that lack
// one), so a missing engine must stop the write before it starts, not half way through its
// commit.
func (t *Table) writerEngine(ctx context.Context) (fulltext.Engine, error) {
	engine, err := t.engineIfIndexed(ctx)
	if err != nil || engine == nil {
		return engine, err
	}
	if err := engineLoads(engine); err != nil {
		return nil, fmt.Errorf("open writer on %s: its full-text index needs the engine when the write commits (the commit builds archives): %w", t.path, err)
	}
	return engine, nil
}

// engineLoads loads a native engine that is not loaded yet, and returns why it cannot be; an
// engine configured otherwise is taken as it is.
func engineLoads(engine fulltext.Engine) error {
	if lazy, ok := engine.(*native.Lazy); ok {
		_, err := lazy.Library()
		return err
	}
	return nil
}

// UseEngineTempDir gives the engine's temporary files (it builds each archive in a temporary
// directory of its own) a directory named after this process, TMPDIR/pkft-<pid>-<random>, and
// points the process's TMPDIR at it; release removes the directory with everything in it and
// restores TMPDIR. It first removes the directories pkft-<pid>-* left in TMPDIR by processes
// that no longer exist (a killed build), and returns them in removed.
//
// The engine's C ABI has no parameter for its temporary directory, so TMPDIR is the only
// lever: the call changes process-wide state and is meant for a command's main function, once,
// before any work, with release on every exit path.
//
// staleErr reports stale directories that could not be removed; the process's own directory is
// in use all the same.
func UseEngineTempDir() (release func() error, removed []string, staleErr error, err error) {
	d, err := native.UseProcessTempDir()
	if err != nil {
		return nil, nil, nil, err
	}
	return d.Release, d.Removed, d.StaleErr, nil
}
