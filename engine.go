package pkft

import "github.com/paimon-pkft/pkft/internal/fulltext/native"

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
