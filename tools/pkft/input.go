package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/paimon-pkft/pkft"
)

// ctxReader reads r in a goroutine of its own so that a read blocked on an input that never
// ends (a terminal, a pipe whose writer stalls) still returns when ctx is done (SIGINT): Read
// then returns ctx's cause and the blocked read is abandoned with the process.
type ctxReader struct {
	ctx    context.Context
	chunks chan readChunk
	rest   []byte
	err    error
	bytes  int64
}

type readChunk struct {
	data []byte
	err  error
}

// newCtxReader starts reading r.
func newCtxReader(ctx context.Context, r io.Reader) *ctxReader {
	c := &ctxReader{ctx: ctx, chunks: make(chan readChunk, 1)}
	go func() {
		for {
			buf := make([]byte, 256<<10)
			n, err := r.Read(buf)
			select {
			case c.chunks <- readChunk{buf[:n], err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// Read implements io.Reader.
func (c *ctxReader) Read(p []byte) (int, error) {
	for len(c.rest) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		select {
		case <-c.ctx.Done():
			c.err = context.Cause(c.ctx)
			return 0, c.err
		case ch := <-c.chunks:
			c.rest, c.err = ch.data, ch.err
		}
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	c.bytes += int64(n)
	return n, nil
}

// readMeter reports rows and bytes read, with their rate, on a line of stderr it redraws
// (write's progress): at most every interval, and a last time at the end. Then it reports the
// phases of the commit the library reports (pkft.WithProgress): a line each, redrawn as the
// phase advances and ended at its end.
type readMeter struct {
	w        io.Writer
	start    time.Time
	last     time.Time
	interval time.Duration
	drawn    bool
	// json: a JSON object a line per report (--progress json) instead of a redrawn line.
	json        bool
	rows        int
	bytes       int64
	commitStart time.Time
	// mu guards the commit's phase state: the library reports from its goroutines.
	mu         sync.Mutex
	phase      pkft.Phase
	phaseStart time.Time
	lastPhase  pkft.Progress
}

// newReadMeter returns the meter drawing on w, or nil when none is drawn.
func newReadMeter(w io.Writer, mode progressMode) *readMeter {
	if mode == progressNever || (mode == progressAuto && !isTerminal(w)) {
		return nil
	}
	now := time.Now()
	return &readMeter{w: w, start: now, last: now, interval: 200 * time.Millisecond, json: mode == progressJSON}
}

// writeProgressLine is one line of write --progress json: rows and bytes read, and in the
// commit's phases (flush, compact, commit) buckets done (snapshots published in commit) out of
// their total and the rows the archive builds read.
type writeProgressLine struct {
	Op           string `json:"op"`
	Phase        string `json:"phase"`
	Rows         int    `json:"rows"`
	Bytes        int64  `json:"bytes"`
	BucketsDone  int    `json:"bucketsDone"`
	BucketsTotal int    `json:"bucketsTotal"`
	RowsIndexed  int64  `json:"rowsIndexed"`
}

func (m *readMeter) jsonLine(phase string, rows int, bytes int64, p pkft.Progress) {
	b, _ := json.Marshal(writeProgressLine{Op: "write", Phase: phase, Rows: rows, Bytes: bytes,
		BucketsDone: p.BucketsDone, BucketsTotal: p.BucketsTotal, RowsIndexed: p.RowsIndexed})
	fmt.Fprintf(m.w, "%s\n", b)
}

// option is the library option reporting the commit's phases to the meter; nil when no meter
// is drawn.
func (m *readMeter) option() pkft.WriteOption {
	if m == nil {
		return nil
	}
	return pkft.WithProgress(m.commitPhase)
}

// committing says the input is read and the commit (its phases reported by commitPhase)
// begins.
func (m *readMeter) committing(rows int, bytes int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows, m.bytes = rows, bytes
	m.commitStart = time.Now()
}

// phaseLabels describe the commit's phases on a terminal.
var phaseLabels = map[pkft.Phase]string{
	pkft.PhaseFlush:   "writing level-0 files",
	pkft.PhaseCompact: "compaction at commit and archive builds",
	pkft.PhaseCommit:  "committing snapshots",
}

// commitPhase draws one report of the commit's progress: a JSON line, or the phase's line
// redrawn (at most every interval, but always at the phase's start and end), a new line for
// a new phase.
func (m *readMeter) commitPhase(p pkft.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.json {
		m.jsonLine(string(p.Phase), m.rows, m.bytes, p)
		return
	}
	now := time.Now()
	if p.Phase != m.phase {
		if m.phase != "" {
			fmt.Fprintln(m.w)
		}
		m.phase, m.phaseStart = p.Phase, now
	} else if p.BucketsDone != p.BucketsTotal && now.Sub(m.last) < m.interval {
		m.lastPhase = p
		return
	}
	m.last, m.lastPhase = now, p
	m.drawPhase(p, now)
}

// drawPhase redraws the current phase's line.
func (m *readMeter) drawPhase(p pkft.Progress, now time.Time) {
	label := phaseLabels[p.Phase]
	if label == "" {
		label = string(p.Phase)
	}
	unit := "buckets"
	if p.Phase == pkft.PhaseCommit {
		unit = "snapshots"
	}
	rows := ""
	if p.Phase == pkft.PhaseCompact && p.RowsIndexed > 0 {
		rows = fmt.Sprintf(", %d rows indexed", p.RowsIndexed)
	}
	fmt.Fprintf(m.w, "\r%s: %d/%d %s%s (%s)   ", label, p.BucketsDone, p.BucketsTotal, unit, rows, now.Sub(m.phaseStart).Round(100*time.Millisecond))
}

// committed ends the commit: the last phase's line ended and how long the commit took, or that
// it failed.
func (m *readMeter) committed(ok bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	phase := "done"
	if !ok {
		phase = "failed"
	}
	if m.json {
		m.jsonLine(phase, m.rows, m.bytes, m.lastPhase)
		return
	}
	if m.phase != "" {
		m.drawPhase(m.lastPhase, time.Now())
		fmt.Fprintln(m.w)
	}
	fmt.Fprintf(m.w, "commit %s in %s\n", phase, time.Since(m.commitStart).Round(10*time.Millisecond))
}

// update redraws the line if the interval has passed since the last draw.
func (m *readMeter) update(rows int, bytes int64) {
	if m == nil {
		return
	}
	if now := time.Now(); now.Sub(m.last) >= m.interval {
		m.last = now
		m.draw(rows, bytes)
	}
}

// finish draws the totals and ends the line.
func (m *readMeter) finish(rows int, bytes int64) {
	if m == nil {
		return
	}
	m.draw(rows, bytes)
	if !m.json {
		fmt.Fprintln(m.w)
	}
}

func (m *readMeter) draw(rows int, bytes int64) {
	if m.json {
		m.jsonLine("read", rows, bytes, pkft.Progress{})
		return
	}
	secs := max(time.Since(m.start).Seconds(), 1e-3)
	fmt.Fprintf(m.w, "\rread %d rows, %s (%.0f rows/s, %s/s)   ", rows, formatBytes(bytes), float64(rows)/secs, formatBytes(int64(float64(bytes)/secs)))
	m.drawn = true
}

// formatBytes prints n in B, KiB, MiB or GiB.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// parquetMagic starts and ends every Parquet file.
const parquetMagic = "PAR1"

// checkParquetFile refuses a file that is not Parquet, naming what it looks like instead.
func checkParquetFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, 4)
	tail := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if st.Size() >= 8 {
		if _, err := f.ReadAt(tail, st.Size()-4); err != nil {
			return err
		}
	}
	if st.Size() >= 12 && string(head) == parquetMagic && string(tail) == parquetMagic {
		return nil
	}
	return fmt.Errorf("%s is not a Parquet file (--format parquet): it does not start and end with %q%s", path, parquetMagic, looksLike(head))
}

// looksLike names the format the first bytes of an input suggest (", it looks like ..."), or
// says nothing.
func looksLike(head []byte) string {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(utf8BOM)), " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte(parquetMagic)):
		return "; it looks like Parquet (--format parquet FILE)"
	case len(h) > 0 && h[0] == '{':
		return "; it looks like JSON lines (--format jsonl, on stdin)"
	case len(h) > 0:
		return "; it looks like text (--format jsonl or csv, on stdin)"
	}
	return ""
}
