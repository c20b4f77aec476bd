// Package pkfthook carries the settings of package pkft that are not part of its public API:
// the file system a table lives on and the full-text engine, which tests and the conformance
// harness replace (fault-injecting file systems, a deterministic engine). They travel in the
// context given to pkft.Open, so the public API names no impl type.
package pkfthook

import (
	"context"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/fulltext"
)

type fileIOKey struct{}

type engineKey struct{}

// WithFileIO returns a context under which pkft.Open opens tables on fio instead of the local
// file system.
func WithFileIO(ctx context.Context, fio fileio.FileIO) context.Context {
	return context.WithValue(ctx, fileIOKey{}, fio)
}

// WithEngine returns a context under which pkft.Open gives its table the engine e instead of
// loading the native one.
func WithEngine(ctx context.Context, e fulltext.Engine) context.Context {
	return context.WithValue(ctx, engineKey{}, e)
}

// FileIO is the file system WithFileIO set on ctx; nil when none.
func FileIO(ctx context.Context) fileio.FileIO {
	fio, _ := ctx.Value(fileIOKey{}).(fileio.FileIO)
	return fio
}

// Engine is the engine WithEngine set on ctx; nil when none.
func Engine(ctx context.Context) fulltext.Engine {
	e, _ := ctx.Value(engineKey{}).(fulltext.Engine)
	return e
}
