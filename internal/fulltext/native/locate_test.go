package native_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// lookupWorld is a machine for Locate made of temporary directories: a working directory below a
// directory that may hold .cache/native, a PATH of one directory that may hold a fake python3 or
// python, and PAIMON_FTINDEX_LIB_PATH unset.
type lookupWorld struct {
	root, work, bin string
}

func newLookupWorld(t *testing.T) *lookupWorld {
	t.Helper()
	root := t.TempDir()
	w := &lookupWorld{root: root, work: filepath.Join(root, "clone", "sub", "dir"), bin: filepath.Join(root, "bin")}
	for _, d := range []string{w.work, w.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(w.work)
	t.Setenv(native.LibPathEnv, "")
	t.Setenv("PATH", w.bin)
	return w
}

// lib writes a stand-in library file (Locate only looks for the file) at dir/LibName.
func (w *lookupWorld) lib(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, native.LibName)
	if err := os.WriteFile(path, []byte("not really an engine: "+dir), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// python installs a fake interpreter name (python3 or python) on PATH running the shell script
// body.
func (w *lookupWorld) python(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(w.bin, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLocateOrder checks the lookup order: the explicit path, then PAIMON_FTINDEX_LIB_PATH, then
// the paimon_ftindex package of the Python on PATH, then .cache/native in the working directory
// or a parent.
func TestLocateOrder(t *testing.T) {
	w := newLookupWorld(t)
	ctx := context.Background()
	cache := w.lib(t, filepath.Join(w.root, "clone", native.CacheDir))
	pkg := filepath.Join(w.root, "venv", "site-packages", native.PythonPackage)
	fromPython := w.lib(t, pkg)
	python3 := w.python(t, "python3", "echo '"+pkg+"'")
	envDir := filepath.Join(w.root, "env")
	fromEnv := w.lib(t, envDir)
	explicit := w.lib(t, filepath.Join(w.root, "explicit"))
	t.Setenv(native.LibPathEnv, envDir)

	check := func(step, explicitArg, wantPath string, wantSource native.Source, wantDetail string) {
		t.Helper()
		got, err := native.Locate(ctx, explicitArg)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got.Path != wantPath || got.Source != wantSource || !strings.Contains(got.Detail, wantDetail) {
			t.Errorf("%s: found %+v, want %s from %s (%s)", step, got, wantPath, wantSource, wantDetail)
		}
	}
	check("explicit file over everything", explicit, explicit, native.FromExplicit, explicit)
	check("explicit directory", filepath.Dir(explicit), explicit, native.FromExplicit, filepath.Dir(explicit))
	check("env over python and cache", "", fromEnv, native.FromEnv, native.LibPathEnv)
	t.Setenv(native.LibPathEnv, "")
	check("python over cache", "", fromPython, native.FromPython, "python3 ("+python3+")")
	w.python(t, "python3", "exit 0") // a Python without the package
	check("cache when Python has no package", "", cache, native.FromCache, filepath.Join(w.root, "clone", native.CacheDir))
	if err := os.Remove(python3); err != nil {
		t.Fatal(err)
	}
	python := w.python(t, "python", "echo '"+pkg+"'")
	check("python when there is no python3", "", fromPython, native.FromPython, "python ("+python+")")
}

// TestNamedPathIsTheOnlyPlace checks that a path the caller or PAIMON_FTINDEX_LIB_PATH names is
// not a hint: when it holds no library, Locate says so and does not use another library.
func TestNamedPathIsTheOnlyPlace(t *testing.T) {
	w := newLookupWorld(t)
	w.lib(t, filepath.Join(w.work, native.CacheDir))
	missing := filepath.Join(w.root, "nowhere", native.LibName)
	if _, err := native.Locate(context.Background(), missing); !errors.Is(err, native.ErrNotFound) ||
		!strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), native.InstallCommand) {
		t.Errorf("explicit missing path: %v, want ErrNotFound naming it and the install command", err)
	}
	t.Setenv(native.LibPathEnv, missing)
	if _, err := native.Locate(context.Background(), ""); !errors.Is(err, native.ErrNotFound) ||
		!strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), native.LibPathEnv) {
		t.Errorf("%s naming a missing file: %v, want ErrNotFound naming it", native.LibPathEnv, err)
	}
	if _, err := native.Load(context.Background(), ""); !errors.Is(err, native.ErrNotFound) {
		t.Errorf("Load: %v, want ErrNotFound", err)
	}
}

// TestMissingLibraryMessage checks what a user sees when the engine is nowhere: how to install
// it, in one line, and every place looked at, with what each Python said.
func TestMissingLibraryMessage(t *testing.T) {
	w := newLookupWorld(t)
	ctx := context.Background()
	common := []string{
		"paimon-ftindex native library not found",
		"`pip install paimon-ftindex==0.1.0`",
		"set PAIMON_FTINDEX_LIB_PATH to its libpaimon_ftindex_ffi.so",
		"--engine-lib",
		"PAIMON_FTINDEX_LIB_PATH (not set)",
		filepath.Join(native.CacheDir, native.LibName) + " in " + w.work + " and each of its parents",
	}
	pkgNoLib := filepath.Join(w.root, "site-packages", native.PythonPackage)
	if err := os.MkdirAll(pkgNoLib, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, python3 string
		want          string
	}{
		{"no Python on PATH", "", "neither python3 nor python is on PATH"},
		{"Python without the package", "exit 0", "the paimon_ftindex package of python3 (" + filepath.Join(w.bin, "python3") + "): not installed"},
		{"Python failing", "echo 'ModuleNotFoundError: no importlib' >&2; exit 3", "asking it failed: exit status 3: ModuleNotFoundError: no importlib"},
		{"package without the library", "echo '" + pkgNoLib + "'", "installed in " + pkgNoLib + ", without " + native.LibName},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(filepath.Join(w.bin, "python3"))
			if c.python3 != "" {
				w.python(t, "python3", c.python3)
			}
			_, err := native.Locate(ctx, "")
			if !errors.Is(err, native.ErrNotFound) {
				t.Fatalf("Locate: %v, want ErrNotFound", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message of several lines: %q", msg)
			}
			for _, want := range append(common, c.want) {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not say %q", msg, want)
				}
			}
		})
	}
}

// TestLocateStopsWithItsContext checks that the question to Python ends with the caller's
// context, and that the error is the context's, not a missing engine.
func TestLocateStopsWithItsContext(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("skipped: no sleep command to stand for a Python that does not answer: %v", err)
	}
	w := newLookupWorld(t)
	w.python(t, "python3", "exec "+sleep+" 30")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = native.Locate(ctx, "")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Locate took %s after its context ended", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, native.ErrNotFound) {
		t.Errorf("Locate: %v, want the context's deadline", err)
	}
	if _, err := native.NewLazy(ctx, ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("NewLazy: %v, want the context's deadline", err)
	}
}

// TestLazyKeepsTheLookupsFailure checks that a Lazy made without an engine fails only when used,
// with the lookup's message.
func TestLazyKeepsTheLookupsFailure(t *testing.T) {
	newLookupWorld(t)
	lazy, err := native.NewLazy(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lazy.NewWriter(nil); !errors.Is(err, native.ErrNotFound) || !strings.Contains(err.Error(), native.InstallCommand) {
		t.Errorf("NewWriter: %v, want ErrNotFound with the install command", err)
	}
}

func TestLibPathMayNameTheDirectory(t *testing.T) {
	path := testenv.Native(t).Path()
	t.Chdir(t.TempDir())
	t.Setenv(native.LibPathEnv, filepath.Dir(path))
	got, err := native.Locate(context.Background(), "")
	if err != nil || got.Path != path || got.Source != native.FromEnv {
		t.Fatalf("Locate via directory: %+v, %v; want %q from %s", got, err, path, native.LibPathEnv)
	}
	lib, err := native.Load(context.Background(), "")
	if err != nil || lib.Found().Source != native.FromEnv || lib.Path() != path {
		t.Fatalf("Load via directory: %v, %v", lib, err)
	}
}
