package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/paimon-pkft/pkft"
)

// defaultWatchListen is where maintain --watch serves /metrics and /healthz: a loopback
// address, so nothing is exposed beyond the machine unless asked.
const defaultWatchListen = "127.0.0.1:9464"

// watchFlags are maintain's --watch flags.
type watchFlags struct {
	enabled    bool
	poll       time.Duration
	maxBackoff time.Duration
	listen     string
}

// watchMetrics are the sidecar's Prometheus metrics, in a registry of their own.
type watchMetrics struct {
	registry                         *prometheus.Registry
	latest, maintained, behind       prometheus.Gauge
	unindexed, inRound               prometheus.Gauge
	rounds, built, retired, failures prometheus.Counter
	commitRetries, rowsIndexed       prometheus.Counter
	uncoveredRows, uncoveredFiles    *prometheus.GaugeVec

	mu      sync.Mutex
	lastErr error // the last round's error; nil once a round succeeds
}

func newWatchMetrics() *watchMetrics {
	m := &watchMetrics{registry: prometheus.NewRegistry()}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "pkft", Subsystem: "watch", Name: name, Help: help})
		m.registry.MustRegister(g)
		return g
	}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "pkft", Subsystem: "watch", Name: name, Help: help})
		m.registry.MustRegister(c)
		return c
	}
	m.latest = gauge("latest_snapshot_id", "The table's latest snapshot at the last look (0: none).")
	m.maintained = gauge("maintained_snapshot_id", "The latest snapshot every selected archive is known current for.")
	m.behind = gauge("snapshots_behind", "Snapshots committed after the one the archives are known current for.")
	m.unindexed = gauge("unindexed_rows", "Rows of the running round's planned builds not indexed yet; 0 after a successful round.")
	m.inRound = gauge("round_in_progress", "1 while a maintenance round runs.")
	m.rounds = counter("rounds_total", "Maintenance rounds finished successfully.")
	m.built = counter("archives_built_total", "Archives built and committed.")
	m.retired = counter("archives_retired_total", "Stale archives retired.")
	m.failures = counter("failures_total", "Maintenance rounds that failed.")
	m.commitRetries = counter("commit_retries_total", "Publication attempts beyond the first (another writer committed first).")
	m.rowsIndexed = counter("rows_indexed_total", "Source rows read into committed archives.")
	m.uncoveredRows = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "pkft", Subsystem: "watch", Name: "uncovered_rows",
		Help: "Rows of the selected buckets no current full-text archive covers after the last round, by reason (as pkft state counts them)."}, []string{"reason"})
	m.uncoveredFiles = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "pkft", Subsystem: "watch", Name: "uncovered_files",
		Help: "Data files of the selected buckets no current full-text archive covers after the last round, by reason."}, []string{"reason"})
	m.registry.MustRegister(m.uncoveredRows, m.uncoveredFiles)
	m.setCoverage(nil)
	m.registry.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// uncoveredReasons are the reasons the uncovered metrics are labelled with, each always present.
var uncoveredReasons = []pkft.UncoveredReason{pkft.UncoveredLevel0, pkft.UncoveredMovedUp, pkft.UncoveredNoArchive,
	pkft.UncoveredDuplicateArchives, pkft.UncoveredStateError}

// setCoverage sets the uncovered metrics from a round's coverage (nil: none counted yet, or a
// table without a full-text index: zero).
func (m *watchMetrics) setCoverage(c *pkft.Coverage) {
	rows, files := map[pkft.UncoveredReason]int64{}, map[pkft.UncoveredReason]int64{}
	if c != nil {
		for _, u := range c.Uncovered {
			rows[u.Reason] += u.Rows
			files[u.Reason] += u.Files
		}
	}
	for _, r := range uncoveredReasons {
		m.uncoveredRows.WithLabelValues(string(r)).Set(float64(rows[r]))
		m.uncoveredFiles.WithLabelValues(string(r)).Set(float64(files[r]))
	}
}

// observe updates the metrics from one event of the watcher.
func (m *watchMetrics) observe(e pkft.WatchEvent) {
	m.latest.Set(float64(e.LatestSnapshotID))
	m.maintained.Set(float64(e.MaintainedThrough))
	m.behind.Set(float64(e.SnapshotsBehind()))
	switch e.Kind {
	case pkft.WatchProgress:
		m.inRound.Set(1)
		m.unindexed.Set(float64(max(e.Progress.RowsPlanned-e.Progress.RowsIndexed, 0)))
	case pkft.WatchRoundDone:
		m.inRound.Set(0)
		m.unindexed.Set(0)
		m.rounds.Inc()
		built, retired, _ := e.Result.Totals()
		m.built.Add(float64(built))
		m.retired.Add(float64(retired))
		var rows int64
		for _, b := range e.Result.Buckets {
			rows += b.RowsIndexed
		}
		m.rowsIndexed.Add(float64(rows))
		if e.Result.Attempts > 1 {
			m.commitRetries.Add(float64(e.Result.Attempts - 1))
		}
		if e.Result.CoverageError == "" {
			m.setCoverage(e.Result.Coverage)
		}
		m.setErr(nil)
	case pkft.WatchRoundFailed:
		m.inRound.Set(0)
		m.failures.Inc()
		m.setErr(e.Err)
	}
}

func (m *watchMetrics) setErr(err error) {
	m.mu.Lock()
	m.lastErr = err
	m.mu.Unlock()
}

// health serves /healthz: 200 while the last round succeeded (or none has finished yet), 503
// with the error while the watcher backs off after a failed one.
func (m *watchMetrics) health(w http.ResponseWriter, _ *http.Request) {
	m.mu.Lock()
	err := m.lastErr
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "failing: %v\n", err)
		return
	}
	fmt.Fprintln(w, "ok")
}

// runWatch is maintain --watch: the watcher, with its metrics and health endpoint served on
// f.listen until ctx is done (SIGINT, SIGTERM).
func runWatch(ctx context.Context, tbl *pkft.Table, f watchFlags, maintain []pkft.MaintainOption, stderr io.Writer, logger *slog.Logger) error {
	if f.poll <= 0 || f.maxBackoff <= 0 {
		return usagef("--poll-interval %v and --max-backoff %v: want positive durations", f.poll, f.maxBackoff)
	}
	m := newWatchMetrics()
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", f.listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", m.health)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	// The address on stderr, so a caller that asked for port 0 finds the one it got.
	fmt.Fprintf(stderr, "pkft: watching %s; metrics on http://%s/metrics, health on /healthz\n", tbl.Path(), ln.Addr())
	events := func(e pkft.WatchEvent) {
		m.observe(e)
		switch e.Kind {
		case pkft.WatchRoundDone:
			built, retired, _ := e.Result.Totals()
			var uncovered int64
			if e.Result.Coverage != nil {
				uncovered = e.Result.Coverage.UncoveredRows
			}
			if built+retired > 0 || e.Result.SnapshotID > 0 {
				logger.Info("maintained", "table", tbl.Path(), "snapshot", e.Result.SnapshotID, "base", e.Result.BaseSnapshotID,
					"built", built, "retired", retired, "attempts", e.Result.Attempts, "uncovered_rows", uncovered)
			} else {
				// A round that had nothing to build: logged at debug, so a quiet sidecar can be seen polling.
				logger.Debug("round committed nothing", "table", tbl.Path(), "base", e.Result.BaseSnapshotID, "uncovered_rows", uncovered)
			}
		case pkft.WatchRoundFailed:
			logger.Warn("maintenance round failed; backing off", "table", tbl.Path(), "err", e.Err, "backoff", e.Backoff)
		}
	}
	werr := tbl.Watch(ctx, pkft.WithPollInterval(f.poll), pkft.WithMaxBackoff(f.maxBackoff),
		pkft.WithWatchMaintain(maintain...), pkft.WithWatchEvents(events))
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	serr := srv.Shutdown(shutdown)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) && serr == nil {
		serr = err
	}
	if werr != nil {
		return werr
	}
	if serr != nil {
		return fmt.Errorf("stop the metrics server: %w", serr)
	}
	return nil
}
