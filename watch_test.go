package pkft_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
)

// watchEvents runs tbl.Watch in the background with a short poll interval and returns its
// events, its result and a stop function.
func watchEvents(t *testing.T, tbl *pkft.Table, opts ...pkft.WatchOption) (<-chan pkft.WatchEvent, <-chan error, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan pkft.WatchEvent, 1024)
	done := make(chan error, 1)
	opts = append([]pkft.WatchOption{pkft.WithPollInterval(10 * time.Millisecond), pkft.WithMaxBackoff(40 * time.Millisecond),
		pkft.WithWatchEvents(func(e pkft.WatchEvent) { events <- e })}, opts...)
	go func() { done <- tbl.Watch(ctx, opts...) }()
	t.Cleanup(cancel)
	return events, done, cancel
}

// nextEvent waits for the next event of kind, failing the test after a while.
func nextEvent(t *testing.T, events <-chan pkft.WatchEvent, done <-chan error, kind pkft.WatchEventKind) pkft.WatchEvent {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case e := <-events:
			if e.Kind == kind {
				return e
			}
		case err := <-done:
			t.Fatalf("Watch returned %v while waiting for event kind %d", err, kind)
		case <-timeout:
			t.Fatalf("no event of kind %d", kind)
		}
	}
}

// TestWatch: the watcher maintains what it finds unindexed, then only polls while the table
// does not change; a snapshot it cannot read is a failed round, retried with a growing backoff
// (capped), and once the table is readable again the watcher maintains through it; cancelling
// the context ends Watch with nil.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	tbl, dir := openExample(t, "partitioned-dv")
	plan, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	events, done, stop := watchEvents(t, tbl)
	e := nextEvent(t, events, done, pkft.WatchRoundDone)
	built, _, _ := e.Result.Totals()
	if e.Result.SnapshotID != plan.BaseSnapshotID+1 || built == 0 || e.MaintainedThrough != e.Result.SnapshotID || e.SnapshotsBehind() != 0 {
		t.Fatalf("first round: %+v (result %+v), want the plan of snapshot %d built and committed", e, e.Result, plan.BaseSnapshotID)
	}
	maintained := e.MaintainedThrough
	for range 3 {
		if p := nextEvent(t, events, done, pkft.WatchPolled); p.LatestSnapshotID != maintained || p.SnapshotsBehind() != 0 {
			t.Fatalf("poll after the round: %+v, want latest = maintained = %d", p, maintained)
		}
	}
	// Another writer's snapshot the watcher cannot read: failed rounds, backing off.
	bad := filepath.Join(dir, "snapshot", "snapshot-"+strconv.FormatInt(maintained+1, 10))
	if err := os.WriteFile(bad, []byte("{not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	var backoffs []time.Duration
	for range 4 {
		f := nextEvent(t, events, done, pkft.WatchRoundFailed)
		if f.Err == nil || f.LatestSnapshotID != maintained+1 || f.SnapshotsBehind() != 1 {
			t.Fatalf("failed round: %+v", f)
		}
		backoffs = append(backoffs, f.Backoff)
	}
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 40 * time.Millisecond}
	for i := range want {
		if backoffs[i] != want[i] {
			t.Fatalf("backoffs %v, want %v", backoffs, want)
		}
	}
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	e = nextEvent(t, events, done, pkft.WatchRoundDone)
	if e.Result.SnapshotID != 0 || e.MaintainedThrough != maintained || e.SnapshotsBehind() != 0 {
		t.Fatalf("round after the repair: %+v (result %+v), want nothing to commit at %d", e, e.Result, maintained)
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch after cancel: %v, want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Watch did not return after cancel")
	}
}

// TestWatchStopsOnWhatItCannotMaintain: a table without a primary-key index, a failing first
// round and a dry run end Watch with an error at once.
func TestWatchStopsOnWhatItCannotMaintain(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("testdata", "tables", "java", "two-levels")
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Watch(ctx, pkft.WithPollInterval(time.Millisecond)); !errors.Is(err, pkft.ErrNoFullTextIndex) {
		t.Fatalf("watch of a table without an index: %v, want ErrNoFullTextIndex", err)
	}
	ft, _ := openExample(t, "partitioned-dv")
	if err := ft.Watch(ctx, pkft.WithWatchMaintain(pkft.WithDryRun(true))); err == nil {
		t.Fatal("a dry-run watch accepted")
	}
	if err := ft.Watch(ctx, pkft.WithPollInterval(0)); err == nil {
		t.Fatal("a zero poll interval accepted")
	}
	// A first round that fails (the manifests are gone) ends Watch with its error.
	broken, brokenDir := openExample(t, "partitioned-dv")
	if err := os.RemoveAll(filepath.Join(brokenDir, "manifest")); err != nil {
		t.Fatal(err)
	}
	if err := broken.Watch(ctx, pkft.WithPollInterval(time.Millisecond)); err == nil {
		t.Fatal("a watch whose first round fails returned nil")
	}
}
