package tableops_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
	"github.com/paimon-pkft/pkft/internal/testing/crashpoint"
	"github.com/paimon-pkft/pkft/internal/testing/faultio"
	"github.com/paimon-pkft/pkft/internal/testing/s3server"
)

// TestCrashPointsS3Siblings repeats, on S3, the injection points of the write where one bucket's
// failure cancels the others' work at commit while one of them is publishing a file: its PUT
// must run to the server's answer (s3io's publishTimeout), or the object lands after the
// cleanup and stays an orphan (found by `make faults FULL=1`). Part of make faults.
func TestCrashPointsS3Siblings(t *testing.T) {
	srv := s3server.ForTest(t)
	cfg, err := s3io.LoadConfig(map[string]string{"s3.endpoint": srv.Endpoint, "s3.access-key": s3server.AccessKey, "s3.secret-key": s3server.SecretKey}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := s3io.New(cfg)
	if err := fs.CreateBucket(context.Background(), "crash"); err != nil {
		t.Fatal(err)
	}
	eng, _ := engine(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, op := range crashpoint.Operations(root, eng) {
		if op.Name != "write" {
			continue
		}
		h := &crashpoint.Harness{Op: op, TempDir: t.TempDir, Store: &crashpoint.FileIOStore{FS: fs, Base: "s3://crash/w", TempDir: t.TempDir}}
		f := faultio.New(h.FileIO())
		for round := 0; round < 4; round++ {
			for _, p := range []faultio.Point{{Op: faultio.OpWrite, K: 6, Mode: faultio.Fail}, {Op: faultio.OpRead, K: 24, Mode: faultio.Fail}, {Op: faultio.OpWrite, K: 5, Mode: faultio.Fail}, {Op: faultio.OpWrite, K: 7, Mode: faultio.Fail}} {
				c, err := h.Run(context.Background(), f, p)
				if err != nil {
					t.Fatal(err)
				}
				ran++
				if !c.Passed() {
					t.Errorf("%s: %s", p, strings.Join(c.Problems, "; "))
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no write operation in crashpoint.Operations")
	}
}
