package main

import (
	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func rewriteCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "rewrite-metadata TABLE_PATH",
		Short:   "Re-encode the latest snapshot's manifests under new names and commit them as the next snapshot",
		Example: "  pkft rewrite-metadata /data/db.db/docs",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tbl, err := pkft.Open(cmd.Context(), args[0], fsOptions(cmd.Context())...)
			if err != nil {
				return err
			}
			res, err := tbl.RewriteMetadata(cmd.Context())
			if err != nil {
				return err
			}
			return writeJSON(cmd.OutOrStdout(), res)
		},
	}
}
