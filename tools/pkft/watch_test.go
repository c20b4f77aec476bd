package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// watchProcess is a running `pkft maintain --watch` and the address it serves on.
type watchProcess struct {
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan error
}

// startWatch starts `pkft maintain TABLE --watch` on a free loopback port with the given extra
// arguments and waits for the address it prints.
func startWatch(t *testing.T, bin, dir string, env []string, args ...string) *watchProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"maintain", dir, "--watch", "--listen", "127.0.0.1:0", "--poll-interval", "50ms"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watchProcess{cmd: cmd, exited: make(chan error, 1)}
	addr := make(chan string, 1)
	re := regexp.MustCompile(`metrics on http://([^/]+)/metrics`)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			w.mu.Lock()
			w.stderr.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		w.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	select {
	case w.addr = <-addr:
	case err := <-w.exited:
		t.Fatalf("pkft maintain --watch exited: %v\n%s", err, w.log())
	case <-time.After(time.Minute):
		t.Fatalf("pkft maintain --watch printed no address:\n%s", w.log())
	}
	return w
}

func (w *watchProcess) log() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// get fetches path from the watcher's endpoint.
func (w *watchProcess) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + w.addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// metric reads one sample of the watcher's /metrics.
func (w *watchProcess) metric(t *testing.T, name string) float64 {
	t.Helper()
	_, body := w.get(t, "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("no metric %s in:\n%s", name, body)
	return 0
}

// stop sends SIGTERM and waits for the exit, which must be a success within the bound.
func (w *watchProcess) stop(t *testing.T, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.exited:
		if err != nil {
			t.Fatalf("pkft maintain --watch after SIGTERM: %v\n%s", err, w.log())
		}
	case <-time.After(within):
		w.cmd.Process.Kill()
		t.Fatalf("pkft maintain --watch did not stop within %v of SIGTERM:\n%s", within, w.log())
	}
	return time.Since(start)
}

// TestMaintainWatch: the sidecar maintains the table it watches (Java-written levels with no
// archive), then reports 0 snapshots behind and a healthy state on its loopback endpoint, and
// exits 0 on SIGTERM.
func TestMaintainWatch(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	dir := goldenTable(t, "partitioned-dv", true)
	w := startWatch(t, bin, dir, nil)
	deadline := time.Now().Add(2 * time.Minute)
	for w.metric(t, "pkft_watch_rounds_total") < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no round finished:\n%s", w.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if built := w.metric(t, "pkft_watch_archives_built_total"); built < 1 {
		t.Fatalf("archives built %v, want the table's missing archives", built)
	}
	if behind := w.metric(t, "pkft_watch_snapshots_behind"); behind != 0 {
		t.Fatalf("snapshots behind %v after the round", behind)
	}
	latest, maintained := w.metric(t, "pkft_watch_latest_snapshot_id"), w.metric(t, "pkft_watch_maintained_snapshot_id")
	if latest == 0 || latest != maintained {
		t.Fatalf("latest snapshot %v, maintained %v", latest, maintained)
	}
	if code, body := w.get(t, "/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	// The round committed what a one-shot maintain would: nothing is left to do.
	if out, err := pkftRunIn(t, "", "maintain", dir, "--dry-run", "--json"); err != nil || strings.Contains(out, `"built":[{`) {
		t.Fatalf("dry run after the watcher's round: %v\n%s", err, out)
	}
	// A round that committed is logged at info (the default level), with its snapshot.
	if want := fmt.Sprintf(`level=INFO msg=maintained table=%s snapshot=%d`, dir, int64(maintained)); !strings.Contains(w.log(), want) {
		t.Errorf("the round that committed snapshot %v is not logged at info (%q):\n%s", maintained, want, w.log())
	}
	w.stop(t, 30*time.Second)
}

// TestMaintainWatchSIGTERMMidBuild: SIGTERM while the sidecar builds an archive stops it within
// seconds, with no snapshot published, no file added to the table and no temporary directory of
// the process left behind.
func TestMaintainWatchSIGTERMMidBuild(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	// 200k rows compacted by pkft write on a table without the index, then the index added:
	// a build of the whole level is due.
	dir := goldenTable(t, "partitioned-dv", false)
	var in strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&in, `{"region":"eu","dt":"2024-01-31","id":%d,"content":"lake river %d format %d"}`+"\n", 100000+i, i, i%977)
	}
	if _, err := pkftRunIn(t, in.String(), "write", dir); err != nil {
		t.Fatal(err)
	}
	addFullText(t, dir)
	before := tableFiles(t, dir)
	base := t.TempDir()
	w := startWatch(t, bin, dir, []string{"TMPDIR=" + base})
	pid := w.cmd.Process.Pid
	deadline := time.Now().Add(2 * time.Minute)
	for building := false; !building; {
		for _, d := range processDirs(t, base, pid) {
			if inside, _ := os.ReadDir(d); len(inside) > 0 {
				building = true
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no engine build directory appeared under %s/pkft-%d-*:\n%s", base, pid, w.log())
		}
		time.Sleep(time.Millisecond)
	}
	took := w.stop(t, 30*time.Second)
	t.Logf("stopped %v after SIGTERM", took)
	if after := tableFiles(t, dir); !maps.Equal(before, after) {
		t.Fatalf("the interrupted round changed the table's files:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Fatalf("%s holds %d entries after the sidecar stopped, want none", base, len(left))
	}
}

// TestMaintainWatchFlags: the --watch flags are refused without --watch, and --watch refuses
// the one-shot flags.
func TestMaintainWatchFlags(t *testing.T) {
	dir := goldenTable(t, "partitioned-dv", true)
	for _, args := range [][]string{
		{"maintain", dir, "--poll-interval", "1s"},
		{"maintain", dir, "--listen", "127.0.0.1:0"},
		{"maintain", dir, "--max-backoff", "1s"},
		{"maintain", dir, "--watch", "--dry-run"},
		{"maintain", dir, "--watch", "--json"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, code, stderr.String())
		}
	}
}

// TestMaintainWatchUncoveredMetricsAgreeWithState: on a table whose rows are partly on level 0
// (a write-only write) and partly moved up (a write's compaction at commit), the sidecar's
// pkft_watch_uncovered_rows and _files by reason equal what pkft state counts, and its round,
// which has nothing to build, is logged at debug.
func TestMaintainWatchUncoveredMetricsAgreeWithState(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	dir := zebraTable(t, nil)
	for _, w := range []struct{ in, flag string }{
		{`{"id": 1, "content": "a zebra"}` + "\n" + `{"id": 2, "content": "a lake"}` + "\n", "--quiet"},
		{`{"id": 3, "content": "a river"}` + "\n", "--write-only"},
	} {
		if _, err := pkftRunIn(t, w.in, "write", dir, w.flag); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := pkftRun(t, "state", dir, "--json")
	if code != 0 {
		t.Fatalf("state --json: %s", errs)
	}
	var st struct {
		Coverage *coverageJSON `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Coverage.Uncovered) < 2 {
		t.Fatalf("state counts %v, want level-0 and moved-up rows", st.Coverage.reasons())
	}
	w := startWatch(t, bin, dir, nil, "--log-level", "debug")
	deadline := time.Now().Add(2 * time.Minute)
	for w.metric(t, "pkft_watch_rounds_total") < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no round finished:\n%s", w.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := map[string][2]float64{}
	for _, u := range st.Coverage.Uncovered {
		want[u.Reason] = [2]float64{float64(u.Rows), float64(u.Files)}
	}
	for _, reason := range []string{"level-0", "moved-up", "no-archive", "duplicate-archives", "error"} {
		rows := w.metric(t, `pkft_watch_uncovered_rows{reason="`+reason+`"}`)
		files := w.metric(t, `pkft_watch_uncovered_files{reason="`+reason+`"}`)
		if rows != want[reason][0] || files != want[reason][1] {
			t.Errorf("reason %s: metrics %v rows, %v files; pkft state %v", reason, rows, files, want[reason])
		}
	}
	if !strings.Contains(w.log(), `level=DEBUG msg="round committed nothing"`) {
		t.Errorf("the round that committed nothing is not logged at debug:\n%s", w.log())
	}
	w.stop(t, 30*time.Second)
}
