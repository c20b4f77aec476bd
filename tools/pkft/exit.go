package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

// The exit statuses of pkft. exitStatuses documents them; docs/cli.md's table is checked
// against it (TestExitStatusTableInDocs).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitUncovered   = 3
	exitInterrupted = 130
)

// uncoveredError ends a search --require-coverage whose searched snapshot and partitions hold
// rows no archive covers: the hits are printed, the exit status is exitUncovered.
type uncoveredError struct{ rows, files int64 }

func (e uncoveredError) Error() string {
	return fmt.Sprintf("--require-coverage: %s of the searched snapshot and partitions %s not covered by a full-text archive",
		rowsInFiles(e.rows, e.files), isOrAre(e.rows))
}

// exitStatus is one row of the documented exit-status table.
type exitStatus struct {
	code    int
	meaning string
}

// exitStatuses are every status pkft exits with and what each means.
var exitStatuses = []exitStatus{
	{exitOK, "success"},
	{exitFailed, "the operation failed (no table at the path, a refused input, query or option, an I/O error, a failed commit); what it wrote is deleted, and the error says if an earlier step was committed"},
	{exitUsage, "usage error: unknown command or flag, a flag value out of its range or set, a missing required flag or argument, too many arguments; nothing was read or written"},
	{exitUncovered, "search --require-coverage: the search ran and printed its hits, but rows of the searched snapshot and partitions are in no full-text archive, so it did not see them (the notice counts them by reason)"},
	{exitInterrupted, "interrupted by SIGINT or SIGTERM; what the operation had written is deleted"},
}

// printError writes err on w as plain lines: the first prefixed by "pkft: ", the others (of a
// refusal listing several problems) as they are.
func printError(w io.Writer, err error) {
	msg := strings.TrimRight(err.Error(), "\n")
	fmt.Fprintf(w, "pkft: %s\n", msg)
}

// logSetup is the logger of long work (maintain --watch, a rebased maintenance commit),
// configured by the root's --log-format and --log-level.
type logSetup struct {
	w      io.Writer
	format string
	level  string
	logger *slog.Logger
}

// addFlags adds --log-format and --log-level to root.
func (l *logSetup) addFlags(root *cobra.Command) {
	root.PersistentFlags().StringVar(&l.format, "log-format", "text", "format of the logs of long work on stderr: `text|json`")
	root.PersistentFlags().StringVar(&l.level, "log-level", "info", "least level of the logs of long work: `debug|info|warn|error`")
}

// configure checks the flags and builds the logger.
func (l *logSetup) configure() error {
	var level slog.Level
	switch l.level {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "warn":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return usagef("--log-level %q: want debug, info, warn or error", l.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch l.format {
	case "text":
		l.logger = slog.New(slog.NewTextHandler(l.w, opts))
	case "json":
		l.logger = slog.New(slog.NewJSONHandler(l.w, opts))
	default:
		return usagef("--log-format %q: want text or json", l.format)
	}
	return nil
}

// get returns the configured logger (text at info before configure runs).
func (l *logSetup) get() *slog.Logger {
	if l.logger == nil {
		return slog.New(slog.NewTextHandler(l.w, nil))
	}
	return l.logger
}

// usagef returns a usage error (exit status 2) with the formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}
