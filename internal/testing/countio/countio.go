// Package countio is a test-only FileIO that counts what an operation reads: how many times each
// file is opened (OpenReaderAt, Open, ReadFile) and how many bytes are read, so tests and
// benchmarks can assert that an operation reads a file once, or report its reads.
package countio

import (
	"context"
	"io"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// FS wraps a FileIO and counts its reads. It is safe for concurrent use.
type FS struct {
	fileio.FileIO

	mu    sync.Mutex
	opens map[string]int
	bytes atomic.Int64
}

// New counts the reads made through fio.
func New(fio fileio.FileIO) *FS {
	return &FS{FileIO: fio, opens: map[string]int{}}
}

func (c *FS) opened(path string) {
	c.mu.Lock()
	c.opens[path]++
	c.mu.Unlock()
}

// Opens returns how many times each path was opened for reading since the last Reset.
func (c *FS) Opens() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.opens)
}

// BytesRead is how many bytes were read since the last Reset.
func (c *FS) BytesRead() int64 { return c.bytes.Load() }

// Reset sets every count back to zero.
func (c *FS) Reset() {
	c.mu.Lock()
	c.opens = map[string]int{}
	c.mu.Unlock()
	c.bytes.Store(0)
}

// OpenReaderAt opens path for random access, counted.
func (c *FS) OpenReaderAt(ctx context.Context, path string) (fileio.ReadAtFile, error) {
	f, err := c.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	c.opened(path)
	return &readAtFile{ReadAtFile: f, fs: c}, nil
}

// Open opens path as a stream, counted.
func (c *FS) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	r, err := c.FileIO.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	c.opened(path)
	return &stream{ReadCloser: r, fs: c}, nil
}

// ReadFile reads path whole, counted.
func (c *FS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	data, err := c.FileIO.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	c.opened(path)
	c.bytes.Add(int64(len(data)))
	return data, nil
}

type readAtFile struct {
	fileio.ReadAtFile
	fs *FS
}

func (f *readAtFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.ReadAtFile.ReadAt(p, off)
	f.fs.bytes.Add(int64(n))
	return n, err
}

type stream struct {
	io.ReadCloser
	fs *FS
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.fs.bytes.Add(int64(n))
	return n, err
}
