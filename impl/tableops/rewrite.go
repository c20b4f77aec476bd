// Package tableops holds the operations that commit to a Paimon table from Go: each writes new
// files under fresh names, publishes them atomically, commits the next snapshot without
// overwriting, and deletes everything it wrote when any step fails.
//
// Restorer restores a bucket of a snapshot as a Java writer does (data files, index files by
// type, deletion vectors, the full-text definition of the writer's schema); Maintain brings a
// table's primary-key full-text archives up to date in one commit; PlanMaintenance shows what it
// would do; RewriteMetadata re-encodes the metadata as a manifest compaction.
package tableops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/manifest"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/paths"
	"github.com/paimon-pkft/pkft/impl/snapshot"
	"github.com/paimon-pkft/pkft/impl/table"
)

// ManifestCompressionOption is the table option naming the manifest codec.
const ManifestCompressionOption = "manifest.compression"

// writer writes metadata files of one commit and remembers them, so a failed commit can delete
// every one.
type writer struct {
	t       *table.Table
	factory *paths.FileStorePathFactory
	opts    manifest.WriteOptions
	written []string
}

// write publishes one file produced by encode at a fresh path from newPath (a path factory
// method) and returns the file name and size.
func (w *writer) write(ctx context.Context, newPath func() string, encode func(io.Writer) error) (string, int64, error) {
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
func (w *writer) cleanup(ctx context.Context) {
	for _, p := range w.written {
		w.t.FileIO.DeleteQuietly(context.WithoutCancel(ctx), p)
	}
	w.written = nil
}

// RewriteMetadata re-encodes the latest snapshot's manifests, manifest lists and index manifest
// under new names and commits them as the next snapshot, recorded the way Paimon records a
// manifest compaction (COMPACT, commit identifier Long.MAX_VALUE, no delta records, an empty
// delta manifest list). The table's content is unchanged; the new snapshot references only
// files Go wrote. It returns the new snapshot.
func RewriteMetadata(ctx context.Context, t *table.Table, commitUser string) (_ *snapshot.Snapshot, err error) {
	latest, err := t.Latest(ctx)
	if err != nil {
		return nil, err
	}
	sch, err := t.Schema(ctx, latest.SchemaID)
	if err != nil {
		return nil, err
	}
	contents, err := t.Read(ctx, latest)
	if err != nil {
		return nil, err
	}
	popts, err := paths.OptionsFromTable(t.Root, sch.Options)
	if err != nil {
		return nil, fmt.Errorf("table options: %w", err)
	}
	factory, err := paths.NewFileStorePathFactory(popts)
	if err != nil {
		return nil, err
	}
	w := &writer{t: t, factory: factory, opts: manifest.WriteOptions{Compression: sch.Options[ManifestCompressionOption]}}
	defer func() {
		if err != nil {
			w.cleanup(ctx)
		}
	}()

	var rewritten []meta.ManifestFileMeta
	for _, list := range [][]meta.ManifestFileMeta{contents.BaseManifests, contents.DeltaManifests} {
		for _, m := range list {
			entries, err := t.ReadManifest(ctx, m.FileName)
			if err != nil {
				return nil, err
			}
			name, size, err := w.write(ctx, factory.NewManifestFile, func(out io.Writer) error {
				return manifest.WriteManifestFile(out, entries, w.opts)
			})
			if err != nil {
				return nil, err
			}
			m.FileName, m.FileSize = name, size
			rewritten = append(rewritten, m)
		}
	}
	base, baseSize, err := w.write(ctx, factory.NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, rewritten, w.opts)
	})
	if err != nil {
		return nil, err
	}
	delta, deltaSize, err := w.write(ctx, factory.NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, nil, w.opts)
	})
	if err != nil {
		return nil, err
	}
	var indexManifest *string
	if contents.IndexEntries != nil {
		name, _, err := w.write(ctx, factory.NewIndexManifest, func(out io.Writer) error {
			return manifest.WriteIndexManifest(out, contents.IndexEntries, w.opts)
		})
		if err != nil {
			return nil, err
		}
		indexManifest = &name
	}

	id := uuid.NewString()
	next := *latest
	next.Version = snapshot.CurrentVersion
	next.UUID = &id
	next.ID = latest.ID + 1
	next.BaseManifestList, next.BaseManifestListSize = base, &baseSize
	next.DeltaManifestList, next.DeltaManifestListSize = delta, &deltaSize
	next.ChangelogManifestList, next.ChangelogManifestListSize = nil, nil
	next.IndexManifest = indexManifest
	next.CommitUser = commitUser
	next.CommitIdentifier = math.MaxInt64
	next.CommitKind = snapshot.CommitCompact
	next.TimeMillis = time.Now().UnixMilli()
	next.DeltaRecordCount = 0
	next.ChangelogRecordCount = nil
	next.Operation = nil
	committed, err := publishSnapshot(ctx, t, &next)
	var uncertain *UncertainCommitError
	if errors.As(err, &uncertain) {
		// The snapshot may reference the new files: keep every one of them.
		w.written = nil
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if !committed {
		return nil, fmt.Errorf("commit snapshot %d: another writer committed first: %w", next.ID, snapshot.ErrSnapshotExists)
	}
	return &next, nil
}
