package pkft_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptionsOfOtherOperationsDoNotCompile builds each file of testdata/compilefail under its
// build tag: each passes an operation an option it does not honour, and must fail to compile
// with the type error that says so. Without a tag the package, calling every operation with the
// options it does take, builds.
func TestOptionsOfOtherOperationsDoNotCompile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed to check that calls do not compile: %v", err)
	}
	const dir = "./testdata/compilefail"
	build := func(tag string) (string, error) {
		args := []string{"build", "-o", os.DevNull}
		if tag != "" {
			args = append(args, "-tags", tag)
		}
		cmd := exec.Command("go", append(args, dir)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build(""); err != nil {
		t.Fatalf("the options each operation takes do not compile: %v\n%s", err, out)
	}
	cases := map[string]string{
		"compilefail_compact_dryrun":    "pkft.DryRunOption does not implement pkft.CompactOption",
		"compilefail_write_bucket":      "pkft.BucketOption does not implement pkft.WriteOption",
		"compilefail_write_dryrun":      "pkft.DryRunOption does not implement pkft.WriteOption",
		"compilefail_search_dryrun":     "pkft.DryRunOption does not implement pkft.SearchOption",
		"compilefail_search_bucket":     "pkft.BucketOption does not implement pkft.SearchOption",
		"compilefail_maintain_limit":    "pkft.SearchOption does not implement pkft.MaintainOption",
		"compilefail_open_commituser":   "(value of interface type pkft.CommitUserOption) as pkft.OpenOption value",
		"compilefail_orphan_commituser": "pkft.CommitUserOption does not implement pkft.RemoveOrphanFilesOption",
	}
	files, err := filepath.Glob(filepath.Join(dir, "compilefail_*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(cases) {
		t.Fatalf("%d files in %s, %d cases", len(files), dir, len(cases))
	}
	for _, f := range files {
		tag := strings.TrimSuffix(filepath.Base(f), ".go")
		want, ok := cases[tag]
		if !ok {
			t.Errorf("%s: no expected error", f)
			continue
		}
		t.Run(tag, func(t *testing.T) {
			t.Parallel()
			out, err := build(tag)
			if err == nil {
				t.Fatalf("go build -tags %s compiled; it must not", tag)
			}
			if !strings.Contains(out, want) {
				t.Errorf("go build -tags %s failed without %q:\n%s", tag, want, out)
			}
		})
	}
}
