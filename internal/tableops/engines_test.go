package tableops_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestCompactForceRewriteAllFiles checks compaction.force-rewrite-all-files as Java's
// MergeTreeCompactTask#upgrade and CompactStrategy#pickFullCompaction apply it: a full compaction
// rewrites every file instead of moving the large ones up (so every file of the top level is a
// COMPACT file), and a full compaction of a table already compacted into the top level rewrites
// every file again; the rows stay the same. Without the option the same compaction moves files up.
func TestCompactForceRewriteAllFiles(t *testing.T) {
	ctx := context.Background()
	for _, force := range []bool{false, true} {
		root := copyGolden(t, "two-levels")
		if force {
			setOptions(t, root, map[string]string{"compaction.force-rewrite-all-files": "true"})
		}
		// Every file counts as large: without the option the ones overlapping nothing move up.
		setOptions(t, root, map[string]string{"compaction.small-file-ratio": "0.0"})
		tbl := table.Open(fileio.NewLocal(), root)
		if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
			t.Fatal(err)
		}
		// New keys after every key of the table: a level-0 file overlapping no top-level file.
		w, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithWriteOnly())
		if err != nil {
			t.Fatal(err)
		}
		for id := int32(100000); id < 100050; id++ {
			if err := w.Write(ctx, types.Insert, []any{id, "new"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		want := mergedRows(t, tbl)
		res, err := tableops.Compact(ctx, tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		upgraded, rewritten := 0, 0
		for _, b := range res.Buckets {
			upgraded += b.Upgraded
			rewritten += b.Rewritten
		}
		if force && (upgraded != 0 || rewritten == 0) {
			t.Errorf("forced: %d files moved up, %d rewritten; want none moved", upgraded, rewritten)
		}
		if !force && upgraded == 0 {
			t.Errorf("not forced: no file moved up: the case tests nothing")
		}
		if got := mergedRows(t, tbl); !sameRows(got, want) {
			t.Fatalf("force=%v: rows changed: %d, want %d", force, len(got), len(want))
		}
		sources := topSources(t, tbl)
		if force && sources[meta.FileSourceAppend] > 0 {
			t.Errorf("forced: %d APPEND files at the top level", sources[meta.FileSourceAppend])
		}
		again, err := tableops.Compact(ctx, tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, n := range sources {
			files += n
		}
		rewritten = 0
		for _, b := range again.Buckets {
			rewritten += b.Rewritten
		}
		if force && rewritten != files {
			t.Errorf("forced: the second full compaction rewrote %d of %d files", rewritten, files)
		}
		if !force && again.Snapshot != nil {
			t.Errorf("not forced: the second full compaction committed snapshot %d", again.Snapshot.ID)
		}
		if got := mergedRows(t, tbl); !sameRows(got, want) {
			t.Fatalf("force=%v: rows changed by the second compaction", force)
		}
	}
}

// topSources counts the latest snapshot's data files by file source.
func topSources(t *testing.T, tbl *table.Table) map[meta.FileSource]int {
	t.Helper()
	out := map[meta.FileSource]int{}
	for _, b := range latestContents(t, tbl).Buckets {
		for _, f := range b.DataFiles {
			if f.FileSource != nil {
				out[*f.FileSource]++
			}
		}
	}
	return out
}

// newTable creates a table of (id INT NOT NULL primary key, content STRING, v INT) with only its
// schema and the given options.
func newTable(t *testing.T, opts map[string]string) (*table.Table, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "t")
	sch := &schema.TableSchema{Version: 3, HighestFieldID: 2, PrimaryKeys: []string{"id"},
		Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "content", types.String()),
			types.Field(2, "v", types.Int())},
		Options: opts}
	for k := range opts {
		sch.OptionOrder = append(sch.OptionOrder, k)
	}
	slices.Sort(sch.OptionOrder)
	if err := os.MkdirAll(filepath.Join(root, "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "schema", "schema-0"), sch.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	return table.Open(fileio.NewLocal(), root), root
}

// writeRows writes rows of (kind, id, content, v) and commits them.
func writeRows(t *testing.T, tbl *table.Table, rows ...[]any) error {
	t.Helper()
	return writeRowsWith(tbl, nil, nil, rows...)
}

// writeRowsWith writes rows of (kind, values...) through a writer opened with eng and opts, and
// commits them; a failed write aborts the writer.
func writeRowsWith(tbl *table.Table, eng fulltext.Engine, opts []tableops.MaintainOption, rows ...[]any) error {
	ctx := context.Background()
	w, err := tableops.OpenWriter(ctx, tbl, eng, opts...)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(ctx, r[0].(types.RowKind), r[1:]); err != nil {
			return errors.Join(err, w.Abort(ctx))
		}
	}
	_, err = w.Commit(ctx)
	return err
}

// liveRecords reads every record of the latest snapshot's data files above level 0 (what Java's
// batch read of a first-row or deletion-vector table reads: it skips level 0), skipping rows
// deletion vectors delete, failing on a key found twice, and returns each key's content and v as
// "content/v".
func liveRecords(t *testing.T, tbl *table.Table) map[int32]string {
	t.Helper()
	out := map[int32]string{}
	forEachRecord(t, tbl, func(_ *table.Bucket, f *meta.DataFileMeta, kv *kvfile.KeyValue) {
		if f.Level == 0 {
			t.Errorf("%s is on level 0 after a commit of a table that needs lookup", f.FileName)
			return
		}
		id := kv.Key[0].(int32)
		if _, dup := out[id]; dup {
			t.Errorf("key %d in two files above level 0", id)
		}
		if kv.IsRetract() {
			t.Errorf("key %d: a retraction above level 0", id)
		}
		out[id] = fmt.Sprintf("%v/%v", kv.Value[1], kv.Value[2])
	})
	return out
}

// TestFirstRowMergeEngine checks merge-engine = first-row as Java's writer and compaction apply
// it: the write buffer keeps the first record of a key (FirstRowMergeFunction), the compaction at
// commit drops a new record whose key a level above 0 holds (FirstRowMergeFunctionWrapper over
// the lookup), a full compaction keeps every key once; a retraction fails the commit unless
// ignore-delete drops it on write, with nothing written; deletion vectors are Java's schema
// error.
func TestFirstRowMergeEngine(t *testing.T) {
	ctx := context.Background()
	I, D, UB := types.Insert, types.Delete, types.UpdateBefore
	tbl, root := newTable(t, map[string]string{"bucket": "1", "merge-engine": "first-row"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writeRows(t, tbl, []any{I, int32(1), "a", int32(1)}, []any{I, int32(2), "a", int32(1)}, []any{I, int32(1), "b", int32(2)}))
	want := map[int32]string{1: "a/1", 2: "a/1"}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after the first write: %v, want %v", got, want)
	}
	must(writeRows(t, tbl, []any{I, int32(1), "c", int32(3)}, []any{I, int32(3), "c", int32(3)}))
	want[3] = "c/3"
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after the second write: %v, want %v", got, want)
	}
	must(writeRows(t, tbl, []any{I, int32(2), "d", int32(4)}, []any{I, int32(4), "d", int32(4)}, []any{I, int32(3), "d", int32(4)}))
	want[4] = "d/4"
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		t.Fatal(err)
	}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after the full compaction: %v, want %v", got, want)
	}

	before := listFiles(t, root)
	for _, kind := range []types.RowKind{D, UB} {
		err := writeRows(t, tbl, []any{kind, int32(1), nil, nil})
		if !errors.Is(err, mergetree.ErrFirstRowRetract) {
			t.Errorf("a %v row: commit error %v, want the first-row retraction error", kind, err)
		}
		if got := listFiles(t, root); !slices.Equal(got, before) {
			t.Errorf("a %v row: the failed commit left files %v", kind, added(before, got))
		}
	}

	setOptions(t, root, map[string]string{"ignore-delete": "true"})
	must(writeRows(t, tbl, []any{D, int32(1), nil, nil}, []any{I, int32(5), "e", int32(5)}))
	want[5] = "e/5"
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after a delete under ignore-delete: %v, want %v", got, want)
	}

	setOptions(t, root, map[string]string{"deletion-vectors.enabled": "true"})
	before = listFiles(t, root)
	_, werr := tableops.OpenWriter(ctx, tbl, nil)
	_, cerr := tableops.Compact(ctx, tbl, nil)
	for _, err := range []error{werr, cerr} {
		if !errors.Is(err, tableops.ErrUnsupportedTable) || !contains(err.Error(), "First row merge engine does not need deletion vectors") {
			t.Errorf("first-row with deletion vectors: %v", err)
		}
	}
	if !slices.Equal(listFiles(t, root), before) {
		t.Error("first-row with deletion vectors: files changed")
	}
}

// TestSequenceField checks sequence.field with both sort orders, with and without deletion
// vectors (the lookup compaction at commit): of a key's records the one with the largest field
// value wins (the smallest when descending; a null loses to any value in both orders, as Java's
// generated comparator puts nulls first), equal values fall back to the sequence number, in the
// write buffer, the compactions at commit and a full compaction. Without deletion vectors the
// rows are checked after full compactions; with them after every commit too.
func TestSequenceField(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	for _, dv := range []bool{false, true} {
		for _, order := range []string{"ascending", "descending"} {
			t.Run(fmt.Sprintf("dv=%v/%s", dv, order), func(t *testing.T) {
				tbl, _ := newTable(t, map[string]string{"bucket": "1", "sequence.field": "v", "sequence.field.sort-order": order,
					"deletion-vectors.enabled": fmt.Sprint(dv)})
				asc := order == "ascending"
				pick := func(a, b string) string {
					if asc {
						return a
					}
					return b
				}
				steps := []struct {
					rows [][]any
					want map[int32]string
				}{
					// One batch: id 1 twice (the write buffer's merge); id 2 with equal values.
					{[][]any{{I, int32(1), "a", int32(5)}, {I, int32(1), "b", int32(3)}, {I, int32(2), "x", int32(1)}, {I, int32(2), "y", int32(1)}},
						map[int32]string{1: pick("a/5", "b/3"), 2: "y/1"}},
					{[][]any{{I, int32(1), "c", int32(4)}, {I, int32(2), "z", int32(1)}}, map[int32]string{1: pick("a/5", "b/3"), 2: "z/1"}},
					{[][]any{{I, int32(1), "n", nil}, {I, int32(3), "n", nil}}, map[int32]string{1: pick("a/5", "b/3"), 2: "z/1", 3: "n/<nil>"}},
					{[][]any{{I, int32(1), "w", int32(9)}, {I, int32(3), "m", int32(-7)}}, map[int32]string{1: pick("w/9", "b/3"), 2: "z/1", 3: "m/-7"}},
					{[][]any{{types.Delete, int32(2), "z", int32(1)}}, map[int32]string{1: pick("w/9", "b/3"), 3: "m/-7"}},
				}
				for i, s := range steps {
					if err := writeRows(t, tbl, s.rows...); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if dv {
						if got := liveRecords(t, tbl); !maps.Equal(got, s.want) {
							t.Fatalf("step %d after the commit: %v, want %v", i, got, s.want)
						}
					}
					if i%2 == 1 {
						continue
					}
					if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
						t.Fatal(err)
					}
					if got := liveRecords(t, tbl); !maps.Equal(got, s.want) {
						t.Fatalf("step %d after a full compaction: %v, want %v", i, got, s.want)
					}
				}
			})
		}
	}
}

// TestRowKindField checks rowkind.field as Java's TableWriteImpl applies it through
// RowKindGenerator: a row's kind is the field's value in any case, whatever kind the caller
// passes, and ignore-delete then drops retractions; a null or unknown value fails the write with
// Java's message, and a missing or non-string field refuses the writer, with nothing written.
func TestRowKindField(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	tbl, root := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "rowkind.field": "content"})
	// The caller's kind is Insert throughout: the field decides.
	rows := [][]any{{I, int32(1), "+I", int32(1)}, {I, int32(2), "+i", int32(2)}, {I, int32(3), "+I", int32(3)}, {I, int32(4), "+I", int32(4)}}
	if err := writeRows(t, tbl, rows...); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(t, tbl, []any{I, int32(1), "-D", nil}, []any{I, int32(2), "-u", nil}, []any{I, int32(3), "+U", int32(30)}); err != nil {
		t.Fatal(err)
	}
	want := map[int32]string{3: "+U/30", 4: "+I/4"}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	before := listFiles(t, root)
	for v, msg := range map[any]string{nil: "Row kind cannot be null.", "x": "Unsupported short string 'x' for row kind."} {
		err := writeRows(t, tbl, []any{I, int32(9), v, int32(9)})
		if err == nil || !contains(err.Error(), msg) {
			t.Errorf("rowkind %v: error %v, want %q", v, err, msg)
		}
	}
	if !slices.Equal(listFiles(t, root), before) {
		t.Error("failed writes changed the files")
	}
	setOptions(t, root, map[string]string{"ignore-delete": "true"})
	if err := writeRows(t, tbl, []any{I, int32(4), "-D", nil}); err != nil {
		t.Fatal(err)
	}
	if got := liveRecords(t, tbl); !maps.Equal(got, want) {
		t.Fatalf("after a delete under ignore-delete: %v, want %v", got, want)
	}
	for field, msg := range map[string]string{"v": "only support string type for rowkind, but v is INT",
		"id":   "only support string type for rowkind, but id is INT", // the schema's first field
		"nope": "Rowkind field: 'nope' can not be found in table schema."} {
		setOptions(t, root, map[string]string{"rowkind.field": field})
		before := listFiles(t, root)
		if _, err := tableops.OpenWriter(ctx, tbl, nil); !errors.Is(err, tableops.ErrUnsupportedTable) || !contains(err.Error(), msg) {
			t.Errorf("rowkind.field = %s: %v, want %q", field, err, msg)
		}
		if !slices.Equal(listFiles(t, root), before) {
			t.Errorf("rowkind.field = %s: files changed", field)
		}
	}
}

// TestRecordLevelExpire checks record-level.expire-time with record-level.time-field (INT
// seconds) as Java's compaction applies them, with and without deletion vectors: compaction
// drops records older than the expiry (an expired update of a live key leaves the older record,
// which is read through the same filter and kept), keeps records whose time is null, rewrites a
// level-0 file whose statistics show an expired record instead of moving it up, and a full
// compaction of a compacted top level rewrites the files holding expired records; a time field
// of another type is Java's error.
func TestRecordLevelExpire(t *testing.T) {
	ctx := context.Background()
	I := types.Insert
	now := int32(time.Now().Unix())
	old, fresh := now-7200, now
	for _, dv := range []bool{false, true} {
		t.Run(fmt.Sprintf("dv=%v", dv), func(t *testing.T) {
			tbl, root := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": fmt.Sprint(dv)})
			if err := writeRows(t, tbl, []any{I, int32(1), "a", fresh}, []any{I, int32(2), "b", old}, []any{I, int32(3), "c", nil}); err != nil {
				t.Fatal(err)
			}
			if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
				t.Fatal(err)
			}
			// Without the option every record stays; then the top level's file has an expired
			// record and a full compaction rewrites it.
			if got := liveRecords(t, tbl); len(got) != 3 {
				t.Fatalf("before the option: %v", got)
			}
			setOptions(t, root, map[string]string{"record-level.expire-time": "1 h", "record-level.time-field": "v"})
			res, err := tableops.Compact(ctx, tbl, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Fatal("the full compaction of a top level with an expired record committed nothing")
			}
			want := map[int32]string{1: fmt.Sprintf("a/%d", fresh), 3: "c/<nil>"}
			if got := liveRecords(t, tbl); !maps.Equal(got, want) {
				t.Fatalf("after the full compaction: %v, want %v", got, want)
			}
			// An expired update of key 1, an expired new key, a fresh new key.
			if err := writeRows(t, tbl, []any{I, int32(1), "x", old}, []any{I, int32(4), "d", old}, []any{I, int32(5), "e", fresh}); err != nil {
				t.Fatal(err)
			}
			res, err = tableops.Compact(ctx, tbl, nil)
			if err != nil {
				t.Fatal(err)
			}
			want[5] = fmt.Sprintf("e/%d", fresh)
			if got := liveRecords(t, tbl); !maps.Equal(got, want) {
				t.Fatalf("after expired writes: %v, want %v", got, want)
			}
			for _, b := range res.Buckets {
				if b.Upgraded > 0 {
					t.Errorf("bucket %d: %d files moved up, though each held an expired record", b.Bucket, b.Upgraded)
				}
			}
		})
	}
	tbl, root := newTable(t, map[string]string{"bucket": "1", "record-level.expire-time": "1 h", "record-level.time-field": "content"})
	before := listFiles(t, root)
	_, werr := tableops.OpenWriter(ctx, tbl, nil)
	_, cerr := tableops.Compact(ctx, tbl, nil)
	for _, err := range []error{werr, cerr} {
		if !errors.Is(err, tableops.ErrUnsupportedTable) || !contains(err.Error(), "The record level time field type should be one of INT, BIGINT, or TIMESTAMP") {
			t.Errorf("a STRING time field: %v", err)
		}
	}
	if !slices.Equal(listFiles(t, root), before) {
		t.Error("a STRING time field: files changed")
	}
}

// TestRowKindFieldFirst: a rowkind.field that is the schema's first field decides each row's
// kind as any other field does.
func TestRowKindFieldFirst(t *testing.T) {
	root := filepath.Join(t.TempDir(), "t")
	opts := map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "rowkind.field": "op"}
	sch := &schema.TableSchema{Version: 3, HighestFieldID: 2, PrimaryKeys: []string{"id"},
		Fields: []types.DataField{types.Field(0, "op", types.String()), types.Field(1, "id", types.Int().AsNotNull()),
			types.Field(2, "content", types.String())},
		Options: opts, OptionOrder: slices.Sorted(maps.Keys(opts))}
	if err := os.MkdirAll(filepath.Join(root, "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "schema", "schema-0"), sch.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := table.Open(fileio.NewLocal(), root)
	// The caller's kind is Insert throughout: the field decides.
	I := types.Insert
	for _, rows := range [][][]any{{{I, "+I", int32(1), "a"}, {I, "+I", int32(2), "b"}}, {{I, "-D", int32(1), "a"}}} {
		if err := writeRowsWith(tbl, nil, nil, rows...); err != nil {
			t.Fatal(err)
		}
	}
	got := mergedRows(t, tbl)
	if len(got) != 1 {
		t.Errorf("live rows %v, want key 2's alone (key 1 deleted by its -D)", got)
	}
}

// TestWriterRefusals: a row of a kind that is none of +I, -U, +U, -D is refused, and so is a row
// with the wrong number of fields; WithIndexNewRows is refused for a writer that runs no
// compaction at commit (WithWriteOnly, or a write-only table) and for a table without a
// primary-key index.
func TestWriterRefusals(t *testing.T) {
	ctx := context.Background()
	tbl, root := newTable(t, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"})
	w, err := tableops.OpenWriter(ctx, tbl, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind types.RowKind
		row  []any
		want string
	}{
		{types.RowKind(4), []any{int32(1), "a", int32(1)}, "row kind 4 is not one of +I, -U, +U, -D"},
		{types.Insert, []any{int32(1), "a"}, "row has 2 fields, the table 3"},
	} {
		if err := w.Write(ctx, c.kind, c.row); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("write of %v %v: %v, want %q", c.kind, c.row, err, c.want)
		}
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithIndexNewRows()); err == nil || !contains(err.Error(), "declares no primary-key index") {
		t.Errorf("WithIndexNewRows on a table without an index: %v", err)
	}
	setOptions(t, root, map[string]string{sortedOption: "content"})
	if _, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithIndexNewRows(), tableops.WithWriteOnly()); err == nil || !contains(err.Error(), "runs no compaction at commit") {
		t.Errorf("WithIndexNewRows with WithWriteOnly: %v", err)
	}
	setOptions(t, root, map[string]string{"write-only": "true"})
	if _, err := tableops.OpenWriter(ctx, tbl, nil, tableops.WithIndexNewRows()); err == nil || !contains(err.Error(), "runs no compaction at commit") {
		t.Errorf("WithIndexNewRows on a write-only table: %v", err)
	}
}
