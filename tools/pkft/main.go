// Command pkft inspects, maintains and searches the primary-key full-text archives of Paimon
// tables.
//
//	pkft maintain TABLE_PATH [--partition k=v,...] [--bucket N] [--parallel N] [--dry-run] [--json]
//	                        build missing and stale archives, commit them as one snapshot
//	pkft search TABLE_PATH --query Q [--column C] [--limit N] [--json]
//	                        search the current archives (Q: plain words or the engine's JSON query)
//	pkft dump  TABLE_PATH   the canonical dump of the latest snapshot (JSON)
//	pkft state TABLE_PATH   per (partition, bucket): eligible files per level, current and stale
//	                        full-text payloads, and the next plan (JSON)
//	pkft rewrite-metadata TABLE_PATH
//	                        re-encode the metadata as the next snapshot
//	pkft options TABLE_PATH [--json]
//	                        what pkft does with each option the table sets (honoured, refused, inert)
//
// Errors are logged on stderr (log/slog) and exit with status 1.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/inspect"
	"github.com/paimon-pkft/pkft/impl/table"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the exit status: 0, or 1 after logging the
// error on stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	root := newRoot(stdout, logger)
	root.SetErr(stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		logger.Error("pkft failed", "err", err)
		return 1
	}
	return 0
}

func newRoot(out io.Writer, logger *slog.Logger) *cobra.Command {
	root := &cobra.Command{
		Use:           "pkft",
		Short:         "Inspect and maintain Paimon primary-key full-text archives",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(out)
	root.AddCommand(rewriteCommand(), maintainCommand(logger), searchCommand())
	root.AddCommand(writeCommand())
	root.AddCommand(compactCommand())
	root.AddCommand(optionsCommand())
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
