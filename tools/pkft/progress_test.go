package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// jsonProgress parses stderr of --progress json: every line one JSON object, but for a notice
// (a plain line starting "notice: ").
func jsonProgress(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(line, "notice: ") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("--progress json line %q: %v\n%s", line, err, stderr)
		}
		out = append(out, m)
	}
	return out
}

// TestProgressReachesItsEnd: maintain's and compact's progress, drawn (--progress always) or as
// JSON lines (--progress json), ends at all rows and buckets done, the JSON with a line of phase
// "done"; compact's starts at 0 buckets done; a maintain with nothing to build draws no bar of
// unknown length.
func TestProgressReachesItsEnd(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", true)
	code, _, errOut := pkftRun(t, "maintain", dir, "--progress", "json")
	if code != exitOK {
		t.Fatalf("maintain: exit %d, %s", code, errOut)
	}
	lines := jsonProgress(t, errOut)
	last := lines[len(lines)-1]
	if last["op"] != "maintain" || last["phase"] != "done" || last["rowsPlanned"].(float64) == 0 ||
		last["rowsIndexed"] != last["rowsPlanned"] || last["bucketsDone"] != last["bucketsTotal"] {
		t.Errorf("maintain --progress json ends with %v, want every planned row and bucket done", last)
	}

	// Nothing left to build: no bar (no "0/-"), and the summary says so.
	code, out, errOut := pkftRun(t, "maintain", dir, "--progress", "always")
	if code != exitOK || errOut != "" || !strings.Contains(out, "nothing committed") {
		t.Errorf("a no-op maintain --progress always: exit %d, stderr %q, stdout %q", code, errOut, out)
	}

	dir = goldenTable(t, "partitioned-dv", false)
	code, _, errOut = pkftRun(t, "compact", dir, "--progress", "json")
	if code != exitOK {
		t.Fatalf("compact: exit %d, %s", code, errOut)
	}
	lines = jsonProgress(t, errOut)
	first, last := lines[0], lines[len(lines)-1]
	if first["bucketsDone"].(float64) != 0 || first["bucketsTotal"].(float64) == 0 || last["phase"] != "done" ||
		last["bucketsDone"] != last["bucketsTotal"] {
		t.Errorf("compact --progress json: first %v, last %v; want it to start at 0 and end with every bucket done", first, last)
	}
	dir = goldenTable(t, "partitioned-dv", false)
	code, _, errOut = pkftRun(t, "compact", dir, "--progress", "always")
	frames := strings.Split(errOut, "\r")
	if code != exitOK || !strings.Contains(frames[len(frames)-1], "100%") || !strings.HasSuffix(errOut, "\n") {
		t.Errorf("compact --progress always: exit %d, its last frame %q, want 100%% and the line ended", code, frames[len(frames)-1])
	}
}

// TestWriteProgressCoversTheCommit: write's progress goes on after the input is read, through
// every phase of the commit the library reports (the level-0 files, the compaction at commit
// with its archive builds, the snapshots), each from 0 to its total, then done; in JSON lines
// and drawn.
func TestWriteProgressCoversTheCommit(t *testing.T) {
	testenv.Native(t)
	dir := zebraTable(t, nil)
	in := `{"id":1,"content":"a zebra"}` + "\n" + `{"id":2,"content":"a lake"}` + "\n"
	var out, errb bytes.Buffer
	if code := runWith(t.Context(), []string{"write", dir, "--progress", "json", "--index-new-rows"}, strings.NewReader(in), &out, &errb); code != exitOK {
		t.Fatalf("write: exit %d, %s", code, errb.String())
	}
	var phases []string
	lines := jsonProgress(t, errb.String())
	for i, l := range lines {
		if l["op"] != "write" || l["rows"].(float64) != 2 {
			t.Errorf("write --progress json line %v", l)
		}
		phase := l["phase"].(string)
		first := len(phases) == 0 || phases[len(phases)-1] != phase
		last := i+1 == len(lines) || lines[i+1]["phase"] != phase
		if first {
			phases = append(phases, phase)
		}
		switch phase {
		case "flush", "compact", "commit":
			done, total := l["bucketsDone"].(float64), l["bucketsTotal"].(float64)
			if total == 0 || first && done != 0 || last && done != total {
				t.Errorf("write --progress json: phase %s line %v (first %v, last %v): want it to start at 0 and end at its total", phase, l, first, last)
			}
		}
	}
	if strings.Join(phases, ",") != "read,flush,compact,commit,done" {
		t.Errorf("write --progress json phases %v, want read, flush, compact, commit, done", phases)
	}
	out.Reset()
	errb.Reset()
	if code := runWith(t.Context(), []string{"write", dir, "--progress", "always"}, strings.NewReader(in), &out, &errb); code != exitOK {
		t.Fatalf("write: exit %d, %s", code, errb.String())
	}
	drawn := errb.String()
	for _, want := range []string{"read 2 rows", "writing level-0 files: 1/1 buckets", "compaction at commit and archive builds: 1/1 buckets",
		"committing snapshots: 2/2 snapshots", "commit done in "} {
		if !strings.Contains(drawn, want) {
			t.Errorf("write --progress always: stderr %q lacks %q", drawn, want)
		}
	}
	// Not on a terminal and not asked for: nothing drawn.
	errb.Reset()
	if code := runWith(t.Context(), []string{"write", dir}, strings.NewReader(in), &out, &errb); code != exitOK || strings.Contains(errb.String(), "buckets") {
		t.Errorf("write without --progress on a buffer: exit %d, stderr %q; want no progress", code, errb.String())
	}
}
