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
// It also writes rows ([Table.NewWriter]), fully compacts buckets ([Table.Compact]), and
// reports a table's canonical dump ([Table.Dump]) and full-text state ([Table.State]).
//
// Each operation takes its own option type ([OpenOption], [MaintainOption], [CompactOption],
// [WriteOption], [SearchOption]); an option that several operations honour is an option of
// each, so passing an operation an option it does not honour does not compile.
//
// This package is a facade over internal/tableops (restore, maintenance, write, compaction and
// their commits) and internal/search (the read path), which hold the behaviour and its
// documentation; its API names none of their types.
//
// The engine is the shared library libpaimon_ftindex_ffi.so of the official paimon-ftindex
// wheel (pip install paimon-ftindex==0.1.0). It is looked for in the file [WithEngineLibrary]
// names, else in PAIMON_FTINDEX_LIB_PATH, else in the paimon_ftindex package installed in the
// Python on PATH, else in .cache/native/ of a pkft clone ([FindEngine] says which one it finds).
// It is loaded when an archive is first built or searched (an operation that needs neither never
// loads it); a writer on a table whose commit will build archives checks that it loads before
// it writes anything, so that a missing engine never leaves a write half committed.
//
// The package does not log; progress is reported through [WithProgress].
package pkft

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fileio/resolve"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// ErrNoFullTextIndex reports a table whose schema configures no primary-key full-text index
// (pk-full-text.index.columns is not set).
var ErrNoFullTextIndex = pkfulltext.ErrNoIndex

// ErrCommitConflict reports a commit (of any operation) that kept losing the race for the next
// snapshot to other writers, whose published snapshot another writer replaced, or whose table
// changed in a way it cannot follow. Nothing was committed and every file it generated was
// deleted. Each operation's own conflict error below matches it with errors.Is.
var ErrCommitConflict = tableops.ErrCommitConflict

// The conflict error of each operation: Table.Maintain, Writer.Commit, Table.Compact and
// Table.RewriteMetadata. Each matches ErrCommitConflict.
var (
	ErrMaintainConflict = tableops.ErrMaintainConflict
	ErrWriteConflict    = tableops.ErrWriteConflict
	ErrCompactConflict  = tableops.ErrCompactConflict
	ErrRewriteConflict  = tableops.ErrRewriteConflict
)

// ErrSnapshotReplaced reports a snapshot the operation published that another writer replaced
// before it was verified (a racing Java commit on a file system whose rename replaces); it is
// joined with the operation's conflict error.
var ErrSnapshotReplaced = tableops.ErrSnapshotReplaced

// ErrCompactionAtCommit reports a [Writer.Commit] whose APPEND snapshot was committed but whose
// compaction at commit was not: the rows are in the table (on level 0, where the next
// compaction picks them up) and the compaction's files were deleted. Commit then returns the
// append's result with the error.
var ErrCompactionAtCommit = tableops.ErrCompactionAtCommit

// UncertainCommitError reports a commit whose publication could not be confirmed or refused
// (for example an I/O error while writing the snapshot file). The files it would reference are
// kept, because the snapshot may have been published; read the table again to find out.
type UncertainCommitError struct {
	// SnapshotID is the snapshot the commit tried to publish.
	SnapshotID int64
	// Err is the failure, with the operation and table it happened to.
	Err error
}

func (e *UncertainCommitError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *UncertainCommitError) Unwrap() error { return e.Err }

// opError wraps err with the operation and table it happened to; an uncertain commit becomes an
// [UncertainCommitError].
func opError(err error, format string, args ...any) error {
	wrapped := fmt.Errorf(format+": %w", append(args, err)...)
	var u *tableops.UncertainCommitError
	if errors.As(err, &u) {
		return &UncertainCommitError{SnapshotID: u.ID, Err: wrapped}
	}
	return wrapped
}

// Table is a Paimon table opened by [Open]. It is safe for concurrent use; every call reads
// the table's latest metadata afresh.
type Table struct {
	t      *table.Table
	path   string
	column string

	engineLibrary string

	mu     sync.Mutex
	engine fulltext.Engine

	// readers keeps searched archives open (KeepArchivesOpen); nil without it.
	readers *search.ReaderCache
}

// WithFileSystemOptions configures the file system the table lives on, with the keys of
// Paimon's catalog options for it. Tables on S3 (s3://bucket/path or s3a://bucket/path) take
// s3.endpoint, s3.region (or s3.endpoint.region), s3.access-key, s3.secret-key,
// s3.session.token, s3.path.style.access, s3.multipart.size and pkft's s3.conditional-writes,
// each also spelled s3a.* or fs.s3a.* as Java's S3FileIO accepts; they override the AWS_*
// environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL). Any other key, and any key for a local
// table, is refused by name when the table is opened.
func WithFileSystemOptions(opts map[string]string) OpenOption {
	return func(c *openconfig.Config) {
		if c.FSOptions == nil {
			c.FSOptions = map[string]string{}
		}
		for k, v := range opts {
			c.FSOptions[k] = v
		}
	}
}

// openConfigOf applies opts.
func openConfigOf(opts []OpenOption) openconfig.Config {
	var cfg openconfig.Config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg
}

// fileIOFor is the file system of the table at path: the one cfg names (the module's tests and
// harness), else the one path's scheme names, configured by the WithFileSystemOptions of cfg.
func fileIOFor(path string, cfg openconfig.Config) (fileio.FileIO, error) {
	if cfg.FileIO != nil {
		return cfg.FileIO, nil
	}
	return resolve.ForPath(path, cfg.FSOptions, nil)
}

// tablePath is path as a table is opened at it: on the file systems pkft picks, a local path
// whose first component holds a colon (a:b) is made absolute, so that no layer takes it for a
// URI scheme.
func tablePath(path string, cfg openconfig.Config) string {
	if cfg.FileIO != nil {
		return path
	}
	return resolve.LocalForm(path)
}

// KeepArchivesOpen makes the table keep the full-text archives its searches open, for the
// searches after them: a long-lived handle (a service answering queries) then opens each archive
// once instead of once per query, which on an object store saves the requests that fetch the
// archive's structures. Archives are immutable, so a kept archive stays valid while it is
// listed; the first search of a newer snapshot closes, in the partitions it searches, those the
// snapshot no longer lists (a compaction's retired archives), and searches of older snapshots add
// theirs until then. The handle holds one open file per kept archive: [Table.Close] releases
// them.
func KeepArchivesOpen() OpenOption { return func(c *openconfig.Config) { c.KeepArchives = true } }

// WithEngineLibrary loads the full-text engine from path, the file libpaimon_ftindex_ffi.so
// of the official paimon-ftindex wheel (or the directory holding it), instead of looking for it
// in PAIMON_FTINDEX_LIB_PATH, the Python on PATH and .cache/native/ ([FindEngine]). A path
// that holds no library is an error when the table first needs the engine; nothing else is
// tried.
func WithEngineLibrary(path string) OpenOption {
	return func(c *openconfig.Config) { c.EngineLibrary = path }
}

// Open opens the Paimon table at path (the table directory, holding schema/ and snapshot/).
// It reads the table's latest schema: a directory without one is an error. A table without
// a full-text index opens; maintaining or searching it reports [ErrNoFullTextIndex].
func Open(ctx context.Context, path string, opts ...OpenOption) (*Table, error) {
	cfg := openConfigOf(opts)
	if path == "" {
		return nil, errors.New("open table: empty path")
	}
	path = tablePath(path, cfg)
	fio, err := fileIOFor(path, cfg)
	if err != nil {
		return nil, fmt.Errorf("open table: %w", err)
	}
	t := table.Open(fio, path)
	s, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", path, err)
	}
	def, err := pkfulltext.ResolveDefinition(s)
	if err != nil && !errors.Is(err, pkfulltext.ErrNoIndex) {
		return nil, fmt.Errorf("open table %s: %w", path, err)
	}
	tb := &Table{t: t, path: path, engineLibrary: cfg.EngineLibrary, engine: cfg.Engine}
	if cfg.KeepArchives {
		tb.readers = &search.ReaderCache{}
	}
	if def != nil {
		tb.column = def.Column
	}
	return tb, nil
}

// Close releases what the handle keeps open: the archives of [KeepArchivesOpen] (an archive a
// search still uses closes when that search ends). Without that option there is nothing to
// release. The handle stays usable; its searches no longer keep archives.
func (t *Table) Close() error {
	if t.readers == nil {
		return nil
	}
	if err := t.readers.Close(); err != nil {
		return fmt.Errorf("close table %s: %w", t.path, err)
	}
	return nil
}

// Path is the table directory the table was opened from.
func (t *Table) Path() string { return t.path }

// FullTextColumn is the column the table's full-text index covers, as the schema read by
// [Open] names it; empty when the table has none.
func (t *Table) FullTextColumn() string { return t.column }

// latestSchema reads the table's latest schema (the one maintenance and search use).
func (t *Table) latestSchema(ctx context.Context) (*schema.TableSchema, error) {
	s, err := t.t.LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("read schema of %s: %w", t.path, err)
	}
	return s, nil
}
