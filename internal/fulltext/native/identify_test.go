package native_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestIdentify checks the version and sha256 read from a library file: the wheel metadata beside
// a pip-installed package, none for a bare file of unknown content, and the official wheel's
// version for the real engine.
func TestIdentify(t *testing.T) {
	ctx := context.Background()
	site := filepath.Join(t.TempDir(), "site-packages")
	lib := filepath.Join(site, native.PythonPackage, native.LibName)
	content := []byte("a library of some other build")
	writeFile(t, lib, content)
	writeFile(t, filepath.Join(site, "paimon_ftindex-9.8.7.dist-info", "METADATA"), []byte("Metadata-Version: 2.4\nName: paimon-ftindex\nVersion: 9.8.7\n\nVersion: not a header\n"))
	sum := sha256.Sum256(content)
	id, err := native.Identify(ctx, lib)
	if err != nil {
		t.Fatal(err)
	}
	want := native.Identity{SHA256: hex.EncodeToString(sum[:]), Version: "9.8.7",
		VersionFrom: filepath.Join(site, "paimon_ftindex-9.8.7.dist-info", "METADATA")}
	if id != want {
		t.Errorf("pip-installed: %+v, want %+v", id, want)
	}

	bare := filepath.Join(t.TempDir(), native.LibName)
	writeFile(t, bare, content)
	if id, err := native.Identify(ctx, bare); err != nil || id.Version != "" || id.Official != "" || id.SHA256 != want.SHA256 {
		t.Errorf("bare file: %+v, %v; want its sha256 alone", id, err)
	}
	if _, err := native.Identify(ctx, filepath.Join(t.TempDir(), "missing.so")); err == nil {
		t.Error("Identify of a missing file: no error")
	}

	real := testenv.Native(t).Path()
	id, err = native.Identify(ctx, real)
	if err != nil {
		t.Fatal(err)
	}
	if id.Version != "0.1.0" || !strings.HasPrefix(id.Official, "paimon_ftindex-0.1.0-") {
		t.Errorf("the engine at %s: %+v, want version 0.1.0 of the official wheel", real, id)
	}
	copied := filepath.Join(t.TempDir(), native.LibName)
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, copied, b)
	if id, err := native.Identify(ctx, copied); err != nil || id.Version != "0.1.0" || id.VersionFrom != "sha256" {
		t.Errorf("a copy without metadata: %+v, %v; want 0.1.0 known from its sha256", id, err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
