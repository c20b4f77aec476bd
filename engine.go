package pkft

import (
	"context"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
)

// ErrEngineNotFound reports that the full-text engine library was found nowhere pkft looks (see
// [FindEngine]); its message says how to install it and where pkft looked.
var ErrEngineNotFound = native.ErrNotFound

// EngineInstallCommand installs the engine pkft is built and tested against, in the Python on
// PATH, where pkft finds it.
const EngineInstallCommand = native.InstallCommand

// EngineSource says how the engine library was found.
type EngineSource string

// The places pkft looks for the engine, in its order.
const (
	// EngineFromOption: the file [WithEngineLibrary] names (pkft --engine-lib).
	EngineFromOption EngineSource = EngineSource(native.FromExplicit)
	// EngineFromEnv: the file or directory PAIMON_FTINDEX_LIB_PATH names.
	EngineFromEnv EngineSource = EngineSource(native.FromEnv)
	// EngineFromPython: the paimon_ftindex package (pip install paimon-ftindex==0.1.0) of the
	// Python on PATH, python3 or else python.
	EngineFromPython EngineSource = EngineSource(native.FromPython)
	// EngineFromCache: .cache/native/ in the working directory or a parent (make native in a
	// pkft clone).
	EngineFromCache EngineSource = EngineSource(native.FromCache)
)

// EngineInfo describes the engine library [FindEngine] found.
type EngineInfo struct {
	// Path is the library file.
	Path string `json:"path"`
	// Source is how it was found; Where says which variable, Python interpreter, cache directory
	// or named path.
	Source EngineSource `json:"source"`
	Where  string       `json:"where"`
	// SHA256 is the file's sha256, in hex.
	SHA256 string `json:"sha256"`
	// Version is the paimon-ftindex version of the library, empty when unknown. The engine's C
	// ABI reports none: it is read from the wheel metadata installed with the library, or known
	// from the file's sha256; VersionFrom says which (a METADATA file, or "sha256").
	Version     string `json:"version,omitempty"`
	VersionFrom string `json:"versionFrom,omitempty"`
	// OfficialWheel names the official paimon-ftindex wheel whose library the file is, byte for
	// byte; empty when it is none pkft knows.
	OfficialWheel string `json:"officialWheel,omitempty"`
}

// FindEngine finds the full-text engine library as a table opened with opts would: the file
// [WithEngineLibrary] names (only there, when given), else PAIMON_FTINDEX_LIB_PATH (a file or
// its directory), else the paimon_ftindex package installed in the Python on PATH (python3,
// else python, asked where the package is with a short timeout), else .cache/native/ in the
// working directory or a parent. It describes the file and loads it, to check that it is a
// usable engine.
//
// When no library is found the error matches [ErrEngineNotFound] and says how to install one
// and where pkft looked. When the library is found but does not load, FindEngine returns its
// description with the error.
func FindEngine(ctx context.Context, opts ...OpenOption) (*EngineInfo, error) {
	cfg := openConfigOf(opts)
	found, err := native.Locate(ctx, cfg.EngineLibrary)
	if err != nil {
		return nil, err // it says what was looked for, and where
	}
	info := &EngineInfo{Path: found.Path, Source: EngineSource(found.Source), Where: found.Detail}
	id, err := native.Identify(ctx, found.Path)
	if err != nil {
		return info, fmt.Errorf("find the full-text engine: %w", err)
	}
	info.SHA256, info.Version, info.VersionFrom, info.OfficialWheel = id.SHA256, id.Version, id.VersionFrom, id.Official
	if _, err := native.LoadPath(found.Path); err != nil {
		return info, fmt.Errorf("find the full-text engine: %w", err)
	}
	return info, nil
}

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
