package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// TestJavaMaintainIndexOnly: the Java runner's maintain (the maintainer role's index-only
// commit, on Paimon's own BucketedPrimaryKeyIndexMaintainer) builds the archives a table lacks
// in one commit that changes no data file, after which Java's state has every archive current
// and its plan is empty; maintaining again commits nothing. Its traffic is validated against
// compat/protocol like every runner call.
func TestJavaMaintainIndexOnly(t *testing.T) {
	ctx := context.Background()
	p, err := StartJava(ctx)
	if err != nil {
		if errors.Is(err, ErrUnavailable) && os.Getenv("PKFT_REQUIRE_JAVA") != "1" {
			t.Skipf("skipped: %v", err)
		}
		t.Fatal(err)
	}
	defer p.Close()
	if ok, err := HasCommands(ctx, p, "maintain"); err != nil || !ok {
		t.Fatalf("the Java runner does not serve maintain (rebuild it with make runner): %v", err)
	}
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
	rows := ftTextRows(77, "content", 0, 60)
	del := []row{{"id": 3, "content": nil, "_rowKind": "-D"}, {"id": 4, "content": "updated river", "_rowKind": "+U"}}
	// Written, then compacted by a job without the index option: levels without archives.
	path, err := createJavaTable(ctx, p, filepath.Join(t.TempDir(), "wh"), "maintain-index-only",
		fields, []string{"id"}, nil, opts, []tableStep{{rows: rows}, {rows: del}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Call(ctx, "compact", map[string]any{"path": path,
		"dynamicOptions": map[string]any{pkfulltext.ColumnsOption: nil}}, nil); err != nil {
		t.Fatal(err)
	}
	before, err := javaDump(ctx, p, path)
	if err != nil {
		t.Fatal(err)
	}
	if n := archives(before); n != 0 {
		t.Fatalf("the table has %d archives before maintain; the test needs none", n)
	}
	var res protocol.MaintainResponse
	if err := p.Call(ctx, "maintain", protocol.MaintainRequest{Path: path}, &res); err != nil {
		t.Fatal(err)
	}
	if res.SnapshotBefore != before.SnapshotID || res.SnapshotAfter != before.SnapshotID+1 {
		t.Fatalf("maintain: snapshots %d -> %d, want %d -> %d", res.SnapshotBefore, res.SnapshotAfter, before.SnapshotID, before.SnapshotID+1)
	}
	after, err := javaDump(ctx, p, path)
	if err != nil {
		t.Fatal(err)
	}
	if after.CommitKind != "APPEND" {
		t.Fatalf("maintain committed a %s snapshot, want APPEND (index changes only)", after.CommitKind)
	}
	if archives(after) == 0 {
		t.Fatal("maintain built no archive")
	}
	for i, b := range after.Buckets {
		if !slices.Equal(dataFileNames(b), dataFileNames(before.Buckets[i])) {
			t.Fatalf("bucket %d: maintain changed data files %v -> %v", b.Bucket, dataFileNames(before.Buckets[i]), dataFileNames(b))
		}
		if b.State == nil || len(b.State.Stale) != 0 || len(b.State.Current) == 0 {
			t.Fatalf("bucket %d: Java's state after maintain %+v, want current archives and none stale", b.Bucket, b.State)
		}
		if b.Plan != nil && (len(b.Plan.Files) > 0 || len(b.Plan.Input) > 0) {
			t.Fatalf("bucket %d: Java still plans %+v after maintain", b.Bucket, b.Plan)
		}
	}
	var found protocol.SearchResponse
	if err := p.Call(ctx, "search", protocol.SearchRequest{Path: path, Query: "river", Limit: 100}, &found); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(found.Results, func(r protocol.SearchResponseResult) bool {
		return r.Key["id"] == float64(4)
	}) {
		t.Fatalf("Java's search for river after maintain misses the updated row 4: %+v", found.Results)
	}
	if err := p.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		t.Fatal(err)
	}
	if res.SnapshotAfter != res.SnapshotBefore || res.SnapshotBefore != before.SnapshotID+1 {
		t.Fatalf("maintaining a maintained table committed: %d -> %d", res.SnapshotBefore, res.SnapshotAfter)
	}
}

func archives(d *inspect.Dump) int {
	n := 0
	for _, b := range d.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType == pkfulltext.IndexType {
				n++
			}
		}
	}
	return n
}

func dataFileNames(b inspect.BucketDump) []string {
	var out []string
	for _, f := range b.DataFiles {
		out = append(out, f.FileName)
	}
	return out
}
