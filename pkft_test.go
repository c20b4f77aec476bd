package pkft_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestMain decides what happens to the Example functions when the native engine is missing:
// an Example cannot skip itself, so under PKFT_REQUIRE_NATIVE=1 the run fails at once with the
// loader's message, and otherwise the examples are left out of the run (through -test.skip)
// with a note on stderr; the tests skip or fail on their own through internal/testing/testenv.
func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := native.Load(context.Background(), ""); err != nil {
		if testenv.Required(testenv.RequireNativeEnv) {
			fmt.Fprintf(os.Stderr, "FAIL: the examples need the native engine: %v (%s=1 makes this a failure)\n", err, testenv.RequireNativeEnv)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "skipping the examples: %v (set %s=1 to make this a failure)\n", err, testenv.RequireNativeEnv)
		skip := "^Example"
		if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
			skip = f.Value.String() + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// files lists every regular file under root with its size, relative to root.
func files(t *testing.T, root string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func openExample(t *testing.T, name string) (*pkft.Table, string) {
	t.Helper()
	testenv.Native(t)
	dir, cleanup := exampleTable(name)
	t.Cleanup(cleanup)
	tbl, err := pkft.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return tbl, dir
}

func TestOpen_Errors(t *testing.T) {
	ctx := context.Background()
	if _, err := pkft.Open(ctx, ""); err == nil {
		t.Error("empty path: no error")
	}
	dir := t.TempDir()
	if _, err := pkft.Open(ctx, dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory without a schema: %v, want an error naming it", err)
	}
}

func TestOpen_TableWithoutFullText(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("testdata", "tables", "java", "two-levels")
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := tbl.FullTextColumn(); c != "" {
		t.Errorf("FullTextColumn = %q, want empty", c)
	}
	before := files(t, dir)
	if _, err := tbl.Maintain(ctx, pkft.WithDryRun(true)); !errors.Is(err, pkft.ErrNoFullTextIndex) {
		t.Errorf("dry run: %v, want ErrNoFullTextIndex", err)
	}
	if _, err := tbl.Maintain(ctx); !errors.Is(err, pkft.ErrNoFullTextIndex) {
		t.Errorf("maintain: %v, want ErrNoFullTextIndex", err)
	}
	if _, err := tbl.Search(ctx, "base"); err == nil {
		t.Error("search: no error")
	}
	if after := files(t, dir); !slices.Equal(keys(before), keys(after)) {
		t.Errorf("files changed: %v -> %v", keys(before), keys(after))
	}
}

func TestMaintain_DryRunWritesNothingAndMatchesTheRun(t *testing.T) {
	ctx := context.Background()
	tbl, dir := openExample(t, "partitioned-dv")
	before := files(t, dir)
	plan, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	if after := files(t, dir); !slices.Equal(keys(before), keys(after)) {
		t.Fatalf("dry run changed the files: %v -> %v", keys(before), keys(after))
	}
	if !plan.DryRun || plan.SnapshotID != 0 || plan.BaseSnapshotID == 0 || len(plan.Buckets) == 0 {
		t.Fatalf("plan = %+v", plan)
	}
	res, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.DryRun || res.SnapshotID != plan.BaseSnapshotID+1 || res.Attempts != 1 {
		t.Fatalf("result = %+v", res)
	}
	if len(res.Buckets) != len(plan.Buckets) {
		t.Fatalf("%d buckets maintained, %d planned", len(res.Buckets), len(plan.Buckets))
	}
	for i, b := range res.Buckets {
		p := plan.Buckets[i]
		if b.Partition.String() != p.Partition.String() || b.Bucket != p.Bucket {
			t.Fatalf("bucket %d: %s/%d maintained, %s/%d planned", i, b.Partition, b.Bucket, p.Partition, p.Bucket)
		}
		var built, planned []int32
		for _, a := range b.Built {
			built = append(built, a.Level)
			if a.FileName == "" || a.RowCount <= 0 || a.FileSize <= 0 {
				t.Errorf("%s/%d: built archive %+v", b.Partition, b.Bucket, a)
			}
		}
		for _, a := range p.Built {
			planned = append(planned, a.Level)
		}
		if !slices.Equal(built, planned) || b.RowsIndexed != p.RowsIndexed || len(b.Retired) != len(p.Retired) {
			t.Errorf("%s/%d: built levels %v (%d rows), planned %v (%d rows)", b.Partition, b.Bucket, built, b.RowsIndexed, planned, p.RowsIndexed)
		}
	}
	// Now everything is current: the plan is empty and a run commits nothing.
	plan, err = tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range plan.Buckets {
		if b.Changed() || len(b.Unchanged) == 0 {
			t.Errorf("after maintenance %s/%d plans %+v", b.Partition, b.Bucket, b)
		}
	}
	before = files(t, dir)
	again, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.SnapshotID != 0 || again.Attempts != 0 {
		t.Errorf("second maintenance committed %+v", again)
	}
	if after := files(t, dir); !slices.Equal(keys(before), keys(after)) {
		t.Errorf("second maintenance changed the files: %v -> %v", keys(before), keys(after))
	}
}

func TestMaintain_Selection(t *testing.T) {
	ctx := context.Background()
	tbl, _ := openExample(t, "partitioned-dv")
	selected := func(opts ...pkft.MaintainOption) []string {
		t.Helper()
		plan, err := tbl.Maintain(ctx, append(opts, pkft.WithDryRun(true))...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, b := range plan.Buckets {
			out = append(out, fmt.Sprintf("%s#%d", b.Partition, b.Bucket))
		}
		return out
	}
	all := selected()
	if len(all) != 8 {
		t.Fatalf("all buckets: %v", all)
	}
	byDate := selected(pkft.WithPartition(map[string]string{"dt": "2024-01-31"}))
	byDay := selected(pkft.WithPartition(map[string]string{"dt": "19753"}))
	want := []string{"region=eu/dt=2024-01-31#0", "region=eu/dt=2024-01-31#1", "region=us/dt=2024-01-31#0", "region=us/dt=2024-01-31#1"}
	if !slices.Equal(byDate, want) || !slices.Equal(byDay, want) {
		t.Errorf("dt=2024-01-31 selects %v, dt=19753 %v, want %v", byDate, byDay, want)
	}
	two := selected(pkft.WithPartition(map[string]string{"region": "eu", "dt": "2024-01-31"}),
		pkft.WithPartition(map[string]string{"region": "us", "dt": "2024-02-29"}), pkft.WithBucket(1))
	if want := []string{"region=eu/dt=2024-01-31#1", "region=us/dt=2024-02-29#1"}; !slices.Equal(two, want) {
		t.Errorf("two partitions, bucket 1: %v, want %v", two, want)
	}
	if none := selected(pkft.WithBucket(7)); len(none) != 0 {
		t.Errorf("bucket 7 selects %v", none)
	}
	for _, spec := range []map[string]string{{"nope": "x"}, {"dt": "not-a-date"}} {
		if _, err := tbl.Maintain(ctx, pkft.WithPartition(spec), pkft.WithDryRun(true)); err == nil {
			t.Errorf("partition %v: no error", spec)
		}
	}
	// Maintaining a selection changes only the selected bucket.
	res, err := tbl.Maintain(ctx, pkft.WithPartition(map[string]string{"region": "us"}), pkft.WithBucket(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Buckets) != 2 || res.SnapshotID == 0 {
		t.Fatalf("result %+v", res)
	}
	plan, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range plan.Buckets {
		maintained := b.Partition[0].Value == "us" && b.Bucket == 0
		if b.Changed() == maintained {
			t.Errorf("%s#%d: changed=%v after maintaining region=us bucket 0", b.Partition, b.Bucket, b.Changed())
		}
	}

	other, _ := openExample(t, "two-levels")
	if _, err := other.Maintain(ctx, pkft.WithPartition(map[string]string{"a": "b"})); err == nil {
		t.Error("partition of an unpartitioned table: no error")
	}
}

func TestMaintain_Progress(t *testing.T) {
	ctx := context.Background()
	tbl, _ := openExample(t, "partitioned-dv")
	var reports []pkft.Progress
	res, err := tbl.Maintain(ctx, pkft.WithParallelism(3), pkft.WithProgress(func(p pkft.Progress) { reports = append(reports, p) }))
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, b := range res.Buckets {
		rows += b.RowsIndexed
	}
	finished := 0
	for _, p := range reports {
		if p.Bucket != nil {
			finished++
			if p.BucketsDone != finished || p.BucketsTotal != len(res.Buckets) {
				t.Errorf("report %+v after %d buckets", p, finished)
			}
		}
		if p.RowsPlanned != rows || p.RowsIndexed > rows {
			t.Errorf("report %+v, %d rows planned", p, rows)
		}
	}
	if finished != len(res.Buckets) {
		t.Errorf("%d bucket reports, %d buckets", finished, len(res.Buckets))
	}
	if last := reports[len(reports)-1]; last.RowsIndexed != rows {
		t.Errorf("last report %+v, want %d rows indexed", last, rows)
	}
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	tbl, _ := openExample(t, "partitioned-dv")
	// Before maintenance no level has an archive: nothing is searched.
	res, err := tbl.Search(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Fatalf("hits before maintenance: %+v", res.Hits)
	}
	base := res.SnapshotID
	if _, err := tbl.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = tbl.Search(ctx, "first", pkft.WithLimit(1000))
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID != base+1 || res.Column != "content" || !slices.Equal(res.KeyColumns, []string{"region", "dt", "id"}) ||
		!slices.Equal(res.PartitionKeys, []string{"region", "dt"}) || len(res.Hits) == 0 {
		t.Fatalf("result %+v", res)
	}
	for i, h := range res.Hits {
		if h.Text == nil || !strings.Contains(*h.Text, "first") {
			t.Errorf("hit %+v does not contain the word", h)
		}
		if i > 0 && h.Score > res.Hits[i-1].Score {
			t.Errorf("hit %d scores %v after %v", i, h.Score, res.Hits[i-1].Score)
		}
		if len(h.Key) != 3 || len(h.Partition) != 2 || h.Key[0] != h.Partition[0].Value {
			t.Errorf("hit %+v: key and partition", h)
		}
		if _, ok := h.Key[2].(int32); !ok {
			t.Errorf("id %T, want int32", h.Key[2])
		}
	}
	eu, err := tbl.Search(ctx, "first", pkft.WithLimit(1000), pkft.WithPartition(map[string]string{"region": "eu"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(eu.Hits) == 0 || len(eu.Hits) >= len(res.Hits) {
		t.Errorf("region=eu: %d hits of %d", len(eu.Hits), len(res.Hits))
	}
	for _, h := range eu.Hits {
		if h.Partition[0].Value != "eu" {
			t.Errorf("region=eu returned %+v", h)
		}
	}
	// The snapshot before maintenance still has no archive.
	old, err := tbl.Search(ctx, "first", pkft.WithSnapshot(base))
	if err != nil {
		t.Fatal(err)
	}
	if old.SnapshotID != base || len(old.Hits) != 0 {
		t.Errorf("snapshot %d: %+v", base, old)
	}
	for name, opts := range map[string][]pkft.SearchOption{
		"zero limit":    {pkft.WithLimit(0)},
		"other column":  {pkft.WithColumn("region")},
		"no column":     {pkft.WithColumn("nope")},
		"bad partition": {pkft.WithPartition(map[string]string{"nope": "x"})},
		"no snapshot":   {pkft.WithSnapshot(999)},
	} {
		if _, err := tbl.Search(ctx, "first", opts...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := tbl.Search(ctx, "  "); err == nil {
		t.Error("blank query: no error")
	}
}

func TestTableWithoutSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl, dir := openExample(t, "two-levels")
	if err := os.RemoveAll(filepath.Join(dir, "snapshot")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "manifest")); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		res, err := tbl.Maintain(ctx, pkft.WithDryRun(dry))
		if err != nil {
			t.Fatalf("dry run %v: %v", dry, err)
		}
		if res.BaseSnapshotID != 0 || res.SnapshotID != 0 || len(res.Buckets) != 0 {
			t.Errorf("dry run %v: %+v", dry, res)
		}
	}
	res, err := tbl.Search(ctx, "base")
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID != 0 || len(res.Hits) != 0 {
		t.Errorf("search: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "snapshot")); err == nil {
		t.Error("maintaining an empty table wrote a snapshot")
	}
}

func TestOpen_EngineLibrary(t *testing.T) {
	ctx := context.Background()
	maintained, dir := openExample(t, "two-levels")
	// Archives to search: the engine is needed.
	if _, err := maintained.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	found, err := native.Locate(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	lib := found.Path
	tbl, err := pkft.Open(ctx, dir, pkft.WithEngineLibrary(lib))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := tbl.Search(ctx, "second"); err != nil || len(res.Hits) == 0 {
		t.Errorf("engine from %s: %v, %+v", lib, err, res)
	}
	missing := filepath.Join(t.TempDir(), "missing.so")
	tbl, err = pkft.Open(ctx, dir, pkft.WithEngineLibrary(missing))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Search(ctx, "second"); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("engine from a missing file: %v, want an error naming it", err)
	}
}
