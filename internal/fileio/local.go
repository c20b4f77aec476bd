package fileio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// Local is the FileIO of the local file system. It accepts plain absolute or
// relative paths and "file:" URIs ("file:/x", "file:///x"); the authority of
// a file URI is ignored, like Java's LocalFileIO.toFile which only keeps the
// URI path.
type Local struct{}

var _ FileIO = Local{}

// NewLocal returns the local-filesystem FileIO.
func NewLocal() Local { return Local{} }

// LocalPath converts a path accepted by Local into an operating-system path.
func LocalPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	colon := strings.IndexByte(p, ':')
	slash := strings.IndexByte(p, '/')
	if colon < 0 || (slash >= 0 && slash < colon) {
		return p, nil
	}
	if scheme := p[:colon]; !strings.EqualFold(scheme, "file") {
		return "", fmt.Errorf("path %q: scheme %q is not supported by the local file system", p, scheme)
	}
	rest := p[colon+1:]
	if strings.HasPrefix(rest, "//") {
		// Skip the authority, keep the path.
		next := strings.IndexByte(rest[2:], '/')
		if next < 0 {
			return "", fmt.Errorf("path %q: file URI without a path", p)
		}
		rest = rest[2+next:]
	}
	if rest == "" {
		return "", fmt.Errorf("path %q: file URI without a path", p)
	}
	return rest, nil
}

func ctxErr(ctx context.Context, op, path string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s %s: %w", op, path, err)
	}
	return nil
}

type localReadAt struct {
	*os.File
	size int64
}

func (f localReadAt) Size() int64 { return f.size }

// OpenReaderAt opens a file for random access.
func (Local) OpenReaderAt(ctx context.Context, path string) (ReadAtFile, error) {
	if err := ctxErr(ctx, "open", path); err != nil {
		return nil, err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f, err := os.Open(lp)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: is a directory", path)
	}
	return localReadAt{File: f, size: st.Size()}, nil
}

// Open opens a file as a sequential stream.
func (Local) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	if err := ctxErr(ctx, "open", path); err != nil {
		return nil, err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f, err := os.Open(lp)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// ReadFile returns the whole content of a file.
func (Local) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if err := ctxErr(ctx, "read", path); err != nil {
		return nil, err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	b, err := os.ReadFile(lp)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// tempPath names the temporary sibling of a file the way Paimon's
// Path.createTempPath does: hidden (leading dot, so listings by prefix skip
// it) and unique.
func tempPath(lp string) string {
	dir, name := filepath.Split(lp)
	return filepath.Join(dir, "."+name+"."+uuid.NewString()+".tmp")
}

type localWriter struct {
	path  string // final path as given by the caller
	final string // final local path
	tmp   string // temporary local path
	f     *os.File
	w     *bufio.Writer
	pos   int64
	done  bool
	err   error
}

// Create starts writing a new file that Commit publishes without overwriting.
func (Local) Create(ctx context.Context, path string) (AtomicWriter, error) {
	if err := ctxErr(ctx, "create", path); err != nil {
		return nil, err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	tmp := tempPath(lp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &localWriter{path: path, final: lp, tmp: tmp, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (w *localWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("write %s: writer already closed", w.path)
	}
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	w.pos += int64(n)
	if err != nil {
		w.err = fmt.Errorf("write %s: %w", w.path, err)
		return n, w.err
	}
	return n, nil
}

func (w *localWriter) Pos() int64   { return w.pos }
func (w *localWriter) Path() string { return w.path }

func (w *localWriter) Commit(ctx context.Context) error {
	if w.done {
		return fmt.Errorf("commit %s: writer already closed", w.path)
	}
	err := w.commit(ctx)
	w.done = true
	if err != nil {
		os.Remove(w.tmp)
	}
	return err
}

func (w *localWriter) commit(ctx context.Context) error {
	if w.err != nil {
		w.f.Close()
		return w.err
	}
	if err := ctxErr(ctx, "commit", w.path); err != nil {
		w.f.Close()
		return err
	}
	if err := w.w.Flush(); err != nil {
		w.f.Close()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		return fmt.Errorf("sync %s: %w", w.path, err)
	}
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", w.path, err)
	}
	if err := renameNoReplace(w.tmp, w.final); err != nil {
		return fmt.Errorf("publish %s: %w", w.path, err)
	}
	syncDir(filepath.Dir(w.final))
	return nil
}

func (w *localWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("abort %s: %w", w.path, err)
	}
	return nil
}

// WriteFileAtomic writes data to a new file published without overwriting.
func (l Local) WriteFileAtomic(ctx context.Context, path string, data []byte) error {
	return WriteNew(ctx, l, path, data)
}

// OverwriteFile replaces the content of path. Unlike Java's LocalFileIO, which
// truncates and rewrites in place, the new content is written to a temporary
// file and renamed over the target, so readers see either the old or the new
// content, never a partial one.
func (Local) OverwriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctxErr(ctx, "overwrite", path); err != nil {
		return err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return fmt.Errorf("overwrite %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return fmt.Errorf("overwrite %s: %w", path, err)
	}
	tmp := tempPath(lp)
	if err := writeSynced(tmp, data); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("overwrite %s: %w", path, err)
	}
	if err := os.Rename(tmp, lp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("overwrite %s: %w", path, err)
	}
	syncDir(filepath.Dir(lp))
	return nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a rename durable. Failures are ignored: the rename itself
// already happened and some file systems do not support syncing directories.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// Exists reports whether path exists.
func (Local) Exists(ctx context.Context, path string) (bool, error) {
	if err := ctxErr(ctx, "stat", path); err != nil {
		return false, err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	_, err = os.Stat(lp)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
}

// FileSize returns the length of a file.
func (Local) FileSize(ctx context.Context, path string) (int64, error) {
	if err := ctxErr(ctx, "stat", path); err != nil {
		return 0, err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", path, err)
	}
	st, err := os.Stat(lp)
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", path, err)
	}
	return st.Size(), nil
}

// List lists a directory; a missing directory yields no entries. Entries that
// vanish while listing are skipped, like Java's LocalFileIO.listStatus.
func (Local) List(ctx context.Context, dir string) ([]FileStatus, error) {
	if err := ctxErr(ctx, "list", dir); err != nil {
		return nil, err
	}
	lp, err := LocalPath(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	entries, err := os.ReadDir(lp)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	base := strings.TrimRight(dir, "/")
	out := make([]FileStatus, 0, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		st := FileStatus{
			Path:          base + "/" + e.Name(),
			Name:          e.Name(),
			IsDir:         info.IsDir(),
			ModTimeMillis: info.ModTime().UnixMilli(),
		}
		if !st.IsDir {
			st.Size = info.Size()
		}
		out = append(out, st)
	}
	return out, nil
}

// Delete removes a file or an empty directory; a missing path is not an error.
func (Local) Delete(ctx context.Context, path string) error {
	if err := ctxErr(ctx, "delete", path); err != nil {
		return err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	if err := os.Remove(lp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	return nil
}

// DeleteQuietly removes a file and ignores failures. It deliberately ignores
// ctx cancellation: cleanup must still happen when an operation was
// cancelled.
func (Local) DeleteQuietly(_ context.Context, path string) {
	if lp, err := LocalPath(path); err == nil {
		os.Remove(lp)
	}
}

// Mkdirs creates a directory and its parents.
func (Local) Mkdirs(ctx context.Context, path string) error {
	if err := ctxErr(ctx, "mkdirs", path); err != nil {
		return err
	}
	lp, err := LocalPath(path)
	if err != nil {
		return fmt.Errorf("mkdirs %s: %w", path, err)
	}
	if err := os.MkdirAll(lp, 0o755); err != nil {
		return fmt.Errorf("mkdirs %s: %w", path, err)
	}
	return nil
}

// Rename moves src to dst without overwriting. Unlike Java's LocalFileIO, an
// existing directory at dst is not treated as "move into"; it is reported as
// ErrExists.
func (Local) Rename(ctx context.Context, src, dst string) error {
	if err := ctxErr(ctx, "rename", src); err != nil {
		return err
	}
	ls, err := LocalPath(src)
	if err != nil {
		return fmt.Errorf("rename %s: %w", src, err)
	}
	ld, err := LocalPath(dst)
	if err != nil {
		return fmt.Errorf("rename %s: %w", dst, err)
	}
	if err := os.MkdirAll(filepath.Dir(ld), 0o755); err != nil {
		return fmt.Errorf("rename %s to %s: %w", src, dst, err)
	}
	if err := renameNoReplace(ls, ld); err != nil {
		return fmt.Errorf("rename %s to %s: %w", src, dst, err)
	}
	syncDir(filepath.Dir(ld))
	return nil
}
