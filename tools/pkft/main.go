// Command pkft inspects, maintains and searches the primary-key full-text archives of Paimon
// tables.
//
//	pkft maintain TABLE_PATH [--partition k=v,...] [--bucket N] [--parallel N] [--dry-run] [--json]
//	                        build missing and stale archives, commit them as one snapshot
//	pkft search TABLE_PATH --query Q [--column C] [--limit N] [--timeout D] [--max-query-bytes N]
//	                        [--max-query-terms N] [--max-query-depth N] [--json]
//	                        search the current archives (Q: plain words or the engine's JSON query);
//	                        a notice on stderr counts the rows no current archive covers
//	pkft dump  TABLE_PATH   the canonical dump of the latest snapshot (JSON)
//	pkft state TABLE_PATH [--json]
//	                        per (partition, bucket): the rows no current full-text archive covers
//	                        and why, the archived levels, stale archives and next plan; --json adds
//	                        the eligible files per level and each pk-btree/pk-bitmap definition's
//	                        groups, rejected payloads and next plan
//	pkft rewrite-metadata TABLE_PATH
//	                        re-encode the metadata as the next snapshot
//	pkft expire-snapshots TABLE_PATH [--retain-max N] [--retain-min N] [--older-than T] [--max-deletes N]
//	                        expire snapshots as Paimon's expire_snapshots procedure does
//	pkft options TABLE_PATH [--json]
//	                        what pkft does with each option the table sets (honoured, refused, inert)
//	pkft version            pkft's version and the full-text engine found: path, how, sha256, version
//
// The full-text engine (libpaimon_ftindex_ffi.so of the paimon-ftindex wheel) is the file
// --engine-lib names, else PAIMON_FTINDEX_LIB_PATH's, else the one in the paimon_ftindex package
// of the Python on PATH (pip install paimon-ftindex==0.1.0), else .cache/native of a pkft clone
// (make native).
//
// Errors are logged on stderr (log/slog) and exit with status 1. SIGINT and SIGTERM stop any
// command promptly (a search also while the engine is inside an archive). The engine's temporary
// files go to $TMPDIR/pkft-<pid>-<random>, removed on exit; a run first removes those left by
// processes that no longer exist.
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

	"github.com/paimon-pkft/pkft"
)

func main() {
	os.Exit(mainStatus())
}

// mainStatus runs the command with SIGINT and SIGTERM cancelling its context and the engine's
// temporary files in a directory of this process, removed on every way out (a killed process's
// directory is removed by the next run), and returns the exit status.
func mainStatus() (code int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	release, _, staleErr, err := pkft.UseEngineTempDir()
	if staleErr != nil {
		fmt.Fprintf(os.Stderr, "pkft: warning: %v\n", staleErr)
	}
	if err != nil {
		// Commands that build no archive do not need the directory; one that does fails in the
		// engine with its own message.
		fmt.Fprintf(os.Stderr, "pkft: warning: the engine's temporary files stay in %s: %v\n", os.TempDir(), err)
		return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	defer func() {
		if err := release(); err != nil {
			fmt.Fprintf(os.Stderr, "pkft: %v\n", err)
			code = 1
		}
	}()
	return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// run executes the command line args and returns the exit status: 0, 1 after logging the error
// on stderr, or 2 for a usage error (unknown command or flag, wrong arguments, a missing required
// flag), logged the same way.
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
		if isUsageError(err) {
			return 2
		}
		return 1
	}
	return 0
}

func newRoot(out io.Writer, logger *slog.Logger) *cobra.Command {
	root := &cobra.Command{
		Use:           "pkft",
		Short:         "Inspect and maintain Paimon primary-key full-text archives",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       moduleVersion(),
		Example: `  pkft create /data/db.db/docs --schema docs.json
  pkft write /data/db.db/docs --format parquet rows.parquet
  pkft scan /data/db.db/docs --limit 10
  pkft maintain /data/db.db/docs
  pkft search /data/db.db/docs --query "lake format"`,
	}
	root.SetOut(out)
	addFileSystemFlag(root)
	root.AddCommand(rewriteCommand(), maintainCommand(logger), searchCommand())
	root.AddCommand(writeCommand())
	root.AddCommand(compactCommand())
	root.AddCommand(createCommand(), scanCommand())
	root.AddCommand(optionsCommand())
	root.AddCommand(expireCommand())
	root.AddCommand(versionCommand())
	root.AddCommand(
		&cobra.Command{
			Use:     "dump TABLE_PATH",
			Short:   "Print the canonical dump of the table's latest snapshot",
			Example: "  pkft dump /data/db.db/docs",
			Args:    cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				tbl, err := pkft.Open(cmd.Context(), args[0], fsOptions(cmd.Context())...)
				if err != nil {
					return err
				}
				d, err := tbl.Dump(cmd.Context())
				if err != nil {
					return err
				}
				return writeJSON(cmd.OutOrStdout(), d)
			},
		},
		stateCommand(),
	)
	markUsageErrors(root)
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
