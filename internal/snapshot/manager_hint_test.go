package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// hintFailingIO fails every hint write.
type hintFailingIO struct {
	fileio.FileIO
	tries atomic.Int32
}

func (h *hintFailingIO) OverwriteFile(context.Context, string, []byte) error {
	h.tries.Add(1)
	return errors.New("hint write refused")
}

func TestCommitSurvivesAFailingLatestHint(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fio := &hintFailingIO{FileIO: fileio.NewLocal()}
	m := NewManager(fio, root, "")
	for id := int64(1); id <= 2; id++ {
		if err := m.Commit(ctx, newSnapshot(id)); err != nil {
			t.Fatalf("commit %d: %v", id, err)
		}
	}
	if n := fio.tries.Load(); n != 6 {
		t.Errorf("%d hint attempts, want 3 per commit as Java's HintFileUtils", n)
	}
	if id, ok, err := m.LatestID(ctx); err != nil || !ok || id != 2 {
		t.Errorf("latest = %d %v %v", id, ok, err)
	}
}

func TestSnapshotIDMustMatchFileName(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	m := NewManager(fileio.NewLocal(), root, "")
	if err := m.Commit(ctx, newSnapshot(1)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "snapshot", "snapshot-1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "snapshot", "snapshot-7"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Snapshot(ctx, 7); err == nil || !strings.Contains(err.Error(), "disagrees with its name") {
		t.Errorf("got %v", err)
	}
	// Without a hint, the listing finds snapshot-7 as the latest, which must be refused.
	if err := os.Remove(filepath.Join(root, "snapshot", "LATEST")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Latest(ctx); err == nil {
		t.Error("latest snapshot with a mismatched id accepted")
	}
}
