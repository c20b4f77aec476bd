package main

import (
	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/table"
	"github.com/paimon-pkft/pkft/impl/tableops"
)

func rewriteCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rewrite-metadata TABLE_PATH",
		Short: "Re-encode the latest snapshot's manifests under new names and commit them as the next snapshot",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			snap, err := tableops.RewriteMetadata(cmd.Context(), table.Open(fileio.NewLocal(), args[0]), "pkft-"+uuid.NewString())
			if err != nil {
				return err
			}
			return writeJSON(cmd.OutOrStdout(), map[string]any{"snapshotId": snap.ID, "commitKind": snap.CommitKind})
		},
	}
}
