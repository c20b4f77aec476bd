package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// buildPkft builds the pkft command into a temporary directory.
func buildPkft(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pkft")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// processDirs lists the pkft-<pid>-* directories under base.
func processDirs(t *testing.T, base string, pid int) []string {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(base, "pkft-"+strconv.Itoa(pid)+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// bigTable is a copy of a Java full-text table with rows enough that building its archive
// takes a while: 8 × rows rows written with pkft write.
func bigTable(t *testing.T, rows int) string {
	t.Helper()
	dir := goldenTable(t, "ft-default-partitioned", false)
	var in strings.Builder
	words := []string{"lake", "format", "river", "数据", "quick", "fox", "snapshot", "bucket", "engine", "stream"}
	for i := range rows {
		fmt.Fprintf(&in, `{"region":"eu","dt":"2024-01-31","id":%d,"content":"%s %s %s %d"}`+"\n",
			100000+i, words[i%10], words[(i/10)%10], words[(i/100)%10], i)
	}
	if _, err := pkftRunIn(t, in.String(), "write", dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A build killed with SIGKILL leaves its process's temporary directory (with the engine's
// build directory in it); the next pkft run, whatever its command, removes it.
func TestKilledBuildLeavesATempDirTheNextRunRemoves(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	dir := bigTable(t, 200000)
	base := t.TempDir()
	cmd := exec.Command(bin, "compact", dir, "--progress", "never")
	cmd.Env = append(os.Environ(), "TMPDIR="+base)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// Wait until the engine has opened its build directory inside the process's directory.
	deadline := time.Now().Add(2 * time.Minute)
	var built string
	for built == "" && time.Now().Before(deadline) {
		for _, d := range processDirs(t, base, pid) {
			if inside, _ := os.ReadDir(d); len(inside) > 0 {
				built = filepath.Join(d, inside[0].Name())
			}
		}
		if built == "" {
			time.Sleep(time.Millisecond)
		}
	}
	if built == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no engine build directory appeared under %s/pkft-%d-*: %s", base, pid, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(built); err != nil {
		t.Fatalf("the killed build's directory %s is gone already: %v", built, err)
	}
	next := exec.Command(bin, "dump", dir)
	next.Env = cmd.Env
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("pkft dump: %v\n%.2000s", err, out)
	}
	if left := processDirs(t, base, pid); len(left) != 0 {
		t.Fatalf("the next run left the killed process's directories %v", left)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Fatalf("%s holds %d entries after the next run, want none", base, len(left))
	}
}

// slowQuery is a query within the default bounds that keeps the engine busy for seconds on the
// ngram table: a fuzzy match of 800 words (960 terms: each Han character counts).
func slowQuery() string {
	q, _ := json.Marshal(map[string]any{"match": map[string]any{
		"query": strings.TrimSpace(strings.Repeat("lake fox river 数据 quick ", 160)), "fuzziness": 2}})
	return string(q)
}

// pkft search stops within a second of SIGTERM (sent 2 s in, as timeout -s TERM 2 does, or
// sooner when the query ends before that on a fast machine) while the engine is busy, exits
// with status 130 naming the signal, and leaves no temporary directory.
func TestSearchExitsPromptlyOnSIGTERM(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	dir := goldenTable(t, "ft-ngram-two-levels", false)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			for _, delay := range []time.Duration{2 * time.Second, time.Second, 300 * time.Millisecond, 100 * time.Millisecond} {
				if searchStopsOnSignal(t, bin, dir, sig, delay) {
					return
				}
				t.Logf("the search ended before a signal %s in; trying a shorter delay", delay)
			}
			t.Fatal("the search ended before a signal 100ms in: the query no longer keeps the engine busy")
		})
	}
}

// searchStopsOnSignal runs the slow search and sends sig delay after its start, then checks how
// it ended; false when the search ended before the signal (or as it was sent), so that the
// caller tries a shorter delay.
func searchStopsOnSignal(t *testing.T, bin, dir string, sig syscall.Signal, delay time.Duration) bool {
	t.Helper()
	base := t.TempDir()
	cmd := exec.Command(bin, "search", dir, "--query", slowQuery())
	cmd.Env = append(os.Environ(), "TMPDIR="+base)
	done, stdout, stderr := startBinary(t, cmd)
	select {
	case <-done:
		return false
	case <-time.After(delay):
	}
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		took := time.Since(sent)
		code := cmd.ProcessState.ExitCode()
		if code == 0 && took < 50*time.Millisecond {
			return false // it was writing its hits as the signal came
		}
		if took > time.Second {
			t.Errorf("exited %s after %s, want within 1s", took.Round(time.Millisecond), sig)
		}
		if code != exitInterrupted {
			t.Errorf("exit status %d (%v), want %d", code, err, exitInterrupted)
		}
		if !strings.Contains(stderr.String(), "signal received") || stdout.Len() != 0 {
			t.Errorf("stdout %q, stderr %q: want no hits and the signal named", stdout.String(), stderr.String())
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running 5s after %s", sig)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("%s holds %v after the search", base, left)
	}
	return true
}

func TestSearchTimeout(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "ft-ngram-two-levels", false)
	start := time.Now()
	code, out, errs := pkftRun(t, "search", dir, "--query", slowQuery(), "--timeout", "500ms")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s with --timeout 500ms", took)
	}
	if code != 1 || out != "" || !strings.Contains(errs, "search timed out after 500ms (--timeout)") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// maintain and compact load the engine only when they build an archive: with no engine to be
// found, both succeed on a table that needs nothing built, and the commands that need it name
// what is missing.
func TestEngineLoadedOnlyWhenNeeded(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	dir := goldenTable(t, "ft-default-partitioned", false)
	if _, err := pkftRunIn(t, "", "compact", dir); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir() // no .cache/native above it
		cmd.Env = append(os.Environ(), "PAIMON_FTINDEX_LIB_PATH="+filepath.Join(cmd.Dir, "missing.so"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{{"maintain", dir}, {"compact", dir}, {"maintain", dir, "--dry-run"}} {
		if out, err := run(args...); err != nil {
			t.Errorf("pkft %v without the engine: %v\n%s", args, err, out)
		}
	}
	if _, err := pkftRunIn(t, `{"region":"eu","dt":"2024-01-31","id":9201,"content":"later"}`+"\n", "write", dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"compact", dir}, {"search", dir, "-q", "lake"}} {
		out, err := run(args...)
		if err == nil || !strings.Contains(out, "paimon-ftindex native library not found") {
			t.Errorf("pkft %v without the engine: %v, want the missing engine named:\n%s", args, err, out)
		}
	}
}

// bigRows is n JSON lines of new keys for the table bigTable makes.
func bigRows(n int) string {
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"region":"eu","dt":"2024-01-31","id":%d,"content":"fresh lake row %d"}`+"\n", 900000+i, i)
	}
	return in.String()
}

// signalAtPhase runs bin with args and stdin on a copy of the table at src, reads its --progress
// json lines from stderr and sends sig delay after the first line of the phase named phase (its
// start). It returns how long the process took to exit after the signal, its exit status,
// stdout, stderr, and the copy's directory; the directory is "" when the phase ended before the
// signal was due (none was sent).
func signalAtPhase(t *testing.T, bin, src, stdin string, sig syscall.Signal, phase string, delay time.Duration, args ...string) (time.Duration, int, string, string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	cmd := exec.Command(bin, append(args, dir, "--progress", "json")...)
	cmd.Env = append(os.Environ(), "TMPDIR="+base)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		stderr   bytes.Buffer
		sent     time.Time
		started  = make(chan struct{})
		inPhase  = true
		signaled = make(chan struct{})
	)
	go func() {
		<-started
		time.Sleep(delay)
		mu.Lock()
		defer mu.Unlock()
		if inPhase {
			if err := cmd.Process.Signal(sig); err == nil {
				sent = time.Now()
			}
		}
		close(signaled)
	}()
	sc := bufio.NewScanner(pipe)
	seen := false
	for sc.Scan() {
		var line map[string]any
		isJSON := json.Unmarshal(sc.Bytes(), &line) == nil
		mu.Lock()
		stderr.Write(sc.Bytes())
		stderr.WriteByte('\n')
		if isJSON && line["phase"] == phase && !seen {
			seen = true
			close(started)
		} else if seen && isJSON && (line["phase"] != phase || line["bucketsDone"] == line["bucketsTotal"]) {
			inPhase = false
		}
		mu.Unlock()
	}
	err = cmd.Wait()
	exited := time.Now()
	if !seen {
		t.Fatalf("pkft %v ended (%v) without a progress line of phase %q:\n%s", args, err, phase, stderr.String())
	}
	<-signaled
	if sent.IsZero() {
		// The phase ended before the signal: the caller tries again with a shorter delay.
		return 0, -1, stdout.String(), stderr.String(), ""
	}
	took := exited.Sub(sent)
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("the temporary directory holds %v after pkft %v", left, args)
	}
	return took, cmd.ProcessState.ExitCode(), stdout.String(), stderr.String(), dir
}

// signalInPhase is signalAtPhase with the first of delays (longest first) whose signal lands
// inside the phase: how long a phase lasts depends on the machine. It fails the test when even
// the shortest lands after the phase (the table is then too small to test).
func signalInPhase(t *testing.T, bin, src, stdin string, sig syscall.Signal, phase string, delays []time.Duration, args ...string) (time.Duration, int, string, string, string) {
	t.Helper()
	var stderr string
	for _, delay := range delays {
		took, code, stdout, errs, dir := signalAtPhase(t, bin, src, stdin, sig, phase, delay, args...)
		if dir != "" {
			return took, code, stdout, errs, dir
		}
		t.Logf("phase %q of pkft %v ended within %s of its start, before the signal; trying a shorter delay", phase, args, delay)
		stderr = errs
	}
	t.Fatalf("phase %q of pkft %v ended within %s of its start, before the signal: the table is too small to test\n%s", phase, args, delays[len(delays)-1], stderr)
	return 0, 0, "", "", ""
}

// SIGTERM or SIGINT during the compaction at commit of pkft write (and during pkft compact) ends
// the process within a second, with exit status 130 and the signal named, nothing committed and
// the table's files as they were, none added or changed (what the aborted operation wrote is
// deleted; the data files a cancelled compaction was encoding stop between two column chunks).
func TestSignalDuringCompactionExitsPromptly(t *testing.T) {
	testenv.Native(t)
	bin := buildPkft(t)
	src := bigTable(t, 200000)
	rows := bigRows(200000)
	// For compact: the same rows left on level 0 by a write-only write.
	uncompacted := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(uncompacted, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if _, err := pkftRunIn(t, rows, "write", uncompacted, "--write-only"); err != nil {
		t.Fatal(err)
	}
	// The signal comes into the phase: the write's compaction at commit (rewriting 400,000 rows
	// and building their archives) takes about a second or more, the compaction of compact less;
	// a shorter delay is tried when the phase ended first.
	for _, c := range []struct {
		name, src, phase, stdin string
		delays                  []time.Duration
		args                    []string
	}{
		{"write", src, "compact", rows, []time.Duration{time.Second, 300 * time.Millisecond, 100 * time.Millisecond, 20 * time.Millisecond}, []string{"write", "--index-new-rows"}},
		{"compact", uncompacted, "running", "", []time.Duration{300 * time.Millisecond, 100 * time.Millisecond, 20 * time.Millisecond}, []string{"compact"}},
	} {
		before := tableFiles(t, c.src)
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(c.name+"/"+sig.String(), func(t *testing.T) {
				took, code, stdout, stderr, dir := signalInPhase(t, bin, c.src, c.stdin, sig, c.phase, c.delays, c.args...)
				t.Logf("exited %s after %s", took.Round(time.Millisecond), sig)
				if took > time.Second {
					t.Errorf("exited %s after %s, want within 1s", took.Round(time.Millisecond), sig)
				}
				if code != exitInterrupted || !strings.Contains(stderr, "signal received") || stdout != "" {
					t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, nothing committed, the signal named", code, stdout, stderr, exitInterrupted)
				}
				if after := tableFiles(t, dir); !maps.Equal(after, before) {
					t.Errorf("the table's files changed:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
				}
			})
		}
	}
}
