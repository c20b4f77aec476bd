package commit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Table options the commit reads (CoreOptions).
const (
	// ManifestCompressionOption names the manifest codec.
	ManifestCompressionOption = "manifest.compression"
	// CommitMaxRetriesOption bounds commit retries; DefaultCommitMaxRetries is its default.
	CommitMaxRetriesOption  = "commit.max-retries"
	DefaultCommitMaxRetries = 10
	// SequenceNumberInitModeOption chooses how writers initialise sequence numbers; in mode
	// "snapshot" every commit records the largest sequence number in the snapshot's properties
	// under MaxSequenceNumberProperty.
	SequenceNumberInitModeOption = "write.sequence-number-init-mode"
	MaxSequenceNumberProperty    = "sequence.generation.max-sequence-number"
)

// MetadataWriter writes the metadata files of one commit attempt under fresh names and
// remembers them, so that a failed or lost attempt deletes every one.
type MetadataWriter struct {
	t       *table.Table
	factory *paths.FileStorePathFactory
	// Options are the manifest encoding options (the table's manifest codec).
	Options manifest.WriteOptions
	written []string
}

// NewMetadataWriter returns a writer for t's metadata with the table options opts.
func NewMetadataWriter(t *table.Table, factory *paths.FileStorePathFactory, opts map[string]string) *MetadataWriter {
	return &MetadataWriter{t: t, factory: factory, Options: manifest.WriteOptions{Compression: opts[ManifestCompressionOption]}}
}

// Paths is the path factory the writer names files with.
func (w *MetadataWriter) Paths() *paths.FileStorePathFactory { return w.factory }

// Write publishes one file produced by encode at a fresh path from newPath (a path factory
// method) and returns the file name and size.
func (w *MetadataWriter) Write(ctx context.Context, newPath func() string, encode func(io.Writer) error) (string, int64, error) {
	path := newPath()
	name := paths.Name(path)
	out, err := w.t.FileIO.Create(ctx, path)
	if err != nil {
		return "", 0, fmt.Errorf("create %s: %w", name, err)
	}
	if err := encode(out); err != nil {
		out.Abort()
		return "", 0, fmt.Errorf("encode %s: %w", name, err)
	}
	if err := out.Commit(ctx); err != nil {
		if !errors.Is(err, fileio.ErrExists) {
			// The publication may have landed although it reported an error (a link+unlink
			// publication whose unlink failed): the fresh name is ours, so clean it up too.
			w.written = append(w.written, path)
		}
		return "", 0, fmt.Errorf("publish %s: %w", name, err)
	}
	w.written = append(w.written, path)
	size, err := w.t.FileIO.FileSize(ctx, path)
	if err != nil {
		return "", 0, fmt.Errorf("stat %s: %w", name, err)
	}
	return name, size, nil
}

// cleanup deletes every file this writer published.
func (w *MetadataWriter) cleanup(ctx context.Context) {
	deleteQuietly(ctx, w.t, w.written)
	w.written = nil
}

// dataEntries are the manifest entries of the changes, in the order of Java's
// ManifestEntryChanges: appended files of every change, then per change its compactBefore
// deletions and compactAfter additions.
func dataEntries(changes []*Change) []meta.ManifestEntry {
	var out []meta.ManifestEntry
	add := func(m *Change, kind meta.FileKind, files []*meta.DataFileMeta) {
		for _, f := range files {
			out = append(out, meta.ManifestEntry{Kind: kind, Partition: partitionOrEmpty(m.Partition), Bucket: m.Bucket, TotalBuckets: m.TotalBuckets, File: *f})
		}
	}
	for _, m := range changes {
		add(m, meta.FileKindAdd, m.NewFiles)
	}
	for _, m := range changes {
		add(m, meta.FileKindDelete, m.CompactBefore)
		add(m, meta.FileKindAdd, m.CompactAfter)
	}
	return out
}

// indexChanges are the index manifest changes: per change, deletions then additions (as
// ManifestEntryChanges collects them).
func indexChanges(changes []*Change) []meta.IndexManifestEntry {
	var out []meta.IndexManifestEntry
	for _, m := range changes {
		for _, f := range m.DeletedIndexFiles {
			out = append(out, meta.IndexManifestEntry{Kind: meta.FileKindDelete, Partition: partitionOrEmpty(m.Partition), Bucket: m.Bucket, IndexFile: *f})
		}
		for _, f := range m.NewIndexFiles {
			out = append(out, meta.IndexManifestEntry{Kind: meta.FileKindAdd, Partition: partitionOrEmpty(m.Partition), Bucket: m.Bucket, IndexFile: *f})
		}
	}
	return out
}

// prepare writes the metadata of the next snapshot on contents and returns the snapshot (not
// published) and the files written; on an error it deletes what it wrote.
func (c *committer) prepare(ctx context.Context, contents *table.Contents) (_ *snapshot.Snapshot, written []string, err error) {
	sch := c.req.Schema
	if c.req.Metadata == nil {
		// Changes written with one schema are committed on it (a metadata rewrite keeps the
		// schema of the snapshot it rewrites).
		latest, err := c.t.LatestSchema(ctx)
		if err != nil {
			return nil, nil, err
		}
		if latest.ID != sch.ID {
			return nil, nil, c.conflict("schema changed from %d to %d since the changes were written", sch.ID, latest.ID)
		}
	}
	w := NewMetadataWriter(c.t, c.req.Paths, sch.Options)
	defer func() {
		if err != nil {
			w.cleanup(ctx)
		}
	}()
	var next *snapshot.Snapshot
	if c.req.Metadata != nil {
		next, err = c.req.Metadata(ctx, contents, w)
	} else {
		next, err = c.prepareChanges(ctx, contents, w)
	}
	if err != nil {
		return nil, nil, err
	}
	id := uuid.NewString()
	next.Version = snapshot.CurrentVersion
	next.UUID = &id
	next.ID = 1
	if contents.Snapshot != nil {
		next.ID = contents.Snapshot.ID + 1
	}
	next.CommitUser = c.req.User
	next.CommitIdentifier = c.req.Identifier
	next.CommitKind = c.req.Kind
	next.TimeMillis = time.Now().UnixMilli()
	return next, slices.Clone(w.written), nil
}

// prepareChanges writes the delta manifest, the manifest lists and (when the index changes) the
// index manifest of the changes on contents, as FileStoreCommitImpl#tryCommitOnce does: the base
// manifest list lists the latest snapshot's base and delta manifests after ManifestFileMerger's
// merge, the delta manifest list the new manifest (none for an index-only commit), there is no
// changelog, and the index manifest is the latest one combined with the changes.
func (c *committer) prepareChanges(ctx context.Context, contents *table.Contents, w *MetadataWriter) (*snapshot.Snapshot, error) {
	sch := c.req.Schema
	merger, err := newManifestMerger(c.t, w, sch.PartitionType(), sch.Options)
	if err != nil {
		return nil, err
	}
	baseList, baseSize, err := merger.writeBaseList(ctx, slices.Concat(contents.BaseManifests, contents.DeltaManifests))
	if err != nil {
		return nil, err
	}
	changes := c.sorted()
	entries := dataEntries(changes)
	var delta []meta.ManifestFileMeta
	var deltaRecords int64
	maxSeq, added := int64(0), false
	for _, e := range entries {
		if e.Kind == meta.FileKindAdd {
			deltaRecords += e.File.RowCount
			if !added || e.File.MaxSequenceNumber > maxSeq {
				maxSeq, added = e.File.MaxSequenceNumber, true
			}
		} else {
			deltaRecords -= e.File.RowCount
		}
	}
	if len(entries) > 0 {
		mf, err := merger.writeManifest(ctx, entries)
		if errors.Is(err, errNoMerge) {
			return nil, fmt.Errorf("write delta manifest: partition type %s has no stats order here", sch.PartitionType().SQLString())
		}
		if err != nil {
			return nil, err
		}
		delta = append(delta, mf)
	}
	deltaList, deltaSize, err := w.Write(ctx, w.factory.NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, delta, w.Options)
	})
	if err != nil {
		return nil, err
	}
	base := contents.Snapshot
	var indexManifest *string
	if base != nil && base.IndexManifest != nil {
		name := *base.IndexManifest
		indexManifest = &name
	}
	if ic := indexChanges(changes); len(ic) > 0 {
		combined, err := manifest.CombineIndexManifest(contents.IndexEntries, ic, false)
		if err != nil {
			return nil, fmt.Errorf("combine index manifest: %w", err)
		}
		name, _, err := w.Write(ctx, w.factory.NewIndexManifest, func(out io.Writer) error {
			return manifest.WriteIndexManifest(out, combined, w.Options)
		})
		if err != nil {
			return nil, err
		}
		indexManifest = &name
	}
	stats, err := inheritedStatistics(ctx, c.t, base, sch.ID)
	if err != nil {
		return nil, err
	}
	props, err := sequenceProperties(ctx, c.t, contents, sch.Options, maxSeq, added)
	if err != nil {
		return nil, err
	}
	next := &snapshot.Snapshot{
		SchemaID:              sch.ID,
		BaseManifestList:      baseList,
		BaseManifestListSize:  &baseSize,
		DeltaManifestList:     deltaList,
		DeltaManifestListSize: &deltaSize,
		IndexManifest:         indexManifest,
		DeltaRecordCount:      deltaRecords,
		Statistics:            stats,
		Properties:            props,
	}
	var nextRowID int64
	if base != nil {
		next.TotalRecordCount = base.TotalRecordCount
		next.Watermark = base.Watermark
		if base.NextRowID != nil {
			nextRowID = *base.NextRowID
		}
	}
	next.TotalRecordCount += deltaRecords
	next.NextRowID = &nextRowID
	return next, nil
}

// sequenceProperties are the properties of the next snapshot: none, unless the table
// initialises sequence numbers from snapshots, in which case the latest maximum is carried
// forward as FileStoreCommitImpl does with SequenceSnapshotProperties (from the latest
// snapshot's properties, or else from every ADD entry of its manifests), folded with addedMax,
// the largest sequence number the commit adds (added is false when it adds none).
func sequenceProperties(ctx context.Context, t *table.Table, contents *table.Contents, opts map[string]string, addedMax int64, added bool) ([]snapshot.Property, error) {
	props, err := carriedSequenceProperties(ctx, t, contents, opts)
	if err != nil || !added || !strings.EqualFold(opts[SequenceNumberInitModeOption], "snapshot") {
		return props, err
	}
	if len(props) == 1 {
		v, _ := strconv.ParseInt(props[0].Value, 10, 64)
		addedMax = max(addedMax, v)
	}
	return []snapshot.Property{{Key: MaxSequenceNumberProperty, Value: strconv.FormatInt(addedMax, 10)}}, nil
}

func carriedSequenceProperties(ctx context.Context, t *table.Table, contents *table.Contents, opts map[string]string) ([]snapshot.Property, error) {
	if contents == nil || contents.Snapshot == nil {
		return nil, nil
	}
	if !strings.EqualFold(opts[SequenceNumberInitModeOption], "snapshot") {
		return nil, nil
	}
	for _, p := range contents.Snapshot.Properties {
		if p.Key == MaxSequenceNumberProperty {
			v, err := strconv.ParseInt(p.Value, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("snapshot %d: property %s: %w", contents.Snapshot.ID, p.Key, err)
			}
			return []snapshot.Property{{Key: MaxSequenceNumberProperty, Value: strconv.FormatInt(v, 10)}}, nil
		}
	}
	found := false
	var maxSeq int64
	for _, mf := range slices.Concat(contents.BaseManifests, contents.DeltaManifests) {
		entries, err := t.ReadManifest(ctx, mf.FileName)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Kind == meta.FileKindAdd && (!found || e.File.MaxSequenceNumber > maxSeq) {
				maxSeq, found = e.File.MaxSequenceNumber, true
			}
		}
	}
	if !found {
		return nil, nil
	}
	return []snapshot.Property{{Key: MaxSequenceNumberProperty, Value: strconv.FormatInt(maxSeq, 10)}}, nil
}

// inheritedStatistics is the statistics file the next snapshot inherits: the latest one's, when
// its statistics were computed on the writer's schema (FileStoreCommitImpl reads the file and
// compares schema ids).
func inheritedStatistics(ctx context.Context, t *table.Table, base *snapshot.Snapshot, schemaID int64) (*string, error) {
	if base == nil || base.Statistics == nil {
		return nil, nil
	}
	p := paths.Join(t.Root, paths.StatisticsDir, *base.Statistics)
	data, err := t.FileIO.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read statistics %s of snapshot %d: %w", *base.Statistics, base.ID, err)
	}
	var stats struct {
		SchemaID *int64 `json:"schemaId"`
	}
	if err := json.Unmarshal(data, &stats); err != nil || stats.SchemaID == nil {
		return nil, fmt.Errorf("parse statistics %s of snapshot %d: no schemaId", *base.Statistics, base.ID)
	}
	if *stats.SchemaID != schemaID {
		return nil, nil
	}
	name := *base.Statistics
	return &name, nil
}

// MaxRetriesOf reads commit.max-retries from table options (DefaultCommitMaxRetries when
// unset).
func MaxRetriesOf(opts map[string]string) (int, error) {
	v, ok := opts[CommitMaxRetriesOption]
	if !ok {
		return DefaultCommitMaxRetries, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("option %s: %q is not a non-negative integer", CommitMaxRetriesOption, v)
	}
	return n, nil
}

// Table is the table the writer writes to.
func (w *MetadataWriter) Table() *table.Table { return w.t }
