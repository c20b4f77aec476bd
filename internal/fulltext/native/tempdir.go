package native

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// TempDirPrefix starts the name of every process's engine temporary directory:
// TempDirPrefix + "<pid>-<random>".
const TempDirPrefix = "pkft-"

// ProcessTempDir is the directory the engine of this process writes its temporary files to.
type ProcessTempDir struct {
	// Path is the directory.
	Path string
	// Removed lists the stale directories of processes that are gone, removed when it was made.
	Removed []string
	// StaleErr reports stale directories that could not be removed; it does not stop the
	// process from having its own directory.
	StaleErr error

	prevSet bool
	prev    string
}

// UseProcessTempDir gives the engine's temporary files a directory named after this process
// and points the process's TMPDIR at it; Release removes it and restores TMPDIR.
//
// The engine builds an archive in a temporary directory of its own (Rust's tempfile crate under
// std::env::temp_dir, that is TMPDIR), and its C ABI has no parameter for where: the process's
// TMPDIR is the only lever. So this changes process-wide state and is for a command's main
// function, called once before any engine work and released on every exit path; library code
// does not call it. A process killed before Release leaves its directory behind: every call
// first removes the directories TempDirPrefix<pid>-* under the base directory whose process no
// longer exists, so the next run cleans up. The base directory is os.TempDir() (TMPDIR as it
// was, or /tmp).
func UseProcessTempDir() (*ProcessTempDir, error) {
	base := os.TempDir()
	removed, staleErr := RemoveStaleTempDirs(base)
	dir, err := os.MkdirTemp(base, TempDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("create the engine's temporary directory: %w", err)
	}
	prev, prevSet := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("point TMPDIR at the engine's temporary directory: %w", err)
	}
	return &ProcessTempDir{Path: dir, Removed: removed, StaleErr: staleErr, prev: prev, prevSet: prevSet}, nil
}

// Release removes the directory with everything in it and restores TMPDIR. It is safe to call
// more than once.
func (d *ProcessTempDir) Release() error {
	if d == nil || d.Path == "" {
		return nil
	}
	var err error
	if d.prevSet {
		err = os.Setenv("TMPDIR", d.prev)
	} else {
		err = os.Unsetenv("TMPDIR")
	}
	if rerr := os.RemoveAll(d.Path); rerr != nil {
		err = errors.Join(err, fmt.Errorf("remove the engine's temporary directory: %w", rerr))
	}
	d.Path = ""
	return err
}

// RemoveStaleTempDirs removes the directories TempDirPrefix<pid>-* directly under base that
// belong to this process's user and whose process is gone, and returns them. Directories of
// live processes (and of pids this process may not signal), of other users, and anything not
// named that way are kept. (A process of another PID namespace sharing base looks gone: do not
// share one TMPDIR between containers.)
func RemoveStaleTempDirs(base string) ([]string, error) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, fmt.Errorf("list %s for stale engine temporary directories: %w", base, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pid, ok := tempDirPID(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || !ownedByMe(e) || processExists(pid) {
			continue
		}
		path := filepath.Join(base, e.Name())
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, fmt.Errorf("remove stale engine temporary directory: %w", err))
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// tempDirPID parses the pid out of a name TempDirPrefix<pid>-<suffix>.
func tempDirPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, TempDirPrefix)
	if !ok {
		return 0, false
	}
	digits, suffix, ok := strings.Cut(rest, "-")
	if !ok || suffix == "" || digits == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
		return 0, false
	}
	return pid, true
}

// ownedByMe reports whether the directory entry belongs to this process's user.
func ownedByMe(e os.DirEntry) bool {
	info, err := e.Info()
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// processExists reports whether pid names a process: signal 0 checks without signalling, and
// EPERM means it exists but belongs to someone else.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
