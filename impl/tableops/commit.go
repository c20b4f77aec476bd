package tableops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/impl/manifest"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/restore"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/snapshot"
	"github.com/paimon-pkft/pkft/impl/table"
)

// commitMessage is one bucket's part of a data commit (Java CommitMessageImpl): the files an
// append added, the files a compaction removed and produced, and the index files each carries.
type commitMessage struct {
	Partition    []byte
	Bucket       int32
	TotalBuckets int32
	// NewFiles are the append's new data files.
	NewFiles []*meta.DataFileMeta
	// CompactBefore and CompactAfter are the compaction's data transition.
	CompactBefore, CompactAfter []*meta.DataFileMeta
	// NewIndexFiles and DeletedIndexFiles are the index changes (of the append or the
	// compaction, whichever the message carries).
	NewIndexFiles, DeletedIndexFiles []*meta.IndexFileMeta
	// Fingerprint, when set, is fingerprintCommit of the bucket the message was planned on: a
	// rebase onto a snapshot where it differs is a conflict.
	Fingerprint string
}

// dataCommit commits data and index changes as one snapshot with the protocol Maintain uses:
// fresh manifests, publication without overwrite, rebase and conflict checks on a lost race,
// and deletion of every generated metadata file on failure. Data and index files the messages
// reference are the caller's to delete when the commit fails.
type dataCommit struct {
	t             *table.Table
	r             *restore.Restorer
	kind          snapshot.CommitKind
	user          string
	identifier    int64
	maxRetries    int
	messages      []commitMessage
	beforePublish func(ctx context.Context, next *snapshot.Snapshot) error
	retryWait     func(retry int) time.Duration
}

// run publishes the changes and returns the committed snapshot.
func (c *dataCommit) run(ctx context.Context) (*snapshot.Snapshot, error) {
	if c.retryWait == nil {
		c.retryWait = func(retry int) time.Duration { return min(10*time.Millisecond<<min(retry, 10), 10*time.Second) }
	}
	for attempt := 0; ; attempt++ {
		contents, err := c.latestContents(ctx)
		if err != nil {
			return nil, err
		}
		if err := c.check(contents); err != nil {
			return nil, err
		}
		next, written, err := c.prepare(ctx, contents)
		if err != nil {
			return nil, err
		}
		committed, err := c.publish(ctx, next)
		var uncertain *UncertainCommitError
		if errors.As(err, &uncertain) {
			return nil, err
		}
		if err != nil || !committed {
			for _, p := range written {
				c.t.FileIO.DeleteQuietly(context.WithoutCancel(ctx), p)
			}
			if err != nil {
				return nil, err
			}
			if attempt >= c.maxRetries {
				return nil, fmt.Errorf("commit snapshot %d after %d attempts: %w", next.ID, attempt+1, ErrCommitConflict)
			}
			select {
			case <-time.After(c.retryWait(attempt)):
			case <-ctx.Done():
				return nil, fmt.Errorf("retry commit: %w", ctx.Err())
			}
			continue
		}
		return next, nil
	}
}

// publish is Maintain's publication (hook, no overwrite, outcome check of a failed publication).
func (c *dataCommit) publish(ctx context.Context, next *snapshot.Snapshot) (bool, error) {
	m := &maintenance{t: c.t, cfg: maintainConfig{beforePublish: c.beforePublish}}
	return m.publish(ctx, next)
}

// latestContents reads the latest snapshot's contents; an empty Contents (nil Snapshot) when the
// table has none yet.
func (c *dataCommit) latestContents(ctx context.Context) (*table.Contents, error) {
	base, err := c.t.Latest(ctx)
	if errors.Is(err, table.ErrNoSnapshot) {
		return &table.Contents{}, nil
	}
	if err != nil {
		return nil, err
	}
	return c.t.Read(ctx, base)
}

// check runs the conflict checks of FileStoreCommitImpl on the new base: every file the commit
// deletes (data or index) must still be live, each message's bucket must be as it was planned
// (when it carries a fingerprint), the total bucket count must not change, and the key ranges
// of levels above 0 must not overlap after the change.
func (c *dataCommit) check(contents *table.Contents) error {
	live := map[string]bool{}
	for i := range contents.Entries {
		e := &contents.Entries[i]
		live[fileKey(e.Partition, e.Bucket, e.File.FileName)] = true
	}
	liveIndex := map[string]bool{}
	for i := range contents.IndexEntries {
		e := &contents.IndexEntries[i]
		liveIndex[fileKey(e.Partition, e.Bucket, e.IndexFile.FileName)] = true
	}
	buckets := map[string]*table.Bucket{}
	for _, b := range contents.Buckets {
		buckets[fileKey(b.Partition, b.Bucket, "")] = b
	}
	for _, m := range c.messages {
		for _, f := range m.CompactBefore {
			if !live[fileKey(m.Partition, m.Bucket, f.FileName)] {
				return fmt.Errorf("File deletion conflicts detected! Give up committing: %s is no longer live in bucket %d: %w", f.FileName, m.Bucket, ErrCommitConflict)
			}
		}
		for _, f := range m.DeletedIndexFiles {
			if !liveIndex[fileKey(m.Partition, m.Bucket, f.FileName)] {
				return fmt.Errorf("index file %s of bucket %d is no longer live: %w", f.FileName, m.Bucket, ErrCommitConflict)
			}
		}
		if m.Fingerprint != "" {
			b := buckets[fileKey(m.Partition, m.Bucket, "")]
			if fingerprintCommit(b) != m.Fingerprint {
				return fmt.Errorf("bucket %d changed since the commit was planned: %w", m.Bucket, ErrCommitConflict)
			}
		}
	}
	changes := c.indexChanges()
	dataChanges := c.dataEntries()
	merged, err := manifest.MergeEntries(slices.Concat(contents.Entries, dataChanges))
	if err != nil {
		return fmt.Errorf("merge changes: %w: %w", err, ErrCommitConflict)
	}
	for _, e := range merged {
		if e.Kind != meta.FileKindAdd {
			return fmt.Errorf("File deletion conflicts detected! Give up committing: %s: %w", e.File.FileName, ErrCommitConflict)
		}
	}
	// Reuse the index-change conflict check for bucket counts and key ranges, over the merged
	// live files of the touched partitions.
	touched := slices.Clone(changes)
	for _, m := range c.messages {
		touched = append(touched, meta.IndexManifestEntry{Partition: m.Partition, Bucket: m.Bucket})
	}
	after := &table.Contents{Entries: merged}
	return checkConflicts(c.r.Schema, after, touched)
}

// fingerprintCommit identifies what a compaction of the bucket depended on: every live data
// file above level 0 (level 0 files may be appended concurrently; they stay where they are) and
// every index file.
func fingerprintCommit(b *table.Bucket) string {
	var out []string
	if b == nil {
		return fmt.Sprint(out) // an absent bucket is one without files
	}
	for _, f := range b.DataFiles {
		if f.Level > 0 {
			out = append(out, fmt.Sprintf("d/%d/%s", f.Level, f.FileName))
		}
	}
	for _, f := range b.IndexFiles {
		out = append(out, "i/"+f.IndexType+"/"+f.FileName)
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

func fileKey(partition []byte, bucket int32, name string) string {
	return fmt.Sprintf("%x/%d/%s", partitionOrEmpty(partition), bucket, name)
}

// dataEntries are the manifest entries of the commit, in the order of Java's
// ManifestEntryChanges: per message, appended files, then compactBefore deletions, then
// compactAfter additions.
func (c *dataCommit) dataEntries() []meta.ManifestEntry {
	var out []meta.ManifestEntry
	add := func(m *commitMessage, kind meta.FileKind, files []*meta.DataFileMeta) {
		for _, f := range files {
			out = append(out, meta.ManifestEntry{Kind: kind, Partition: partitionOrEmpty(m.Partition), Bucket: m.Bucket, TotalBuckets: m.TotalBuckets, File: *f})
		}
	}
	for i := range c.messages {
		add(&c.messages[i], meta.FileKindAdd, c.messages[i].NewFiles)
	}
	for i := range c.messages {
		add(&c.messages[i], meta.FileKindDelete, c.messages[i].CompactBefore)
		add(&c.messages[i], meta.FileKindAdd, c.messages[i].CompactAfter)
	}
	return out
}

// indexChanges are the index manifest changes: per message, deletions then additions.
func (c *dataCommit) indexChanges() []meta.IndexManifestEntry {
	var out []meta.IndexManifestEntry
	for _, m := range c.messages {
		for _, f := range m.DeletedIndexFiles {
			out = append(out, meta.IndexManifestEntry{Kind: meta.FileKindDelete, Partition: partitionOrEmpty(m.Partition), Bucket: m.Bucket, IndexFile: *f})
		}
		for _, f := range m.NewIndexFiles {
			out = append(out, meta.IndexManifestEntry{Kind: meta.FileKindAdd, Partition: partitionOrEmpty(m.Partition), Bucket: m.Bucket, IndexFile: *f})
		}
	}
	return out
}

// prepare writes the delta manifest, the manifest lists and (when the index changes) the index
// manifest of the next snapshot on contents (FileStoreCommitImpl#tryCommitOnce).
func (c *dataCommit) prepare(ctx context.Context, contents *table.Contents) (_ *snapshot.Snapshot, written []string, err error) {
	sch, err := c.t.LatestSchema(ctx)
	if err != nil {
		return nil, nil, err
	}
	if sch.ID != c.r.Schema.ID {
		return nil, nil, fmt.Errorf("schema changed from %d to %d during the write: %w", c.r.Schema.ID, sch.ID, ErrCommitConflict)
	}
	w := &writer{t: c.t, factory: c.r.Paths, opts: manifest.WriteOptions{Compression: sch.Options[ManifestCompressionOption]}}
	defer func() {
		if err != nil {
			w.cleanup(ctx)
		}
	}()
	merger, err := newManifestMerger(c.t, w, sch.PartitionType(), sch.Options)
	if err != nil {
		return nil, nil, err
	}
	baseList, baseSize, err := merger.writeBaseList(ctx, slices.Concat(contents.BaseManifests, contents.DeltaManifests))
	if err != nil {
		return nil, nil, err
	}
	entries := c.dataEntries()
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
			return nil, nil, fmt.Errorf("write delta manifest: partition type %s has no stats order here", sch.PartitionType().SQLString())
		}
		if err != nil {
			return nil, nil, err
		}
		delta = append(delta, mf)
	}
	deltaList, deltaSize, err := w.write(ctx, c.r.Paths.NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, delta, w.opts)
	})
	if err != nil {
		return nil, nil, err
	}
	base := contents.Snapshot
	var indexManifest *string
	if base != nil && base.IndexManifest != nil {
		name := *base.IndexManifest
		indexManifest = &name
	}
	if changes := c.indexChanges(); len(changes) > 0 {
		combined, err := manifest.CombineIndexManifest(contents.IndexEntries, changes, false)
		if err != nil {
			return nil, nil, fmt.Errorf("combine index manifest: %w", err)
		}
		name, _, err := w.write(ctx, c.r.Paths.NewIndexManifest, func(out io.Writer) error {
			return manifest.WriteIndexManifest(out, combined, w.opts)
		})
		if err != nil {
			return nil, nil, err
		}
		indexManifest = &name
	}
	stats, err := inheritedStatistics(ctx, c.t, base, sch.ID)
	if err != nil {
		return nil, nil, err
	}
	props, err := sequenceProperties(ctx, c.t, contents, sch.Options, maxSeq, added)
	if err != nil {
		return nil, nil, err
	}
	id := uuid.NewString()
	next := &snapshot.Snapshot{
		Version:               snapshot.CurrentVersion,
		UUID:                  &id,
		ID:                    1,
		SchemaID:              sch.ID,
		BaseManifestList:      baseList,
		BaseManifestListSize:  &baseSize,
		DeltaManifestList:     deltaList,
		DeltaManifestListSize: &deltaSize,
		IndexManifest:         indexManifest,
		CommitUser:            c.user,
		CommitIdentifier:      c.identifier,
		CommitKind:            c.kind,
		TimeMillis:            time.Now().UnixMilli(),
		DeltaRecordCount:      deltaRecords,
		Statistics:            stats,
		Properties:            props,
	}
	var nextRowID int64
	if base != nil {
		next.ID = base.ID + 1
		next.TotalRecordCount = base.TotalRecordCount
		next.Watermark = base.Watermark
		if base.NextRowID != nil {
			nextRowID = *base.NextRowID
		}
	}
	next.TotalRecordCount += deltaRecords
	next.NextRowID = &nextRowID
	return next, slices.Clone(w.written), nil
}

// checkSchemaForWrite refuses what the Go writer and compaction do not implement, naming it.
func checkSchemaForWrite(s *schema.TableSchema) error {
	return checkWritableTable(s)
}
