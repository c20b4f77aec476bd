package pkft_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/testing/countio"
)

// TestWatchIdlePollReadsOnlyTheHint: once the watcher has maintained the table, a poll that finds
// no new snapshot reads the LATEST hint and nothing else (counted through the FileIO), so an
// idle sidecar's cost does not grow with the table.
func TestWatchIdlePollReadsOnlyTheHint(t *testing.T) {
	_, dir := openExample(t, "partitioned-dv")
	cfs := countio.New(fileio.NewLocal())
	tbl, err := pkft.Open(context.Background(), dir, openconfig.WithFileIO(cfs))
	if err != nil {
		t.Fatal(err)
	}
	type poll struct {
		opens map[string]int
		bytes int64
	}
	var mu sync.Mutex
	var polls []poll
	rounds := 0
	// This events function replaces watchEvents' own (the last one given wins). The events are
	// emitted on the watcher's goroutine between its reads, so the counts taken
	// at a poll event are the reads of that poll alone.
	_, done, stop := watchEvents(t, tbl, pkft.WithWatchEvents(func(e pkft.WatchEvent) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case pkft.WatchRoundDone:
			rounds++
		case pkft.WatchPolled:
			if rounds > 0 {
				polls = append(polls, poll{opens: cfs.Opens(), bytes: cfs.BytesRead()})
			}
		}
		cfs.Reset()
	}))
	for {
		mu.Lock()
		n := len(polls)
		mu.Unlock()
		if n >= 5 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Watch returned %v before 5 idle polls", err)
		default:
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
	hint := filepath.Join(dir, "snapshot", "LATEST")
	info, err := os.Stat(hint)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if rounds != 1 {
		t.Fatalf("%d rounds, want the one maintaining the example", rounds)
	}
	for i, p := range polls[:5] {
		if len(p.opens) != 1 || p.opens[hint] != 1 || p.bytes != info.Size() {
			t.Fatalf("idle poll %d opened %v and read %d bytes, want the hint %s once (%d bytes) and nothing else", i, p.opens, p.bytes, hint, info.Size())
		}
	}
}
