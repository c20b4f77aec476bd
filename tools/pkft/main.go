// Command pkft inspects, maintains and searches the primary-key full-text archives of Paimon
// tables.
//
//	pkft maintain TABLE_PATH [--partition k=v,...] [--bucket N] [--parallel N] [--dry-run] [--json]
//	                        build missing and stale archives, commit them as one snapshot
//	pkft search TABLE_PATH --query Q [--column C] [--limit N] [--timeout D] [--max-query-bytes N]
//	                        [--max-query-terms N] [--max-query-depth N] [--json]
//	                        [--full] [--explain] [--require-coverage]
//	                        search the current archives (Q: plain words or the engine's JSON query,
//	                        checked before the table is read; --explain: the engine query Q becomes);
//	                        a notice on stderr counts the rows no current archive covers
//	                        (--require-coverage: then exit status 3)
//	pkft dump  TABLE_PATH [--snapshot N] [--json]
//	                        the canonical dump of the latest snapshot (JSON; a table with no
//	                        snapshot: {"snapshotId": 0, ...})
//	pkft state TABLE_PATH [--snapshot N] [--json]
//	                        per (partition, bucket): the rows no current full-text archive covers
//	                        and why, the archived levels, stale archives and next plan; --json adds
//	                        the eligible files per level and each pk-btree/pk-bitmap definition's
//	                        groups, rejected payloads and next plan
//	pkft write TABLE_PATH [--format jsonl|csv] [--progress auto|always|never|json] [--quiet] [--index-new-rows] [--json] < rows
//	pkft write TABLE_PATH --format parquet FILE... [--json]
//	                        commit rows as Java's batch writer, compacting at commit; progress of
//	                        the rows and bytes read, then of the commit, on stderr when it is a
//	                        terminal; a notice counts the committed rows no archive covers
//	pkft compact TABLE_PATH [--partition k=v,...] [--bucket N] [--strategy full|minor|uncovered] [--json]
//	                        compact, maintaining the index archives; a bar counts buckets done
//	pkft create TABLE_PATH --schema FILE
//	                        create a table (refused inside another table's directory)
//	pkft scan TABLE_PATH [--where ...] [--columns a,b] [--snapshot N] [--full] [--json] [--explain]
//	                        the rows of a snapshot; cells escaped and cut as search's (--full: whole)
//	pkft remove-orphan-files TABLE_PATH [--older-than TIMESTAMP|AGE] [--dry-run] [--parallel N] [--json]
//	                        delete the files no snapshot, tag or branch references (Paimon's
//	                        remove_orphan_files), modified before --older-than (default: 1 day ago)
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
// Errors are plain lines on stderr, the first starting "pkft: ". The exit status is 0 on
// success, 1 when the operation failed, 2 for a usage error (unknown command or flag, a bad flag
// value, a missing required flag or argument, too many arguments; a JSON query outside the
// engine's language), 3 when search --require-coverage found rows no archive covers, and 130 when SIGINT or SIGTERM interrupted it (maintain --watch: 0, its
// normal stop). SIGINT and SIGTERM stop any command promptly (a search also while the engine is
// inside an archive, a write also while it waits for stdin). --log-format text|json and
// --log-level debug|info|warn|error configure the logs of long work (maintain --watch, a rebased
// maintenance commit). The engine's temporary
// files go to $TMPDIR/pkft-<pid>-<random>, removed on exit; a run first removes those left by
// processes that no longer exist.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
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

// run executes the command line args and returns its exit status (exitStatuses): 0; 1 when the
// operation failed; 2 for a usage error (unknown command or flag, a bad flag value, wrong
// arguments, a missing required flag); 130 when ctx was cancelled by SIGINT or SIGTERM. An
// error is printed on stderr as plain lines, the first starting "pkft: ".
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, os.Stdin, stdout, stderr)
}

// runWith is run with stdin.
func runWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	logs := &logSetup{w: stderr}
	root := newRoot(stdout, logs)
	root.SetIn(stdin)
	root.SetErr(stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) && !strings.Contains(err.Error(), cause.Error()) {
			err = fmt.Errorf("%w (%v)", err, cause)
		}
		printError(stderr, err)
		return exitInterrupted
	}
	printError(stderr, err)
	if isUsageError(err) {
		return exitUsage
	}
	if _, ok := errors.AsType[uncoveredError](err); ok {
		return exitUncovered
	}
	return exitFailed
}

func newRoot(out io.Writer, logs *logSetup) *cobra.Command {
	root := &cobra.Command{
		Use:           "pkft",
		Short:         "Inspect and maintain Paimon primary-key full-text archives",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       moduleVersion(),
		Example: `  pkft create /data/db.db/docs --schema docs.json
  pkft write /data/db.db/docs --index-new-rows < rows.jsonl
  pkft scan /data/db.db/docs --limit 10
  pkft maintain /data/db.db/docs
  pkft search /data/db.db/docs --query "lake format"`,
	}
	root.SetOut(out)
	addFileSystemFlag(root)
	logs.addFlags(root)
	if fsPre := root.PersistentPreRunE; fsPre != nil {
		root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
			if err := logs.configure(); err != nil {
				return err
			}
			return fsPre(cmd, args)
		}
	}
	root.AddCommand(rewriteCommand(), maintainCommand(logs), searchCommand())
	root.AddCommand(writeCommand())
	root.AddCommand(compactCommand())
	root.AddCommand(removeOrphanFilesCommand())
	root.AddCommand(createCommand(), scanCommand())
	root.AddCommand(optionsCommand())
	root.AddCommand(expireCommand())
	root.AddCommand(versionCommand())
	root.AddCommand(
		dumpCommand(),
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
