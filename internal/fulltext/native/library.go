// Package native binds the paimon-ftindex engine (apache/paimon-full-text 0.1.0) through its C
// ABI, the same engine Java Paimon reaches through JNI. The shared library comes from the
// engine's official Python wheel (make native); it is loaded at run time with dlopen, so pkft
// builds without it and reports clearly where it looked when it is missing.
//
// The engine calls back into Go (archive output, positioned reads) from its own threads; those
// callbacks reach Go values through cgo handles, never through Go pointers held by C.
package native

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// LibPathEnv names the environment variable that points at libpaimon_ftindex_ffi.so or at the
// directory holding it.
const LibPathEnv = "PAIMON_FTINDEX_LIB_PATH"

// LibName is the file name of the engine's shared library on Linux.
const LibName = "libpaimon_ftindex_ffi.so"

// CacheDir is where make native extracts the library, relative to the repository root.
const CacheDir = ".cache/native"

// ErrNotFound reports that the shared library could be found neither through LibPathEnv nor in
// the repository cache.
var ErrNotFound = errors.New("paimon-ftindex native library not found")

// Library is the loaded engine. It stays loaded for the life of the process; load it once and
// share it, it is safe for concurrent use.
type Library struct {
	api  *C.pkft_api
	path string
}

// Path is the file the library was loaded from.
func (l *Library) Path() string { return l.path }

// Load finds and loads the engine: first LibPathEnv (a file, or a directory containing
// LibName), then CacheDir in the working directory or any of its parents.
func Load() (*Library, error) {
	path, err := Locate()
	if err != nil {
		return nil, err
	}
	return LoadPath(path)
}

// LoadPath loads the engine from an explicit file.
func LoadPath(path string) (*Library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	api := C.pkft_load(cpath, &cerr)
	if api == nil {
		return nil, fmt.Errorf("load paimon-ftindex native library %s: %s", path, takeError(cerr))
	}
	return &Library{api: api, path: path}, nil
}

// Locate returns the path Load would use, or an error wrapping ErrNotFound that names
// LibPathEnv, the places searched and make native.
func Locate() (string, error) {
	var tried []string
	if env := os.Getenv(LibPathEnv); env != "" {
		candidate := env
		if st, err := os.Stat(env); err == nil && st.IsDir() {
			candidate = filepath.Join(env, LibName)
		}
		if isFile(candidate) {
			return candidate, nil
		}
		tried = append(tried, candidate+" (from "+LibPathEnv+")")
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			candidate := filepath.Join(dir, CacheDir, LibName)
			if isFile(candidate) {
				return candidate, nil
			}
			tried = append(tried, candidate)
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("%w: set %s to %s (or its directory), or run `make native` to fetch it into %s; looked in: %s",
		ErrNotFound, LibPathEnv, LibName, CacheDir, strings.Join(tried, ", "))
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// takeError converts and frees a message the shim allocated.
func takeError(cerr *C.char) string {
	if cerr == nil {
		return "unknown error"
	}
	defer C.free(unsafe.Pointer(cerr))
	return C.GoString(cerr)
}
