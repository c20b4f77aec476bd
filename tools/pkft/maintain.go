package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/paimon-pkft/pkft"
)

// progressMode says when maintain draws its progress bar on stderr.
type progressMode string

const (
	progressAuto   progressMode = "auto"
	progressAlways progressMode = "always"
	progressNever  progressMode = "never"
	// progressJSON writes one JSON object a line on stderr for each report, terminal or not:
	// progress for machines.
	progressJSON progressMode = "json"
)

func maintainCommand(logs *logSetup) *cobra.Command {
	var (
		partitions   []string
		buckets      []int32
		parallel     int
		dryRun       bool
		asJSON       bool
		progressFlag string
		user         string
		sharding     shardFlags
		watch        watchFlags
	)
	cmd := &cobra.Command{
		Use:   "maintain TABLE_PATH",
		Short: "Build the table's missing and stale full-text archives and commit them as one snapshot",
		Long: `Build the full-text archives of every compacted level that has none or a stale one, for every
(partition, bucket) of the latest snapshot or the selected ones, and commit the created and
retired archives as one new snapshot. A table whose archives are all current is left unchanged.
Prints a per-bucket summary (--json: the result as JSON) and what remains uncovered: rows on level
0 or in files a compaction moved up without rewriting them are in no archive even when every
archive is current (archives cover only files a compaction rewrote above level 0, as in Java
Paimon); they wait for a compaction that rewrites them (see pkft state). A progress bar is drawn
on stderr when it is a terminal (--progress).

With --watch it keeps running as a sidecar: it looks for a new snapshot every --poll-interval and
maintains what other writers left unindexed (writers that build no archives: pypaimon,
paimon-rust, write-only Flink or Spark jobs, compactions without the full-text index), backing
off after failures up to --max-backoff. It serves Prometheus metrics on /metrics and a health
check on /healthz at --listen (a loopback address by default) and stops on SIGINT or SIGTERM,
deleting what an interrupted round wrote.`,
		Example: `  pkft maintain /data/warehouse/db.db/docs
  pkft maintain /data/warehouse/db.db/docs --partition region=eu,dt=2024-01-31 --bucket 0 --dry-run
  pkft maintain /data/warehouse/db.db/docs --parallel 4 --json
  pkft maintain s3://warehouse/db.db/docs --watch --poll-interval 10s --listen 127.0.0.1:9464`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			mode, err := parseProgressMode(progressFlag)
			if err != nil {
				return err
			}
			if err := checkParallel(parallel); err != nil {
				return err
			}
			scope, err := scopeOptions(partitions, buckets)
			if err != nil {
				return err
			}
			more, err := sharding.options()
			if err != nil {
				return err
			}
			scope = append(scope, more...)
			opts := []pkft.MaintainOption{pkft.WithParallelism(parallel), pkft.WithDryRun(dryRun)}
			for _, o := range scope {
				opts = append(opts, o)
			}
			if user != "" {
				opts = append(opts, pkft.WithCommitUser(user))
			}
			if watch.enabled && (dryRun || asJSON || cmd.Flags().Changed("progress")) {
				return usageError{errors.New("--watch runs until stopped: it takes no --dry-run, --json or --progress")}
			}
			if !watch.enabled {
				for _, name := range []string{"poll-interval", "max-backoff", "listen"} {
					if cmd.Flags().Changed(name) {
						return usageError{fmt.Errorf("--%s is a --watch flag", name)}
					}
				}
			}
			if watch.enabled && (watch.poll <= 0 || watch.maxBackoff <= 0) {
				return usagef("--poll-interval %v and --max-backoff %v: want positive durations", watch.poll, watch.maxBackoff)
			}
			ctx := cmd.Context()
			tbl, err := pkft.Open(ctx, args[0], fsOptions(ctx)...)
			if err != nil {
				return err
			}
			if watch.enabled {
				return runWatch(ctx, tbl, watch, opts, cmd.ErrOrStderr(), logs.get())
			}
			var bar *progress
			if !dryRun {
				bar = newProgress(cmd.ErrOrStderr(), mode)
			}
			if bar != nil {
				opts = append(opts, pkft.WithProgress(bar.update))
			}
			res, err := tbl.Maintain(ctx, opts...)
			if bar != nil {
				bar.finish(err == nil)
			}
			if err != nil {
				return err
			}
			if res.Attempts > 1 {
				logs.get().Warn("other writers committed first; the maintenance commit was rebased on their snapshots",
					"table", args[0], "attempts", res.Attempts)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return writeMaintainSummary(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	sharding.add(f, "maintain")
	f.StringArrayVar(&partitions, "partition", nil, "maintain only partition `k=v[,k=v...]` (repeatable; DATE as yyyy-mm-dd or day number)")
	f.Int32SliceVar(&buckets, "bucket", nil, "maintain only bucket N (repeatable or comma-separated)")
	f.IntVar(&parallel, "parallel", 0, "buckets maintained at once (default: one per CPU)")
	f.BoolVar(&dryRun, "dry-run", false, "show what would be built and retired; write nothing")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.StringVar(&progressFlag, "progress", string(progressAuto), "progress on stderr: `auto|always|never|json` (auto: a bar when stderr is a terminal; json: a JSON object a line)")
	f.StringVar(&user, "commit-user", "", "the snapshot's commit `USER` (default: a random UUID)")
	f.BoolVar(&watch.enabled, "watch", false, "keep running: maintain every new snapshot other writers commit (a sidecar)")
	f.DurationVar(&watch.poll, "poll-interval", pkft.DefaultWatchPollInterval, "with --watch: how often to look for a new snapshot")
	f.DurationVar(&watch.maxBackoff, "max-backoff", pkft.DefaultWatchMaxBackoff, "with --watch: the longest wait after failed rounds")
	f.StringVar(&watch.listen, "listen", defaultWatchListen, "with --watch: the `ADDRESS` of /metrics and /healthz (port 0: any free port)")
	return cmd
}

// scopeOption is an option both maintain and compact take.
type scopeOption interface {
	pkft.MaintainOption
	pkft.CompactOption
}

// scopeOptions turns the --partition and --bucket flags into the options that select the
// (partition, bucket)s a command works on.
func scopeOptions(partitions []string, buckets []int32) ([]scopeOption, error) {
	var opts []scopeOption
	for _, p := range partitions {
		spec, err := parsePartition(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, pkft.WithPartition(spec))
	}
	for _, b := range buckets {
		if b < 0 {
			return nil, usagef("--bucket %d: want a bucket number >= 0", b)
		}
		opts = append(opts, pkft.WithBucket(b))
	}
	return opts, nil
}

// parseProgressMode checks the --progress flag.
func parseProgressMode(flag string) (progressMode, error) {
	mode := progressMode(flag)
	if mode != progressAuto && mode != progressAlways && mode != progressNever && mode != progressJSON {
		return "", usagef("--progress %q: want auto, always, never or json", flag)
	}
	return mode, nil
}

// checkParallel checks the --parallel flag (0: one per CPU).
func checkParallel(n int) error {
	if n < 0 {
		return usagef("--parallel %d: want a positive number (0: one per CPU)", n)
	}
	return nil
}

// parsePartition reads k=v[,k=v...].
func parsePartition(s string) (map[string]string, error) {
	spec := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usagef("--partition %q: want key=value[,key=value...]", s)
		}
		if _, dup := spec[k]; dup {
			return nil, usagef("--partition %q: key %s given twice", s, k)
		}
		spec[k] = v
	}
	return spec, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws maintenance progress (rows indexed out of rows planned, buckets done) as a
// progress bar, or writes it as JSON lines (--progress json).
type progress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
	// buckets: the bar counts buckets (compact), not rows (maintain). The bar is made on w at the
	// first report with something to count, so that a run with nothing to do draws nothing.
	buckets bool
	w       io.Writer
	// json: a JSON line per report instead of a bar; op names the command in each line.
	json bool
	op   string
	last pkft.Progress
}

// newProgress returns maintain's progress for w, or nil when none is drawn.
func newProgress(w io.Writer, mode progressMode) *progress {
	return newProgressOf(w, mode, "maintain", false)
}

// newBucketProgress returns compact's progress for w, counting buckets done out of the selected
// ones (compaction reports no rows), or nil when none is drawn.
func newBucketProgress(w io.Writer, mode progressMode) *progress {
	return newProgressOf(w, mode, "compact", true)
}

func newProgressOf(w io.Writer, mode progressMode, op string, buckets bool) *progress {
	if mode == progressNever || (mode == progressAuto && !isTerminal(w)) {
		return nil
	}
	return &progress{w: w, buckets: buckets, json: mode == progressJSON, op: op}
}

// progressLine is one line of --progress json.
type progressLine struct {
	Op           string `json:"op"`
	Phase        string `json:"phase"`
	BucketsDone  int    `json:"bucketsDone"`
	BucketsTotal int    `json:"bucketsTotal"`
	RowsIndexed  int64  `json:"rowsIndexed"`
	RowsPlanned  int64  `json:"rowsPlanned"`
}

func (p *progress) writeLine(phase string, r pkft.Progress) {
	b, _ := json.Marshal(progressLine{Op: p.op, Phase: phase, BucketsDone: r.BucketsDone, BucketsTotal: r.BucketsTotal,
		RowsIndexed: r.RowsIndexed, RowsPlanned: r.RowsPlanned})
	fmt.Fprintf(p.w, "%s\n", b)
}

func (p *progress) newBar(max int64, desc, its string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetItsString(its),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		// No spinner ticker: progressbar's ticker goroutine (unknown length) reads the bar's state
		// without its lock, a data race; the bar is redrawn on every report instead.
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
}

func (p *progress) update(r pkft.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = r
	if p.json {
		p.writeLine("running", r)
		return
	}
	if p.buckets {
		if r.BucketsTotal == 0 {
			return
		}
		if p.bar == nil {
			p.bar = p.newBar(int64(r.BucketsTotal), "compacting", "buckets")
		}
		if p.bar.GetMax64() != int64(r.BucketsTotal) {
			p.bar.ChangeMax64(int64(r.BucketsTotal))
		}
		_ = p.bar.Set64(int64(r.BucketsDone))
		return
	}
	if r.RowsPlanned <= 0 {
		return // nothing to build (yet): no bar of an unknown length
	}
	if p.bar == nil {
		p.bar = p.newBar(r.RowsPlanned, "", "rows")
	}
	p.bar.Describe(fmt.Sprintf("buckets %d/%d", r.BucketsDone, r.BucketsTotal))
	if p.bar.GetMax64() != r.RowsPlanned {
		p.bar.ChangeMax64(r.RowsPlanned)
	}
	_ = p.bar.Set64(r.RowsIndexed)
}

// finish ends the progress: the bar drawn at its end (ok: the work finished) and its line ended;
// in JSON a last line of phase "done" (or "failed"). A run that reported nothing to count draws
// nothing: its summary says it had nothing to do.
func (p *progress) finish(ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		phase := "done"
		if !ok {
			phase = "failed"
		}
		p.writeLine(phase, p.last)
		return
	}
	if p.bar == nil {
		return
	}
	if ok {
		_ = p.bar.Set64(p.bar.GetMax64())
	}
	_ = p.bar.Exit()
	fmt.Fprintln(p.w)
}

// writeMaintainSummary prints one line per bucket and the totals.
func writeMaintainSummary(w io.Writer, res *pkft.MaintainResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PARTITION\tBUCKET\tBUILT\tRETIRED\tUNCHANGED\tROWS\tTIME")
	var rows int64
	for _, b := range res.Buckets {
		part := b.Partition.String()
		if part == "" {
			part = "-"
		}
		rows += b.RowsIndexed
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", part, b.Bucket, len(b.Built), len(b.Retired), len(b.Unchanged),
			b.RowsIndexed, formatDuration(b.Duration, res.DryRun))
	}
	built, retired, unchanged := res.Totals()
	fmt.Fprintf(tw, "TOTAL (%d buckets)\t\t%d\t%d\t%d\t%d\t%s\n", len(res.Buckets), built, retired, unchanged, rows,
		formatDuration(res.Duration, false))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	var err error
	switch {
	case res.BaseSnapshotID == 0:
		_, err = fmt.Fprintln(w, "the table has no snapshot; nothing to do")
	case len(res.Buckets) == 0:
		_, err = fmt.Fprintf(w, "no bucket of snapshot %d is selected; nothing to do\n", res.BaseSnapshotID)
	case res.DryRun && built+retired > 0:
		_, err = fmt.Fprintf(w, "dry run: %d archives to build, %d to retire on snapshot %d; nothing written\n", built, retired, res.BaseSnapshotID)
	case res.DryRun:
		_, err = fmt.Fprintf(w, "dry run: every archive of snapshot %d is current; nothing to do\n", res.BaseSnapshotID)
	case res.SnapshotID != 0:
		_, err = fmt.Fprintf(w, "committed snapshot %d (on snapshot %d, %d attempt(s))\n", res.SnapshotID, res.BaseSnapshotID, res.Attempts)
	default:
		_, err = fmt.Fprintf(w, "every archive of snapshot %d is current; nothing committed\n", res.BaseSnapshotID)
	}
	if err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return writeMaintainCoverage(w, res)
}

// writeMaintainCoverage prints what remains uncovered in the snapshot maintenance leaves (in a
// dry run: what is uncovered now), and why.
func writeMaintainCoverage(w io.Writer, res *pkft.MaintainResult) error {
	if res.CoverageError != "" {
		if _, err := fmt.Fprintf(w, "what remains uncovered is unknown: %s\n", res.CoverageError); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
		return nil
	}
	c := res.Coverage
	if c == nil || (c.UncoveredRows == 0 && c.UncoveredFiles == 0) {
		return nil
	}
	snap, verb := res.SnapshotID, "remain"
	if snap == 0 {
		snap = res.BaseSnapshotID
	}
	if res.DryRun {
		verb = "are now"
	}
	if _, err := fmt.Fprintf(w, "%s (of %d rows in the selected buckets) %s uncovered by a full-text archive in snapshot %d; searches do not see them:\n",
		rowsInFiles(c.UncoveredRows, c.UncoveredFiles), c.Rows, verb, snap); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return writeReasons(w, c.Uncovered)
}

func formatDuration(d time.Duration, dryRun bool) string {
	if dryRun {
		return "-"
	}
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}
