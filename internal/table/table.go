// Package table reads a Paimon table's metadata as of a snapshot: its schemas, and the live data
// files and index files of every (partition, bucket). It is the read side every table
// operation starts from.
package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
)

// ErrNoSnapshot reports a table that has no snapshot yet.
var ErrNoSnapshot = errors.New("table has no snapshot")

// ErrNoTable reports a path that holds no table: nothing exists there, or no schema does.
var ErrNoTable = errors.New("no Paimon table")

// Table is one Paimon table on a file system (main branch).
type Table struct {
	FileIO    fileio.FileIO
	Root      string
	Snapshots *snapshot.Manager
}

// Open returns the table rooted at root. It reads nothing yet.
func Open(fio fileio.FileIO, root string) *Table {
	return &Table{FileIO: fio, Root: paths.Normalize(root), Snapshots: snapshot.NewManager(fio, root, "")}
}

// Schema reads schema/schema-id.
func (t *Table) Schema(ctx context.Context, id int64) (*schema.TableSchema, error) {
	p := paths.SchemaPath(t.Root, id)
	data, err := t.FileIO.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read schema %d: %w", id, err)
	}
	s, err := schema.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("schema %d: %s records id %d, which disagrees with its name", id, p, s.ID)
	}
	return s, nil
}

// LatestSchema reads the schema with the highest id in schema/, as Java's
// SchemaManager.latest does. Writers (and so every commit) use it, not the schema of the latest
// snapshot: a schema change commits a schema file but no snapshot.
func (t *Table) LatestSchema(ctx context.Context) (*schema.TableSchema, error) {
	entries, err := t.FileIO.List(ctx, paths.Join(t.Root, paths.SchemaDir))
	if err != nil {
		return nil, fmt.Errorf("list schemas of %s: %w", t.Root, err)
	}
	latest := int64(-1)
	for _, e := range entries {
		if id, ok := paths.ParseVersionedName(e.Name, paths.SchemaPrefix); ok && id > latest {
			latest = id
		}
	}
	if latest < 0 {
		if len(entries) == 0 {
			if ok, err := t.FileIO.Exists(ctx, t.Root); err == nil && !ok {
				return nil, fmt.Errorf("%w at %s: nothing exists there", ErrNoTable, t.Root)
			}
		}
		return nil, fmt.Errorf("%w at %s: it has no schema (schema/schema-N)", ErrNoTable, t.Root)
	}
	return t.Schema(ctx, latest)
}

// Latest returns the latest snapshot, or ErrNoSnapshot.
func (t *Table) Latest(ctx context.Context) (*snapshot.Snapshot, error) {
	id, ok, err := t.Snapshots.LatestID(ctx)
	if err != nil {
		return nil, fmt.Errorf("find latest snapshot of %s: %w", t.Root, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", t.Root, ErrNoSnapshot)
	}
	return t.Snapshots.Snapshot(ctx, id)
}

// ManifestPath is where a manifest, manifest list or index manifest named name lives.
func (t *Table) ManifestPath(name string) string {
	return paths.Join(t.Root, paths.ManifestDir, name)
}

// Bucket is the live content of one (partition, bucket) in a snapshot.
type Bucket struct {
	// Partition is the serialized partition row as manifests store it.
	Partition    []byte
	Bucket       int32
	TotalBuckets int32
	// DataFiles are the live data files, ordered by level then file name.
	DataFiles []*meta.DataFileMeta
	// IndexFiles are the live index files of this bucket (all types), in index manifest order.
	IndexFiles []*meta.IndexFileMeta
}

// Contents is what a snapshot holds: every manifest it references and the live files.
type Contents struct {
	Snapshot       *snapshot.Snapshot
	BaseManifests  []meta.ManifestFileMeta
	DeltaManifests []meta.ManifestFileMeta
	// Entries are the merged live data file entries.
	Entries []meta.ManifestEntry
	// IndexEntries are the index manifest's entries (nil when the snapshot has none).
	IndexEntries []meta.IndexManifestEntry
	Buckets      []*Bucket
}

// Read reads the manifests of snap and groups the live files by (partition, bucket), ordered by
// partition bytes then bucket.
//
// Every file name the metadata records is checked before the file is opened: a manifest, data,
// extra or index file name that is not a single path component (for example "../x" or "/x") is
// rejected, as are negative row counts and file sizes.
func (t *Table) Read(ctx context.Context, snap *snapshot.Snapshot) (*Contents, error) {
	c := &Contents{Snapshot: snap}
	if err := checkSnapshotNames(snap); err != nil {
		return nil, err
	}
	var err error
	if c.BaseManifests, err = t.readManifestList(ctx, snap.BaseManifestList); err != nil {
		return nil, err
	}
	if c.DeltaManifests, err = t.readManifestList(ctx, snap.DeltaManifestList); err != nil {
		return nil, err
	}
	var all []meta.ManifestEntry
	for _, list := range [][]meta.ManifestFileMeta{c.BaseManifests, c.DeltaManifests} {
		for _, m := range list {
			entries, err := t.ReadManifest(ctx, m.FileName)
			if err != nil {
				return nil, err
			}
			all = append(all, entries...)
		}
	}
	for i := range all {
		if err := checkEntry(&all[i]); err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
		}
	}
	merged, err := manifest.MergeEntries(all)
	if err != nil {
		return nil, fmt.Errorf("merge manifest entries of snapshot %d: %w", snap.ID, err)
	}
	for _, e := range merged {
		if e.Kind != meta.FileKindAdd {
			return nil, fmt.Errorf("snapshot %d: file %s is deleted but was never added", snap.ID, e.File.FileName)
		}
	}
	c.Entries = merged
	if snap.IndexManifest != nil && *snap.IndexManifest != "" {
		if c.IndexEntries, err = readWith(ctx, t, *snap.IndexManifest, manifest.ReadIndexManifest); err != nil {
			return nil, err
		}
		for i := range c.IndexEntries {
			if err := checkIndexEntry(&c.IndexEntries[i]); err != nil {
				return nil, fmt.Errorf("snapshot %d: index manifest %s: %w", snap.ID, *snap.IndexManifest, err)
			}
		}
	}
	c.Buckets = group(c.Entries, c.IndexEntries)
	return c, nil
}

// ReadManifest reads one manifest file of the table.
func (t *Table) ReadManifest(ctx context.Context, name string) ([]meta.ManifestEntry, error) {
	return readWith(ctx, t, name, manifest.ReadManifestFile)
}

func (t *Table) readManifestList(ctx context.Context, name string) ([]meta.ManifestFileMeta, error) {
	if name == "" {
		return nil, nil
	}
	metas, err := readWith(ctx, t, name, manifest.ReadManifestList)
	if err != nil {
		return nil, err
	}
	for i := range metas {
		if err := paths.CheckFileName("manifest", metas[i].FileName); err != nil {
			return nil, fmt.Errorf("manifest list %s: %w", name, err)
		}
		if metas[i].FileSize < 0 {
			return nil, fmt.Errorf("manifest list %s: manifest %s has negative size %d", name, metas[i].FileName, metas[i].FileSize)
		}
	}
	return metas, nil
}

func readWith[M any](ctx context.Context, t *Table, name string, read func(string, io.Reader) ([]M, error)) ([]M, error) {
	if err := paths.CheckFileName("manifest", name); err != nil {
		return nil, err
	}
	f, err := t.FileIO.Open(ctx, t.ManifestPath(name))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	return read(name, f)
}

// checkSnapshotNames rejects manifest list, index manifest and statistics names of a snapshot
// that would resolve outside the manifest (or statistics) directory.
func checkSnapshotNames(snap *snapshot.Snapshot) error {
	check := func(what, name string) error {
		if err := paths.CheckFileName(what, name); err != nil {
			return fmt.Errorf("snapshot %d: %w", snap.ID, err)
		}
		return nil
	}
	if snap.BaseManifestList != "" {
		if err := check("base manifest list", snap.BaseManifestList); err != nil {
			return err
		}
	}
	if snap.DeltaManifestList != "" {
		if err := check("delta manifest list", snap.DeltaManifestList); err != nil {
			return err
		}
	}
	for _, opt := range []struct {
		what string
		name *string
	}{{"changelog manifest list", snap.ChangelogManifestList}, {"index manifest", snap.IndexManifest}, {"statistics file", snap.Statistics}} {
		if opt.name != nil && *opt.name != "" {
			if err := check(opt.what, *opt.name); err != nil {
				return err
			}
		}
	}
	if snap.TotalRecordCount < 0 {
		return fmt.Errorf("snapshot %d: negative total record count %d", snap.ID, snap.TotalRecordCount)
	}
	return nil
}

// checkEntry rejects a manifest entry whose data file or extra file names would resolve outside
// the bucket directory, or whose counts are negative.
func checkEntry(e *meta.ManifestEntry) error {
	f := &e.File
	if err := paths.CheckFileName("data file", f.FileName); err != nil {
		return err
	}
	for _, x := range f.ExtraFiles {
		if err := paths.CheckFileName("extra file of data file "+f.FileName, x); err != nil {
			return err
		}
	}
	if f.RowCount < 0 {
		return fmt.Errorf("data file %s has negative row count %d", f.FileName, f.RowCount)
	}
	if f.FileSize < 0 {
		return fmt.Errorf("data file %s has negative size %d", f.FileName, f.FileSize)
	}
	if f.DeleteRowCount != nil && (*f.DeleteRowCount < 0 || *f.DeleteRowCount > f.RowCount) {
		return fmt.Errorf("data file %s has delete row count %d outside [0, %d]", f.FileName, *f.DeleteRowCount, f.RowCount)
	}
	if f.Level < 0 {
		return fmt.Errorf("data file %s has negative level %d", f.FileName, f.Level)
	}
	return nil
}

// checkIndexEntry rejects an index manifest entry whose file name would resolve outside the
// index directory, or whose counts are negative.
func checkIndexEntry(e *meta.IndexManifestEntry) error {
	f := &e.IndexFile
	if err := paths.CheckFileName("index file", f.FileName); err != nil {
		return err
	}
	if f.RowCount < 0 {
		return fmt.Errorf("index file %s has negative row count %d", f.FileName, f.RowCount)
	}
	if f.FileSize < 0 {
		return fmt.Errorf("index file %s has negative size %d", f.FileName, f.FileSize)
	}
	for _, r := range f.DVRanges {
		if r.Offset < 0 || r.Length < 0 || (r.Cardinality != nil && *r.Cardinality < 0) {
			return fmt.Errorf("index file %s: deletion vector of %s has a negative offset, length or cardinality", f.FileName, r.DataFileName)
		}
	}
	return nil
}

type bucketKey struct {
	partition string
	bucket    int32
}

func group(entries []meta.ManifestEntry, index []meta.IndexManifestEntry) []*Bucket {
	byKey := map[bucketKey]*Bucket{}
	get := func(part []byte, bucket, total int32) *Bucket {
		k := bucketKey{string(part), bucket}
		b := byKey[k]
		if b == nil {
			b = &Bucket{Partition: part, Bucket: bucket, TotalBuckets: total}
			byKey[k] = b
		}
		return b
	}
	for i := range entries {
		e := &entries[i]
		b := get(e.Partition, e.Bucket, e.TotalBuckets)
		b.DataFiles = append(b.DataFiles, &e.File)
	}
	for i := range index {
		e := &index[i]
		if e.Kind != meta.FileKindAdd {
			continue
		}
		b := get(e.Partition, e.Bucket, 0)
		b.IndexFiles = append(b.IndexFiles, &e.IndexFile)
	}
	out := make([]*Bucket, 0, len(byKey))
	for _, b := range byKey {
		sort.Slice(b.DataFiles, func(i, j int) bool {
			x, y := b.DataFiles[i], b.DataFiles[j]
			if x.Level != y.Level {
				return x.Level < y.Level
			}
			return x.FileName < y.FileName
		})
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if c := bytes.Compare(out[i].Partition, out[j].Partition); c != 0 {
			return c < 0
		}
		return out[i].Bucket < out[j].Bucket
	})
	return out
}
