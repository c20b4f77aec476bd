package tableops

import (
	"context"
	"io"
	"math"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// RewriteMetadata re-encodes the latest snapshot's manifests, manifest lists and index manifest
// under new names and commits them as the next snapshot, recorded the way Paimon records a
// manifest compaction (COMPACT, commit identifier Long.MAX_VALUE, no delta records, an empty
// delta manifest list). The table's content is unchanged; the new snapshot references only
// files Go wrote. It returns the new snapshot.
// The commit is package commit's: a lost race rewrites the new latest snapshot's metadata, up to
// commit.max-retries times.
func RewriteMetadata(ctx context.Context, t *table.Table, commitUser string) (*snapshot.Snapshot, error) {
	latest, err := t.Latest(ctx)
	if err != nil {
		return nil, err
	}
	sch, err := t.Schema(ctx, latest.SchemaID)
	if err != nil {
		return nil, err
	}
	factory, err := paths.NewTableFactory(t.Root, sch.Options)
	if err != nil {
		return nil, err
	}
	maxRetries, err := commit.MaxRetriesOf(sch.Options)
	if err != nil {
		return nil, err
	}
	res, err := commit.Run(ctx, t, commit.Request{Conflict: commit.ErrRewriteConflict, Kind: snapshot.CommitCompact,
		User: commitUser, Identifier: math.MaxInt64, MaxRetries: maxRetries, Schema: sch, Paths: factory, Metadata: rewriteMetadata})
	if err != nil {
		return nil, err
	}
	return res.Snapshot, nil
}

// rewriteMetadata writes base's manifests, manifest lists and index manifest again and returns
// the next snapshot: base's fields with the new lists, no changelog, no delta records.
func rewriteMetadata(ctx context.Context, contents *table.Contents, w *commit.MetadataWriter) (*snapshot.Snapshot, error) {
	latest := contents.Snapshot
	if latest == nil {
		return nil, table.ErrNoSnapshot
	}
	var rewritten []meta.ManifestFileMeta
	for _, list := range [][]meta.ManifestFileMeta{contents.BaseManifests, contents.DeltaManifests} {
		for _, m := range list {
			entries, err := w.Table().ReadManifest(ctx, m.FileName)
			if err != nil {
				return nil, err
			}
			name, size, err := w.Write(ctx, w.Paths().NewManifestFile, func(out io.Writer) error {
				return manifest.WriteManifestFile(out, entries, w.Options)
			})
			if err != nil {
				return nil, err
			}
			m.FileName, m.FileSize = name, size
			rewritten = append(rewritten, m)
		}
	}
	base, baseSize, err := w.Write(ctx, w.Paths().NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, rewritten, w.Options)
	})
	if err != nil {
		return nil, err
	}
	delta, deltaSize, err := w.Write(ctx, w.Paths().NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, nil, w.Options)
	})
	if err != nil {
		return nil, err
	}
	var indexManifest *string
	if contents.IndexEntries != nil {
		name, _, err := w.Write(ctx, w.Paths().NewIndexManifest, func(out io.Writer) error {
			return manifest.WriteIndexManifest(out, contents.IndexEntries, w.Options)
		})
		if err != nil {
			return nil, err
		}
		indexManifest = &name
	}
	next := *latest
	next.BaseManifestList, next.BaseManifestListSize = base, &baseSize
	next.DeltaManifestList, next.DeltaManifestListSize = delta, &deltaSize
	next.ChangelogManifestList, next.ChangelogManifestListSize = nil, nil
	next.IndexManifest = indexManifest
	next.DeltaRecordCount = 0
	next.ChangelogRecordCount = nil
	next.Operation = nil
	return &next, nil
}
