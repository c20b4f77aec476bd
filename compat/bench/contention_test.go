package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The contended mode (PKFT_BENCH_CONTENDED=1, on in make bench): the search, write and compaction
// sections are measured a second time while busy processes keep every core loaded, as on a
// machine a service shares with other work. The busy processes are children of the bench (this
// test binary started again, spinning; see spinChild), one per core, at the bench's own priority
// (they inherit it), so the bench, its Go children and the Java runner compete with them on
// equal terms. They are killed when the measurement ends, when the test fails (t.Cleanup) and
// when the bench process dies (the kernel's parent-death signal where there is one, and each
// child's own check of its parent).

// spinEnv marks a child started to keep one core busy.
const spinEnv = "PKFT_BENCH_SPIN"

// contendedEnv turns the contended mode on.
const contendedEnv = "PKFT_BENCH_CONTENDED"

// contendedMode reports whether the contended mode is on.
func contendedMode() bool { return os.Getenv(contendedEnv) == "1" }

// busyProcesses is how many busy processes the contended mode starts: one per core, or
// PKFT_BENCH_BUSY when set.
func busyProcesses(t *testing.T) int { return envInt(t, "PKFT_BENCH_BUSY", runtime.NumCPU()) }

// contention is a set of running busy processes.
type contention struct {
	cmds []*exec.Cmd
}

// startContention starts n busy processes. They stop at stop, or at the end of t at the latest.
func startContention(t testing.TB, ctx context.Context, n int) *contention {
	t.Helper()
	c := &contention{}
	t.Cleanup(c.stop)
	for i := range n {
		cmd := exec.CommandContext(ctx, os.Args[0])
		cmd.Env = append(os.Environ(), spinEnv+"="+strconv.Itoa(os.Getpid()))
		killWithParent(cmd)
		if err := cmd.Start(); err != nil {
			c.stop()
			t.Fatalf("start busy process %d: %v", i, err)
		}
		c.cmds = append(c.cmds, cmd)
	}
	// Let them reach their loops before anything is measured.
	time.Sleep(200 * time.Millisecond)
	return c
}

// stop kills the busy processes and waits for them; it may be called more than once.
func (c *contention) stop() {
	for _, cmd := range c.cmds {
		_ = cmd.Process.Kill()
	}
	for _, cmd := range c.cmds {
		_ = cmd.Wait()
	}
	c.cmds = nil
}

// spinChild is a busy process: one goroutine spinning on integer arithmetic until it is killed or
// its parent (the pid in PKFT_BENCH_SPIN) is gone.
func spinChild(parent string) {
	runtime.GOMAXPROCS(1)
	ppid, err := strconv.Atoi(parent)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pkft bench busy process:", err)
		os.Exit(2)
	}
	x := uint64(1)
	for i := uint64(1); ; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		if i&(1<<22-1) == 0 && os.Getppid() != ppid {
			_ = x
			os.Exit(0) // the parent is gone
		}
	}
}

// TestContention checks the busy processes run (each uses CPU) and are gone after stop.
func TestContention(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	c := startContention(t, t.Context(), 2)
	pids := []int{c.cmds[0].Process.Pid, c.cmds[1].Process.Pid}
	// On a loaded machine a process may wait a while for its first tick of CPU.
	for _, pid := range pids {
		deadline := time.Now().Add(30 * time.Second)
		for {
			ticks, err := procTicks(pid)
			if err != nil {
				t.Fatal(err)
			}
			if ticks > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("busy process %d used no CPU time in 30 s", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	c.stop()
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !os.IsNotExist(err) {
			t.Errorf("busy process %d still exists after stop (%v)", pid, err)
		}
	}
}

// procTicks is the user and system CPU time of process pid, in clock ticks.
func procTicks(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name (in parentheses): utime and stime are the 12th and 13th.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	u, err := strconv.Atoi(f[11])
	if err != nil {
		return 0, err
	}
	s, err := strconv.Atoi(f[12])
	return u + s, err
}
