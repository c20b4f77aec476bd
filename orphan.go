package pkft

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/orphan"
	"github.com/paimon-pkft/pkft/internal/paths"
)

// DefaultOrphanAge is how old a file must be for [Table.RemoveOrphanFiles] to delete it when
// [WithOlderThan] is not given: one day, Paimon's default.
const DefaultOrphanAge = 24 * time.Hour

// RemoveOrphanFilesOption configures [Table.RemoveOrphanFiles]: [WithOlderThan], [WithDryRun]
// and [WithParallelism].
type RemoveOrphanFilesOption interface{ applyOrphan(*orphanConfig) }

type orphanConfig struct {
	olderThan   time.Time
	dryRun      bool
	parallelism int
}

// OrphanFile is a file [Table.RemoveOrphanFiles] deleted (or would delete, in a dry run).
type OrphanFile struct {
	// Path is the file's path relative to the table directory, with "/" separators (the full
	// path for a file under a root of data-file.external-paths).
	Path string `json:"path"`
	// Size is its length in bytes.
	Size int64 `json:"size"`
}

// OrphanFilesResult is what [Table.RemoveOrphanFiles] deleted.
type OrphanFilesResult struct {
	// OlderThan is the threshold used: only files modified before it were considered.
	OlderThan time.Time `json:"olderThan"`
	// DryRun is true when nothing was deleted and Deleted lists what would have been.
	DryRun bool `json:"dryRun"`
	// Deleted are the orphan files, ordered by path.
	Deleted []OrphanFile `json:"deleted"`
	// DeletedBytes is the sum of their sizes.
	DeletedBytes int64 `json:"deletedBytes"`
	// DeletedDirectories are the empty directories removed (relative paths; none in a dry run).
	DeletedDirectories []string `json:"deletedDirectories"`
}

// RemoveOrphanFiles deletes the table's orphan files as Paimon 2.0.0's remove_orphan_files
// (LocalOrphanFilesClean) does: the files of manifest/, index/, statistics/ and every bucket
// directory that no snapshot, tag, long-lived changelog or branch references, and the files of
// every branch's snapshot/ and changelog/ directories that are neither snapshots (changelogs) nor
// hints, when they were modified before the threshold ([WithOlderThan], default one day ago).
// Empty directories it finds or leaves are removed. A file is never deleted while any snapshot,
// tag or branch names it; metadata that cannot be read (other than a file that vanished) stops
// the operation before it deletes a data or metadata file. The roots of data-file.external-paths
// are listed as the data directory is; their files are reported by full path.
func (t *Table) RemoveOrphanFiles(ctx context.Context, opts ...RemoveOrphanFilesOption) (*OrphanFilesResult, error) {
	now := time.Now()
	cfg := orphanConfig{olderThan: now.Add(-DefaultOrphanAge)}
	for _, o := range opts {
		if o != nil {
			o.applyOrphan(&cfg)
		}
	}
	if !cfg.olderThan.Before(now) {
		return nil, fmt.Errorf("remove orphan files of %s: the threshold %s is not in the past; files being written now, which no snapshot references yet, would be deleted", t.path, cfg.olderThan.Format(time.RFC3339Nano))
	}
	if cfg.parallelism < 0 {
		return nil, fmt.Errorf("remove orphan files of %s: parallelism %d is negative", t.path, cfg.parallelism)
	}
	if cfg.parallelism == 0 {
		cfg.parallelism = runtime.NumCPU()
	}
	if t.t == nil {
		return nil, errors.New("remove orphan files: the table is not open")
	}
	res, err := orphan.Clean(ctx, t.t.FileIO, t.t.Root, orphan.Options{
		OlderThanMillis: cfg.olderThan.UnixMilli(), DryRun: cfg.dryRun, Parallelism: cfg.parallelism,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.path, err)
	}
	out := &OrphanFilesResult{OlderThan: time.UnixMilli(cfg.olderThan.UnixMilli()), DryRun: cfg.dryRun, DeletedBytes: res.DeletedBytes,
		Deleted: []OrphanFile{}, DeletedDirectories: []string{}}
	for _, f := range res.Deleted {
		out.Deleted = append(out.Deleted, OrphanFile{Path: relativeTo(t.t.Root, f.Path), Size: f.Size})
	}
	for _, d := range res.DeletedDirs {
		out.DeletedDirectories = append(out.DeletedDirectories, relativeTo(t.t.Root, d))
	}
	return out, nil
}

// relativeTo is p relative to root when p lies under it, p otherwise.
func relativeTo(root, p string) string {
	root = strings.TrimRight(paths.Normalize(root), "/") + "/"
	if rel, ok := strings.CutPrefix(paths.Normalize(p), root); ok {
		return rel
	}
	return p
}
