package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// spillFiles lists the spilled runs and spill directories of write buffers under tmp.
func spillFiles(t *testing.T, tmp string) (dirs, runs []string) {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "pkft-write-buffer-") {
			continue
		}
		dirs = append(dirs, e.Name())
		files, err := os.ReadDir(filepath.Join(tmp, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			runs = append(runs, f.Name())
		}
	}
	return dirs, runs
}

// spillRows are 3,000 writes over 300 keys of two partitions (so several buckets), each key
// updated ten times, some deleted at the end.
func spillRows(yield func(kind types.RowKind, row []any) error) error {
	for i := range 3000 {
		id := int32(50000 + i%300)
		kind := types.Insert
		if i >= 2900 && i%3 == 0 {
			kind = types.Delete
		}
		row := []any{[]string{"eu", "us"}[i%2], int32(19753 + 29*(i%2)), id, fmt.Sprintf("spilled %d version %d %s", id, i, strings.Repeat("x", i%40))}
		if err := yield(kind, row); err != nil {
			return err
		}
	}
	return nil
}

// writeSpillRows writes spillRows into a copy of partitioned-dv with the write buffer options
// opts (write-only: the level-0 files stay as the write made them), checking after the writes
// whether the buffer spilled, and returns the table and the commit's result.
func writeSpillRows(t *testing.T, opts map[string]string, wantSpill bool) (*table.Table, *tableops.WriteResult) {
	t.Helper()
	ctx := context.Background()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var keys []string
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	root := copyGoldenWith(t, "partitioned-dv", keys, opts)
	tbl := table.Open(fileio.NewLocal(), root)
	w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithWriteOnly())
	if err != nil {
		t.Fatal(err)
	}
	if err := spillRows(func(kind types.RowKind, row []any) error { return w.Write(ctx, kind, row) }); err != nil {
		t.Fatal(err)
	}
	if dirs, runs := spillFiles(t, tmp); len(dirs) != 1 || (len(runs) > 0) != wantSpill {
		t.Fatalf("after the writes: spill directories %v, spilled runs %d, want spilled runs: %v", dirs, len(runs), wantSpill)
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dirs, runs := spillFiles(t, tmp); len(dirs)+len(runs) != 0 {
		t.Fatalf("after the commit: spill directories %v and runs %v are left", dirs, runs)
	}
	return tbl, res
}

// TestSpillingWriteBuffer: with write-buffer-spillable (Java's default) a write buffer far
// smaller than the rows spills sorted runs to a local directory and merges them back: the commit
// writes the same level-0 files (one per bucket, the same row counts) and rows as a write whose
// buffer holds everything, and leaves no spill file or directory behind.
func TestSpillingWriteBuffer(t *testing.T) {
	big, bigRes := writeSpillRows(t, nil, false)
	small, smallRes := writeSpillRows(t, map[string]string{"write-buffer-size": "8 kb", "page-size": "1 kb"}, true)
	shape := func(res *tableops.WriteResult) []string {
		var out []string
		for _, b := range res.Buckets {
			for _, f := range b.NewFiles {
				out = append(out, fmt.Sprintf("%x/%d: level %d, %d rows, sequence %d..%d", b.Partition, b.Bucket, f.Level, f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber))
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := shape(smallRes), shape(bigRes); !slices.Equal(got, want) {
		t.Fatalf("level-0 files of the spilled write:\n%v\nwithout spilling:\n%v", got, want)
	}
	got := stringRows(mergedRows(t, small))
	if want := stringRows(mergedRows(t, big)); !mapsEqual(got, want) {
		t.Fatalf("the spilled write merges to other rows (%s)", firstMapDiff(got, want))
	}
	// And both are the rows written: each key's last version, deleted keys gone.
	written, touched := map[string]string{}, map[string]bool{}
	_ = spillRows(func(kind types.RowKind, row []any) error {
		k := partitionKey(t, row)
		touched[k] = true
		if kind == types.Delete {
			delete(written, k)
		} else {
			written[k] = fmt.Sprint(row)
		}
		return nil
	})
	for k := range touched {
		if got[k] != written[k] {
			t.Fatalf("key %s reads %q, the last write was %q", k, got[k], written[k])
		}
	}
}

// spilledWriter opens a writer on a copy of the partitioned-dv table with an 8 kb write buffer,
// its spill directory under a new TMPDIR (returned), and writes spillRows into it; it returns
// the table's latest snapshot before the write too.
func spilledWriter(t *testing.T) (*table.Table, *tableops.Writer, string, *snapshot.Snapshot) {
	t.Helper()
	ctx := context.Background()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := copyGoldenWith(t, "partitioned-dv", []string{"page-size", "write-buffer-size"}, map[string]string{"write-buffer-size": "8 kb", "page-size": "1 kb"})
	tbl := table.Open(fileio.NewLocal(), root)
	before, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tableops.OpenWriter(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := spillRows(func(kind types.RowKind, row []any) error { return w.Write(ctx, kind, row) }); err != nil {
		t.Fatal(err)
	}
	return tbl, w, tmp, before
}

// TestSpilledRunsDeletedOnAbort: an aborted writer whose buffer spilled deletes its runs and spill
// directory, and commits nothing.
func TestSpilledRunsDeletedOnAbort(t *testing.T) {
	ctx := context.Background()
	tbl, w, tmp, before := spilledWriter(t)
	if _, runs := spillFiles(t, tmp); len(runs) == 0 {
		t.Fatal("the buffer did not spill")
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if dirs, runs := spillFiles(t, tmp); len(dirs)+len(runs) != 0 {
		t.Fatalf("after the abort: spill directories %v and runs %v are left", dirs, runs)
	}
	after, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.ID != before.ID {
		t.Fatalf("the aborted write committed snapshot %d", after.ID)
	}
}

// TestWriteBufferOptionsRefused: write buffer options Java would refuse (fewer than three pages)
// or pkft does not implement (an lz4 spill) fail the writer's opening by name, leaving no spill
// directory.
func TestWriteBufferOptionsRefused(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"write-buffer-size": "16 kb"}, "minimum of 3 pages"},
		{map[string]string{"spill-compression": "lz4"}, "spill-compression"},
		{map[string]string{"write-buffer-spillable": "maybe"}, "write-buffer-spillable"},
	} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		var keys []string
		for k := range c.opts {
			keys = append(keys, k)
		}
		tbl := table.Open(fileio.NewLocal(), copyGoldenWith(t, "partitioned-dv", keys, c.opts))
		_, err := tableops.OpenWriter(ctx, tbl, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %q", c.opts, err, c.want)
		}
		if dirs, _ := spillFiles(t, tmp); len(dirs) != 0 {
			t.Errorf("%v: spill directories %v left", c.opts, dirs)
		}
	}
}

// stringRows renders merged rows for comparison.
func stringRows(rows map[string][]any) map[string]string {
	out := map[string]string{}
	for k, r := range rows {
		out[k] = fmt.Sprint(r)
	}
	return out
}

// TestSpillingWriteBufferSequenceField: under sequence.field the records of a key are merged in
// the field's order, spilled or not: the spilled write reads as the unspilled one, and each key
// that was never deleted keeps its write with the greatest field value (not its last write).
func TestSpillingWriteBufferSequenceField(t *testing.T) {
	seq := map[string]string{"sequence.field": "content"}
	big, _ := writeSpillRows(t, seq, false)
	small, _ := writeSpillRows(t, map[string]string{"sequence.field": "content", "write-buffer-size": "8 kb", "page-size": "1 kb"}, true)
	got := stringRows(mergedRows(t, small))
	if want := stringRows(mergedRows(t, big)); !mapsEqual(got, want) {
		t.Fatalf("the spilled write merges to other rows (%s)", firstMapDiff(got, want))
	}
	greatest, deleted := map[string][]any{}, map[string]bool{}
	_ = spillRows(func(kind types.RowKind, row []any) error {
		k := partitionKey(t, row)
		if kind == types.Delete {
			deleted[k] = true
		}
		if g, ok := greatest[k]; !ok || row[3].(string) > g[3].(string) {
			greatest[k] = row
		}
		return nil
	})
	checked := 0
	for k, row := range greatest {
		if deleted[k] {
			continue
		}
		if got[k] != fmt.Sprint(row) {
			t.Fatalf("key %s reads %q, the write with the greatest sequence field is %q", k, got[k], fmt.Sprint(row))
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no key checked")
	}
}

// TestFullWriteBufferFlushes: a bucket whose buffer fills up and cannot spill writes its records
// as a level-0 file and takes the record that did not fit into the emptied buffer
// (MergeTreeWriter#write): every row written is read back, from several level-0 files.
func TestFullWriteBufferFlushes(t *testing.T) {
	tbl, _ := newTable(t, map[string]string{"bucket": "1", "write-buffer-size": "48 kb", "page-size": "16 kb",
		"write-buffer-spillable": "false"})
	var rows [][]any
	for id := range int32(2000) {
		rows = append(rows, []any{types.Insert, id, fmt.Sprintf("a row long enough to fill pages %d", id), id})
	}
	if err := writeRowsWith(tbl, nil, []tableops.MaintainOption{tableops.WithWriteOnly()}, rows...); err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, b := range latestContents(t, tbl).Buckets {
		files += len(b.DataFiles)
	}
	if files < 2 {
		t.Fatalf("%d data files: a 48 kb buffer for 2000 rows flushed nothing early", files)
	}
	got := mergedRows(t, tbl)
	if len(got) != len(rows) {
		t.Fatalf("%d rows read back, want %d", len(got), len(rows))
	}
	for _, r := range got {
		if id := r[0].(int32); r[1] != fmt.Sprintf("a row long enough to fill pages %d", id) || r[2] != id {
			t.Fatalf("row %v", r)
		}
	}
}

// deleteFailingIO fails the Delete of every file whose name starts with prefix.
type deleteFailingIO struct {
	fileio.FileIO
	prefix string
}

var errDeleteInjected = errors.New("injected delete failure")

func (f deleteFailingIO) Delete(ctx context.Context, path string) error {
	if strings.HasPrefix(filepath.Base(path), f.prefix) {
		return errDeleteInjected
	}
	return f.FileIO.Delete(ctx, path)
}

// TestAbortReportsWhatItCouldNotDelete: an aborted writer deletes the data files it flushed
// early; a delete that fails is in Abort's error (the file is left for orphan removal), not
// dropped.
func TestAbortReportsWhatItCouldNotDelete(t *testing.T) {
	ctx := context.Background()
	_, root := newTable(t, map[string]string{"bucket": "1", "write-buffer-size": "48 kb", "page-size": "16 kb",
		"write-buffer-spillable": "false"})
	tbl := table.Open(deleteFailingIO{fileio.NewLocal(), "data-"}, root)
	w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithWriteOnly())
	if err != nil {
		t.Fatal(err)
	}
	for id := range int32(2000) {
		if err := w.Write(ctx, types.Insert, []any{id, fmt.Sprintf("a row long enough to fill pages %d", id), id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Abort(ctx); !errors.Is(err, errDeleteInjected) {
		t.Errorf("abort of a writer with flushed files whose deletes fail: %v, want %v", err, errDeleteInjected)
	}
}

// TestCutSpilledRunFailsTheCommit: spilled runs that can no longer be read to their end (cut
// short on disk) fail the commit, which publishes nothing.
func TestCutSpilledRunFailsTheCommit(t *testing.T) {
	ctx := context.Background()
	tbl, w, tmp, before := spilledWriter(t)
	dirs, runs := spillFiles(t, tmp)
	if len(dirs) != 1 || len(runs) == 0 {
		t.Fatalf("spill directories %v, runs %v: want the writer's one, with runs", dirs, runs)
	}
	for _, run := range runs {
		p := filepath.Join(tmp, dirs[0], run)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, st.Size()-3); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); err == nil || !strings.Contains(err.Error(), "spilled run") {
		t.Fatalf("a commit over spilled runs cut short: %v, want the spilled run's error", err)
	}
	after, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.ID != before.ID {
		t.Fatalf("the failed write committed snapshot %d", after.ID)
	}
}

// TestRecordLargerThanTheWriteBuffer: a record larger than the whole write buffer fails the
// write with the buffer's own error (naming write-buffer-size), not as a full buffer.
func TestRecordLargerThanTheWriteBuffer(t *testing.T) {
	for _, spillable := range []string{"true", "false"} {
		tbl, _ := newTable(t, map[string]string{"bucket": "1", "write-buffer-size": "48 kb", "page-size": "16 kb",
			"write-buffer-spillable": spillable})
		err := writeRowsWith(tbl, nil, nil, []any{types.Insert, int32(1), strings.Repeat("x", 64<<10), int32(1)})
		if err == nil || !strings.Contains(err.Error(), "exceeds the write buffer (write-buffer-size") {
			t.Errorf("spillable=%s: a 64 KiB record in a 48 kb buffer: %v, want the record named too large", spillable, err)
		}
	}
}
