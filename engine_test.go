package pkft_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// noEngineAnywhere makes the test's process a machine without the engine: no
// PAIMON_FTINDEX_LIB_PATH, no Python on PATH, and a working directory with no .cache/native
// above it.
func noEngineAnywhere(t *testing.T) {
	t.Helper()
	t.Setenv("PAIMON_FTINDEX_LIB_PATH", "")
	t.Setenv("PATH", t.TempDir())
	t.Chdir(t.TempDir())
}

// snapshotCount is the number of snapshot files of the table at dir.
func snapshotCount(t *testing.T, dir string) int {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(dir, "snapshot", "snapshot-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(got)
}

// TestWriteWithoutEngineCommitsNothing checks that a write to a full-text table whose commit
// compacts (a deletion-vector table: the compaction at commit builds archives) fails before
// anything is written when no engine is found, saying how to install it, instead of committing
// its rows and failing in the compaction; and that a table without a full-text index is still
// written without one.
func TestWriteWithoutEngineCommitsNothing(t *testing.T) {
	ctx := context.Background()
	dir, cleanup := exampleTable("partitioned-dv")
	t.Cleanup(cleanup)
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	noEngineAnywhere(t)
	before, snapshots := files(t, dir), snapshotCount(t, dir)

	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	row := []any{"eu", time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), int32(9100), "zebra"}
	w, err := tbl.NewWriter(ctx)
	if err == nil {
		// The write fails somewhere later: it must still commit nothing.
		if err = w.Write(ctx, pkft.Insert, row); err == nil {
			_, err = w.Commit(ctx)
		}
		t.Errorf("NewWriter without an engine succeeded; the write then returned %v", err)
	}
	if !errors.Is(err, pkft.ErrEngineNotFound) {
		t.Errorf("write without an engine: %v, want ErrEngineNotFound", err)
	}
	for _, want := range []string{pkft.EngineInstallCommand, "PAIMON_FTINDEX_LIB_PATH", "the commit builds archives"} {
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if got := snapshotCount(t, dir); got != snapshots {
		t.Errorf("%d snapshots after the failed write, %d before", got, snapshots)
	}
	if after := files(t, dir); len(after) != len(before) {
		t.Errorf("the failed write left files: %v, before %v", keys(after), keys(before))
	}

	// A write-only writer too: its maintainer builds the archives its levels lack.
	if _, err := tbl.NewWriter(ctx, pkft.WithWriteOnly()); !errors.Is(err, pkft.ErrEngineNotFound) {
		t.Errorf("write-only writer without an engine: %v, want ErrEngineNotFound", err)
	}

	// A table without a full-text index needs no engine.
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.CopyFS(plain, os.DirFS(filepath.Join(testdata, "tables", "java", "partitioned-dv"))); err != nil {
		t.Fatal(err)
	}
	ptbl, err := pkft.Open(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	if w, err = ptbl.NewWriter(ctx); err != nil {
		t.Fatalf("writer on a table without a full-text index, without an engine: %v", err)
	}
	if err := w.Write(ctx, pkft.Insert, row); err != nil {
		t.Fatal(err)
	}
	if res, err := w.Commit(ctx); err != nil || res.CompactSnapshotID == 0 {
		t.Fatalf("commit on a table without a full-text index: %+v, %v", res, err)
	}
}

// TestFindEngine checks what FindEngine reports: the library a named path holds, with its
// sha256 and version; the missing engine, with how to install it; and a file that is no engine.
func TestFindEngine(t *testing.T) {
	ctx := context.Background()
	real := testenv.Native(t).Path()
	noEngineAnywhere(t)

	info, err := pkft.FindEngine(ctx, pkft.WithEngineLibrary(real))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if info.Path != real || info.Source != pkft.EngineFromOption || info.SHA256 != hex.EncodeToString(sum[:]) ||
		info.Version != "0.1.0" || info.OfficialWheel == "" {
		t.Errorf("engine named by WithEngineLibrary: %+v", info)
	}
	t.Setenv("PAIMON_FTINDEX_LIB_PATH", filepath.Dir(real))
	if info, err := pkft.FindEngine(ctx); err != nil || info.Path != real || info.Source != pkft.EngineFromEnv {
		t.Errorf("engine named by PAIMON_FTINDEX_LIB_PATH: %+v, %v", info, err)
	}
	t.Setenv("PAIMON_FTINDEX_LIB_PATH", "")

	if info, err := pkft.FindEngine(ctx); !errors.Is(err, pkft.ErrEngineNotFound) || info != nil ||
		!strings.Contains(err.Error(), pkft.EngineInstallCommand) {
		t.Errorf("no engine anywhere: %+v, %v; want ErrEngineNotFound with the install command", info, err)
	}

	notEngine := filepath.Join(t.TempDir(), "libpaimon_ftindex_ffi.so")
	if err := os.WriteFile(notEngine, []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err = pkft.FindEngine(ctx, pkft.WithEngineLibrary(notEngine))
	if err == nil || errors.Is(err, pkft.ErrEngineNotFound) || info == nil || info.Path != notEngine || info.SHA256 == "" || info.Version != "" {
		t.Errorf("a file that is no engine: %+v, %v; want its description and the load's error", info, err)
	}
}
