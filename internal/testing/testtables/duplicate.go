package testtables

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
)

// DuplicateArchive gives the first full-text archive of the local table at dir a twin, as two
// maintainers that built the same level concurrently leave it: a copy of the archive file under
// a new name, listed next to the original in the index manifest of a new snapshot (the latest
// one's data files, committed on top of it). Both are then candidates of one level, which Java
// and pkft classify as stale.
func DuplicateArchive(ctx context.Context, dir string) error {
	return CommitIndexEntries(ctx, dir, func(c *table.Contents) ([]meta.IndexManifestEntry, error) {
		for _, e := range c.IndexEntries {
			if e.IndexFile.IndexType != pkfulltext.IndexType {
				continue
			}
			twin := e
			twin.IndexFile.FileName = "twin-" + e.IndexFile.FileName
			if err := copyFileNamed(dir, e.IndexFile.FileName, twin.IndexFile.FileName); err != nil {
				return nil, err
			}
			return []meta.IndexManifestEntry{twin}, nil
		}
		return nil, fmt.Errorf("duplicate an archive of %s: the table has no full-text archive", dir)
	})
}

// CommitIndexEntries commits, on the latest snapshot of the local table at dir, a snapshot with
// the same data files whose index manifest holds the latest one's entries and those extra
// returns.
func CommitIndexEntries(ctx context.Context, dir string, extra func(*table.Contents) ([]meta.IndexManifestEntry, error)) error {
	tbl := table.Open(fileio.NewLocal(), dir)
	latest, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	c, err := tbl.Read(ctx, latest)
	if err != nil {
		return err
	}
	more, err := extra(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := manifest.WriteIndexManifest(&buf, append(slices.Clone(c.IndexEntries), more...), manifest.WriteOptions{}); err != nil {
		return fmt.Errorf("commit index entries to %s: %w", dir, err)
	}
	name := "index-manifest-" + uuid.NewString() + "-0"
	if err := os.WriteFile(filepath.Join(dir, "manifest", name), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("commit index entries to %s: %w", dir, err)
	}
	next := *latest
	next.ID++
	next.IndexManifest = &name
	if err := tbl.Snapshots.Commit(ctx, &next); err != nil {
		return fmt.Errorf("commit index entries to %s: %w", dir, err)
	}
	return nil
}

// copyFileNamed copies the file named name under dir, next to itself, as twin.
func copyFileNamed(dir, name, twin string) error {
	var found string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found = p
		}
		return err
	})
	if err == nil && found == "" {
		err = errors.New("no such file")
	}
	if err != nil {
		return fmt.Errorf("find %s under %s: %w", name, dir, err)
	}
	data, err := os.ReadFile(found)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(filepath.Dir(found), twin), data, 0o644)
}
