// Package fileio is the file system abstraction every table operation goes
// through, and its local-filesystem implementation.
//
// It mirrors what Paimon's FileIO contract provides to the commit protocol:
// files are written under a hidden temporary name in the target directory
// and published under their final name by an operation that never replaces an
// existing file (Java: FileIO.tryToWriteAtomic + LocalFileIO.rename, which
// refuses an existing destination). A snapshot commit relies on exactly that:
// two writers racing for snapshot-N must not both succeed.
package fileio

import (
	"context"
	"errors"
	"io"
)

// ErrExists reports that a file could not be published because its final
// name is already taken. Callers of the commit protocol treat it as "someone
// else committed first".
var ErrExists = errors.New("file already exists")

// FileStatus describes one entry of a directory listing.
type FileStatus struct {
	// Path is the full path of the entry (directory path joined with Name).
	Path string
	// Name is the last path component.
	Name string
	// Size is the length in bytes (0 for directories).
	Size int64
	// IsDir is true for directories.
	IsDir bool
	// ModTimeMillis is the modification time in epoch milliseconds.
	ModTimeMillis int64
}

// ReadAtFile is a file opened for random access, the way index and data
// readers need it (archives, Parquet footers, deletion vector ranges).
type ReadAtFile interface {
	io.ReaderAt
	io.Closer
	// Size is the length of the file in bytes at open time.
	Size() int64
}

// AtomicWriter is a file being written under a temporary name. Nothing is
// visible under the final name until Commit succeeds; Abort (or a failed
// Commit) removes the temporary file.
type AtomicWriter interface {
	io.Writer
	// Pos is the number of bytes written so far.
	Pos() int64
	// Path is the final path the file will be published under.
	Path() string
	// Commit syncs the data and publishes the file under its final name
	// without overwriting; it returns an error wrapping ErrExists when the
	// final name is taken. The temporary file is removed on any failure.
	Commit(ctx context.Context) error
	// Abort discards the temporary file. It is safe to call after Commit
	// (then it does nothing) and more than once.
	Abort() error
}

// FileIO is the file system used by every table operation. Paths are strings;
// implementations decide which schemes they accept. A missing file is
// reported by an error for which errors.Is(err, fs.ErrNotExist) holds.
type FileIO interface {
	// OpenReaderAt opens a file for random access.
	OpenReaderAt(ctx context.Context, path string) (ReadAtFile, error)
	// Open opens a file as a sequential stream.
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	// ReadFile returns the whole content of a file.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Create starts writing a new file that is published atomically, without
	// overwriting, by AtomicWriter.Commit. Parent directories are created.
	Create(ctx context.Context, path string) (AtomicWriter, error)
	// WriteFileAtomic writes data to path through Create/Commit; it fails
	// with an error wrapping ErrExists when path already exists.
	WriteFileAtomic(ctx context.Context, path string, data []byte) error
	// OverwriteFile replaces the content of path (used for hint files such as
	// snapshot/LATEST that may be rewritten).
	OverwriteFile(ctx context.Context, path string, data []byte) error
	// Exists reports whether path exists.
	Exists(ctx context.Context, path string) (bool, error)
	// FileSize returns the length of a file.
	FileSize(ctx context.Context, path string) (int64, error)
	// List lists a directory. A missing directory yields an empty result,
	// like Paimon's LocalFileIO.listStatus.
	List(ctx context.Context, dir string) ([]FileStatus, error)
	// Delete removes a file or an empty directory. Deleting a missing path is
	// not an error.
	Delete(ctx context.Context, path string) error
	// DeleteQuietly removes a file and ignores every failure; it is used for
	// cleanup paths where the original error matters more.
	DeleteQuietly(ctx context.Context, path string)
	// Mkdirs creates a directory and its parents.
	Mkdirs(ctx context.Context, path string) error
	// Rename moves src to dst without overwriting; it returns an error
	// wrapping ErrExists when dst exists. Parent directories of dst are
	// created.
	Rename(ctx context.Context, src, dst string) error
}

// Creator is the part of FileIO that starts atomic writes.
type Creator interface {
	Create(ctx context.Context, path string) (AtomicWriter, error)
}

// WriteNew writes data to path through c's Create, Write and Commit (aborting on a failed
// write): the WriteFileAtomic of every implementation whose publication is its Commit.
func WriteNew(ctx context.Context, c Creator, path string, data []byte) error {
	w, err := c.Create(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Commit(ctx)
}
