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
	"github.com/paimon-pkft/pkft/compat/protocol"
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

// ConformanceImage is the conformance image (make conformance-image).
func ConformanceImage() string {
	if v := os.Getenv("CONFORMANCE_IMAGE"); v != "" {
		return v
	}
	return "pkft-conformance:latest"
}

// conformanceImageTestEnv runs TestConformanceImage (make compat-image sets it): the test runs the
// suite twice, for minutes, and needs the image built.
const conformanceImageTestEnv = "PKFT_CONFORMANCE_IMAGE_TEST"

// TestConformanceImage runs the conformance image for the Go runner and for the paimon-rust runner,
// each mounted into it as an implementation of its own (--impl NAME=COMMAND --supports FILE) with
// the consumer and writer roles through compat/image/ci-step.sh (without a network, as the
// caller's user), and checks: the image
// carries the protocol version and a corpus version as labels; the run prints both grids and
// writes results.json and junit.xml to the mounted directory; and its outcomes equal, case for case,
// those of the same selection (PKFT_CASE_IMPL, PKFT_CASE_ROLES) run outside the image by this
// test binary.
func TestConformanceImage(t *testing.T) {
	if os.Getenv(conformanceImageTestEnv) != "1" {
		t.Skipf("skipped: runs the suite twice per implementation; make compat-image sets %s=1", conformanceImageTestEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "-f",
		`{{index .Config.Labels "io.github.paimon-pkft.protocol-version"}} {{index .Config.Labels "io.github.paimon-pkft.corpus-version"}}`,
		ConformanceImage()).CombinedOutput(); err != nil {
		testenv.Missing(t, requireDockerEnv, fmt.Sprintf("conformance image %s is not built (make conformance-image): %v: %s", ConformanceImage(), err, bytes.TrimSpace(out)))
	} else if labels := strings.Fields(string(out)); len(labels) != 2 || labels[0] != protocol.Version {
		t.Fatalf("conformance image labels (protocol version, corpus version) %q, want protocol version %s and a corpus version", out, protocol.Version)
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range []struct{ name, program, supports string }{
		{GoName, GoProgram, GoSupports},
		{RustName, RustProgram, RustSupports},
	} {
		t.Run(impl.name, func(t *testing.T) {
			// The implementation as another repository's CI would mount it: its program and its
			// supports file in one directory.
			mount := t.TempDir()
			for _, f := range []string{impl.program, impl.supports} {
				data, err := os.ReadFile(filepath.Join(root, f))
				if err != nil {
					testenv.Missing(t, requireDockerEnv, fmt.Sprintf("%s: %v", impl.name, err))
				}
				if err := os.WriteFile(filepath.Join(mount, filepath.Base(f)), data, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			const roles = RoleConsumer + "," + RoleWriter
			inside, outside := t.TempDir(), t.TempDir()
			// Through the CI step an implementation's repository copies (compat/image/ci-step.sh).
			argv := []string{filepath.Join(root, "compat", "image", "ci-step.sh"), impl.name, mount,
				"/impl/" + filepath.Base(impl.program) + " serve", "/impl/" + filepath.Base(impl.supports), roles, inside}
			step := exec.CommandContext(ctx, argv[0], argv[1:]...)
			step.Env = append(os.Environ(), "PKFT_CONFORMANCE_IMAGE="+ConformanceImage())
			start := time.Now()
			out, err := step.CombinedOutput()
			t.Logf("%s: %s", strings.Join(argv, " "), time.Since(start).Round(time.Second))
			if err != nil {
				t.Fatalf("%s: %v\nthe rows that failed:\n%s\n%s", strings.Join(argv, " "), err, failedRows(out), tail(out, 8000))
			}
			for _, want := range []string{"pkft-conformance: protocol version " + protocol.Version, "producers x consumers (passed/failed", "implementations x roles (passed/failed"} {
				if !bytes.Contains(out, []byte(want)) {
					t.Errorf("the image's output lacks %q:\n%s", want, tail(out, 4000))
				}
			}
			if _, err := os.Stat(filepath.Join(inside, "junit.xml")); err != nil {
				t.Error(err)
			}

			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestConformance$", "-test.count=1", "-report", outside)
			cmd.Env = append(os.Environ(), caseImplEnv+"="+impl.name, caseRolesEnv+"="+roles)
			start = time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the same selection outside the image: %v\nthe rows that failed:\n%s\n%s", err, failedRows(out), tail(out, 8000))
			}
			t.Logf("outside the image: %s", time.Since(start).Round(time.Second))
			a, b := readOutcomes(t, filepath.Join(outside, "results.json")), readOutcomes(t, filepath.Join(inside, "results.json"))
			if len(b) == 0 {
				t.Fatal("the image ran no case")
			}
			for k, sa := range a {
				if sb, ok := b[k]; sa != sb {
					t.Errorf("%s %s: %s outside the image, %s in it (ran: %v)", k[0], k[1], sa, sb, ok)
				}
			}
			for k, sb := range b {
				if _, ok := a[k]; !ok {
					t.Errorf("%s %s: %s in the image, not run outside it", k[0], k[1], sb)
				}
			}
			t.Logf("%s: the same %d cases with the same outcomes in the image and outside it", impl.name, len(a))
		})
	}
}

// readOutcomes reads a results.json: the status of each case and direction.
func readOutcomes(t *testing.T, path string) map[[2]string]Status {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Result
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[[2]string]Status{}
	for _, r := range rows {
		out[[2]string{r.Case, r.Direction}] = r.Status
	}
	return out
}

// failedRows returns the lines of a matrix printout (the image's output) whose status is fail,
// with their details: the tail of a long output holds only the grids.
func failedRows(out []byte) string {
	var rows []string
	for _, line := range strings.Split(string(out), "\n") {
		if fields := strings.Fields(line); len(fields) >= 3 && fields[2] == string(Fail) {
			rows = append(rows, line)
		}
	}
	if len(rows) == 0 {
		return "(none in the output)"
	}
	return strings.Join(rows, "\n")
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func TestFailedRows(t *testing.T) {
	out := []byte("CASE  DIRECTION  RESULT  DETAIL\n" +
		"table/differential  go<->java  pass\n" +
		"search/hostile-queries  go  fail  search timed out\n" +
		"scale/shards  go->java  skip  no runner\n")
	if got, want := failedRows(out), "search/hostile-queries  go  fail  search timed out"; got != want {
		t.Errorf("failedRows: %q, want %q", got, want)
	}
	if got := failedRows([]byte("conformance: 3 passed, 0 failed\n")); got != "(none in the output)" {
		t.Errorf("failedRows of an output without failures: %q", got)
	}
}
