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

// TestWriteProgressCoversTheCommit: write's progress goes on after the input is read: a phase
// for the commit (the compaction at commit, archive builds), then done; in JSON lines too.
func TestWriteProgressCoversTheCommit(t *testing.T) {
	testenv.Native(t)
	dir := zebraTable(t, nil)
	in := `{"id":1,"content":"a zebra"}` + "\n" + `{"id":2,"content":"a lake"}` + "\n"
	var out, errb bytes.Buffer
	if code := runWith(t.Context(), []string{"write", dir, "--progress", "json"}, strings.NewReader(in), &out, &errb); code != exitOK {
		t.Fatalf("write: exit %d, %s", code, errb.String())
	}
	var phases []string
	for _, l := range jsonProgress(t, errb.String()) {
		if l["op"] != "write" || l["rows"].(float64) != 2 {
			t.Errorf("write --progress json line %v", l)
		}
		phases = append(phases, l["phase"].(string))
	}
	if strings.Join(phases, ",") != "read,commit,done" {
		t.Errorf("write --progress json phases %v, want read, commit, done", phases)
	}
	out.Reset()
	errb.Reset()
	if code := runWith(t.Context(), []string{"write", dir, "--progress", "always"}, strings.NewReader(in), &out, &errb); code != exitOK {
		t.Fatalf("write: exit %d, %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "read 2 rows") || !strings.Contains(errb.String(), "committing: compaction at commit") ||
		!strings.Contains(errb.String(), " done in ") {
		t.Errorf("write --progress always: stderr %q, want the read, then the commit phase and its end", errb.String())
	}
}
