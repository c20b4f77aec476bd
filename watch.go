package pkft

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// WatchOption configures [Table.Watch].
type WatchOption interface{ applyWatch(*watchConfig) }

type watchConfig struct {
	poll, maxBackoff time.Duration
	maintain         []MaintainOption
	events           func(WatchEvent)
}

// Default intervals of [Table.Watch].
const (
	// DefaultWatchPollInterval is how often Watch looks for a new snapshot.
	DefaultWatchPollInterval = 2 * time.Second
	// DefaultWatchMaxBackoff is the longest Watch waits after failed rounds.
	DefaultWatchMaxBackoff = time.Minute
)

type pollIntervalOption time.Duration

func (o pollIntervalOption) applyWatch(c *watchConfig) { c.poll = time.Duration(o) }

// WithPollInterval sets how often [Table.Watch] looks for a new snapshot (default
// [DefaultWatchPollInterval]). Each look reads the LATEST hint and one snapshot file name, as
// Java's snapshot manager finds the latest snapshot.
func WithPollInterval(d time.Duration) WatchOption { return pollIntervalOption(d) }

type maxBackoffOption time.Duration

func (o maxBackoffOption) applyWatch(c *watchConfig) { c.maxBackoff = time.Duration(o) }

// WithMaxBackoff caps the wait of [Table.Watch] after failed rounds (default
// [DefaultWatchMaxBackoff]): the first failure waits one poll interval, each further one twice
// as long as the one before, up to the cap.
func WithMaxBackoff(d time.Duration) WatchOption { return maxBackoffOption(d) }

type watchMaintainOption []MaintainOption

func (o watchMaintainOption) applyWatch(c *watchConfig) { c.maintain = append(c.maintain, o...) }

// WithWatchMaintain gives every round of [Table.Watch] these maintenance options (a partition,
// bucket or shard selection, parallelism, the commit user). [WithDryRun] is refused.
func WithWatchMaintain(opts ...MaintainOption) WatchOption { return watchMaintainOption(opts) }

type watchEventsOption func(WatchEvent)

func (o watchEventsOption) applyWatch(c *watchConfig) { c.events = o }

// WithWatchEvents makes [Table.Watch] report what it does to fn, from the watching goroutine
// (fn must not block for long: the next round waits for it).
func WithWatchEvents(fn func(WatchEvent)) WatchOption { return watchEventsOption(fn) }

// WatchEventKind says what a [WatchEvent] reports.
type WatchEventKind int

const (
	// WatchPolled: the latest snapshot was looked up (LatestSnapshotID), and no round is due when
	// it is the snapshot the archives are current for.
	WatchPolled WatchEventKind = iota + 1
	// WatchProgress: a round's maintenance progressed (Progress).
	WatchProgress
	// WatchRoundDone: a round's maintenance finished (Result); the archives of the selected
	// buckets are current as of MaintainedThrough.
	WatchRoundDone
	// WatchRoundFailed: a round failed (Err); the next one starts after Backoff.
	WatchRoundFailed
)

// WatchEvent is one report of [Table.Watch].
type WatchEvent struct {
	Kind WatchEventKind
	// LatestSnapshotID is the table's latest snapshot at the last look (0: none yet).
	LatestSnapshotID int64
	// MaintainedThrough is the latest snapshot of which the watcher knows every selected archive
	// is current: the snapshot its last successful round committed, or the one it found nothing
	// to do on (0 before the first successful round).
	MaintainedThrough int64
	// Progress is the running round's progress (WatchProgress).
	Progress Progress
	// Result is the finished round's result (WatchRoundDone).
	Result *MaintainResult
	// Err is the failed round's error (WatchRoundFailed), and Backoff the wait before the next.
	Err     error
	Backoff time.Duration
}

// SnapshotsBehind is how many snapshots were committed after MaintainedThrough, as of the
// last look.
func (e *WatchEvent) SnapshotsBehind() int64 { return max(e.LatestSnapshotID-e.MaintainedThrough, 0) }

// Watch keeps the table's archives current as other writers commit: the sidecar form of
// [Table.Maintain] for tables whose writers build no archives (pypaimon, paimon-rust, write-only
// Flink or Spark jobs, compactions that maintain no archives). It looks for a new snapshot every
// poll interval and, when there is one it has not maintained through, runs one maintenance
// round (a [Table.Maintain] with the [WithWatchMaintain] options), which commits what is
// missing or stale and retries through the commit protocol when other writers commit first.
//
// A failed round is retried after a backoff (see [WithMaxBackoff]); a table Watch can never
// maintain ([ErrNoFullTextIndex] without a sorted index, [ErrUnsupportedTable]) and a failure of
// the very first round end Watch with that error, so a misconfigured sidecar stops at once.
//
// Watch returns nil when ctx is done: a round interrupted by it deletes every file it wrote and
// publishes nothing, as a failed [Table.Maintain] does.
func (t *Table) Watch(ctx context.Context, opts ...WatchOption) error {
	cfg := watchConfig{poll: DefaultWatchPollInterval, maxBackoff: DefaultWatchMaxBackoff}
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyWatch(&cfg)
	}
	if cfg.poll <= 0 || cfg.maxBackoff <= 0 {
		return fmt.Errorf("watch %s: poll interval %v and max backoff %v must be positive", t.path, cfg.poll, cfg.maxBackoff)
	}
	var probe maintainConfig
	for _, o := range cfg.maintain {
		if o == nil {
			continue
		}
		o.applyMaintain(&probe)
	}
	if probe.dryRun {
		return fmt.Errorf("watch %s: a dry run cannot keep archives current", t.path)
	}
	emit := func(e WatchEvent) {
		if cfg.events != nil {
			cfg.events(e)
		}
	}
	w := watcher{t: t, cfg: cfg, emit: emit, maintained: -1}
	return w.run(ctx)
}

// watcher is the state of one Watch call.
type watcher struct {
	t    *Table
	cfg  watchConfig
	emit func(WatchEvent)
	// latest is the latest snapshot at the last look; maintained the snapshot the archives are
	// current for (-1: no round has succeeded).
	latest, maintained int64
	failures           int
	// succeeded is set once a round has succeeded: failures before that end Watch.
	succeeded bool
}

func (w *watcher) event(kind WatchEventKind) WatchEvent {
	return WatchEvent{Kind: kind, LatestSnapshotID: w.latest, MaintainedThrough: max(w.maintained, 0)}
}

func (w *watcher) run(ctx context.Context) error {
	for {
		wait, err := w.step(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		}
	}
}

// step looks for a new snapshot and runs a round when one is due; it returns the wait before
// the next step, or the error that ends Watch.
func (w *watcher) step(ctx context.Context) (time.Duration, error) {
	id, ok, err := w.t.t.Snapshots.LatestID(ctx)
	switch {
	case err != nil:
		return w.failed(ctx, fmt.Errorf("watch %s: %w", w.t.path, err))
	case !ok:
		id = 0
	}
	w.latest = id
	if w.failures == 0 && w.maintained >= 0 && id == w.maintained {
		w.emit(w.event(WatchPolled))
		return w.cfg.poll, nil
	}
	opts := append([]MaintainOption{WithProgress(func(p Progress) {
		e := w.event(WatchProgress)
		e.Progress = p
		w.emit(e)
	})}, w.cfg.maintain...)
	res, err := w.t.Maintain(ctx, opts...)
	if err != nil {
		return w.failed(ctx, err)
	}
	w.failures, w.succeeded = 0, true
	w.maintained = max(res.SnapshotID, res.BaseSnapshotID)
	w.latest = max(w.latest, w.maintained)
	e := w.event(WatchRoundDone)
	e.Result = res
	w.emit(e)
	return w.cfg.poll, nil
}

// failed reports a failed round and returns the backoff before the next, or the error when
// Watch must stop.
func (w *watcher) failed(ctx context.Context, err error) (time.Duration, error) {
	if ctx.Err() != nil {
		return 0, nil
	}
	if !w.succeeded || errors.Is(err, ErrNoFullTextIndex) || errors.Is(err, ErrUnsupportedTable) {
		return 0, err
	}
	w.failures++
	backoff := w.cfg.poll
	for i := 1; i < w.failures && backoff < w.cfg.maxBackoff; i++ {
		backoff *= 2
	}
	backoff = min(backoff, w.cfg.maxBackoff)
	e := w.event(WatchRoundFailed)
	e.Err, e.Backoff = err, backoff
	w.emit(e)
	return backoff, nil
}
