package pkft_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// sortedColumns are the columns of the sorted-family tests' tables.
var sortedColumns = []pkft.ColumnDefinition{{Name: "id", Type: "INT"}, {Name: "price", Type: "BIGINT"}, {Name: "tag", Type: "STRING"}}

// createSortedTable creates a table of sortedColumns keyed by id with deletion vectors, the
// given bucket count and extra options; no full-text index (no engine needed).
func createSortedTable(t *testing.T, name, buckets string, extra map[string]string) (*pkft.Table, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "db.db", name)
	opts := map[string]string{"bucket": buckets, "deletion-vectors.enabled": "true"}
	maps.Copy(opts, extra)
	tbl, err := pkft.Create(context.Background(), root, pkft.TableDefinition{Columns: sortedColumns, PrimaryKeys: []string{"id"}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return tbl, root
}

// bothSortedIndexes indexes price with a btree and tag with a bitmap.
var bothSortedIndexes = map[string]string{"pk-btree.index.columns": "price", "pk-bitmap.index.columns": "tag"}

// TestWriteCompactSortedIndexes writes rounds of inserts, updates and deletes into a table with
// a btree and a bitmap index and checks, after every commit (which compacts level 0 as Java's
// writer does) and after a full compaction: every sorted index of every bucket covers every
// level above 0 holding compaction output with exactly one payload and rejects nothing, and each payload lists, for every
// value, exactly the row positions (in the concatenation of the level's files by name) holding
// it.
func TestWriteCompactSortedIndexes(t *testing.T) {
	ctx := context.Background()
	tbl, root := createSortedTable(t, "sorted", "2", bothSortedIndexes)
	tags := []string{"red", "green", "blue"}
	for round := range 4 {
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			id := int32(round*13 + i)
			var tag any = tags[(i+round)%len(tags)]
			if i%7 == 0 {
				tag = nil
			}
			kind := pkft.Insert
			if round > 0 && i%5 == 0 {
				kind = pkft.Delete
			}
			if err := w.Write(ctx, kind, []any{id, int64((i * 31) % 17), tag}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		checkSortedCurrent(t, tbl, root, fmt.Sprintf("round %d", round), false)
	}
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	checkSortedCurrent(t, tbl, root, "full compaction", true)
}

// checkSortedCurrent checks every sorted index of every bucket is current; final requires a
// payload somewhere (files a commit only moved up keep their append source and feed no index,
// as in Java).
func checkSortedCurrent(t *testing.T, tbl *pkft.Table, root, when string, final bool) {
	t.Helper()
	ctx := context.Background()
	st, err := tbl.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	payloads := 0
	for _, b := range st.Buckets {
		if len(b.Sorted) != 2 {
			t.Fatalf("%s: bucket %d has %d sorted states, want 2", when, b.Bucket, len(b.Sorted))
		}
		for _, s := range b.Sorted {
			if s.Error != "" || len(s.Uncovered) > 0 || len(s.Rejected) > 0 || s.Plan != nil {
				t.Errorf("%s: bucket %d %s index on %s is not current: %+v", when, b.Bucket, s.IndexType, s.Column, s)
			}
			for _, g := range s.Groups {
				payloads += len(g.Payloads)
			}
		}
	}
	if payloads == 0 && final {
		t.Fatalf("%s: no sorted payload in the table", when)
	}
	checked := checkPayloadContents(t, root, when)
	if final && (checked[btree.Identifier] == 0 || checked[bitmap.Identifier] == 0) {
		t.Fatalf("%s: payloads checked by type %v, want both types", when, checked)
	}
}

// checkPayloadContents decodes every sorted payload of the latest snapshot and compares, value
// by value, the row ids it lists with the values the level's data files hold. It returns how
// many payloads of each type it checked.
func checkPayloadContents(t *testing.T, root, when string) map[string]int {
	t.Helper()
	ctx := context.Background()
	tt := table.Open(fileio.NewLocal(), root)
	r, err := restore.NewRestorer(ctx, tt)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := tt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	contents, err := tt.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	for _, b := range contents.Buckets {
		rb, err := r.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rb.SourcePayloads {
			if p.IndexType != btree.Identifier && p.IndexType != bitmap.Identifier {
				continue
			}
			def := r.Sorted[slices.IndexFunc(r.Sorted, func(d definition.Resolved) bool { return d.FieldID == p.GlobalIndex.IndexFieldID })]
			sm, err := pkindex.SourceMetaFromIndexFile(p.FileName, p.GlobalIndex.SourceMeta)
			if err != nil {
				t.Fatal(err)
			}
			// The expected value of every row id: the level's files in source-meta order.
			var values []any
			col := slices.IndexFunc(layout.Schema.Fields, func(f types.DataField) bool { return f.ID == int(def.FieldID) })
			for _, sf := range sm.SourceFiles() {
				f := rb.DataFiles[slices.IndexFunc(rb.DataFiles, func(d *meta.DataFileMeta) bool { return d.FileName == sf.FileName() })]
				rd, err := kvfile.Open(ctx, tt.FileIO, rb.DataPaths.ToPath(f.FileName, ""), f.FileName, layout)
				if err != nil {
					t.Fatal(err)
				}
				for {
					kv, _, err := rd.Next(ctx)
					if err != nil {
						break
					}
					values = append(values, kv.Value[col])
				}
				rd.Close()
			}
			if int64(len(values)) != p.RowCount {
				t.Fatalf("%s: payload %s covers %d rows, files hold %d", when, p.FileName, p.RowCount, len(values))
			}
			data, err := os.ReadFile(rb.IndexPaths.ToPath(p.FileName))
			if err != nil {
				t.Fatal(err)
			}
			ser, err := sortkey.New(def.Field.Type)
			if err != nil {
				t.Fatal(err)
			}
			var eval func(pred.Predicate) ([]uint64, error)
			switch p.IndexType {
			case btree.Identifier:
				fm, err := filemeta.Decode(p.GlobalIndex.IndexMeta)
				if err != nil {
					t.Fatal(err)
				}
				rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, fm)
				if err != nil {
					t.Fatal(err)
				}
				eval = func(q pred.Predicate) ([]uint64, error) { bm, err := rd.Evaluate(q); return bm.ToArray(), err }
			default:
				rd, err := bitmap.Open(bytes.NewReader(data), int64(len(data)), ser)
				if err != nil {
					t.Fatal(err)
				}
				eval = func(q pred.Predicate) ([]uint64, error) { bm, err := rd.Evaluate(q); return bm.ToArray(), err }
			}
			checked[p.IndexType]++
			want := map[string][]uint64{}
			distinct := map[string]any{}
			for i, v := range values {
				k := fmt.Sprint(v)
				want[k] = append(want[k], uint64(i))
				distinct[k] = v
			}
			for k, v := range distinct {
				q := pred.Predicate{Op: pred.Equal, Literals: []any{v}}
				if v == nil {
					q = pred.Predicate{Op: pred.IsNull}
				}
				got, err := eval(q)
				if err != nil {
					t.Fatalf("%s: %s %v: %v", when, p.FileName, q, err)
				}
				if !slices.Equal(got, want[k]) {
					t.Errorf("%s: %s payload %s value %s: rows %v, want %v", when, p.IndexType, p.FileName, k, got, want[k])
				}
			}
		}
	}
	return checked
}

// TestMaintainBuildsSortedIndexAddedLater writes and compacts a table without sorted indexes,
// then adds a btree and a bitmap column to its options (a new schema, as ALTER TABLE SET does)
// and checks Maintain builds a current payload for every level, commits them in one APPEND
// snapshot, and that a second Maintain finds nothing to do.
func TestMaintainBuildsSortedIndexAddedLater(t *testing.T) {
	ctx := context.Background()
	tbl, root := createSortedTable(t, "later", "1", nil)
	for round := range 3 {
		w, err := tbl.NewWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			if err := w.Write(ctx, pkft.Insert, []any{int32(i + round*10), int64(i % 4), fmt.Sprint("t", i%3)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	tt := table.Open(fileio.NewLocal(), root)
	s, err := tt.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = maps.Clone(s.Options)
	next.Options["pk-btree.index.columns"] = "price"
	next.Options["pk-bitmap.index.columns"] = "tag"
	next.OptionOrder = append(slices.Clone(s.OptionOrder), "pk-btree.index.columns", "pk-bitmap.index.columns")
	if err := os.WriteFile(filepath.Join(root, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if tbl, err = pkft.Open(ctx, root); err != nil {
		t.Fatal(err)
	}
	res, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID == 0 || len(res.Buckets) != 1 || len(res.Buckets[0].Built) != 2 {
		t.Fatalf("maintain result %+v", res)
	}
	checkSortedCurrent(t, tbl, root, "maintain", true)
	again, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.SnapshotID != 0 {
		t.Errorf("second maintain committed snapshot %d: %+v", again.SnapshotID, again)
	}
}

// sortedPayloads returns the sorted payloads of the table's latest snapshot with their source
// file names.
func sortedPayloads(t *testing.T, root string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	tt := table.Open(fileio.NewLocal(), root)
	latest, err := tt.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	contents, err := tt.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, b := range contents.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType != btree.Identifier && f.IndexType != bitmap.Identifier {
				continue
			}
			sm, err := pkindex.SourceMetaFromIndexFile(f.FileName, f.GlobalIndex.SourceMeta)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sm.SourceFiles() {
				out[f.FileName] = append(out[f.FileName], s.FileName())
			}
		}
	}
	return out
}

// Java PrimaryKeySortedIndexMaintenanceTest#testBuildRestoreAndReplaceSourceGroups: two
// write-only commits leave two level-0 files; a compaction builds complete payloads of both
// sorted definitions; another write and compaction replace them with payloads over new sources
// only; a restored maintainer then has nothing left to build.
func TestSortedBuildRestoreAndReplaceSourceGroups(t *testing.T) {
	ctx := context.Background()
	tbl, root := createSortedTable(t, "groups", "1", bothSortedIndexes)
	write := func(rows ...[]any) {
		t.Helper()
		w, err := tbl.NewWriter(ctx, pkft.WithWriteOnly())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Write(ctx, pkft.Insert, r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write([]any{int32(3), int64(30), "c"}, []any{int32(1), int64(10), "a"}, []any{int32(0), nil, nil})
	write([]any{int32(2), int64(20), "b"}, []any{int32(4), int64(40), "d"})
	if got := sortedPayloads(t, root); len(got) != 0 {
		t.Fatalf("payloads before any compaction: %v", got)
	}
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	first := sortedPayloads(t, root)
	checkSortedCurrent(t, tbl, root, "first compaction", true)
	firstSources := map[string]bool{}
	for _, srcs := range first {
		for _, s := range srcs {
			firstSources[s] = true
		}
	}
	if len(first) != 2 || len(firstSources) == 0 {
		t.Fatalf("payloads after the first compaction: %v", first)
	}
	write([]any{int32(5), int64(50), "e"})
	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	second := sortedPayloads(t, root)
	checkSortedCurrent(t, tbl, root, "second compaction", true)
	if len(second) != 2 {
		t.Fatalf("payloads after the second compaction: %v", second)
	}
	for name, srcs := range second {
		if _, ok := first[name]; ok {
			t.Errorf("payload %s survived the replacement", name)
		}
		for _, s := range srcs {
			if firstSources[s] {
				t.Errorf("payload %s still lists the replaced source %s", name, s)
			}
		}
	}
	res, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotID != 0 {
		t.Errorf("a restored maintainer still had work: %+v", res)
	}
}
