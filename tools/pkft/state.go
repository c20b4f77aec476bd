package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

// noSnapshotNote is what dump and state say of a table with no snapshot.
const noSnapshotNote = "the table has no snapshot yet: nothing was committed to it"

// inspectOptions checks dump's and state's --snapshot and returns it as an option.
func inspectOptions(snapshot int64) ([]pkft.InspectOption, error) {
	if snapshot < 0 {
		return nil, usagef("--snapshot %d: want a snapshot id > 0 (0: the latest)", snapshot)
	}
	return []pkft.InspectOption{pkft.WithInspectSnapshot(snapshot)}, nil
}

func dumpCommand() *cobra.Command {
	var (
		asJSON   bool
		snapshot int64
	)
	cmd := &cobra.Command{
		Use:   "dump TABLE_PATH",
		Short: "Print the canonical dump of the table's latest snapshot (JSON)",
		Long: `Print the canonical dump of the latest snapshot (--snapshot: an earlier one) as JSON: the snapshot,
the schema, and per (partition, bucket) the live data files, the index files with their decoded
meta, deletion-vector ranges, the full-text state and next plan and each sorted index's state.
JSON is its only form; --json is accepted for symmetry with the other commands. A table with no
snapshot yet prints {"snapshotId": 0, "note": ..., "buckets": []}.`,
		Example: `  pkft dump /data/db.db/docs
  pkft dump /data/db.db/docs --snapshot 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := inspectOptions(snapshot)
			if err != nil {
				return err
			}
			_ = asJSON // the only form
			tbl, err := pkft.Open(cmd.Context(), args[0], fsOptions(cmd.Context())...)
			if err != nil {
				return err
			}
			d, err := tbl.Dump(cmd.Context(), opts...)
			if errors.Is(err, pkft.ErrNoSnapshot) && snapshot == 0 {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"snapshotId": 0, "note": noSnapshotNote, "buckets": []any{}})
			}
			if err != nil {
				return err
			}
			return writeJSON(cmd.OutOrStdout(), d)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", true, "print JSON (the only form; accepted for symmetry)")
	cmd.Flags().Int64Var(&snapshot, "snapshot", 0, "dump this snapshot instead of the latest")
	return cmd
}

func stateCommand() *cobra.Command {
	var (
		asJSON   bool
		snapshot int64
	)
	cmd := &cobra.Command{
		Use:   "state TABLE_PATH",
		Short: "Print, per bucket, the rows no full-text archive covers and why, the archives and the next plan",
		Long: `Print the full-text state of every (partition, bucket) of the latest snapshot: its data files and
rows, how many of them no current full-text archive covers (a search does not see those rows) and
why, the levels with a current archive, the stale archives and the next build. Rows are the data
files' row counts (physical rows: deleted and superseded rows included).

A full-text archive covers only data files a compaction rewrote above level 0, one current
archive per (partition, bucket, level), as in Java Paimon. So rows are uncovered when they are on
level 0 (level-0) or in a file a compaction moved up without rewriting it (moved-up): both wait
for a compaction that rewrites them (every compaction does with compaction.force-rewrite-all-files);
or when their level has no current archive (no-archive) or duplicate archives of concurrent
maintainers (duplicate-archives): pkft maintain builds those. A bucket whose state cannot be
computed (error) counts as uncovered entirely.

--json prints the whole state: the coverage, per bucket the eligible files of each level, the
current and stale archives, duplicates, the next plan, and each pk-btree/pk-bitmap definition's
groups, rejected payloads and next plan. --snapshot reads an earlier snapshot; a table with no
snapshot yet says so (exit 0).`,
		Example: `  pkft state /data/db.db/docs
  pkft state /data/db.db/docs --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := inspectOptions(snapshot)
			if err != nil {
				return err
			}
			tbl, err := pkft.Open(cmd.Context(), args[0], fsOptions(cmd.Context())...)
			if err != nil {
				return err
			}
			st, err := tbl.State(cmd.Context(), opts...)
			if errors.Is(err, pkft.ErrNoSnapshot) && snapshot == 0 {
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), map[string]any{"snapshotId": 0, "note": noSnapshotNote, "buckets": []any{}})
				}
				_, err := fmt.Fprintln(cmd.OutOrStdout(), noSnapshotNote)
				return err
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			return writeState(cmd.OutOrStdout(), st)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole state as JSON")
	cmd.Flags().Int64Var(&snapshot, "snapshot", 0, "the state of this snapshot instead of the latest")
	return cmd
}

// writeState prints the state as a table, one line per bucket, headed by the table's coverage
// and followed by what each reason present means.
func writeState(w io.Writer, st *pkft.TableState) error {
	if _, err := fmt.Fprintln(w, coverageHeadline(st)); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if st.Coverage == nil {
		if slices.ContainsFunc(st.Buckets, func(b pkft.BucketState) bool { return len(b.Sorted) > 0 }) {
			_, err := fmt.Fprintln(w, "The table has pk-btree/pk-bitmap indexes: pkft state --json shows their state.")
			return err
		}
		return nil
	}
	if len(st.Buckets) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PARTITION\tBUCKET\tFILES\tROWS\tUNCOVERED ROWS\tWHY\tARCHIVED LEVELS\tSTALE\tNEXT BUILD")
		sorted := false
		for _, b := range st.Buckets {
			sorted = sorted || len(b.Sorted) > 0
			part := b.Partition.String()
			if part == "" {
				part = "-"
			}
			files, rows, uncovered, why := "-", "-", "-", "-"
			if c := b.Coverage; c != nil {
				files, rows, uncovered = strconv.FormatInt(c.Files, 10), strconv.FormatInt(c.Rows, 10), strconv.FormatInt(c.UncoveredRows, 10)
				if len(c.Uncovered) > 0 {
					why = formatUncovered(c.Uncovered)
				}
			}
			archived, stale := "-", "-"
			if s := b.State; s != nil {
				levels := make([]int32, 0, len(s.Current))
				for l := range s.Current {
					levels = append(levels, l)
				}
				if len(levels) > 0 {
					archived = formatLevels(levels)
				}
				stale = strconv.Itoa(len(s.Stale))
			}
			next := "-"
			if b.Plan != nil {
				next = fmt.Sprintf("level %d (%d files)", b.Plan.Level, len(b.Plan.Files))
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", part, b.Bucket, files, rows, uncovered, why, archived, stale, next)
		}
		c := st.Coverage
		fmt.Fprintf(tw, "TOTAL (%s)\t\t%d\t%d\t%d\n", plural(int64(len(st.Buckets)), "bucket"), c.Files, c.Rows, c.UncoveredRows)
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("write state: %w", err)
		}
		if sorted {
			fmt.Fprintln(w, "\nThe table has pk-btree/pk-bitmap indexes: pkft state --json shows their state.")
		}
	}
	if c := st.Coverage; len(c.Uncovered) > 0 {
		fmt.Fprintln(w)
		if err := writeReasons(w, c.Uncovered); err != nil {
			return err
		}
	}
	return nil
}

// coverageHeadline is the first line of pkft state: the snapshot and how much of it searches see.
func coverageHeadline(st *pkft.TableState) string {
	c := st.Coverage
	switch {
	case c == nil:
		return fmt.Sprintf("snapshot %d: the table has no full-text index", st.SnapshotID)
	case c.UncoveredRows == 0 && c.UncoveredFiles == 0:
		return fmt.Sprintf("snapshot %d: every row (%s) is covered by a current full-text archive",
			st.SnapshotID, rowsInFiles(c.Rows, c.Files))
	}
	return fmt.Sprintf("snapshot %d: %d of %d rows (%d of %s) are not covered by a full-text archive; searches do not see them",
		st.SnapshotID, c.UncoveredRows, c.Rows, c.UncoveredFiles, plural(c.Files, "data file"))
}

// writeReasons prints one line per reason: its rows and files, its levels, and what it means.
func writeReasons(w io.Writer, us []pkft.UncoveredFiles) error {
	for _, u := range us {
		if _, err := fmt.Fprintf(w, "%s: %s on %s: %s\n", u.Reason, rowsInFiles(u.Rows, u.Files), levelsPhrase(u.Levels), u.Reason.Explain()); err != nil {
			return fmt.Errorf("write reasons: %w", err)
		}
	}
	return nil
}

// coverageNotice is the one line a search prints on stderr when rows of the searched snapshot
// are in no current archive; empty when there are none.
func coverageNotice(c pkft.Coverage) string {
	if c.UncoveredRows == 0 && c.UncoveredFiles == 0 {
		return ""
	}
	notice := fmt.Sprintf("notice: %s %s not covered by a full-text archive, so this search did not see them (%s)",
		rowsInFiles(c.UncoveredRows, c.UncoveredFiles), isOrAre(c.UncoveredRows), formatUncovered(c.Uncovered))
	maintainable := int64(0)
	for _, u := range c.Uncovered {
		if u.Reason == pkft.UncoveredNoArchive || u.Reason == pkft.UncoveredDuplicateArchives {
			maintainable += u.Rows
		}
	}
	if maintainable > 0 {
		notice += fmt.Sprintf("; `pkft maintain` indexes %s", plural(maintainable, "row"))
	}
	return notice + "; see `pkft state`"
}

// formatUncovered is "level-0: 60000 rows in 3 files, moved-up: 40000 rows in 1 file".
func formatUncovered(us []pkft.UncoveredFiles) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = fmt.Sprintf("%s: %s", u.Reason, rowsInFiles(u.Rows, u.Files))
	}
	return strings.Join(parts, ", ")
}

// rowsInFiles is "100000 rows in 4 files".
func rowsInFiles(rows, files int64) string {
	return plural(rows, "row") + " in " + plural(files, "file")
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func isOrAre(n int64) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// formatLevels is "1,3,5" for levels in any order.
func formatLevels(levels []int32) string {
	levels = slices.Clone(levels)
	slices.Sort(levels)
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = strconv.Itoa(int(l))
	}
	return strings.Join(parts, ",")
}

// levelsPhrase is "level 5" or "levels 1,3".
func levelsPhrase(levels []int32) string {
	if len(levels) == 1 {
		return "level " + formatLevels(levels)
	}
	return "levels " + formatLevels(levels)
}
