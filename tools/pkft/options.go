package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func optionsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "options TABLE_PATH",
		Short: "Print what pkft does with each option the table sets",
		Long: `Print, for every option of the table's latest schema, whether pkft honours it (Go implements
what Java does with it), refuses it (write, compact and maintain fail before writing anything) or
ignores it as inert (it cannot change what Go writes or how archives are built), and why. An
option pkft does not know is refused. The index-only maintenance (maintain, maintain --watch)
also accepts what cannot change what it writes, such as a changelog producer, full-compaction
triggers and keys outside Paimon's namespaces (owner): such an option is marked
"REFUSED (maintain: ok)". The last line says whether pkft will write and maintain the table.`,
		Example: `  pkft options /data/warehouse/db.db/docs
  pkft options /data/warehouse/db.db/docs --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			decisions, err := pkft.TableOptions(cmd.Context(), args[0], fsOptions(cmd.Context())...)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), decisions)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "OPTION\tVALUE\tCLASS\tPKFT\tWHY")
			refused, maintainRefused := 0, 0
			for _, d := range decisions {
				action, why := "ok", d.Reason
				if d.MaintainRefused {
					maintainRefused++
				}
				if d.Refused && !d.MaintainRefused {
					action, why = "REFUSED (maintain: ok)", d.Error+"; maintain accepts it: "+d.MaintainReason
					refused++
				} else if d.Refused {
					action, why = "REFUSED", d.Error
					refused++
				} else if d.Test != "" {
					why += " (checked by " + d.Test + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Key, d.Value, d.Class, action, why)
			}
			if err := tw.Flush(); err != nil {
				return fmt.Errorf("write table: %w", err)
			}
			switch {
			case maintainRefused > 0:
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "pkft refuses to write, compact or maintain this table: %d option(s) refused\n", refused)
			case refused > 0:
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "pkft maintains this table (index-only commits) but refuses to write or compact it: %d option(s) refused\n", refused)
			default:
				_, err = fmt.Fprintln(cmd.OutOrStdout(), "pkft writes, compacts and maintains this table with every option as set")
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the decisions as JSON")
	return cmd
}
