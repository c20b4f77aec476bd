package native_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// The engine's build directory lands in the process's pkft-named directory, and Release
// removes it with everything in it.
func TestEngineTempFilesGoToTheProcessDirectory(t *testing.T) {
	lib := testenv.Native(t)
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	d, err := native.UseProcessTempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	want := native.TempDirPrefix + strconv.Itoa(os.Getpid()) + "-"
	if filepath.Dir(d.Path) != base || !strings.HasPrefix(filepath.Base(d.Path), want) {
		t.Fatalf("process directory %s, want %s/%s*", d.Path, base, want)
	}
	if got := os.Getenv("TMPDIR"); got != d.Path {
		t.Fatalf("TMPDIR = %q, want %q", got, d.Path)
	}
	w, err := lib.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(1, "lake format"); err != nil {
		t.Fatal(err)
	}
	inside, err := os.ReadDir(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("engine files while building: %d entries", len(inside))
	if len(inside) == 0 {
		t.Fatalf("the open engine writer created nothing in %s", d.Path)
	}
	outside, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(outside) != 1 {
		t.Fatalf("%s holds %d entries, want only the process directory", base, len(outside))
	}
	if _, err := w.WriteTo(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := d.Release(); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("TMPDIR"); got != base {
		t.Fatalf("TMPDIR after Release = %q, want %q", got, base)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Fatalf("%s still holds %v after Release", base, left)
	}
}

// A directory of a process that is gone is removed by the next UseProcessTempDir; those of
// live processes and other names are kept.
func TestStaleTempDirsAreRemoved(t *testing.T) {
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := cmd.Process.Pid
	stale := filepath.Join(base, native.TempDirPrefix+strconv.Itoa(gone)+"-123")
	live := filepath.Join(base, native.TempDirPrefix+strconv.Itoa(os.Getppid())+"-456")
	other := filepath.Join(base, "pkft-notapid-1")
	for _, p := range []string{filepath.Join(stale, "engine-build"), live, other} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d, err := native.UseProcessTempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if len(d.Removed) != 1 || d.Removed[0] != stale {
		t.Fatalf("removed %v, want [%s]", d.Removed, stale)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale %s is still there (%v)", stale, err)
	}
}
