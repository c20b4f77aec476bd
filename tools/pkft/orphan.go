package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func removeOrphanFilesCommand() *cobra.Command {
	var (
		olderThan string
		dryRun    bool
		asJSON    bool
		parallel  int
		mode      string
	)
	cmd := &cobra.Command{
		Use:   "remove-orphan-files TABLE_PATH",
		Short: "Delete the files no snapshot, tag or branch references (Paimon's remove_orphan_files)",
		Long: `Delete the table's orphan files as Paimon 2.0.0's remove_orphan_files procedure does in its
local mode (LocalOrphanFilesClean): the files of manifest/, index/, statistics/ and every bucket
directory that no snapshot, tag, long-lived changelog or branch references, and the files of each
branch's snapshot/ and changelog/ directories that are neither snapshots nor hints, when they were
modified before --older-than (default: one day ago). Empty directories found or left are removed.
A file is never deleted while any snapshot, tag or branch names it; metadata that cannot be read
(other than a file that vanished) stops the command before it deletes a data or metadata file.

--older-than takes a timestamp in the local time zone (yyyy-MM-dd HH:mm:ss[.SSS], as Java's
older_than, or yyyy-MM-dd, or RFC 3339 with a zone) or an age (a Go duration such as 36h, or Nd
for N days); it must be in the past. --dry-run lists the files and deletes nothing. --parallel
bounds the manifests read at once (Java's parallelism). --mode local is the only mode: Java's
distributed mode runs a Flink job and is refused. Prints one line per file and a total (--json:
the result as JSON, paths relative to the table directory).`,
		Example: `  pkft remove-orphan-files /data/warehouse/db.db/docs --dry-run
  pkft remove-orphan-files /data/warehouse/db.db/docs --older-than "2026-01-31 00:00:00"
  pkft remove-orphan-files /data/warehouse/db.db/docs --older-than 3d --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !strings.EqualFold(mode, "local") {
				return usageError{fmt.Errorf("--mode %q: only local is supported (Java's distributed mode runs a Flink job); nothing was deleted", mode)}
			}
			if err := checkParallel(parallel); err != nil {
				return err
			}
			opts := []pkft.RemoveOrphanFilesOption{pkft.WithDryRun(dryRun), pkft.WithParallelism(parallel)}
			if olderThan != "" {
				now := time.Now()
				t, err := parseOlderThan(olderThan, now)
				if err == nil && !t.Before(now) {
					err = fmt.Errorf("--older-than %q is not in the past: files being written now, which no snapshot references yet, would be deleted", olderThan)
				}
				if err != nil {
					return usageError{err}
				}
				opts = append(opts, pkft.WithOlderThan(t))
			}
			ctx := cmd.Context()
			tbl, err := pkft.Open(ctx, args[0], fsOptions(ctx)...)
			if err != nil {
				return err
			}
			res, err := tbl.RemoveOrphanFiles(ctx, opts...)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return writeOrphanSummary(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&olderThan, "older-than", "", "delete only files modified before this `TIME`, a timestamp or an age (default: 1d)")
	f.BoolVar(&dryRun, "dry-run", false, "list the orphan files, delete nothing")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.IntVar(&parallel, "parallel", 0, "manifests read at once (default: one per CPU)")
	f.StringVar(&mode, "mode", "local", "`local`, the only mode pkft runs")
	return cmd
}

// parseOlderThan reads the --older-than of remove-orphan-files and expire-snapshots: a timestamp
// (Java's yyyy-MM-dd HH:mm:ss[.fraction] in the local time zone, as Paimon's procedures read it
// with DateTimeUtils#parseTimestampData, yyyy-MM-dd, yyyy-MM-ddTHH:mm:ss, or RFC 3339 with a
// zone), epoch milliseconds, or an age before now (a Go duration, or Nd days).
func parseOlderThan(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	var t time.Time
	parsed := false
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		t, parsed = time.UnixMilli(ms), true
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.ParseFloat(days, 64); err == nil && n >= 0 {
			t, parsed = now.Add(-time.Duration(n*float64(24*time.Hour))), true
		}
	}
	if !parsed {
		if d, err := time.ParseDuration(s); err == nil && d >= 0 {
			t, parsed = now.Add(-d), true
		}
	}
	if !parsed {
		if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
			t, parsed = v, true
		}
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if parsed {
			break
		}
		if v, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			t, parsed = v, true
		}
	}
	if !parsed {
		return time.Time{}, fmt.Errorf("--older-than %q: want a timestamp (yyyy-MM-dd HH:mm:ss, yyyy-MM-dd or RFC 3339), epoch milliseconds or an age (36h, 3d)", s)
	}
	return t, nil
}

func writeOrphanSummary(w io.Writer, res *pkft.OrphanFilesResult) error {
	verb := "deleted"
	if res.DryRun {
		verb = "would delete"
	}
	var b strings.Builder
	for _, f := range res.Deleted {
		fmt.Fprintf(&b, "%s\t%d\n", f.Path, f.Size)
	}
	for _, d := range res.DeletedDirectories {
		fmt.Fprintf(&b, "%s/\t(empty directory)\n", d)
	}
	fmt.Fprintf(&b, "%s %d orphan file(s), %d bytes, modified before %s", verb, len(res.Deleted), res.DeletedBytes, res.OlderThan.Format("2006-01-02 15:04:05.000 MST"))
	if len(res.DeletedDirectories) > 0 {
		fmt.Fprintf(&b, "; removed %d empty director(ies)", len(res.DeletedDirectories))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}
