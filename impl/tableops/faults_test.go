package tableops_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/crashpoint"
)

// TestCrashPoints drives every table-writing operation of crashpoint.Operations through injected
// failures and crashes at its file operations and checks what each leaves behind (see package
// crashpoint). By default a sample of the injection points runs (PKFT_FAULTS_SAMPLE per kind of
// file operation and mode, default 4); PKFT_FAULTS_FULL=1 runs every point. With -v it prints the
// crash-point table (lines prefixed "faults| "), which `make faults` shows.
func TestCrashPoints(t *testing.T) {
	eng, _ := engine(t)
	limit := 4
	if v := os.Getenv("PKFT_FAULTS_SAMPLE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("PKFT_FAULTS_SAMPLE=%q: %v", v, err)
		}
		limit = n
	}
	if os.Getenv("PKFT_FAULTS_FULL") == "1" {
		limit = 0
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var sums []crashpoint.Summary
	for _, op := range crashpoint.Operations(root, eng) {
		t.Run(op.Name, func(t *testing.T) {
			h := &crashpoint.Harness{Op: op, TempDir: t.TempDir}
			sum, err := h.Sweep(context.Background(), limit, func(c *crashpoint.Case) {
				if !c.Passed() {
					t.Errorf("%s at %s (error %v):\n  %s", op.Name, c.Point, c.Err, strings.Join(c.Problems, "\n  "))
				}
				if len(c.Orphans) > 0 {
					t.Logf("%s at %s leaves orphans %v", op.Name, c.Point, c.Orphans)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Cases == 0 {
				t.Fatalf("%s: no injection points", op.Name)
			}
			sums = append(sums, sum)
		})
	}
	var b strings.Builder
	crashpoint.WriteTable(&b, sums)
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		t.Log("faults| " + line)
	}
}
