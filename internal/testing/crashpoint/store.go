package crashpoint

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// Store is where the operation under test runs: the local file system (the default) or another
// FileIO, such as S3. The checks read a local view of the store's table.
type Store interface {
	// FileIO is the store's file system; the injected faults wrap it.
	FileIO() fileio.FileIO
	// Put copies the local table at dir into the store and returns its root there.
	Put(ctx context.Context, dir string) (string, error)
	// View returns a local directory holding the files of the table at root as they are now,
	// with the sizes and modification times the store records for them.
	View(ctx context.Context, root string) (string, error)
}

// LocalStore runs operations on the local copies themselves.
type LocalStore struct{}

// FileIO returns the local file system.
func (LocalStore) FileIO() fileio.FileIO { return fileio.NewLocal() }

// Put returns dir: the local copy is the table.
func (LocalStore) Put(_ context.Context, dir string) (string, error) { return dir, nil }

// View returns root: the table is local.
func (LocalStore) View(_ context.Context, root string) (string, error) { return root, nil }

// FileIOStore runs operations on copies of the tables under Base on FS (an S3 warehouse
// prefix such as "s3://bucket/crash"), viewed through downloads into TempDir.
type FileIOStore struct {
	FS      fileio.FileIO
	Base    string
	TempDir func() string
	n       atomic.Int64
}

// FileIO returns FS.
func (s *FileIOStore) FileIO() fileio.FileIO { return s.FS }

// Put uploads the table at dir to a fresh location under Base.
func (s *FileIOStore) Put(ctx context.Context, dir string) (string, error) {
	root := fmt.Sprintf("%s/t%d/%s", strings.TrimRight(s.Base, "/"), s.n.Add(1), filepath.Base(dir))
	if err := testtables.Upload(ctx, s.FS, dir, root); err != nil {
		return "", fmt.Errorf("put %s: %w", dir, err)
	}
	return root, nil
}

// View downloads the table at root into a fresh directory of TempDir.
func (s *FileIOStore) View(ctx context.Context, root string) (string, error) {
	dir := filepath.Join(s.TempDir(), path.Base(root))
	if err := testtables.Download(ctx, s.FS, root, dir); err != nil {
		return "", fmt.Errorf("view %s: %w", root, err)
	}
	return dir, nil
}
