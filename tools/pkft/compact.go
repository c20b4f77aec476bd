package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func compactCommand() *cobra.Command {
	var (
		partitions   []string
		buckets      []int32
		parallel     int
		asJSON       bool
		user         string
		progressFlag string
		strategy     string
		sharding     shardFlags
	)
	cmd := &cobra.Command{
		Use:   "compact TABLE_PATH",
		Short: "Compact a primary-key table, maintaining its index archives",
		Long: `Compact every (partition, bucket) of the latest snapshot, or the selected ones, as Paimon's
dedicated compaction does, and commit one COMPACT snapshot in which the full-text archives of the
changed levels are built and the retired ones removed. Files the compaction moves up a level
without rewriting them (Java's choice, which pkft makes the same way) stay in no archive and their
rows are not searched, unless the table sets compaction.force-rewrite-all-files: pkft state
counts them. --strategy full (default) compacts every
bucket into the top level as Java's full compaction does; --strategy minor lets the table's
compaction strategy pick in each bucket (Paimon's compact_strategy minor: what Java's writer
compacts at commit), which may be nothing; --strategy uncovered is an index backfill: it rewrites
exactly the files above level 0 that no archive can cover (pkft state's moved-up files), each
into COMPACT files of its own level, and builds those levels' archives in the same commit,
reading and writing no other data file. Prints a per-bucket summary (--json: the result as
JSON); a progress bar of buckets done is drawn on stderr when it is a terminal (--progress).

` + mergeEngineSupport(),
		Example: `  pkft compact /data/warehouse/db.db/docs
  pkft compact /data/warehouse/db.db/docs --partition region=eu --bucket 0 --json
  pkft compact /data/warehouse/db.db/docs --strategy uncovered`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := scopeOptions(partitions, buckets)
			if err != nil {
				return err
			}
			more, err := sharding.options()
			if err != nil {
				return err
			}
			scope = append(scope, more...)
			if err := checkParallel(parallel); err != nil {
				return err
			}
			opts := []pkft.CompactOption{pkft.WithParallelism(parallel)}
			switch strategy {
			case "full":
			case "minor":
				opts = append(opts, pkft.WithMinorCompaction())
			case "uncovered":
				opts = append(opts, pkft.WithUncoveredCompaction())
			default:
				return usagef("--strategy %q: want full, minor or uncovered", strategy)
			}
			for _, o := range scope {
				opts = append(opts, o)
			}
			if user != "" {
				opts = append(opts, pkft.WithCommitUser(user))
			}
			mode, err := parseProgressMode(progressFlag)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			tbl, err := pkft.Open(ctx, args[0], fsOptions(ctx)...)
			if err != nil {
				return err
			}
			bar := newBucketProgress(cmd.ErrOrStderr(), mode)
			if bar != nil {
				opts = append(opts, pkft.WithProgress(bar.update))
			}
			res, err := tbl.Compact(ctx, opts...)
			if bar != nil {
				bar.finish(err == nil)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return writeCompactSummary(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	sharding.add(f, "compact")
	f.StringArrayVar(&partitions, "partition", nil, "compact only partition `k=v[,k=v...]` (repeatable)")
	f.Int32SliceVar(&buckets, "bucket", nil, "compact only bucket N (repeatable or comma-separated)")
	f.IntVar(&parallel, "parallel", 0, "buckets compacted at once (default: one per CPU)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.StringVar(&user, "commit-user", "", "the snapshot's commit `USER` (default: a random UUID)")
	f.StringVar(&strategy, "strategy", "full", "`full|minor|uncovered`: full compacts every bucket into the top level, minor lets the table's compaction strategy pick, uncovered rewrites only the files no archive can cover")
	f.StringVar(&progressFlag, "progress", string(progressAuto), "progress on stderr (buckets done): `auto|always|never|json` (auto: a bar when stderr is a terminal; json: a JSON object a line)")
	return cmd
}

func writeCompactSummary(w io.Writer, res *pkft.CompactResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PARTITION\tBUCKET\tBEFORE\tAFTER\tREWRITTEN\tUPGRADED\tROWS\tBUILT\tRETIRED\tTIME")
	for _, b := range res.Buckets {
		part := b.Partition.String()
		if part == "" {
			part = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", part, b.Bucket, b.FilesBefore, b.FilesAfter, b.Rewritten,
			b.Upgraded, b.RowsWritten, len(b.Built), len(b.Retired), formatDuration(b.Duration, false))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	var err error
	switch {
	case res.SnapshotID != 0:
		_, err = fmt.Fprintf(w, "committed snapshot %d (compaction of snapshot %d)\n", res.SnapshotID, res.BaseSnapshotID)
	case res.BaseSnapshotID == 0:
		_, err = fmt.Fprintln(w, "the table has no snapshot; nothing to do")
	default:
		_, err = fmt.Fprintf(w, "no selected bucket of snapshot %d needed compaction; nothing committed\n", res.BaseSnapshotID)
	}
	return err
}
