package expire

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Directories and prefixes of the tags and consumers of a branch (TagManager, ConsumerManager).
const (
	tagDir         = "tag"
	tagPrefix      = "tag-"
	consumerDir    = "consumer"
	consumerPrefix = "consumer-"
)

// Result is what one expiry did.
type Result struct {
	// Expired is the number of snapshot files deleted.
	Expired int
	// EndExclusive is the earliest snapshot kept when Expired > 0 (the EARLIEST hint written).
	EndExclusive int64
}

// Expire expires the snapshots of t that cfg does not retain as of nowMillis (epoch
// milliseconds), as ExpireSnapshotsImpl#expire does.
func Expire(ctx context.Context, t *table.Table, cfg Config, nowMillis int64) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	olderThan := nowMillis - cfg.TimeRetained.Milliseconds()
	latest, ok, err := t.Snapshots.LatestID(ctx)
	if err != nil || !ok {
		return Result{}, err
	}
	earliest, ok, err := t.Snapshots.EarliestID(ctx)
	if err != nil || !ok {
		return Result{}, err
	}
	// The oldest snapshot num-retained.max keeps, and the first one num-retained.min keeps.
	lo := max(latest-int64(cfg.RetainMax)+1, earliest)
	maxExclusive := latest - int64(cfg.RetainMin) + 1
	consumed, err := minNextSnapshot(ctx, t)
	if err != nil {
		return Result{}, err
	}
	maxExclusive = min(maxExclusive, consumed)
	maxExclusive = min(maxExclusive, satAdd(earliest, int64(cfg.MaxDeletes)))
	for id := lo; id < maxExclusive; id++ {
		// A snapshot expires only when its successor is older than the time window.
		next, err := t.Snapshots.Snapshot(ctx, id+1)
		if errors.Is(err, fs.ErrNotExist) {
			continue // expired meanwhile by another process
		}
		if err != nil {
			return Result{}, err
		}
		if olderThan <= next.TimeMillis {
			return expireUntil(ctx, t, cfg, earliest, id)
		}
	}
	return expireUntil(ctx, t, cfg, earliest, maxExclusive)
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// expirer holds what one expiry works with.
type expirer struct {
	t        *table.Table
	cfg      Config
	restorer *restore.Restorer
	// deletionBuckets records the buckets data files were deleted from, for
	// clean-empty-directories (partition bytes -> buckets).
	deletionBuckets map[string]map[int32]bool
}

func expireUntil(ctx context.Context, t *table.Table, cfg Config, earliest, endExclusive int64) (Result, error) {
	if endExclusive <= earliest {
		// Nothing expires; write the hint when it is missing so the next reader finds the
		// earliest snapshot directly.
		exists, err := t.FileIO.Exists(ctx, paths.Join(t.Snapshots.Dir(), paths.EarliestHint))
		if err != nil {
			return Result{}, fmt.Errorf("expire: %w", err)
		}
		if !exists {
			if err := t.Snapshots.CommitEarliestHint(ctx, earliest); err != nil {
				return Result{}, fmt.Errorf("expire: %w", err)
			}
		}
		return Result{}, nil
	}
	r, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return Result{}, fmt.Errorf("expire: %w", err)
	}
	e := &expirer{t: t, cfg: cfg, restorer: r, deletionBuckets: map[string]map[int32]bool{}}
	return e.run(ctx, earliest, endExclusive)
}

func (e *expirer) run(ctx context.Context, earliest, endExclusive int64) (Result, error) {
	var including []*snapshot.Snapshot
	for id := earliest; id <= endExclusive; id++ {
		s, err := e.t.Snapshots.Snapshot(ctx, id)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Result{}, fmt.Errorf("expire: %w", err)
		}
		including = append(including, s)
	}
	if len(including) == 0 {
		return Result{}, nil
	}
	var excluding []*snapshot.Snapshot
	for _, s := range including {
		if s.ID != endExclusive {
			excluding = append(excluding, s)
		}
	}
	begin := including[0].ID
	tags, err := e.taggedSnapshots(ctx)
	if err != nil {
		return Result{}, err
	}

	// 1. Data files the snapshots (begin, endExclusive] deleted: no later snapshot uses them.
	dataFiles, err := e.dataFilesToDelete(ctx, including, tags, begin)
	if err != nil {
		return Result{}, err
	}
	e.deleteAll(ctx, dataFiles)
	// 2. Changelog files of the expired snapshots.
	var changelog []string
	for _, s := range excluding {
		if s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
			changelog = append(changelog, e.addedInChangelog(ctx, s)...)
		}
	}
	e.deleteAll(ctx, changelog)
	e.cleanEmptyDirectories(ctx)

	// 3. Manifests, index files, index manifests and statistics that neither the first retained
	// snapshot nor a tag in the range references.
	last := including[len(including)-1]
	if last.ID != endExclusive {
		return Result{}, nil // the end snapshot is gone: another process expires
	}
	skipping := append(skippingTags(tags, begin, endExclusive), last)
	skip, err := e.manifestSkippingSet(ctx, skipping)
	if err == nil {
		for _, s := range excluding {
			e.deleteAll(ctx, e.planManifests(ctx, s, skip))
		}
	} // else: as Java, skip the manifests when the skipping set cannot be built

	// 4. The snapshot files, oldest first, then the EARLIEST hint. Java deletes them quietly and
	// writes the hint anyway; a snapshot file that stays would then hide below the hint, naming
	// files already deleted. Go stops at the first snapshot it cannot delete and leaves the hint:
	// the next expiry finds that snapshot first and finishes the work.
	for _, s := range excluding {
		if err := e.t.FileIO.Delete(ctx, e.t.Snapshots.Path(s.ID)); err != nil {
			return Result{}, fmt.Errorf("expire: delete snapshot %d: %w", s.ID, err)
		}
	}
	if err := e.t.Snapshots.CommitEarliestHint(ctx, endExclusive); err != nil {
		return Result{}, fmt.Errorf("expire: %w", err)
	}
	return Result{Expired: len(excluding), EndExclusive: endExclusive}, nil
}

func (e *expirer) deleteAll(ctx context.Context, files []string) {
	seen := map[string]bool{}
	for _, p := range files {
		if !seen[p] {
			seen[p] = true
			e.t.FileIO.DeleteQuietly(ctx, p)
		}
	}
}

// taggedSnapshots reads the snapshots the tags of the branch hold, ordered by id
// (ExpireSnapshotsImpl#collectTaggedSnapshots).
func (e *expirer) taggedSnapshots(ctx context.Context) ([]*snapshot.Snapshot, error) {
	dir := paths.Join(paths.BranchPath(e.t.Root, e.t.Snapshots.Branch()), tagDir)
	entries, err := e.t.FileIO.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("expire: list tags: %w", err)
	}
	var out []*snapshot.Snapshot
	for _, f := range entries {
		if f.IsDir || !strings.HasPrefix(f.Name, tagPrefix) {
			continue
		}
		data, err := e.t.FileIO.ReadFile(ctx, paths.Join(dir, f.Name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("expire: read tag %s: %w", f.Name, err)
		}
		s, err := snapshot.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("expire: tag %s: %w", f.Name, err)
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b *snapshot.Snapshot) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// minNextSnapshot is the smallest next snapshot of the branch's consumers (math.MaxInt64 when
// there is none): a snapshot a consumer still reads is not expired.
func minNextSnapshot(ctx context.Context, t *table.Table) (int64, error) {
	dir := paths.Join(paths.BranchPath(t.Root, t.Snapshots.Branch()), consumerDir)
	entries, err := t.FileIO.List(ctx, dir)
	if err != nil {
		return 0, fmt.Errorf("expire: list consumers: %w", err)
	}
	out := int64(math.MaxInt64)
	for _, f := range entries {
		if f.IsDir || !strings.HasPrefix(f.Name, consumerPrefix) {
			continue
		}
		data, err := t.FileIO.ReadFile(ctx, paths.Join(dir, f.Name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("expire: read consumer %s: %w", f.Name, err)
		}
		var c struct {
			NextSnapshot *int64 `json:"nextSnapshot"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&c); err != nil || c.NextSnapshot == nil {
			return 0, fmt.Errorf("expire: consumer %s: not a consumer file (nextSnapshot)", f.Name)
		}
		out = min(out, *c.NextSnapshot)
	}
	return out, nil
}

// previousIndex is the index of the last tag whose id is below id, -1 when none
// (SnapshotManager#findPreviousSnapshot).
func previousIndex(tags []*snapshot.Snapshot, id int64) int {
	i := -1
	for j, s := range tags {
		if s.ID < id {
			i = j
		}
	}
	return i
}

// previousOrEqualIndex is the index of the last tag whose id is at most id, -1 when none.
func previousOrEqualIndex(tags []*snapshot.Snapshot, id int64) int {
	i := -1
	for j, s := range tags {
		if s.ID <= id {
			i = j
		}
	}
	return i
}

// skippingTags are the tags that overlap [begin, endExclusive) (ExpireSnapshotsImpl
// #findSkippingTags).
func skippingTags(tags []*snapshot.Snapshot, begin, endExclusive int64) []*snapshot.Snapshot {
	var out []*snapshot.Snapshot
	right := previousIndex(tags, endExclusive)
	if right >= 0 {
		left := max(previousOrEqualIndex(tags, begin), 0)
		out = append(out, tags[left:right+1]...)
	}
	return out
}

type fileKey struct {
	partition string
	bucket    int32
	name      string
}

// dataFilesToDelete plans the data files (and their extra files) each snapshot of
// (begin, end] deleted in its delta manifests, except those the latest tag before it holds
// (ExpireSnapshotsImpl#collectDataFilesToDelete).
func (e *expirer) dataFilesToDelete(ctx context.Context, including, tags []*snapshot.Snapshot, begin int64) ([]string, error) {
	tagFiles := map[int64]map[fileKey]bool{}
	failed := map[int64]bool{}
	var out []string
	for _, s := range including {
		if s.ID == begin {
			continue
		}
		var skip map[fileKey]bool
		if i := previousIndex(tags, s.ID); i >= 0 {
			tag := tags[i]
			if _, ok := tagFiles[tag.ID]; !ok && !failed[tag.ID] {
				files, err := e.liveDataFiles(ctx, tag)
				if err != nil {
					failed[tag.ID] = true // Java skips cleaning then
				} else {
					tagFiles[tag.ID] = files
				}
			}
			if failed[tag.ID] {
				continue
			}
			skip = tagFiles[tag.ID]
		}
		planned, err := e.deletedInDelta(ctx, s, skip)
		if err != nil {
			return nil, err
		}
		out = append(out, planned...)
	}
	return out, nil
}

// liveDataFiles is the merged data files of a tag's snapshot.
func (e *expirer) liveDataFiles(ctx context.Context, s *snapshot.Snapshot) (map[fileKey]bool, error) {
	c, err := e.t.Read(ctx, s)
	if err != nil {
		return nil, err
	}
	out := map[fileKey]bool{}
	for _, en := range c.Entries {
		out[fileKey{string(en.Partition), en.Bucket, en.File.FileName}] = true
	}
	return out, nil
}

// readManifestList reads a manifest list; a list that cannot be read yields nothing, as Java's
// tryReadManifestList (a kill during an earlier expiry may have deleted it).
func (e *expirer) readManifestList(ctx context.Context, name string) []meta.ManifestFileMeta {
	if name == "" {
		return nil
	}
	f, err := e.t.FileIO.Open(ctx, e.t.ManifestPath(name))
	if err != nil {
		return nil
	}
	defer f.Close()
	metas, err := manifest.ReadManifestList(name, f)
	if err != nil {
		return nil
	}
	for _, m := range metas {
		if paths.CheckFileName("manifest", m.FileName) != nil {
			return nil
		}
	}
	return metas
}

// entries reads the entries of the manifests of a list; ok = false when one cannot be read.
func (e *expirer) entries(ctx context.Context, metas []meta.ManifestFileMeta) ([]meta.ManifestEntry, bool) {
	var out []meta.ManifestEntry
	for _, m := range metas {
		es, err := e.t.ReadManifest(ctx, m.FileName)
		if err != nil {
			return nil, false
		}
		out = append(out, es...)
	}
	return out, true
}

// deletedInDelta plans the files the DELETE entries of a snapshot's delta manifests name and no
// later ADD entry of them adds again (FileDeletionBase#planDeletedInDeltaManifest). A manifest
// that cannot be read cancels the snapshot's data file deletion.
func (e *expirer) deletedInDelta(ctx context.Context, s *snapshot.Snapshot, skip map[fileKey]bool) ([]string, error) {
	entries, ok := e.entries(ctx, e.readManifestList(ctx, s.DeltaManifestList))
	if !ok {
		return nil, nil
	}
	type planned struct {
		entry *meta.ManifestEntry
		files []string
	}
	byPath := map[string]*planned{}
	var order []string
	for i := range entries {
		en := &entries[i]
		if paths.CheckFileName("data file", en.File.FileName) != nil {
			return nil, nil
		}
		p, dir, err := e.dataPath(en)
		if err != nil {
			return nil, fmt.Errorf("expire: snapshot %d: %w", s.ID, err)
		}
		switch en.Kind {
		case meta.FileKindAdd:
			delete(byPath, p)
		case meta.FileKindDelete:
			files := []string{p}
			for _, x := range en.File.ExtraFiles {
				if paths.CheckFileName("extra file", x) != nil {
					return nil, nil
				}
				files = append(files, paths.Join(dir, x))
			}
			if _, ok := byPath[p]; !ok {
				order = append(order, p)
			}
			byPath[p] = &planned{en, files}
		}
	}
	var out []string
	for _, p := range order {
		pl, ok := byPath[p]
		if !ok {
			continue
		}
		if skip[fileKey{string(pl.entry.Partition), pl.entry.Bucket, pl.entry.File.FileName}] {
			continue
		}
		out = append(out, pl.files...)
		e.recordBucket(pl.entry.Partition, pl.entry.Bucket)
	}
	return out, nil
}

// addedInChangelog plans the files the ADD entries of a snapshot's changelog manifests name
// (FileDeletionBase#planAddedInChangelogManifest); unreadable manifests are skipped.
func (e *expirer) addedInChangelog(ctx context.Context, s *snapshot.Snapshot) []string {
	var out []string
	for _, m := range e.readManifestList(ctx, *s.ChangelogManifestList) {
		es, err := e.t.ReadManifest(ctx, m.FileName)
		if err != nil {
			continue
		}
		for i := range es {
			en := &es[i]
			if en.Kind != meta.FileKindAdd || paths.CheckFileName("changelog file", en.File.FileName) != nil {
				continue
			}
			p, _, err := e.dataPath(en)
			if err != nil {
				continue
			}
			out = append(out, p)
			e.recordBucket(en.Partition, en.Bucket)
		}
	}
	return out
}

func (e *expirer) recordBucket(partition []byte, bucket int32) {
	k := string(partition)
	if e.deletionBuckets[k] == nil {
		e.deletionBuckets[k] = map[int32]bool{}
	}
	e.deletionBuckets[k][bucket] = true
}

// dataPath is where a data file of an entry lives, and the directory of its extra files
// (DataFilePathFactory#toPath and #toAlignedPath).
func (e *expirer) dataPath(en *meta.ManifestEntry) (file, dir string, err error) {
	if en.File.ExternalPath != nil && *en.File.ExternalPath != "" {
		p := paths.Normalize(*en.File.ExternalPath)
		return p, paths.Parent(p), nil
	}
	bucketDir, err := e.bucketPath(en.Partition, en.Bucket)
	if err != nil {
		return "", "", err
	}
	return paths.Join(bucketDir, en.File.FileName), bucketDir, nil
}

func (e *expirer) bucketPath(partition []byte, bucket int32) (string, error) {
	spec, err := e.restorer.PartitionSpec(partition)
	if err != nil {
		return "", err
	}
	return e.restorer.Paths.BucketPath(spec, int(bucket))
}

// cleanEmptyDirectories deletes the bucket directories data files were deleted from when they
// are empty, then their partition directories, deepest first (FileDeletionBase
// #cleanEmptyDirectories).
func (e *expirer) cleanEmptyDirectories(ctx context.Context) {
	if !e.cfg.CleanEmptyDirectories || len(e.deletionBuckets) == 0 {
		return
	}
	levels := map[int]map[string]bool{}
	parts := make([]string, 0, len(e.deletionBuckets))
	for p := range e.deletionBuckets {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		spec, err := e.restorer.PartitionSpec([]byte(p))
		if err != nil {
			continue
		}
		var partitionDir string
		buckets := make([]int32, 0, len(e.deletionBuckets[p]))
		for b := range e.deletionBuckets[p] {
			buckets = append(buckets, b)
		}
		slices.Sort(buckets)
		for _, b := range buckets {
			dir, err := e.restorer.Paths.BucketPath(spec, int(b))
			if err != nil {
				continue
			}
			partitionDir = paths.Parent(dir)
			e.tryDeleteEmptyDir(ctx, dir)
		}
		if len(spec) == 0 || partitionDir == "" {
			continue
		}
		// The partition's directories, from the full partition up to its first level.
		hier := make([]string, len(spec))
		d := partitionDir
		for i := len(spec) - 1; i >= 0; i-- {
			hier[i] = d
			d = paths.Parent(d)
		}
		if e.tryDeleteEmptyDir(ctx, hier[len(hier)-1]) {
			for i := 0; i < len(hier)-1; i++ {
				if levels[i] == nil {
					levels[i] = map[string]bool{}
				}
				levels[i][hier[i]] = true
			}
		}
	}
	for i := len(levels) - 1; i >= 0; i-- {
		dirs := make([]string, 0, len(levels[i]))
		for d := range levels[i] {
			dirs = append(dirs, d)
		}
		slices.Sort(dirs)
		for _, d := range dirs {
			e.tryDeleteEmptyDir(ctx, d)
		}
	}
	clear(e.deletionBuckets)
}

// tryDeleteEmptyDir deletes dir when it exists and is empty.
func (e *expirer) tryDeleteEmptyDir(ctx context.Context, dir string) bool {
	entries, err := e.t.FileIO.List(ctx, dir)
	if err != nil || len(entries) > 0 {
		return false
	}
	if ok, err := e.t.FileIO.Exists(ctx, dir); err != nil || !ok {
		return false
	}
	return e.t.FileIO.Delete(ctx, dir) == nil
}

// manifestSkippingSet names every manifest list, manifest, index manifest, index file and
// statistics file the given snapshots reference (FileDeletionBase#manifestSkippingSet); a
// manifest list or index manifest that cannot be read is an error.
func (e *expirer) manifestSkippingSet(ctx context.Context, snaps []*snapshot.Snapshot) (map[string]bool, error) {
	out := map[string]bool{}
	for _, s := range snaps {
		for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
			out[list] = true
			if err := paths.CheckFileName("manifest list", list); err != nil {
				return nil, err
			}
			f, err := e.t.FileIO.Open(ctx, e.t.ManifestPath(list))
			if err != nil {
				return nil, err
			}
			metas, err := manifest.ReadManifestList(list, f)
			f.Close()
			if err != nil {
				return nil, err
			}
			for _, m := range metas {
				out[m.FileName] = true
			}
		}
		if s.IndexManifest != nil && *s.IndexManifest != "" {
			name := *s.IndexManifest
			out[name] = true
			if err := paths.CheckFileName("index manifest", name); err != nil {
				return nil, err
			}
			f, err := e.t.FileIO.Open(ctx, e.t.ManifestPath(name))
			if err != nil {
				return nil, err
			}
			entries, err := manifest.ReadIndexManifest(name, f)
			f.Close()
			if err != nil {
				return nil, err
			}
			for _, ie := range entries {
				out[ie.IndexFile.FileName] = true
			}
		}
		if s.Statistics != nil {
			out[*s.Statistics] = true
		}
	}
	return out, nil
}

// planManifests plans the metadata of an expired snapshot that skip does not name: the
// manifests of its base, delta and changelog lists and the lists, then its index files, its
// index manifest and its statistics, in that order (FileDeletionBase#planManifestsCleaner). Every
// planned name joins skip, so no file is planned twice.
func (e *expirer) planManifests(ctx context.Context, s *snapshot.Snapshot, skip map[string]bool) []string {
	var manifests, indexFiles, indexManifests, stats []string
	add := func(name string) bool {
		if skip[name] {
			return false
		}
		skip[name] = true
		return true
	}
	lists := []string{s.BaseManifestList, s.DeltaManifestList}
	if s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
		lists = append(lists, *s.ChangelogManifestList)
	}
	for _, list := range lists {
		if list == "" || paths.CheckFileName("manifest list", list) != nil {
			continue
		}
		for _, m := range e.readManifestList(ctx, list) {
			if add(m.FileName) {
				manifests = append(manifests, e.t.ManifestPath(m.FileName))
			}
		}
		if add(list) {
			manifests = append(manifests, e.t.ManifestPath(list))
		}
	}
	if s.IndexManifest != nil && *s.IndexManifest != "" && paths.CheckFileName("index manifest", *s.IndexManifest) == nil {
		name := *s.IndexManifest
		f, err := e.t.FileIO.Open(ctx, e.t.ManifestPath(name))
		if err == nil {
			entries, rerr := manifest.ReadIndexManifest(name, f)
			f.Close()
			if rerr == nil {
				for i := range entries {
					ie := &entries[i]
					if paths.CheckFileName("index file", ie.IndexFile.FileName) != nil || !add(ie.IndexFile.FileName) {
						continue
					}
					if p, err := e.indexPath(ie); err == nil {
						indexFiles = append(indexFiles, p)
					}
				}
			}
			if add(name) {
				indexManifests = append(indexManifests, e.t.ManifestPath(name))
			}
		}
	}
	if s.Statistics != nil && paths.CheckFileName("statistics", *s.Statistics) == nil && add(*s.Statistics) {
		stats = append(stats, paths.Join(e.t.Root, paths.StatisticsDir, *s.Statistics))
	}
	return slices.Concat(manifests, indexFiles, indexManifests, stats)
}

// indexPath is where an index file of an index manifest entry lives (IndexFileHandler
// #deleteIndexFile).
func (e *expirer) indexPath(ie *meta.IndexManifestEntry) (string, error) {
	spec, err := e.restorer.PartitionSpec(ie.Partition)
	if err != nil {
		return "", err
	}
	f, err := e.restorer.Paths.IndexPathFactory(spec, int(ie.Bucket))
	if err != nil {
		return "", err
	}
	ext := ""
	if ie.IndexFile.ExternalPath != nil {
		ext = *ie.IndexFile.ExternalPath
	}
	return f.ToPathOf(ie.IndexFile.FileName, ext), nil
}
