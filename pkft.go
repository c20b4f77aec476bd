// Package pkft is the Go library for the primary-key full-text index of Apache Paimon 2.0
// tables: open a table by its path, maintain its full-text archives (build the missing and
// stale ones and commit them as one new snapshot), and search them.
//
// A Paimon primary-key table indexes one text column when its schema sets
// pk-full-text.index.columns (with deletion vectors enabled). Writers that cannot build
// archives (Flink or Spark jobs without the index, pypaimon) leave compacted levels without one;
// [Table.Maintain] builds them with the paimon-ftindex engine, byte-compatible with Java Paimon
// 2.0.0, and commits them as Java's writer commits index-only changes. [Table.Search] reads the
// table as Paimon's full-text read path does: current archives only, deletion vectors applied,
// top-k merged across archives and buckets.
//
// This package is a thin facade over impl/tableops (restore, maintenance commit, commit
// protocol) and impl/search (the read path); those packages hold the behaviour and its
// documentation, and remain available for finer control.
//
// The engine is the shared library libpaimon_ftindex_ffi.so (the official paimon-ftindex
// wheel's). Unless [WithEngine] supplies one, it is loaded when an archive is first built or
// searched (an operation that needs neither never loads it), from
// PAIMON_FTINDEX_LIB_PATH or .cache/native/ in the working directory or a parent.
//
// The package does not log; progress is reported through [WithProgress].
package pkft

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/fulltext"
	"github.com/paimon-pkft/pkft/impl/fulltext/native"
	"github.com/paimon-pkft/pkft/impl/restore"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/table"
	"github.com/paimon-pkft/pkft/impl/tableops"
)

// ErrNoFullTextIndex reports a table whose schema configures no primary-key full-text index
// (pk-full-text.index.columns is not set).
var ErrNoFullTextIndex = restore.ErrNoFullTextIndex

// ErrCommitConflict reports a maintenance commit that kept losing the race for the next
// snapshot to other writers, or whose table changed in a way it cannot follow. Nothing was
// committed and every file it generated was deleted.
var ErrCommitConflict = tableops.ErrCommitConflict

// UncertainCommitError reports a maintenance commit whose publication could not be confirmed
// or refused (for example an I/O error while writing the snapshot file). The files it would
// reference are kept, because the snapshot may have been published; read the table again to
// find out.
type UncertainCommitError = tableops.UncertainCommitError

// Table is a Paimon table opened by [Open]. It is safe for concurrent use; every call reads
// the table's latest metadata afresh.
type Table struct {
	t      *table.Table
	path   string
	column string

	mu     sync.Mutex
	engine fulltext.Engine
}

// OpenOption configures [Open].
type OpenOption func(*openConfig)

type openConfig struct {
	fio    fileio.FileIO
	engine fulltext.Engine
}

// WithFileIO sets the file system the table lives on (default: the local file system).
func WithFileIO(fio fileio.FileIO) OpenOption {
	return func(c *openConfig) { c.fio = fio }
}

// WithEngine sets the full-text engine that builds and searches archives (default: the native
// paimon-ftindex engine, loaded on first use).
func WithEngine(e fulltext.Engine) OpenOption {
	return func(c *openConfig) { c.engine = e }
}

// Open opens the Paimon table at path (the table directory, holding schema/ and snapshot/).
// It reads the table's latest schema: a directory without one is an error. A table without
// a full-text index opens; maintaining or searching it reports [ErrNoFullTextIndex].
func Open(ctx context.Context, path string, opts ...OpenOption) (*Table, error) {
	cfg := openConfig{fio: fileio.NewLocal()}
	for _, o := range opts {
		o(&cfg)
	}
	if path == "" {
		return nil, errors.New("open table: empty path")
	}
	t := table.Open(cfg.fio, path)
	s, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", path, err)
	}
	def, err := restore.ResolveFullTextDefinition(s)
	if err != nil && !errors.Is(err, restore.ErrNoFullTextIndex) {
		return nil, fmt.Errorf("open table %s: %w", path, err)
	}
	tb := &Table{t: t, path: path, engine: cfg.engine}
	if def != nil {
		tb.column = def.Column
	}
	return tb, nil
}

// Path is the table directory the table was opened from.
func (t *Table) Path() string { return t.path }

// FullTextColumn is the column the table's full-text index covers, as the schema read by
// [Open] names it; empty when the table has none.
func (t *Table) FullTextColumn() string { return t.column }

// Internal returns the table handle of impl/table, for callers that need the lower-level
// packages (impl/tableops, impl/search, impl/inspect).
func (t *Table) Internal() *table.Table { return t.t }

// loadEngine returns the configured engine; by default the native one, which loads its library
// only when an archive is built or searched.
func (t *Table) loadEngine() (fulltext.Engine, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.engine == nil {
		t.engine = &native.Lazy{}
	}
	return t.engine, nil
}

// latestSchema reads the table's latest schema (the one maintenance and search use).
func (t *Table) latestSchema(ctx context.Context) (*schema.TableSchema, error) {
	s, err := t.t.LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("read schema of %s: %w", t.path, err)
	}
	return s, nil
}
