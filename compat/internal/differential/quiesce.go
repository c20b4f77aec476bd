package differential

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"
)

// The Go maintainer runs each build in its own goroutine and offers no way to wait until a
// finished build's goroutine has marked it done, while a non-waiting PrepareCommit only takes a
// build that is done. For the trace to be deterministic the executor therefore waits, after every
// action, until each build goroutine has either exited or is blocked in the builder waiting for
// its release. It recognizes the goroutines by id: the builder records the id of the goroutine
// calling it (the maintainer's build goroutine), and the executor polls the goroutine dump until
// those ids are gone. Goroutine ids are never reused, so absence is exact.

// settleTimeout bounds one wait for build goroutines; reaching it is a harness error.
const settleTimeout = 30 * time.Second

// goroutineID returns the id of the calling goroutine, read from its stack header
// "goroutine N [...".
func goroutineID() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, _ := parseGoroutineHeader(buf[:n])
	return id
}

// parseGoroutineHeader reads N from a line "goroutine N [status]:".
func parseGoroutineHeader(line []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("goroutine "))
	if !ok {
		return 0, false
	}
	end := bytes.IndexByte(rest, ' ')
	if end < 0 {
		return 0, false
	}
	id, err := strconv.ParseUint(string(rest[:end]), 10, 64)
	return id, err == nil
}

// liveGoroutines returns the ids of every goroutine of the process.
func liveGoroutines() map[uint64]bool {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	live := map[uint64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(buf))
	sc.Buffer(make([]byte, 0, 64<<10), len(buf)+1)
	for sc.Scan() {
		if id, ok := parseGoroutineHeader(sc.Bytes()); ok {
			live[id] = true
		}
	}
	return live
}

// waitGoroutinesExited waits until none of ids is alive.
func waitGoroutinesExited(ctx context.Context, ids []uint64) error {
	deadline := time.Now().Add(settleTimeout)
	for pause := time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		live := liveGoroutines()
		alive := 0
		for _, id := range ids {
			if live[id] {
				alive++
			}
		}
		if alive == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("wait for %d build goroutines: %w", alive, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d build goroutines still running after %v", alive, settleTimeout)
		}
		time.Sleep(pause)
	}
}

// waitFor polls cond until it holds.
func waitFor(ctx context.Context, what string, cond func() bool) error {
	deadline := time.Now().Add(settleTimeout)
	for pause := time.Microsecond; !cond(); pause = min(2*pause, time.Millisecond) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if time.Now().After(deadline) {
			return errors.New("timed out waiting for " + what)
		}
		time.Sleep(pause)
	}
	return nil
}
