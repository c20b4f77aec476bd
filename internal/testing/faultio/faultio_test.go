package faultio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

func TestFailAndCrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := New(fileio.NewLocal())

	// Counting only.
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "a"), []byte("a")); err != nil {
		t.Fatal(err)
	}
	if c := f.Counts(); c.Of(OpWrite) != 1 || c.Of(OpRename) != 1 {
		t.Fatalf("counts %v", c)
	}

	// Fail at the 2nd publication: the first file lands, the second does not, later calls work.
	f.Arm(Point{Op: OpRename, K: 2, Mode: Fail})
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "b"), []byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "c"), []byte("c")); !errors.Is(err, ErrInjected) {
		t.Fatalf("2nd publication: %v", err)
	}
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "d"), []byte("d")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "b", "d"}) {
		t.Fatalf("files %v", got)
	}

	// FailAfter: the file lands although the caller sees an error.
	f.Arm(Point{Op: OpRename, K: 1, Mode: FailAfter})
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "e"), []byte("e")); !errors.Is(err, ErrInjected) {
		t.Fatalf("fail-after: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "e")); err != nil {
		t.Fatal(err)
	}

	// Crash at the first publication: the temporary file stays, every later call fails.
	f.Arm(Point{Op: OpRename, K: 1, Mode: Crash})
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "g"), []byte("g")); !errors.Is(err, ErrCrashed) {
		t.Fatalf("crash: %v", err)
	}
	if _, err := f.ReadFile(ctx, filepath.Join(dir, "a")); !errors.Is(err, ErrCrashed) {
		t.Fatalf("read after crash: %v", err)
	}
	f.DeleteQuietly(ctx, filepath.Join(dir, "a"))
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Fatal("a delete after the crash reached the disk")
	}
	got := names(t, dir)
	if len(got) != 5 || got[0][0] != '.' {
		t.Fatalf("after crash: %v, want a, b, d, e and a temporary file", got)
	}
	if !f.Crashed() || !f.Fired() {
		t.Fatal("not crashed")
	}
}

func TestEnumerate(t *testing.T) {
	ctx := context.Background()
	f := New(fileio.NewLocal())
	points, err := Enumerate(f, OpWrite, Fail, 0, func(p Point) error {
		dir := t.TempDir()
		for _, n := range []string{"x", "y", "z"} {
			if err := f.WriteFileAtomic(ctx, filepath.Join(dir, n), nil); err != nil {
				return nil
			}
		}
		return nil
	})
	if err != nil || len(points) != 3 {
		t.Fatalf("points %v, %v", points, err)
	}
}

func TestPoints(t *testing.T) {
	var c Counts
	c[OpRead] = 100
	c[OpRename] = 3
	ps := Points(c, []Mode{Fail, Crash}, 5)
	if len(ps) != 2*3+2*5 {
		t.Fatalf("%d points: %v", len(ps), ps)
	}
	if ps[len(ps)-1].K != 100 {
		t.Fatalf("last point %v", ps[len(ps)-1])
	}
}

func names(t *testing.T, dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestFailNoCleanup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := New(fileio.NewLocal())
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "a"), nil); err != nil {
		t.Fatal(err)
	}
	f.Arm(Point{Op: OpWrite, K: 1, Mode: FailNoCleanup})
	if err := f.WriteFileAtomic(ctx, filepath.Join(dir, "b"), nil); !errors.Is(err, ErrInjected) {
		t.Fatal(err)
	}
	if err := f.Delete(ctx, filepath.Join(dir, "a")); !errors.Is(err, ErrInjected) {
		t.Fatalf("delete after the failure: %v", err)
	}
	f.DeleteQuietly(ctx, filepath.Join(dir, "a"))
	if got := names(t, dir); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("files %v", got)
	}
}
