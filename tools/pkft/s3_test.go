package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
	"github.com/paimon-pkft/pkft/internal/testing/s3server"
)

// TestS3Table runs create, write, compact with --buckets and --shard, and scan on an s3:// table
// of a SeaweedFS server, reached through --fs-option flags for one command and the AWS_*
// environment variables for another.
func TestS3Table(t *testing.T) {
	srv := s3server.ForTest(t)
	ctx := context.Background()
	fsys := s3io.New(s3io.Config{Endpoint: srv.Endpoint, AccessKey: s3server.AccessKey, SecretKey: s3server.SecretKey, PathStyle: true, ConditionalWrites: true})
	if err := fsys.CreateBucket(ctx, "cli"); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(`{"columns": [{"name": "id", "type": "INT"}, {"name": "v", "type": "STRING"}], "primaryKeys": ["id"], "options": {"bucket": "2"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	table := "s3://cli/db.db/t"
	fs := []string{"--fs-option", "s3.endpoint=" + srv.Endpoint, "--fs-option", "s3.access-key=" + s3server.AccessKey, "--fs-option", "s3.secret-key=" + s3server.SecretKey}
	if code, _, stderr := pkftRun(t, append(fs, "create", table, "--schema", schema)...); code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", s3server.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3server.SecretKey)
	if _, err := pkftRunIn(t, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n{\"id\":3,\"v\":\"c\"}\n{\"id\":4,\"v\":\"d\"}\n", "write", table); err != nil {
		t.Fatalf("write: %v", err)
	}
	for _, args := range [][]string{{"compact", table, "--shard", "0/2"}, {"compact", "s3a://cli/db.db/t", "--buckets", "0-1"}} {
		if code, _, stderr := pkftRun(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	code, out, stderr := pkftRun(t, "scan", table, "--json")
	if code != 0 {
		t.Fatalf("scan: exit %d: %s", code, stderr)
	}
	if got := strings.Count(out, "\n"); got != 4 || !strings.Contains(out, `"v":"d"`) {
		t.Fatalf("scan printed %d rows:\n%s", got, out)
	}
	code, _, stderr = pkftRun(t, "--fs-option", "s3.fast.upload=true", "scan", table)
	if code != 1 || !strings.Contains(stderr, `S3 option "s3.fast.upload" is not supported`) {
		t.Fatalf("an unknown S3 option: exit %d: %s", code, stderr)
	}
}
