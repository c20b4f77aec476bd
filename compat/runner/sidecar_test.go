package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
)

// sidecarCommits is the number of Java commits of sidecar/follows-writers.
const sidecarCommits = 20

// sidecarCatchUp bounds the time the sidecar takes, after the last Java commit, to report 0
// snapshots behind with no round running: a few poll intervals plus one maintenance round of a
// small table (its builds and a commit), with room for a loaded 2-core machine.
const sidecarCatchUp = 90 * time.Second

// sidecar is a running `pkft maintain --watch` process.
type sidecar struct {
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	log    strings.Builder
	exited chan error
}

// startSidecar starts `pkft maintain path --watch` on a free loopback port and waits for the
// address it prints.
func startSidecar(ctx context.Context, path string, poll time.Duration) (*sidecar, error) {
	bin, err := pkftCLI()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "maintain", path, "--watch", "--listen", "127.0.0.1:0", "--poll-interval", poll.String(),
		"--max-backoff", "2s", "--commit-user", "go-sidecar")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{cmd: cmd, exited: make(chan error, 1)}
	addr := make(chan string, 1)
	re := regexp.MustCompile(`metrics on http://([^/]+)/metrics`)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		s.exited <- cmd.Wait()
	}()
	select {
	case s.addr = <-addr:
		return s, nil
	case err := <-s.exited:
		return nil, fmt.Errorf("pkft maintain --watch exited: %v\n%s", err, s.output())
	case <-ctx.Done():
		cmd.Process.Kill()
		return nil, ctx.Err()
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		return nil, fmt.Errorf("pkft maintain --watch printed no address:\n%s", s.output())
	}
}

func (s *sidecar) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// metrics reads the sidecar's /metrics samples without labels.
func (s *sidecar) metrics(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the sidecar's metrics: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(name, "pkft_watch_") {
			continue
		}
		if out[name], err = strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil {
			return nil, fmt.Errorf("metric line %q: %w", line, err)
		}
	}
	return out, nil
}

// stop sends SIGTERM and waits for a successful exit.
func (s *sidecar) stop(within time.Duration) error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-s.exited:
		if err != nil {
			return fmt.Errorf("pkft maintain --watch after SIGTERM: %w\n%s", err, s.output())
		}
		return nil
	case <-time.After(within):
		s.cmd.Process.Kill()
		return fmt.Errorf("pkft maintain --watch did not stop within %v of SIGTERM", within)
	}
}

// sidecarFollowsWriters is sidecar/follows-writers (java+go): a Java writer with write-only =
// true commits sidecarCommits times to a 2-bucket full-text table (inserts, updates, deletes)
// while a second Java process compacts it after every other write with the full-text index
// taken out of its options — a compactor that maintains no archive, as paimon-cpp's does today,
// so each of its commits leaves the compacted levels without a current archive. `pkft maintain
// --watch` runs the whole time. After the last commit the sidecar must report 0 snapshots behind
// with no round running within sidecarCatchUp; then Java's state shows every archive current,
// Java reads the model's rows, no file the sidecar wrote is unreferenced, and SIGTERM stops it
// with exit status 0.
func (g *maintainGroup) sidecarFollowsWriters(ctx context.Context) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
	initial := ftTextRows(901, "content", 0, 120)
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "sidecar"), "sidecar-follows-writers",
		fields, []string{"id"}, nil, opts, []tableStep{{rows: initial}, {}})
	if err != nil {
		return err
	}
	model := map[string]any{}
	for _, r := range initial {
		model[fmt.Sprint(r["id"])] = r["content"]
	}
	compactor, err := StartJava(ctx)
	if err != nil {
		return fmt.Errorf("the second Java process (the compactor): %w", err)
	}
	defer compactor.Close()
	side, err := startSidecar(ctx, path, 100*time.Millisecond)
	if err != nil {
		return err
	}
	defer side.cmd.Process.Kill()
	compactions := 0
	for c := 0; c < sidecarCommits; c++ {
		rows := []row{}
		for i := 0; i < 8; i++ {
			id := 10_000 + c*10 + i
			rows = append(rows, row{"id": id, "content": fmt.Sprintf("sidecar commit %d key %d lake", c, id)})
		}
		rows = append(rows, row{"id": c, "content": fmt.Sprintf("updated by commit %d river", c)})
		rows = append(rows, row{"id": 119 - c, "content": nil, "_rowKind": "-D"})
		if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": rows,
			"dynamicOptions": map[string]string{"write-only": "true"}}, nil); err != nil {
			return fmt.Errorf("commit %d: the Java writer: %w", c, err)
		}
		for _, r := range rows {
			if k := fmt.Sprint(r["id"]); r["_rowKind"] == "-D" {
				delete(model, k)
			} else {
				model[k] = r["content"]
			}
		}
		if c%2 == 1 {
			if err := compactor.Call(ctx, "compact", map[string]any{"path": path,
				"dynamicOptions": map[string]any{pkfulltext.ColumnsOption: nil}}, nil); err != nil {
				return fmt.Errorf("commit %d: the Java compactor: %w", c, err)
			}
			compactions++
		}
	}
	tbl := table.Open(fileio.NewLocal(), path)
	latest, _, err := tbl.Snapshots.LatestID(ctx)
	if err != nil {
		return err
	}
	stopped := time.Now()
	var m map[string]float64
	for {
		if m, err = side.metrics(ctx); err != nil {
			return err
		}
		if m["pkft_watch_snapshots_behind"] == 0 && m["pkft_watch_round_in_progress"] == 0 && m["pkft_watch_latest_snapshot_id"] >= float64(latest) {
			break
		}
		if time.Since(stopped) > sidecarCatchUp {
			return fmt.Errorf("the sidecar did not catch up within %v of the last commit (snapshot %d): metrics %v\n%s", sidecarCatchUp, latest, m, side.output())
		}
		select {
		case err := <-side.exited:
			return fmt.Errorf("the sidecar exited: %v\n%s", err, side.output())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	caughtUp := time.Since(stopped)
	if m["pkft_watch_archives_built_total"] == 0 || m["pkft_watch_archives_retired_total"] == 0 {
		return fmt.Errorf("the sidecar built %v and retired %v archives: the compactions' levels needed both", m["pkft_watch_archives_built_total"], m["pkft_watch_archives_retired_total"])
	}
	j, err := g.latestState(ctx, tbl, path)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state after the sidecar caught up: %w", err)
	}
	got, err := javaKeys(ctx, g, path)
	if err != nil {
		return err
	}
	if d := cmp.Diff(model, got); d != "" {
		return fmt.Errorf("Java reads (-model +got):\n%s", d)
	}
	if err := side.stop(30 * time.Second); err != nil {
		return err
	}
	if _, err := onlyJavaOrphans(ctx, tbl, path); err != nil {
		return fmt.Errorf("after the sidecar stopped: %w", err)
	}
	if !strings.Contains(side.output(), "maintained") {
		return errors.New("the sidecar logged no maintenance commit")
	}
	report.AddNote(fmt.Sprintf("sidecar/follows-writers: %d Java writes (write-only) and %d compactions without the index in another JVM; the sidecar (poll 100ms) caught up %.1fs after the last commit (bound %v): %v rounds, %v archives built, %v retired, %v failed rounds, %v commit retries",
		sidecarCommits, compactions, caughtUp.Seconds(), sidecarCatchUp, m["pkft_watch_rounds_total"], m["pkft_watch_archives_built_total"],
		m["pkft_watch_archives_retired_total"], m["pkft_watch_failures_total"], m["pkft_watch_commit_retries_total"]))
	return nil
}
