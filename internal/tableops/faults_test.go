package tableops_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
	"github.com/paimon-pkft/pkft/internal/testing/crashpoint"
	"github.com/paimon-pkft/pkft/internal/testing/s3server"
)

// TestCrashPoints drives every table-writing operation of crashpoint.Operations through injected
// failures and crashes at its file operations and checks what each leaves behind (see package
// crashpoint). By default a sample of the injection points runs (PKFT_FAULTS_SAMPLE per kind of
// file operation and mode, default 4); PKFT_FAULTS_FULL=1 runs every point. With -v it prints the
// crash-point table (lines prefixed "faults| "), which `make faults` shows.
func TestCrashPoints(t *testing.T) {
	sweepOperations(t, faultsLimit(t, "PKFT_FAULTS_SAMPLE", 4), func(t *testing.T, op crashpoint.Operation) crashpoint.Store {
		return crashpoint.LocalStore{}
	})
}

// TestCrashPointsS3 runs the same sweep with the operations on a real S3 server (SeaweedFS,
// started by the test), the faults injected in front of pkft's S3 FileIO: every table is uploaded
// to a bucket, operated on there, and checked through a download of what the bucket holds. By
// default one point per kind of file operation and mode runs (PKFT_FAULTS_S3_SAMPLE);
// PKFT_FAULTS_FULL=1 runs every point.
func TestCrashPointsS3(t *testing.T) {
	srv := s3server.ForTest(t)
	cfg, err := s3io.LoadConfig(map[string]string{
		"s3.endpoint": srv.Endpoint, "s3.access-key": s3server.AccessKey, "s3.secret-key": s3server.SecretKey,
	}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	fs := s3io.New(cfg)
	if err := fs.CreateBucket(context.Background(), "crash"); err != nil {
		t.Fatal(err)
	}
	sweepOperations(t, faultsLimit(t, "PKFT_FAULTS_S3_SAMPLE", 1), func(t *testing.T, op crashpoint.Operation) crashpoint.Store {
		return &crashpoint.FileIOStore{FS: fs, Base: "s3://crash/" + op.Name, TempDir: t.TempDir}
	})
}

// faultsLimit is the number of points per kind of file operation and mode a sweep runs: the
// integer in the variable sample (def when unset), every point (0) under PKFT_FAULTS_FULL=1.
func faultsLimit(t *testing.T, sample string, def int) int {
	if os.Getenv("PKFT_FAULTS_FULL") == "1" {
		return 0
	}
	if v := os.Getenv(sample); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", sample, v, err)
		}
		return n
	}
	return def
}

// sweepOperations sweeps every operation in the store store gives for it and logs the
// crash-point table.
func sweepOperations(t *testing.T, limit int, store func(*testing.T, crashpoint.Operation) crashpoint.Store) {
	eng, _ := engine(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// The operations sweep in parallel subtests (each on tables of its own, up to -parallel at
	// once): one operation's sweep is one goroutine's work, and the machine has more cores. The
	// table is logged once they are all done, in one piece (the sweeps of the other tests may log
	// beside it), in the operations' order.
	ops := crashpoint.Operations(root, eng)
	var mu sync.Mutex
	sums := map[string]crashpoint.Summary{}
	t.Cleanup(func() {
		if t.Failed() && len(sums) < len(ops) {
			return
		}
		var ordered []crashpoint.Summary
		for _, op := range ops {
			ordered = append(ordered, sums[op.Name])
		}
		var b strings.Builder
		crashpoint.WriteTable(&b, ordered)
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		for i, line := range lines {
			lines[i] = "faults| " + line
		}
		t.Log(strings.Join(lines, "\n"))
	})
	for _, op := range ops {
		t.Run(op.Name, func(t *testing.T) {
			t.Parallel()
			h := &crashpoint.Harness{Op: op, TempDir: t.TempDir, Store: store(t, op)}
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
			mu.Lock()
			sums[op.Name] = sum
			mu.Unlock()
		})
	}
}
