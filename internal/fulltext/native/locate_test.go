package native_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestMissingLibraryMessage checks what a user sees when the engine is absent: the message must
// say how to provide it.
func TestMissingLibraryMessage(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(native.LibPathEnv, filepath.Join(dir, "nowhere"))
	_, err := native.Load()
	if !errors.Is(err, native.ErrNotFound) {
		t.Fatalf("Load without a library: %v, want ErrNotFound", err)
	}
	for _, want := range []string{"PAIMON_FTINDEX_LIB_PATH", "make native", filepath.Join(dir, "nowhere")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
}

func TestLibPathMayNameTheDirectory(t *testing.T) {
	path := testenv.Native(t).Path()
	t.Chdir(t.TempDir())
	t.Setenv(native.LibPathEnv, filepath.Dir(path))
	got, err := native.Locate()
	if err != nil || got != path {
		t.Fatalf("Locate via directory: %q, %v; want %q", got, err, path)
	}
}
