package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// noEngineAnywhere makes the test's process a machine without the engine: no
// PAIMON_FTINDEX_LIB_PATH, PATH one empty directory (returned, for a fake Python), and a working
// directory with no .cache/native above it.
func noEngineAnywhere(t *testing.T) (bin string) {
	t.Helper()
	bin = t.TempDir()
	t.Setenv("PAIMON_FTINDEX_LIB_PATH", "")
	t.Setenv("PATH", bin)
	t.Chdir(t.TempDir())
	return bin
}

// snapshotFiles counts the snapshot files of the table at dir.
func snapshotFiles(t *testing.T, dir string) int {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(dir, "snapshot", "snapshot-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(got)
}

// TestVersionWithoutEngine checks pkft version on a machine without the engine: pkft's own
// version, that no engine was found, how to install one and where pkft looked; status 0.
func TestVersionWithoutEngine(t *testing.T) {
	noEngineAnywhere(t)
	code, out, errOut := pkftRun(t, "version")
	if code != 0 || errOut != "" {
		t.Fatalf("pkft version: status %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"pkft " + moduleVersion() + "\n", "engine: not found\n", "`" + pkft.EngineInstallCommand + "`",
		"PAIMON_FTINDEX_LIB_PATH", "--engine-lib", "looked in: ", "neither python3 nor python is on PATH"} {
		if !strings.Contains(out, want) {
			t.Errorf("pkft version printed %q, which does not say %q", out, want)
		}
	}
}

// TestVersionOfEngine checks what pkft version says of the engine it finds: through --engine-lib
// (before PAIMON_FTINDEX_LIB_PATH), through the paimon_ftindex package of the python3 on PATH
// (a fake interpreter printing the package's directory), and a file that is no engine (status 1).
func TestVersionOfEngine(t *testing.T) {
	real := testenv.Native(t).Path()
	bin := noEngineAnywhere(t)
	t.Setenv("PAIMON_FTINDEX_LIB_PATH", filepath.Join(t.TempDir(), "missing"))
	check := func(what string, wantCode int, args []string, wants ...string) {
		t.Helper()
		code, out, errOut := pkftRun(t, append([]string{"version"}, args...)...)
		if code != wantCode {
			t.Errorf("%s: status %d, want %d; stdout %q, stderr %q", what, code, wantCode, out, errOut)
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s: pkft version printed %q, which does not say %q", what, out, want)
			}
		}
	}
	check("--engine-lib", 0, []string{"--engine-lib", real}, "engine: "+real+"\n", "  found through: --engine-lib "+real+"\n",
		"  sha256: 8b9b7bf6db3d0e473acb57efb7368b823fcf7c72c297f268eb7df28fb82150e3\n", "  version: 0.1.0 (",
		"  official build: yes, the library of paimon_ftindex-0.1.0-py3-none-manylinux_2_28_x86_64.whl\n", "  loads: yes\n")

	t.Setenv("PAIMON_FTINDEX_LIB_PATH", "")
	site := filepath.Join(t.TempDir(), "site-packages")
	pkg := filepath.Join(site, "paimon_ftindex")
	meta := filepath.Join(site, "paimon_ftindex-0.1.0.dist-info", "METADATA")
	for _, d := range []string{pkg, filepath.Dir(meta)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, filepath.Join(pkg, "libpaimon_ftindex_ffi.so")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, []byte("Metadata-Version: 2.4\nName: paimon-ftindex\nVersion: 0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	python3 := filepath.Join(bin, "python3")
	if err := os.WriteFile(python3, []byte("#!/bin/sh\necho '"+pkg+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("python3 on PATH", 0, nil, "engine: "+filepath.Join(pkg, "libpaimon_ftindex_ffi.so")+"\n",
		"  found through: the paimon_ftindex package of python3 ("+python3+")\n", "  version: 0.1.0 (from "+meta+")\n", "  loads: yes\n")

	notEngine := filepath.Join(t.TempDir(), "libpaimon_ftindex_ffi.so")
	if err := os.WriteFile(notEngine, []byte("not an engine"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("a file that is no engine", 1, []string{"--engine-lib", notEngine}, "engine: "+notEngine+"\n",
		"  version: unknown (", "  official build: not one pkft knows", "  loads: no\n")
}

// TestWriteWithoutEngineFailsBeforeCommit checks pkft write to a full-text table on a machine
// without the engine: it fails before committing anything (the snapshot count is unchanged),
// saying how to install the engine, instead of committing the rows and failing in the compaction
// at commit.
func TestWriteWithoutEngineFailsBeforeCommit(t *testing.T) {
	dir, err := filepath.Abs(goldenTable(t, "ft-default-partitioned", false))
	if err != nil {
		t.Fatal(err)
	}
	noEngineAnywhere(t)
	before, id := snapshotFiles(t, dir), latestID(t, dir)
	_, err = pkftRunIn(t, `{"region":"eu","dt":"2024-01-31","id":9301,"content":"zebra"}`+"\n", "write", dir)
	if !errors.Is(err, pkft.ErrEngineNotFound) {
		t.Errorf("pkft write without an engine: %v, want the engine not found", err)
	}
	for _, want := range []string{"`" + pkft.EngineInstallCommand + "`", "PAIMON_FTINDEX_LIB_PATH", "--engine-lib", "looked in: "} {
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if after := snapshotFiles(t, dir); after != before || latestID(t, dir) != id {
		t.Errorf("%d snapshots after the failed write (latest %d), %d before (latest %d)", after, latestID(t, dir), before, id)
	}
}

// TestEngineFromPipInstall is the new user's path: paimon-ftindex installed with pip in a
// virtual environment whose bin/ is first on PATH, nothing else set, and the built pkft run from
// a directory outside the clone creates, writes, compacts and searches a table with the engine
// it finds there.
func TestEngineFromPipInstall(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		testenv.Missing(t, testenv.RequireNativeEnv, "the engine's wheel pkft pins is for linux/amd64, not "+runtime.GOOS+"/"+runtime.GOARCH)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Missing(t, testenv.RequireNativeEnv, "no python3 on PATH to make a virtual environment with: "+err.Error())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.CommandContext(ctx, python, "-m", "venv", venv).CombinedOutput(); err != nil {
		testenv.Missing(t, testenv.RequireNativeEnv, "python3 -m venv (the venv module) failed: "+err.Error()+": "+string(out))
	}
	pip := exec.CommandContext(ctx, filepath.Join(venv, "bin", "python3"), "-m", "pip", "install",
		"--disable-pip-version-check", "--quiet", "paimon-ftindex==0.1.0")
	if out, err := pip.CombinedOutput(); err != nil {
		testenv.Missing(t, testenv.RequireNativeEnv, "pip install paimon-ftindex==0.1.0 in a virtual environment failed: "+err.Error()+": "+string(out))
	}
	bin := buildPkft(t)

	work := t.TempDir() // outside the clone: no .cache/native above it
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAIMON_FTINDEX_LIB_PATH=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	pkftCmd := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env = work, env
		cmd.Stdin = strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pkft %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}

	version := pkftCmd("", "version")
	for _, want := range []string{"  found through: the paimon_ftindex package of python3 (" + filepath.Join(venv, "bin", "python3") + ")\n",
		"  version: 0.1.0 (from " + venv, "  loads: yes\n"} {
		if !strings.Contains(version, want) {
			t.Errorf("pkft version printed %q, which does not say %q", version, want)
		}
	}

	schemaFile := filepath.Join(work, "docs.json")
	if err := os.WriteFile(schemaFile, []byte(`{"columns": [{"name": "id", "type": "INT"}, {"name": "content", "type": "STRING"}],
	  "primaryKeys": ["id"], "options": {"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	table := filepath.Join("db.db", "docs")
	pkftCmd("", "create", table, "--schema", schemaFile)
	pkftCmd(`{"id":1,"content":"a zebra crossing"}
{"id":2,"content":"the zebra sleeps"}
{"id":3,"content":"nothing here"}
`, "write", table)
	pkftCmd(`{"id":4,"content":"one more zebra"}`+"\n", "write", table)
	if out := pkftCmd("", "compact", table, "--json"); !strings.Contains(out, `"fileName": "index-`) {
		t.Errorf("pkft compact --json printed %s, want an archive built", out)
	}
	hits := pkftCmd("", "search", table, "--query", "zebra", "--json")
	if n := strings.Count(hits, `"rowPosition"`); n != 3 {
		t.Errorf("pkft search zebra found %d hits, want 3:\n%s", n, hits)
	}
}
