package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func expireCommand() *cobra.Command {
	var retainMax, retainMin, maxDeletes int
	var olderThan string
	cmd := &cobra.Command{
		Use:   "expire-snapshots TABLE_PATH",
		Short: "Expire snapshots as Paimon's expire_snapshots procedure does, deleting the files only they reference",
		Long: `Expire the table's snapshots as Paimon's expire_snapshots procedure does. Each bound defaults
to the table's option (snapshot.num-retained.max, snapshot.num-retained.min, snapshot.time-retained
before now, snapshot.expire.limit). Snapshots tags hold and snapshots consumers still read are
protected. The data, changelog, deletion-vector and index files, manifests and statistics that only
expired snapshots reference are deleted, then the snapshot files; the EARLIEST hint moves. Prints
{"expired": N, "earliestSnapshotId": ID} (the id only when something expired). A retain max
below the retain min (snapshot.num-retained.min, 10 by default) is refused, as Java's procedure
refuses it: to keep the latest 5 snapshots, give both.`,
		Example: `  pkft expire-snapshots /data/db.db/docs --retain-max 5 --retain-min 5
  pkft expire-snapshots /data/db.db/docs --older-than "2026-01-31 00:00:00" --retain-min 2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts []pkft.ExpireOption
			for _, flag := range []string{"retain-max", "retain-min", "max-deletes"} {
				if v, _ := cmd.Flags().GetInt(flag); cmd.Flags().Changed(flag) && v < 1 {
					return usagef("--%s %d: want at least 1", flag, v)
				}
			}
			if cmd.Flags().Changed("retain-max") {
				opts = append(opts, pkft.WithRetainMax(retainMax))
			}
			if cmd.Flags().Changed("retain-min") {
				opts = append(opts, pkft.WithRetainMin(retainMin))
			}
			if cmd.Flags().Changed("max-deletes") {
				opts = append(opts, pkft.WithMaxDeletes(maxDeletes))
			}
			if cmd.Flags().Changed("older-than") {
				t, err := parseOlderThan(olderThan, time.Now())
				if err != nil {
					return usageError{err}
				}
				opts = append(opts, pkft.WithOlderThan(t))
			}
			tbl, err := pkft.Open(cmd.Context(), args[0], fsOptions(cmd.Context())...)
			if err != nil {
				return err
			}
			res, err := tbl.ExpireSnapshots(cmd.Context(), opts...)
			if err != nil {
				return err
			}
			return writeJSON(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	f.IntVar(&retainMax, "retain-max", 0, "keep at most this many snapshots (default: the table's snapshot.num-retained.max)")
	f.IntVar(&retainMin, "retain-min", 0, "keep at least this many snapshots (default: the table's snapshot.num-retained.min)")
	f.IntVar(&maxDeletes, "max-deletes", 0, "expire at most this many snapshots (default: the table's snapshot.expire.limit)")
	f.StringVar(&olderThan, "older-than", "", "expire only snapshots whose successor is older than `TIME`: \"yyyy-mm-dd hh:mm:ss[.fff]\" in local time, RFC 3339, epoch milliseconds, or an age (36h, 3d) (default: now minus the table's snapshot.time-retained)")
	return cmd
}
