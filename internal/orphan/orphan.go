// Package orphan removes a table's orphan files: the files in its metadata and data directories
// that no snapshot, tag, long-lived changelog or branch references, older than a threshold. It is
// a port of Paimon 2.0.0's OrphanFilesClean and LocalOrphanFilesClean.
//
// As in Java, a file is referenced by its name: the candidates are the files (not directories)
// directly in manifest/, index/, statistics/ and every bucket directory (and every partition
// directory without a bucket directory) whose modification time is before the threshold, keyed by
// file name; the used names are, for every snapshot, tag and long-lived changelog of every branch,
// its manifest lists, the manifests they list, its index manifest (when it exists) and the index
// files it lists, its statistics file, and the data files and their extra files the manifests
// list. The snapshot and changelog directories of every branch are cleaned apart: a file there
// that is neither a snapshot (changelog) file nor a hint, older than the threshold, is removed.
// The roots of data-file.external-paths are listed as the data directory is (through the same
// FileIO). Empty directories among those listed (older than the threshold) are removed, and after
// deletion empty bucket and partition directories are.
//
// A missing snapshot, manifest list or manifest counts as empty (another process expired it);
// any other read failure stops the cleaning before anything is deleted from the data and
// metadata directories, so a used file is never deleted because it could not be read.
//
// Two departures from Java, neither changing what a successful run deletes: a file that cannot
// be deleted stops the cleaning with an error (Java's deleteQuietly logs nothing and goes on),
// and when two candidates share a name the one listed last stands for it, in a fixed order
// (Java keeps whichever its thread pool returns last).
package orphan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Names of the layout this package needs beyond internal/paths.
const (
	tagDir             = "tag"
	tagPrefix          = "tag-"
	changelogDir       = "changelog"
	changelogPrefix    = "changelog-"
	managedBlobSuffix  = ".managed.blob"
	optionExternalPath = paths.OptionExternalPaths
)

// Options configure one cleaning.
type Options struct {
	// OlderThanMillis is the threshold: only files modified strictly before it (epoch
	// milliseconds) are candidates.
	OlderThanMillis int64
	// DryRun lists what would be deleted and deletes nothing.
	DryRun bool
	// Parallelism bounds the manifests read at once (Java's parallelism, which sizes the thread
	// pool); 0 or less means 1.
	Parallelism int
}

// File is one deleted (or, in a dry run, deletable) file.
type File struct {
	// Path is the file's full path.
	Path string
	// Size is its length in bytes.
	Size int64
}

// Result is what a cleaning deleted (or would delete, in a dry run).
type Result struct {
	// Deleted are the orphan files, ordered by path.
	Deleted []File
	// DeletedBytes is the sum of their sizes.
	DeletedBytes int64
	// DeletedDirs are the empty directories removed (none in a dry run), ordered by path.
	DeletedDirs []string
}

// Clean removes the orphan files of the table at root (see the package documentation).
func Clean(ctx context.Context, fio fileio.FileIO, root string, opts Options) (*Result, error) {
	root = paths.Normalize(root)
	t := table.Open(fio, root)
	sch, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("remove orphan files: %w", err)
	}
	pf, err := paths.NewTableFactory(root, sch.Options)
	if err != nil {
		return nil, fmt.Errorf("remove orphan files: %w", err)
	}
	c := &cleaner{fio: fio, root: root, opts: opts, partitionKeys: len(sch.PartitionKeys), table: t}
	// Java lists every root of data-file.external-paths as it lists the data directory, whatever
	// the strategy.
	for _, ext := range strings.Split(sch.Options[optionExternalPath], ",") {
		if ext = strings.TrimSpace(ext); ext != "" {
			c.externalRoots = append(c.externalRoots, ext)
		}
	}
	branches, err := c.validBranches(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	// The snapshot and changelog directories first, as Java does.
	for _, b := range branches {
		if err := c.cleanSnapshotDir(ctx, b, res); err != nil {
			return nil, err
		}
	}
	candidates, err := c.candidates(ctx, pf, res)
	if err != nil {
		return nil, err
	}
	if len(candidates) > 0 {
		used := map[string]bool{}
		for _, b := range branches {
			if err := c.usedFiles(ctx, b, candidates, used); err != nil {
				return nil, err
			}
		}
		names := make([]string, 0, len(candidates))
		for name := range candidates {
			if !used[name] {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			f := candidates[name]
			if !opts.DryRun {
				if err := fio.Delete(ctx, f.Path); err != nil {
					return nil, fmt.Errorf("remove orphan files: delete %s: %w", f.Path, err)
				}
			}
			res.Deleted = append(res.Deleted, f)
			res.DeletedBytes += f.Size
		}
		if !opts.DryRun {
			c.cleanEmptyDataDirs(ctx, res.Deleted, res)
		}
	}
	sort.Slice(res.Deleted, func(i, j int) bool { return res.Deleted[i].Path < res.Deleted[j].Path })
	sort.Strings(res.DeletedDirs)
	return res, nil
}

type cleaner struct {
	fio           fileio.FileIO
	root          string
	opts          Options
	partitionKeys int
	table         *table.Table
	externalRoots []string
}

func (c *cleaner) oldEnough(modMillis int64) bool { return modMillis < c.opts.OlderThanMillis }

// validBranches lists the branches (directories branch/branch-NAME) and main; a branch without a
// schema stops the cleaning, as in Java.
func (c *cleaner) validBranches(ctx context.Context) ([]string, error) {
	entries, err := c.fio.List(ctx, paths.Join(c.root, paths.BranchDir))
	if err != nil {
		return nil, fmt.Errorf("remove orphan files: list branches: %w", err)
	}
	var branches, abnormal []string
	for _, e := range entries {
		if !e.IsDir || !strings.HasPrefix(e.Name, paths.BranchPrefix) {
			continue
		}
		name := strings.TrimPrefix(e.Name, paths.BranchPrefix)
		schemas, err := c.fio.List(ctx, paths.Join(e.Path, paths.SchemaDir))
		if err != nil {
			return nil, fmt.Errorf("remove orphan files: list schemas of branch %s: %w", name, err)
		}
		hasSchema := false
		for _, s := range schemas {
			if _, ok := paths.ParseVersionedName(s.Name, paths.SchemaPrefix); ok {
				hasSchema = true
				break
			}
		}
		if !hasSchema {
			abnormal = append(abnormal, name)
			continue
		}
		branches = append(branches, name)
	}
	if len(abnormal) > 0 {
		sort.Strings(abnormal)
		return nil, fmt.Errorf("remove orphan files: branches %v have no schemas; nothing was deleted (check these branches by hand)", abnormal)
	}
	sort.Strings(branches)
	return append(branches, paths.MainBranch), nil
}

// cleanSnapshotDir deletes the files of a branch's snapshot and changelog directories that are
// neither snapshot (changelog) files nor hints, and older than the threshold.
func (c *cleaner) cleanSnapshotDir(ctx context.Context, branch string, res *Result) error {
	broot := paths.BranchPath(c.root, branch)
	for _, d := range []struct{ dir, prefix string }{
		{paths.Join(broot, paths.SnapshotDir), paths.SnapshotPrefix},
		{paths.Join(broot, changelogDir), changelogPrefix},
	} {
		entries, err := c.fio.List(ctx, d.dir)
		if err != nil {
			// Java lists best effort: a directory it cannot list is not cleaned.
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		for _, e := range entries {
			if e.IsDir || !c.oldEnough(e.ModTimeMillis) || strings.HasPrefix(e.Name, d.prefix) ||
				e.Name == paths.EarliestHint || e.Name == paths.LatestHint || strings.HasSuffix(e.Name, managedBlobSuffix) {
				continue
			}
			if !c.opts.DryRun {
				if err := c.fio.Delete(ctx, e.Path); err != nil {
					return fmt.Errorf("remove orphan files: delete %s: %w", e.Path, err)
				}
			}
			res.Deleted = append(res.Deleted, File{Path: e.Path, Size: e.Size})
			res.DeletedBytes += e.Size
		}
	}
	return nil
}

// fileDirs lists the directories whose files are candidates: manifest/, index/, statistics/ and
// the bucket directories under the data directory and under every root of
// data-file.external-paths (a partition directory without buckets stands for its buckets).
func (c *cleaner) fileDirs(ctx context.Context, pf *paths.FileStorePathFactory) []string {
	dirs := []string{pf.ManifestDir(), pf.IndexDir(), pf.StatisticsDir()}
	dirs = append(dirs, c.listFileDirs(ctx, pf.DataFileDir(), c.partitionKeys)...)
	for _, ext := range c.externalRoots {
		dirs = append(dirs, c.listFileDirs(ctx, ext, c.partitionKeys)...)
	}
	return dirs
}

func (c *cleaner) listFileDirs(ctx context.Context, dir string, level int) []string {
	entries, err := c.fio.List(ctx, dir)
	if err != nil {
		return nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	var out []string
	for _, e := range entries {
		if !e.IsDir {
			continue
		}
		if level == 0 {
			if strings.HasPrefix(e.Name, paths.BucketPrefix) {
				out = append(out, e.Path)
			}
			continue
		}
		if !strings.Contains(e.Name, "=") {
			continue
		}
		sub := c.listFileDirs(ctx, e.Path, level-1)
		if len(sub) == 0 {
			out = append(out, e.Path)
		} else {
			out = append(out, sub...)
		}
	}
	return out
}

// candidates lists the files of the file directories older than the threshold, by name, and
// removes (outside a dry run) the empty directories among them older than the threshold.
func (c *cleaner) candidates(ctx context.Context, pf *paths.FileStorePathFactory, res *Result) (map[string]File, error) {
	out := map[string]File{}
	var empty []string
	for _, dir := range c.fileDirs(ctx, pf) {
		entries, err := c.fio.List(ctx, dir)
		if err != nil {
			continue
		}
		if len(entries) == 0 {
			if mod, ok := c.dirModTime(ctx, dir); ok && c.oldEnough(mod) {
				empty = append(empty, dir)
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir || strings.HasSuffix(e.Name, managedBlobSuffix) || !c.oldEnough(e.ModTimeMillis) {
				continue
			}
			out[e.Name] = File{Path: e.Path, Size: e.Size}
		}
	}
	for !c.opts.DryRun && len(empty) > 0 {
		var next []string
		seen := map[string]bool{}
		for _, d := range empty {
			if paths.Normalize(d) == c.root {
				continue
			}
			if c.deleteEmptyDir(ctx, d, res) {
				if p := paths.Parent(d); !seen[p] {
					seen[p] = true
					next = append(next, p)
				}
			}
		}
		empty = next
	}
	return out, nil
}

// dirModTime finds a directory's modification time in its parent's listing.
func (c *cleaner) dirModTime(ctx context.Context, dir string) (int64, bool) {
	entries, err := c.fio.List(ctx, paths.Parent(dir))
	if err != nil {
		return 0, false
	}
	name := paths.Name(dir)
	for _, e := range entries {
		if e.Name == name && e.IsDir {
			return e.ModTimeMillis, true
		}
	}
	return 0, false
}

// deleteEmptyDir removes dir when it exists and is empty; it reports whether it did.
func (c *cleaner) deleteEmptyDir(ctx context.Context, dir string, res *Result) bool {
	entries, err := c.fio.List(ctx, dir)
	if err != nil || len(entries) > 0 {
		return false
	}
	if ok, err := c.fio.Exists(ctx, dir); err != nil || !ok {
		return false
	}
	if err := c.fio.Delete(ctx, dir); err != nil {
		return false
	}
	res.DeletedDirs = append(res.DeletedDirs, dir)
	return true
}

// cleanEmptyDataDirs removes the bucket directories the deletion emptied, then their partition
// directories, level by level (Java's cleanEmptyDataDirectory).
func (c *cleaner) cleanEmptyDataDirs(ctx context.Context, deleted []File, res *Result) {
	buckets := map[string]bool{}
	for _, f := range deleted {
		if p := paths.Parent(f.Path); strings.Contains(p, paths.BucketPrefix) {
			buckets[p] = true
		}
	}
	partitions := map[string]bool{}
	for _, b := range sortedKeys(buckets) {
		c.deleteEmptyDir(ctx, b, res)
		partitions[paths.Parent(b)] = true
	}
	for level := 0; level < c.partitionKeys; level++ {
		next := map[string]bool{}
		for _, d := range sortedKeys(partitions) {
			if c.deleteEmptyDir(ctx, d, res) {
				next[paths.Parent(d)] = true
			}
		}
		partitions = next
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// snapshots reads every snapshot, tag and long-lived changelog of a branch. A file that vanished
// between listing and reading is skipped; any other failure is returned.
func (c *cleaner) snapshots(ctx context.Context, branch string) ([]*snapshot.Snapshot, error) {
	broot := paths.BranchPath(c.root, branch)
	var out []*snapshot.Snapshot
	for _, d := range []struct{ what, dir, prefix string }{
		{"snapshot", paths.Join(broot, paths.SnapshotDir), paths.SnapshotPrefix},
		{"tag", paths.Join(broot, tagDir), tagPrefix},
		{"changelog", paths.Join(broot, changelogDir), changelogPrefix},
	} {
		entries, err := c.fio.List(ctx, d.dir)
		if err != nil {
			return nil, fmt.Errorf("remove orphan files: list %ss of branch %s: %w", d.what, branch, err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		for _, e := range entries {
			if e.IsDir || !strings.HasPrefix(e.Name, d.prefix) {
				continue
			}
			if d.what != "tag" {
				if _, ok := paths.ParseVersionedName(e.Name, d.prefix); !ok {
					continue
				}
			}
			data, err := c.fio.ReadFile(ctx, e.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("remove orphan files: read %s: %w", e.Path, err)
			}
			s, err := snapshot.Parse(data)
			if err != nil {
				return nil, fmt.Errorf("remove orphan files: %s: %w", e.Path, err)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// usedFiles adds to used the names a branch's snapshots, tags and changelogs reference among
// the candidates' names (and every metadata name they reference).
func (c *cleaner) usedFiles(ctx context.Context, branch string, candidates map[string]File, used map[string]bool) error {
	snaps, err := c.snapshots(ctx, branch)
	if err != nil {
		return err
	}
	manifests := map[string]bool{}
	for _, s := range snaps {
		if err := c.collectWithoutDataFiles(ctx, s, used, manifests); err != nil {
			return err
		}
	}
	names := sortedKeys(manifests)
	par := c.opts.Parallelism
	if par < 1 {
		par = 1
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, par)
	)
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(name string) {
			defer wg.Done()
			defer func() { <-sem }()
			entries, err := c.table.ReadManifest(ctx, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
					firstErr = fmt.Errorf("remove orphan files: read manifest %s: %w", name, err)
				}
				return
			}
			for i := range entries {
				f := &entries[i].File
				if _, ok := candidates[f.FileName]; ok {
					used[f.FileName] = true
				}
				for _, x := range f.ExtraFiles {
					if _, ok := candidates[x]; ok {
						used[x] = true
					}
				}
			}
		}(name)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// collectWithoutDataFiles adds a snapshot's manifest lists, manifests, index manifest and index
// files and statistics file to used, and its manifests to manifests.
func (c *cleaner) collectWithoutDataFiles(ctx context.Context, s *snapshot.Snapshot, used, manifests map[string]bool) error {
	var lists []string
	if s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
		lists = append(lists, *s.ChangelogManifestList)
	}
	if s.DeltaManifestList != "" {
		lists = append(lists, s.DeltaManifestList)
	}
	if s.BaseManifestList != "" {
		lists = append(lists, s.BaseManifestList)
	}
	for _, l := range lists {
		used[l] = true
		metas, err := readList(ctx, c, l, manifest.ReadManifestList)
		if err != nil {
			return fmt.Errorf("remove orphan files: snapshot %d: %w", s.ID, err)
		}
		for i := range metas {
			used[metas[i].FileName] = true
			manifests[metas[i].FileName] = true
		}
	}
	if s.IndexManifest != nil && *s.IndexManifest != "" {
		name := *s.IndexManifest
		if err := paths.CheckFileName("index manifest", name); err != nil {
			return fmt.Errorf("remove orphan files: snapshot %d: %w", s.ID, err)
		}
		exists, err := c.fio.Exists(ctx, c.table.ManifestPath(name))
		if err != nil {
			return fmt.Errorf("remove orphan files: snapshot %d: index manifest %s: %w", s.ID, name, err)
		}
		if exists {
			used[name] = true
			entries, err := readList(ctx, c, name, manifest.ReadIndexManifest)
			if err != nil {
				return fmt.Errorf("remove orphan files: snapshot %d: %w", s.ID, err)
			}
			for i := range entries {
				used[entries[i].IndexFile.FileName] = true
			}
		}
	}
	if s.Statistics != nil && *s.Statistics != "" {
		used[*s.Statistics] = true
	}
	return nil
}

// readList reads a manifest list or an index manifest of the manifest directory; a missing file
// reads as empty (Java's retryReadingFiles on FileNotFoundException).
func readList[M any](ctx context.Context, c *cleaner, name string, read func(string, io.Reader) ([]M, error)) ([]M, error) {
	if err := paths.CheckFileName("manifest", name); err != nil {
		return nil, err
	}
	f, err := c.fio.Open(ctx, c.table.ManifestPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	out, err := read(name, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return out, nil
}
