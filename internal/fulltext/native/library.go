// Package native binds the paimon-ftindex engine (apache/paimon-full-text 0.1.0) through its C
// ABI, the same engine Java Paimon reaches through JNI. The shared library comes from the
// engine's official Python wheel (paimon-ftindex 0.1.0); it is loaded at run time with dlopen,
// so pkft builds without it. Locate finds it where users have it (an explicit path,
// PAIMON_FTINDEX_LIB_PATH, the wheel installed in the Python on PATH, or make native's cache)
// and says how to install it, and where it looked, when it is missing.
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
	"context"
	"fmt"
	"unsafe"
)

// Library is the loaded engine. It stays loaded for the life of the process; load it once and
// share it, it is safe for concurrent use.
type Library struct {
	api   *C.pkft_api
	path  string
	found Found
}

// Path is the file the library was loaded from.
func (l *Library) Path() string { return l.path }

// Found is how Load found the library; a library LoadPath loaded was named explicitly.
func (l *Library) Found() Found { return l.found }

// Load finds the engine as Locate does (explicit, else LibPathEnv, else the Python on PATH,
// else CacheDir) and loads it.
func Load(ctx context.Context, explicit string) (*Library, error) {
	found, err := Locate(ctx, explicit)
	if err != nil {
		return nil, err
	}
	lib, err := LoadPath(found.Path)
	if err != nil {
		return nil, err
	}
	lib.found = found
	return lib, nil
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
	return &Library{api: api, path: path, found: Found{Path: path, Source: FromExplicit, Detail: path}}, nil
}

// takeError converts and frees a message the shim allocated.
func takeError(cerr *C.char) string {
	if cerr == nil {
		return "unknown error"
	}
	defer C.free(unsafe.Pointer(cerr))
	return C.GoString(cerr)
}
