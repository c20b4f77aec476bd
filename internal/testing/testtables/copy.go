package testtables

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// Upload copies every file under the local directory dir to the same relative path under dst
// on fio (an S3 warehouse, say), each published without overwrite.
func Upload(ctx context.Context, fio fileio.FileIO, dir, dst string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := fio.WriteFileAtomic(ctx, strings.TrimRight(dst, "/")+"/"+filepath.ToSlash(rel), data); err != nil {
			return fmt.Errorf("upload %s: %w", rel, err)
		}
		return nil
	})
}

// Download copies every file under root on fio into the local directory dir (created), at the
// same relative paths, each with the modification time fio lists for it.
func Download(ctx context.Context, fio fileio.FileIO, root, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := fio.List(ctx, root)
	if err != nil {
		return fmt.Errorf("download %s: %w", root, err)
	}
	for _, e := range entries {
		local := filepath.Join(dir, e.Name)
		if e.IsDir {
			if err := Download(ctx, fio, e.Path, local); err != nil {
				return err
			}
			continue
		}
		data, err := fio.ReadFile(ctx, e.Path)
		if err != nil {
			return fmt.Errorf("download %s: %w", e.Path, err)
		}
		if err := os.WriteFile(local, data, 0o644); err != nil {
			return err
		}
		if e.ModTimeMillis > 0 {
			t := time.UnixMilli(e.ModTimeMillis)
			if err := os.Chtimes(local, t, t); err != nil {
				return err
			}
		}
	}
	return nil
}
