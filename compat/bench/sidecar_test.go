package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/runner"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/countio"
)

// sidecarSizes are the sizes of the sidecar measurement.
type sidecarSizes struct {
	buckets       []int
	rowsPerBucket int
	poll          time.Duration
	polls         int
	commitRows    int
}

// sidecarSizesOf reads the sizes from PKFT_BENCH_SIDECAR_BUCKETS (comma-separated table sizes in
// buckets), PKFT_BENCH_SIDECAR_ROWS_PER_BUCKET, PKFT_BENCH_SIDECAR_POLL_MS and
// PKFT_BENCH_SIDECAR_POLLS (idle polls measured); the defaults are 100 and 1,000 buckets of 20
// rows polled every second (quick: 10 and 100 buckets, every 200 ms).
func sidecarSizesOf(t *testing.T, quick bool) sidecarSizes {
	d := sidecarSizes{buckets: []int{100, 1000}, rowsPerBucket: 20, poll: time.Second, polls: 10, commitRows: 100}
	if quick {
		d = sidecarSizes{buckets: []int{10, 100}, rowsPerBucket: 20, poll: 200 * time.Millisecond, polls: 5, commitRows: 20}
	}
	if v := os.Getenv("PKFT_BENCH_SIDECAR_BUCKETS"); v != "" {
		d.buckets = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				t.Fatalf("PKFT_BENCH_SIDECAR_BUCKETS=%q: want positive integers, comma-separated", v)
			}
			d.buckets = append(d.buckets, n)
		}
	}
	d.rowsPerBucket = envInt(t, "PKFT_BENCH_SIDECAR_ROWS_PER_BUCKET", d.rowsPerBucket)
	d.poll = time.Duration(envInt(t, "PKFT_BENCH_SIDECAR_POLL_MS", int(d.poll/time.Millisecond))) * time.Millisecond
	d.polls = envInt(t, "PKFT_BENCH_SIDECAR_POLLS", d.polls)
	return d
}

// watchRecord is one watcher event with what the process had spent when it was emitted: the
// events are emitted on the watcher's goroutine between its reads, so the reads counted since the
// previous event are those of the step the event ends.
type watchRecord struct {
	e     pkft.WatchEvent
	at    time.Time
	cpu   time.Duration
	bytes int64
	opens int
}

func measureSidecar(t *testing.T, ctx context.Context, java *runner.Process, dir string, sz sidecarSizes) []SidecarResult {
	t.Helper()
	var out []SidecarResult
	for _, buckets := range sz.buckets {
		p := filepath.Join(dir, fmt.Sprintf("sidecar-%d", buckets))
		out = append(out, measureSidecarTable(t, ctx, java, p, buckets, sz))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func measureSidecarTable(t *testing.T, ctx context.Context, java *runner.Process, p string, buckets int, sz sidecarSizes) SidecarResult {
	t.Helper()
	rows := buckets * sz.rowsPerBucket
	// The table as the generator writes it: each bucket's rows in one level-1 data file and no
	// archive yet, so that the watcher's first round builds every bucket's archive.
	if _, err := WriteTable(ctx, p, TableSpec{Rows: rows, Buckets: buckets, FilesPerBucket: 1}); err != nil {
		t.Fatal(err)
	}
	cfs := countio.New(fileio.NewLocal())
	tbl, err := pkft.Open(ctx, p, openconfig.WithFileIO(cfs))
	if err != nil {
		t.Fatal(err)
	}
	records := make(chan watchRecord, 1<<16)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- tbl.Watch(wctx, pkft.WithPollInterval(sz.poll), pkft.WithWatchEvents(func(e pkft.WatchEvent) {
			if e.Kind == pkft.WatchProgress {
				return
			}
			r := watchRecord{e: e, at: time.Now(), cpu: processCPU(), bytes: cfs.BytesRead()}
			for _, n := range cfs.Opens() {
				r.opens += n
			}
			cfs.Reset()
			records <- r
		}))
	}()
	next := func(kind pkft.WatchEventKind) watchRecord {
		t.Helper()
		timeout := time.After(30 * time.Minute)
		for {
			select {
			case r := <-records:
				if r.e.Kind == pkft.WatchRoundFailed {
					t.Fatalf("sidecar of %d buckets: round failed: %v", buckets, r.e.Err)
				}
				if r.e.Kind == kind {
					return r
				}
			case err := <-done:
				t.Fatalf("sidecar of %d buckets: Watch returned %v", buckets, err)
			case <-timeout:
				t.Fatalf("sidecar of %d buckets: no event of kind %d", buckets, kind)
			}
		}
	}
	first := next(pkft.WatchRoundDone)
	if built, _, _ := first.e.Result.Totals(); built != buckets {
		t.Fatalf("sidecar of %d buckets: the first round built %d archives, want one per bucket", buckets, built)
	}
	res := SidecarResult{Buckets: buckets, Rows: rows, PollInterval: sz.poll.Seconds(), Polls: sz.polls, FirstRound: first.at.Sub(start).Seconds(), CommitRows: sz.commitRows}
	base := next(pkft.WatchPolled)
	var bytes int64
	var opens int
	last := base
	for range sz.polls {
		last = next(pkft.WatchPolled)
		bytes += last.bytes
		opens += last.opens
	}
	res.CPUPerPoll = (last.cpu - base.cpu).Seconds() / float64(sz.polls)
	res.BytesPerPoll = float64(bytes) / float64(sz.polls)
	res.OpensPerPoll = float64(opens) / float64(sz.polls)

	// A Java commit updating rows spread over the buckets, then the round that catches up.
	commit := filepath.Join(p, "..", fmt.Sprintf("sidecar-commit-%d.tsv", buckets))
	ctexts := streamTexts(78, sz.commitRows)
	var cr []kindRow
	for i := range sz.commitRows {
		cr = append(cr, kindRow{"U", int64(i*rows/sz.commitRows + 1), ctexts[i]}) // the generator's ids are 1..rows
	}
	if err := writeKindRows(commit, cr); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(commit)
	if err := java.Call(ctx, "bench-batches", map[string]any{"path": p, "files": []string{commit}}, nil); err != nil {
		t.Fatal(err)
	}
	committed := time.Now()
	snap, err := table.Open(fileio.NewLocal(), p).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The round that catches up starts on the timer of the step before it: the event before the
	// round's is when that timer started.
	prev := last
	for caught := false; !caught; {
		select {
		case r := <-records:
			switch {
			case r.e.Kind == pkft.WatchRoundFailed:
				t.Fatalf("sidecar of %d buckets: round failed: %v", buckets, r.e.Err)
			case r.e.Kind == pkft.WatchRoundDone && r.e.MaintainedThrough >= snap.ID:
				res.CatchUp = r.at.Sub(committed).Seconds()
				res.Round = r.at.Sub(prev.at.Add(sz.poll)).Seconds()
				res.Built, _, _ = r.e.Result.Totals()
				if c := r.e.Result.Coverage; c != nil {
					res.Uncovered = c.UncoveredRows
				}
				caught = true
			}
			prev = r
		case err := <-done:
			t.Fatalf("sidecar of %d buckets: Watch returned %v", buckets, err)
		case <-time.After(30 * time.Minute):
			t.Fatalf("sidecar of %d buckets: the archives never caught up with snapshot %d", buckets, snap.ID)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("sidecar %d buckets: idle poll CPU %s, %.0f bytes and %.1f files read; first round %s; catch-up %s (round %s, %d archives built, %d rows uncovered after it)",
		buckets, dur(res.CPUPerPoll), res.BytesPerPoll, res.OpensPerPoll, dur(res.FirstRound), dur(res.CatchUp), dur(res.Round), res.Built, res.Uncovered)
	return res
}
