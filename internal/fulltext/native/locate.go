package native

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// LibPathEnv names the environment variable that points at libpaimon_ftindex_ffi.so or at the
// directory holding it.
const LibPathEnv = "PAIMON_FTINDEX_LIB_PATH"

// LibName is the file name of the engine's shared library on Linux.
const LibName = "libpaimon_ftindex_ffi.so"

// CacheDir is where make native extracts the library, relative to the repository root.
const CacheDir = ".cache/native"

// PythonPackage is the import name of the engine's official Python package; its wheel holds
// LibName at the package's top level (paimon_ftindex/libpaimon_ftindex_ffi.so).
const PythonPackage = "paimon_ftindex"

// InstallCommand installs the engine pkft is built and tested against.
const InstallCommand = "pip install paimon-ftindex==0.1.0"

// PythonTimeout bounds the question Locate asks the Python interpreter on PATH.
const PythonTimeout = 5 * time.Second

// ErrNotFound reports that the shared library was found nowhere Locate looks.
var ErrNotFound = errors.New("paimon-ftindex native library not found")

// Source says how Locate found the library.
type Source string

// The places Locate looks, in its order.
const (
	// FromExplicit: the path the caller named (pkft --engine-lib, pkft.WithEngineLibrary).
	FromExplicit Source = "explicit"
	// FromEnv: LibPathEnv.
	FromEnv Source = "env"
	// FromPython: the PythonPackage installed in the Python found on PATH.
	FromPython Source = "python"
	// FromCache: CacheDir in the working directory or one of its parents (make native).
	FromCache Source = "cache"
)

// Found is the library Locate found.
type Found struct {
	// Path is the library file.
	Path string
	// Source is how it was found; Detail says which variable, interpreter or directory.
	Source Source
	Detail string
}

// Locate finds the engine library. explicit, when not empty, is the only place looked at (a
// file, or a directory holding LibName): a named path that holds no library is an error, not
// a reason to look elsewhere. Otherwise it looks, in order, at
//
//   - LibPathEnv when set (a file or a directory; set but wrong is an error too),
//   - the PythonPackage of the Python on PATH (python3, else python), asked with a timeout of
//     PythonTimeout where the package is, without importing it,
//   - CacheDir in the working directory or any of its parents.
//
// The error wraps ErrNotFound, says how to install the engine and lists where Locate looked;
// when ctx ends during the lookup it wraps ctx's cause.
func Locate(ctx context.Context, explicit string) (Found, error) {
	if explicit != "" {
		if path, ok := libraryAt(explicit); ok {
			return Found{Path: path, Source: FromExplicit, Detail: explicit}, nil
		}
		return Found{}, fmt.Errorf("%w at %s, the path named explicitly: it is not %s nor a directory holding it; %s",
			ErrNotFound, explicit, LibName, installHint())
	}
	if env := os.Getenv(LibPathEnv); env != "" {
		if path, ok := libraryAt(env); ok {
			return Found{Path: path, Source: FromEnv, Detail: LibPathEnv}, nil
		}
		return Found{}, fmt.Errorf("%w at %s, which %s names: it is not %s nor a directory holding it; %s",
			ErrNotFound, env, LibPathEnv, LibName, installHint())
	}
	tried := []string{LibPathEnv + " (not set)"}
	found, ok, why, err := fromPython(ctx)
	if err != nil {
		return Found{}, err
	}
	if ok {
		return found, nil
	}
	tried = append(tried, why)
	if dir, err := os.Getwd(); err == nil {
		for d := dir; ; {
			candidate := filepath.Join(d, CacheDir, LibName)
			if isFile(candidate) {
				return Found{Path: candidate, Source: FromCache, Detail: filepath.Join(d, CacheDir)}, nil
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
		tried = append(tried, fmt.Sprintf("%s in %s and each of its parents (make native, in a pkft clone)",
			filepath.Join(CacheDir, LibName), dir))
	} else {
		tried = append(tried, fmt.Sprintf("%s: no working directory (%v)", CacheDir, err))
	}
	return Found{}, fmt.Errorf("%w: %s; looked in: %s", ErrNotFound, installHint(), strings.Join(tried, "; "))
}

// installHint says, in one line, how to give pkft the engine.
func installHint() string {
	return fmt.Sprintf("install it with `%s` (pkft finds it through the python3 or python on PATH), "+
		"or set %s to its %s, or name that file with --engine-lib (library: pkft.WithEngineLibrary)",
		InstallCommand, LibPathEnv, LibName)
}

// libraryAt is path itself when it is a file, else LibName in the directory path.
func libraryAt(path string) (string, bool) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, LibName)
	}
	return path, isFile(path)
}

// pythonProbe prints the directory of the installed PythonPackage, or nothing. It does not
// import the package (its __init__ loads the library), and it drops the script's own directory
// (the working directory, for -c) from the path, so that only installed packages count.
const pythonProbe = `import sys
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]
import importlib.util
spec = importlib.util.find_spec("` + PythonPackage + `")
locs = list(spec.submodule_search_locations or []) if spec is not None else []
print(locs[0] if locs else "")
`

// fromPython looks for the library in the PythonPackage of the Python on PATH. When it is not
// there, why says what was found instead; err is ctx's error when ctx ended.
func fromPython(ctx context.Context) (found Found, ok bool, why string, err error) {
	var name, python string
	for _, name = range []string{"python3", "python"} {
		if python, err = exec.LookPath(name); err == nil {
			break
		}
	}
	if python == "" {
		return Found{}, false, "the " + PythonPackage + " package of a Python on PATH (neither python3 nor python is on PATH)", nil
	}
	who := fmt.Sprintf("the %s package of %s (%s)", PythonPackage, name, python)
	pctx, cancel := context.WithTimeout(ctx, PythonTimeout)
	defer cancel()
	cmd := exec.CommandContext(pctx, python, "-c", pythonProbe)
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return Found{}, false, "", fmt.Errorf("look for the %s package of %s: %w", PythonPackage, python, context.Cause(ctx))
	}
	if runErr != nil {
		if pctx.Err() != nil {
			runErr = fmt.Errorf("no answer within %s", PythonTimeout)
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			runErr = fmt.Errorf("%w: %s", runErr, msg)
		}
		return Found{}, false, fmt.Sprintf("%s: asking it failed: %v", who, runErr), nil
	}
	dir := strings.TrimSpace(stdout.String())
	if i := strings.IndexByte(dir, '\n'); i >= 0 {
		dir = strings.TrimSpace(dir[:i])
	}
	if dir == "" {
		return Found{}, false, who + ": not installed", nil
	}
	candidate := filepath.Join(dir, LibName)
	if !isFile(candidate) {
		return Found{}, false, fmt.Sprintf("%s: installed in %s, without %s", who, dir, LibName), nil
	}
	return Found{Path: candidate, Source: FromPython, Detail: who}, true, "", nil
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
