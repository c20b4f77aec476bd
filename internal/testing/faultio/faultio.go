// Package faultio is a test-only FileIO that injects a failure or a crash at the k-th file
// operation of one kind, so a test can drive a table operation through every point where the
// file system can let it down.
//
// Operations are counted by kind (Op): a file write (Create, WriteFileAtomic, OverwriteFile), a
// publication (AtomicWriter.Commit, Rename, and the publishing step of WriteFileAtomic and
// OverwriteFile), a delete (Delete, DeleteQuietly), a directory listing, and a read (OpenReaderAt,
// Open, ReadFile, Exists, FileSize). When the armed Point is reached the FS either
//
//   - fails that call (Fail) and carries on normally afterwards;
//   - performs the call and then reports a failure (FailAfter), the case of a publication that
//     landed although the caller saw an error;
//   - crashes (Crash): the call and every later call return ErrCrashed and nothing more reaches
//     the disk. Files being written stay where a dead process would leave them (temporary files
//     are not removed), as do the files already published;
//   - fails that call and every later delete (FailNoCleanup), so the operation's cleanup fails.
package faultio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// ErrInjected is the error of an injected failure.
var ErrInjected = errors.New("faultio: injected failure")

// ErrCrashed is returned by every call from the crash point on.
var ErrCrashed = errors.New("faultio: crashed")

// Op is a kind of file operation.
type Op int

// The kinds of file operations counted.
const (
	OpWrite Op = iota
	OpRename
	OpDelete
	OpList
	OpRead
	numOps
)

// Ops lists every kind of operation.
var Ops = []Op{OpWrite, OpRename, OpDelete, OpList, OpRead}

func (o Op) String() string {
	switch o {
	case OpWrite:
		return "write"
	case OpRename:
		return "rename"
	case OpDelete:
		return "delete"
	case OpList:
		return "list"
	case OpRead:
		return "read"
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// Mode is what happens at the injection point.
type Mode int

// The injection modes.
const (
	// Fail makes the call fail without effect.
	Fail Mode = iota
	// FailAfter performs the call, then reports a failure.
	FailAfter
	// Crash stops the operation dead: the call and every later one fail with ErrCrashed.
	Crash
	// FailNoCleanup makes the call fail without effect, and every later delete too: the
	// operation's cleanup cannot remove what it wrote.
	FailNoCleanup
)

func (m Mode) String() string {
	switch m {
	case Fail:
		return "fail"
	case FailAfter:
		return "fail-after"
	case Crash:
		return "crash"
	case FailNoCleanup:
		return "fail-no-cleanup"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// Point is one injection point: the K-th (1-based) operation of kind Op.
type Point struct {
	Op   Op
	K    int
	Mode Mode
}

func (p Point) String() string { return fmt.Sprintf("%s@%s#%d", p.Mode, p.Op, p.K) }

// Counts are the operations of each kind an FS has seen.
type Counts [numOps]int

// Of returns the count of op.
func (c Counts) Of(op Op) int { return c[op] }

// FS wraps a FileIO and injects at most one fault, at the armed Point.
type FS struct {
	inner fileio.FileIO

	mu      sync.Mutex
	armed   bool
	point   Point
	counts  Counts
	fired   bool
	crashed bool
	noDel   bool
	trace   []string
}

var _ fileio.FileIO = (*FS)(nil)

// New wraps inner; nothing is armed, so it only counts.
func New(inner fileio.FileIO) *FS { return &FS{inner: inner} }

// Arm sets the injection point and resets the counters.
func (f *FS) Arm(p Point) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed, f.point, f.counts, f.fired, f.crashed, f.noDel, f.trace = true, p, Counts{}, false, false, false, nil
}

// Disarm stops injecting (a crashed FS stays crashed until the next Arm).
func (f *FS) Disarm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = false
}

// Fired reports whether the armed point was reached.
func (f *FS) Fired() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired
}

// Crashed reports whether the FS is crashed.
func (f *FS) Crashed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashed
}

// Counts returns the operations counted since the last Arm (or since New).
func (f *FS) Counts() Counts {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts
}

// Trace returns the operations seen since the last Arm, as "op path" lines.
func (f *FS) Trace() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.trace...)
}

// step counts one operation and decides its fate: proceed, fail before, or fail after.
type fate int

const (
	proceed fate = iota
	failBefore
	failAfter
	dead
)

func (f *FS) step(op Op, path string) fate {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.crashed {
		return dead
	}
	f.counts[op]++
	f.trace = append(f.trace, op.String()+" "+path)
	if op == OpDelete && f.noDel {
		return failBefore
	}
	if !f.armed || f.fired || f.point.Op != op || f.point.K != f.counts[op] {
		return proceed
	}
	f.fired = true
	switch f.point.Mode {
	case Crash:
		f.crashed = true
		return dead
	case FailAfter:
		return failAfter
	case FailNoCleanup:
		f.noDel = true
		return failBefore
	default:
		return failBefore
	}
}

// alive reports ErrCrashed once the FS crashed, without counting an operation.
func (f *FS) alive(op, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.crashed {
		return fmt.Errorf("%s %s: %w", op, path, ErrCrashed)
	}
	return nil
}

func errFor(fa fate, op Op, path string) error {
	if fa == dead {
		return fmt.Errorf("%s %s: %w", op, path, ErrCrashed)
	}
	return fmt.Errorf("%s %s: %w", op, path, ErrInjected)
}

// OpenReaderAt opens a file for random access (a read).
func (f *FS) OpenReaderAt(ctx context.Context, path string) (fileio.ReadAtFile, error) {
	fa := f.step(OpRead, path)
	if fa == failBefore || fa == dead {
		return nil, errFor(fa, OpRead, path)
	}
	r, err := f.inner.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	if fa == failAfter {
		r.Close()
		return nil, errFor(fa, OpRead, path)
	}
	return &readerAt{ReadAtFile: r, fs: f, path: path}, nil
}

type readerAt struct {
	fileio.ReadAtFile
	fs   *FS
	path string
}

func (r *readerAt) ReadAt(p []byte, off int64) (int, error) {
	if err := r.fs.alive("read", r.path); err != nil {
		return 0, err
	}
	return r.ReadAtFile.ReadAt(p, off)
}

// Open opens a file as a stream (a read).
func (f *FS) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	fa := f.step(OpRead, path)
	if fa == failBefore || fa == dead {
		return nil, errFor(fa, OpRead, path)
	}
	r, err := f.inner.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if fa == failAfter {
		r.Close()
		return nil, errFor(fa, OpRead, path)
	}
	return &stream{ReadCloser: r, fs: f, path: path}, nil
}

type stream struct {
	io.ReadCloser
	fs   *FS
	path string
}

func (s *stream) Read(p []byte) (int, error) {
	if err := s.fs.alive("read", s.path); err != nil {
		return 0, err
	}
	return s.ReadCloser.Read(p)
}

// ReadFile reads a whole file (a read).
func (f *FS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if fa := f.step(OpRead, path); fa != proceed {
		return nil, errFor(fa, OpRead, path)
	}
	return f.inner.ReadFile(ctx, path)
}

// Exists checks a path (a read).
func (f *FS) Exists(ctx context.Context, path string) (bool, error) {
	if fa := f.step(OpRead, path); fa != proceed {
		return false, errFor(fa, OpRead, path)
	}
	return f.inner.Exists(ctx, path)
}

// FileSize stats a file (a read).
func (f *FS) FileSize(ctx context.Context, path string) (int64, error) {
	if fa := f.step(OpRead, path); fa != proceed {
		return 0, errFor(fa, OpRead, path)
	}
	return f.inner.FileSize(ctx, path)
}

// List lists a directory (a list).
func (f *FS) List(ctx context.Context, dir string) ([]fileio.FileStatus, error) {
	fa := f.step(OpList, dir)
	if fa == failBefore || fa == dead {
		return nil, errFor(fa, OpList, dir)
	}
	out, err := f.inner.List(ctx, dir)
	if err == nil && fa == failAfter {
		return nil, errFor(fa, OpList, dir)
	}
	return out, err
}

// Create starts a file (a write); its Commit is a publication.
func (f *FS) Create(ctx context.Context, path string) (fileio.AtomicWriter, error) {
	fa := f.step(OpWrite, path)
	if fa == failBefore || fa == dead {
		return nil, errFor(fa, OpWrite, path)
	}
	w, err := f.inner.Create(ctx, path)
	if err != nil {
		return nil, err
	}
	if fa == failAfter {
		// The temporary file was created; a failing writer removes it like a real one would.
		w.Abort()
		return nil, errFor(fa, OpWrite, path)
	}
	return &writer{AtomicWriter: w, fs: f}, nil
}

type writer struct {
	fileio.AtomicWriter
	fs *FS
}

func (w *writer) Write(p []byte) (int, error) {
	if err := w.fs.alive("write", w.Path()); err != nil {
		return 0, err
	}
	return w.AtomicWriter.Write(p)
}

func (w *writer) Commit(ctx context.Context) error {
	fa := w.fs.step(OpRename, w.Path())
	switch fa {
	case dead:
		// A dead process leaves its temporary file behind.
		return errFor(fa, OpRename, w.Path())
	case failBefore:
		w.AtomicWriter.Abort()
		return errFor(fa, OpRename, w.Path())
	}
	if err := w.AtomicWriter.Commit(ctx); err != nil {
		return err
	}
	if fa == failAfter {
		return errFor(fa, OpRename, w.Path())
	}
	return nil
}

func (w *writer) Abort() error {
	if err := w.fs.alive("abort", w.Path()); err != nil {
		return err
	}
	return w.AtomicWriter.Abort()
}

// WriteFileAtomic writes through Create and Commit: a write and a publication.
func (f *FS) WriteFileAtomic(ctx context.Context, path string, data []byte) error {
	return fileio.WriteNew(ctx, f, path, data)
}

// OverwriteFile is a write followed by a publication.
func (f *FS) OverwriteFile(ctx context.Context, path string, data []byte) error {
	if fa := f.step(OpWrite, path); fa == failBefore || fa == dead {
		return errFor(fa, OpWrite, path)
	} else if fa == failAfter {
		return errFor(fa, OpWrite, path)
	}
	fa := f.step(OpRename, path)
	if fa == failBefore || fa == dead {
		return errFor(fa, OpRename, path)
	}
	if err := f.inner.OverwriteFile(ctx, path, data); err != nil {
		return err
	}
	if fa == failAfter {
		return errFor(fa, OpRename, path)
	}
	return nil
}

// Delete removes a file (a delete).
func (f *FS) Delete(ctx context.Context, path string) error {
	fa := f.step(OpDelete, path)
	if fa == failBefore || fa == dead {
		return errFor(fa, OpDelete, path)
	}
	if err := f.inner.Delete(ctx, path); err != nil {
		return err
	}
	if fa == failAfter {
		return errFor(fa, OpDelete, path)
	}
	return nil
}

// DeleteQuietly removes a file ignoring failures (a delete; an injected failure keeps the file).
func (f *FS) DeleteQuietly(ctx context.Context, path string) {
	if fa := f.step(OpDelete, path); fa == failBefore || fa == dead {
		return
	}
	f.inner.DeleteQuietly(ctx, path)
}

// Mkdirs creates directories; it is not counted but fails once crashed.
func (f *FS) Mkdirs(ctx context.Context, path string) error {
	if err := f.alive("mkdirs", path); err != nil {
		return err
	}
	return f.inner.Mkdirs(ctx, path)
}

// Rename moves a file (a publication).
func (f *FS) Rename(ctx context.Context, src, dst string) error {
	fa := f.step(OpRename, dst)
	if fa == failBefore || fa == dead {
		return errFor(fa, OpRename, dst)
	}
	if err := f.inner.Rename(ctx, src, dst); err != nil {
		return err
	}
	if fa == failAfter {
		return errFor(fa, OpRename, dst)
	}
	return nil
}
