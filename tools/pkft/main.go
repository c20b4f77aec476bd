// Command pkft inspects and maintains the primary-key full-text archives of Paimon tables.
//
//	pkft dump  TABLE_PATH   the canonical dump of the latest snapshot (JSON)
//	pkft state TABLE_PATH   per (partition, bucket): eligible files per level, current and stale
//	                        full-text payloads, and the next plan (JSON)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/inspect"
	"github.com/paimon-pkft/pkft/impl/table"
)

func main() {
	if err := newRoot(os.Stdout).ExecuteContext(context.Background()); err != nil {
		slog.Error("pkft failed", "err", err)
		os.Exit(1)
	}
}

func newRoot(out io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "pkft",
		Short:         "Inspect and maintain Paimon primary-key full-text archives",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(out)
	root.AddCommand(rewriteCommand())
	root.AddCommand(
		&cobra.Command{
			Use:   "dump TABLE_PATH",
			Short: "Print the canonical dump of the table's latest snapshot",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				d, err := inspect.TableDump(cmd.Context(), table.Open(fileio.NewLocal(), args[0]), inspect.FullTextState)
				if err != nil {
					return err
				}
				return writeJSON(cmd.OutOrStdout(), d)
			},
		},
		&cobra.Command{
			Use:   "state TABLE_PATH",
			Short: "Print the full-text state and next plan of every bucket",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				d, err := inspect.TableDump(cmd.Context(), table.Open(fileio.NewLocal(), args[0]), inspect.FullTextState)
				if err != nil {
					return err
				}
				type bucketState struct {
					Partition map[string]any     `json:"partition"`
					Bucket    int32              `json:"bucket"`
					State     *inspect.StateDump `json:"state"`
					Plan      *inspect.PlanDump  `json:"plan"`
				}
				states := []bucketState{}
				for _, b := range d.Buckets {
					states = append(states, bucketState{b.Partition, b.Bucket, b.State, b.Plan})
				}
				return writeJSON(cmd.OutOrStdout(), map[string]any{"snapshotId": d.SnapshotID, "buckets": states})
			},
		},
	)
	return root
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
