package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// PkftImage is the pkft image the Kubernetes manifests in deploy/k8s run (make pkft-image).
func PkftImage() string {
	if v := os.Getenv("PKFT_IMAGE"); v != "" {
		return v
	}
	return "pkft:latest"
}

// TestPkftImage runs the image deploy/Dockerfile describes, without a network, as the caller's
// user: it reports its version and maintains a Java-written table mounted into it (every level
// without an archive), after which the host's pkft plans nothing more for it.
func TestPkftImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	needDocker(t, ctx)
	if out, err := exec.CommandContext(ctx, "docker", "image", "inspect", PkftImage()).CombinedOutput(); err != nil {
		testenv.Missing(t, requireDockerEnv, fmt.Sprintf("pkft image %s is not built (make pkft-image): %v: %s", PkftImage(), err, bytes.TrimSpace(out)))
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "partitioned-dv")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "testdata", "tables", "java", "partitioned-dv"))); err != nil {
		t.Fatal(err)
	}
	if err := testtables.AddFullText(ctx, dir); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		argv := append([]string{"run", "--rm", "--network", "none", "--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()),
			"-v", dir + ":/table", PkftImage()}, args...)
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "docker", argv...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("docker %s: %v\n%s", strings.Join(argv, " "), err, stderr.String())
		}
		return stdout.Bytes()
	}
	if v := string(run("--version")); !strings.Contains(v, "pkft") {
		t.Fatalf("pkft --version in the image: %q", v)
	}
	var res pkft.MaintainResult
	if err := json.Unmarshal(run("maintain", "/table", "--json", "--progress", "never"), &res); err != nil {
		t.Fatal(err)
	}
	if built, _, _ := res.Totals(); res.SnapshotID == 0 || built == 0 {
		t.Fatalf("maintain in the image: %+v, want the table's archives built and committed", res)
	}
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range plan.Buckets {
		if b.Changed() {
			t.Fatalf("after the image's maintain the host plans %+v", b)
		}
	}
}
