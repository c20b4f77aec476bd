package runner

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunnerJarMatchesVariant inspects the built runner jar: it carries the full-text stand-ins
// (package io.github.paimonpkft.fulltext and the GlobalIndexerFactory service entry naming them)
// exactly when make runner built the standin variant, so switching to JAVA_FULLTEXT=paimon cannot
// pack the stand-ins' service entry from an earlier build again.
func TestRunnerJarMatchesVariant(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(root, RunnerJar)
	variantFile := filepath.Join(root, "compat/java/target/full-text-variant")
	stamp, err := os.ReadFile(variantFile)
	if err != nil {
		if os.Getenv("PKFT_REQUIRE_JAVA") == "1" {
			t.Fatalf("the runner is not built (make runner): %v", err)
		}
		t.Skipf("the runner is not built (make runner): %v", err)
	}
	variant := strings.Fields(string(stamp))
	if len(variant) == 0 {
		t.Fatalf("%s is empty", variantFile)
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		t.Fatalf("open runner jar: %v", err)
	}
	defer zr.Close()
	const service = "META-INF/services/org.apache.paimon.globalindex.GlobalIndexerFactory"
	standins, serviceNamesStandin := 0, false
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "io/github/paimonpkft/fulltext/") && strings.HasSuffix(f.Name, ".class") {
			standins++
		}
		if f.Name == service {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			serviceNamesStandin = strings.Contains(string(body), "io.github.paimonpkft.fulltext.")
		}
	}
	switch variant[0] {
	case "standin":
		if standins == 0 || !serviceNamesStandin {
			t.Fatalf("standin runner jar: %d stand-in classes, service entry names the stand-in: %v", standins, serviceNamesStandin)
		}
	case "paimon":
		if standins != 0 || serviceNamesStandin {
			t.Fatalf("paimon runner jar still carries %d stand-in classes (service entry names the stand-in: %v)", standins, serviceNamesStandin)
		}
	default:
		t.Fatalf("unknown full-text variant %q in %s", variant[0], variantFile)
	}
}
