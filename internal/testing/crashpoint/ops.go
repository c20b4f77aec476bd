package crashpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/paimon-pkft/pkft/internal/expire"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/orphan"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Operations is the table of table-writing operations the crash-point suites drive. repoRoot is
// the module root (for the golden tables under testdata/tables); engine builds archives.
//
// To add an operation (write, compaction, ...), append an Operation whose Setup copies a table
// the operation changes and whose Run calls it once through the given FileIO with deterministic
// options (one bucket at a time, so the k-th file operation is the same in every run).
func Operations(repoRoot string, engine fulltext.Engine) []Operation {
	var orphans []string
	return []Operation{
		{
			// Re-encodes the metadata of a Java-written full-text table (partitions, two buckets,
			// deletion vectors and archives in the index manifest).
			Name:  "rewrite-metadata",
			Setup: copyGolden(repoRoot, "java", "ft-default-partitioned", nil),
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				_, err := tableops.RewriteMetadata(ctx, table.Open(fio, root), "crashpoint")
				return err
			},
		},
		{
			// Builds the archives of both levels of a Java-written table, with deletion vectors.
			Name:  "maintain",
			Setup: copyGolden(repoRoot, "java", "two-levels", map[string]string{pkfulltext.ColumnsOption: "content"}),
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				_, err := tableops.Maintain(ctx, table.Open(fio, root), engine,
					tableops.WithParallelism(1), tableops.WithCommitUser("crashpoint"), tableops.WithMaxRetries(0))
				return err
			},
		},
		{
			// Builds, for both levels of a Java-written table, the full-text archives and the
			// payloads of a btree index added next to them (the bucket's coordinator runs the
			// full-text and the sorted maintainers).
			Name: "maintain-sorted",
			Setup: copyGolden(repoRoot, "java", "two-levels", map[string]string{pkfulltext.ColumnsOption: "content",
				"pk-btree.index.columns": "id"}),
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				_, err := tableops.Maintain(ctx, table.Open(fio, root), engine,
					tableops.WithParallelism(1), tableops.WithCommitUser("crashpoint"), tableops.WithMaxRetries(0))
				return err
			},
		},
		{
			// A Go write of inserts and deletes across both partitions of a Java-written
			// full-text table: level-0 files, the commit with the maintainer wired as Java's.
			Name:  "write",
			Setup: copyGolden(repoRoot, "java", "ft-default-partitioned", nil),
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				return writeRows(ctx, fio, root, engine)
			},
			NotIdempotent: true,
		},
		{
			// A full compaction after that write: merged files on the top level, deletion
			// vectors rewritten, the new level's archives built and the old ones retired.
			Name: "compact",
			Setup: func(dir string) (string, error) {
				root, err := copyGolden(repoRoot, "java", "ft-default-partitioned", nil)(dir)
				if err != nil {
					return "", err
				}
				return root, writeRows(context.Background(), fileio.NewLocal(), root, engine)
			},
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				_, err := tableops.Compact(ctx, table.Open(fio, root), engine,
					tableops.WithParallelism(1), tableops.WithCommitUser("crashpoint"), tableops.WithMaxRetries(0))
				return err
			},
		},
		{
			// Orphan-file removal on a Java-written table whose first snapshot was expired by
			// hand (a tag keeps it), whose second snapshot was expired without a tag (its
			// manifest lists are orphans), with the files of an aborted write in a bucket,
			// manifest/, index/ and snapshot/. Every file is a candidate (the threshold is in
			// the future: no writer runs beside the sweep); the tag's files must survive.
			Name:        "remove-orphan-files",
			Setup:       orphanTable(repoRoot, &orphans),
			Deletes:     true,
			WantDeleted: func() []string { return orphans },
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				_, err := orphan.Clean(ctx, fio, root, orphan.Options{OlderThanMillis: time.Now().Add(time.Hour).UnixMilli(), Parallelism: 1})
				return err
			},
		},
		{
			// The index backfill after the write operation's write: the files its compaction at commit moved up
			// unchanged rewritten in place at their level, and their levels' archives built.
			Name: "compact-uncovered",
			Setup: func(dir string) (string, error) {
				root, err := copyGolden(repoRoot, "java", "ft-default-partitioned", nil)(dir)
				if err != nil {
					return "", err
				}
				return root, writeRows(context.Background(), fileio.NewLocal(), root, engine)
			},
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				_, err := tableops.Compact(ctx, table.Open(fio, root), engine, tableops.WithUncoveredCompaction(),
					tableops.WithParallelism(1), tableops.WithCommitUser("crashpoint"), tableops.WithMaxRetries(0))
				return err
			},
		},
		{
			// Snapshot expiry after two writes and a full compaction: the expired snapshots'
			// replaced data files, retired deletion vectors and archives, manifests, manifest
			// lists and index manifests are deleted, then the snapshot files, then EARLIEST moves.
			Name: "expire",
			Setup: func(dir string) (string, error) {
				root, err := copyGolden(repoRoot, "java", "ft-default-partitioned", nil)(dir)
				if err != nil {
					return "", err
				}
				ctx := context.Background()
				for range 2 {
					if err := writeRows(ctx, fileio.NewLocal(), root, engine, tableops.WithWriteOnly()); err != nil {
						return "", err
					}
				}
				_, err = tableops.Compact(ctx, table.Open(fileio.NewLocal(), root), engine, tableops.WithParallelism(1),
					tableops.WithCommitUser("crashpoint"), tableops.WithMaxRetries(0), tableops.WithWriteOnly())
				return root, err
			},
			Run: func(ctx context.Context, fio fileio.FileIO, root string) error {
				cfg := expire.Config{RetainMin: 1, RetainMax: 1, TimeRetained: 0, MaxDeletes: 50}
				_, err := expire.Expire(ctx, table.Open(fio, root), cfg, time.Now().UnixMilli())
				return err
			},
			Expires: true,
			Deletes: true,
		},
	}
}

// orphanTable returns the Setup of the remove-orphan-files operation; it records in orphans the
// files a cleaning must delete.
func orphanTable(repoRoot string, orphans *[]string) func(string) (string, error) {
	return func(dir string) (string, error) {
		root, err := copyGolden(repoRoot, "java", "ft-default-partitioned", nil)(dir)
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Join(root, "tag"), 0o755); err != nil {
			return "", err
		}
		if err := os.Rename(filepath.Join(root, "snapshot", "snapshot-1"), filepath.Join(root, "tag", "tag-first")); err != nil {
			return "", err
		}
		second, err := os.ReadFile(filepath.Join(root, "snapshot", "snapshot-2"))
		if err != nil {
			return "", err
		}
		s, err := snapshot.Parse(second)
		if err != nil {
			return "", err
		}
		*orphans = []string{"manifest/" + s.BaseManifestList, "manifest/" + s.DeltaManifestList}
		if err := os.Remove(filepath.Join(root, "snapshot", "snapshot-2")); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(root, "snapshot", "EARLIEST"), []byte("3"), 0o644); err != nil {
			return "", err
		}
		const id = "0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11"
		for _, rel := range []string{
			"region=eu/dt=19753/bucket-0/data-" + id + "-0.parquet",
			"region=eu/dt=19753/bucket-1/data-" + id + "-1.parquet",
			"manifest/manifest-" + id + "-0",
			"manifest/manifest-list-" + id + "-0",
			"index/index-" + id + "-0",
			"snapshot/.snapshot-8." + id + ".tmp",
		} {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte("aborted write"), 0o644); err != nil {
				return "", err
			}
			*orphans = append(*orphans, rel)
		}
		return root, nil
	}
}

// writeRows writes a fixed set of rows (inserts, and deletes of existing keys) to the
// ft-default-partitioned table (region STRING, dt DATE, id INT, content STRING) and commits.
func writeRows(ctx context.Context, fio fileio.FileIO, root string, engine fulltext.Engine, opts ...tableops.MaintainOption) error {
	opts = append([]tableops.MaintainOption{tableops.WithCommitUser("crashpoint"), tableops.WithMaxRetries(0)}, opts...)
	w, err := tableops.OpenWriter(ctx, table.Open(fio, root), engine, opts...)
	if err != nil {
		return err
	}
	for i := 0; i < 24; i++ {
		kind := types.Insert
		if i%7 == 3 {
			kind = types.Delete
		}
		row := []any{[]string{"eu", "中国"}[i%2], int32(19753 + 29*(i%2)), int32(i * 5), fmt.Sprintf("crash point text %d paimon", i)}
		if err := w.Write(ctx, kind, row); err != nil {
			return errors.Join(err, w.Abort(ctx))
		}
	}
	_, err = w.Commit(ctx)
	return err
}

// copyGolden returns a Setup copying testdata/tables/<kind>/<name> and, when options is not nil,
// adding them as the next schema (as Java's SchemaManager commits an option change: no snapshot).
func copyGolden(repoRoot, kind, name string, options map[string]string) func(string) (string, error) {
	return func(dir string) (string, error) {
		src := filepath.Join(repoRoot, "testdata", "tables", kind, name)
		dst := filepath.Join(dir, name)
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return "", err
		}
		if options == nil {
			return dst, nil
		}
		s, err := table.Open(fileio.NewLocal(), dst).LatestSchema(context.Background())
		if err != nil {
			return "", err
		}
		next := *s
		next.ID = s.ID + 1
		next.Options = map[string]string{}
		for k, v := range s.Options {
			next.Options[k] = v
		}
		next.OptionOrder = slices.Clone(s.OptionOrder)
		keys := make([]string, 0, len(options))
		for k := range options {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, ok := next.Options[k]; !ok {
				next.OptionOrder = append(next.OptionOrder, k)
			}
			next.Options[k] = options[k]
		}
		if err := os.WriteFile(filepath.Join(dst, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
			return "", fmt.Errorf("add options to %s: %w", name, err)
		}
		return dst, nil
	}
}
