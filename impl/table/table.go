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

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/manifest"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/paths"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/snapshot"
)

// ErrNoSnapshot reports a table that has no snapshot yet.
var ErrNoSnapshot = errors.New("table has no snapshot")

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
	return s, nil
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
func (t *Table) Read(ctx context.Context, snap *snapshot.Snapshot) (*Contents, error) {
	c := &Contents{Snapshot: snap}
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
	return readWith(ctx, t, name, manifest.ReadManifestList)
}

func readWith[M any](ctx context.Context, t *Table, name string, read func(string, io.Reader) ([]M, error)) ([]M, error) {
	f, err := t.FileIO.Open(ctx, t.ManifestPath(name))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	return read(name, f)
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
