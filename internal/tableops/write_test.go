package tableops_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/types"
)

// mergedRows reads every live row of the latest snapshot as a full compaction sees it: all
// levels, deletion vectors applied, the latest record of each key, retractions dropped. Keys
// are formatted with %v.
func mergedRows(t *testing.T, tbl *table.Table) map[string][]any {
	t.Helper()
	type rec struct {
		seq  int64
		kind types.RowKind
		row  []any
	}
	best := map[string]rec{}
	forEachRecord(t, tbl, func(b *table.Bucket, _ *meta.DataFileMeta, kv *kvfile.KeyValue) {
		k := fmt.Sprintf("%x/%v", b.Partition, kv.Key)
		if old, ok := best[k]; !ok || kv.Seq > old.seq {
			best[k] = rec{kv.Seq, kv.Kind, kv.Value}
		}
	})
	out := map[string][]any{}
	for k, v := range best {
		if v.kind == types.Insert || v.kind == types.UpdateAfter {
			out[k] = v.row
		}
	}
	return out
}

// forEachRecord calls fn with every record of the latest snapshot's data files that no deletion
// vector deletes, bucket by bucket and file by file.
func forEachRecord(t *testing.T, tbl *table.Table, fn func(b *table.Bucket, f *meta.DataFileMeta, kv *kvfile.KeyValue)) {
	t.Helper()
	ctx := context.Background()
	r, err := restore.NewRestorer(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range latestContents(t, tbl).Buckets {
		rb, err := r.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		dvs, err := rb.ReadDeletionVectors(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rb.DataFiles {
			ext := ""
			if f.ExternalPath != nil {
				ext = *f.ExternalPath
			}
			rd, err := kvfile.Open(ctx, tbl.FileIO, rb.DataPaths.ToPath(f.FileName, ext), f.FileName, layout)
			if err != nil {
				t.Fatal(err)
			}
			for {
				kv, pos, err := rd.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if v := dvs[f.FileName]; v == nil || !v.IsDeleted(pos) {
					fn(b, f, kv)
				}
			}
			rd.Close()
		}
	}
}

func partitionKey(t *testing.T, row []any) string {
	t.Helper()
	pt := types.Row(types.Field(0, "region", types.DataType{Root: types.RootVarChar, Length: types.MaxLength, NotNull: true}),
		types.Field(1, "dt", types.DataType{Root: types.RootDate, NotNull: true}))
	p, err := binrow.NewBinaryRow(pt, row[:2])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x/%v", p.Serialize(), []any{row[2]})
}

// TestWriteAndCompactJavaFullTextTable writes inserts, updates and deletes into a copy of a
// Java-written partitioned full-text table with deletion vectors, then compacts it fully: the
// append is an APPEND snapshot of level-0 files in the buckets Java computes, with sequence
// numbers continuing the buckets'; the compaction leaves every file at the top level, the rows
// of the model, and every archive current.
func TestWriteAndCompactJavaFullTextTable(t *testing.T) {
	eng, _ := engine(t)
	ctx := context.Background()
	root := copyJavaTable(t, "ft-default-partitioned")
	tbl := table.Open(fileio.NewLocal(), root)
	model := mergedRows(t, tbl)
	before, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	beforeContents, err := tbl.Read(ctx, before)
	if err != nil {
		t.Fatal(err)
	}
	maxSeq := map[string]int64{}
	for _, b := range beforeContents.Buckets {
		for _, f := range b.DataFiles {
			k := fmt.Sprintf("%x/%d", b.Partition, b.Bucket)
			maxSeq[k] = max(maxSeq[k], f.MaxSequenceNumber)
		}
	}

	w, err := tableops.OpenWriter(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var existing []string
	for k := range model {
		existing = append(existing, k)
	}
	slices.Sort(existing)
	regions := []string{"eu", "中国", "us"}
	for i := 0; i < 300; i++ {
		var row []any
		kind := types.Insert
		switch {
		case i%7 == 3 && len(existing) > 0:
			old := model[existing[rng.IntN(len(existing))]]
			if old == nil {
				continue
			}
			row = slices.Clone(old)
			kind = types.Delete
		case i%5 == 1 && len(existing) > 0:
			old := model[existing[rng.IntN(len(existing))]]
			if old == nil {
				continue
			}
			row = slices.Clone(old)
			row[3] = fmt.Sprintf("updated text %d alpha", i)
			kind = types.UpdateAfter
		default:
			var text any = fmt.Sprintf("go written row %d beta gamma", i)
			if i%11 == 0 {
				text = nil
			}
			row = []any{regions[i%3], int32(20000 + i%2), int32(100000 + i), text}
		}
		if err := w.Write(ctx, kind, row); err != nil {
			t.Fatal(err)
		}
		k := partitionKey(t, row)
		if kind == types.Delete {
			delete(model, k)
		} else {
			model[k] = row
		}
	}
	// A bad row is refused before anything is buffered.
	if err := w.Write(ctx, types.Insert, []any{"eu", int32(1), nil, "x"}); err == nil {
		t.Fatal("a null primary key was accepted")
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || res.Snapshot.CommitKind != snapshot.CommitAppend || res.Snapshot.ID != before.ID+1 {
		t.Fatalf("append snapshot: %+v", res.Snapshot)
	}
	r, err := restore.NewRestorer(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(r.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Buckets {
		for _, f := range b.NewFiles {
			if f.Level != 0 || f.FileSource == nil || *f.FileSource != meta.FileSourceAppend {
				t.Errorf("%s: level %d source %v", f.FileName, f.Level, f.FileSource)
			}
			if f.MinSequenceNumber <= maxSeq[fmt.Sprintf("%x/%d", b.Partition, b.Bucket)] && maxSeq[fmt.Sprintf("%x/%d", b.Partition, b.Bucket)] > 0 {
				t.Errorf("%s: sequence numbers from %d do not continue the bucket's %d", f.FileName, f.MinSequenceNumber, maxSeq[fmt.Sprintf("%x/%d", b.Partition, b.Bucket)])
			}
			checkFileRows(t, tbl, r, layout, b.Partition, b.Bucket, f)
		}
	}
	if got := mergedRows(t, tbl); !sameRows(got, model) {
		t.Fatalf("after the write: %d rows, model %d", len(got), len(model))
	}

	cres, err := tableops.Compact(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	if cres.Snapshot != nil && cres.Snapshot.CommitKind != snapshot.CommitCompact {
		t.Fatalf("compact snapshot: %+v", cres.Snapshot)
	}
	if cres.Snapshot == nil && res.CompactSnapshot == nil {
		t.Fatal("neither the write's compaction at commit nor the full compaction committed a COMPACT snapshot")
	}
	c := checkAllCurrent(t, tbl, r.FullText.FieldID)
	for _, b := range c.Buckets {
		for _, f := range b.DataFiles {
			if f.Level != 5 {
				t.Errorf("bucket %d: %s at level %d after a full compaction", b.Bucket, f.FileName, f.Level)
			}
		}
		for _, f := range b.IndexFiles {
			if f.IndexType == meta.IndexTypeDeletionVectors && len(f.DVRanges) > 0 {
				for _, rg := range f.DVRanges {
					if slices.ContainsFunc(b.DataFiles, func(d *meta.DataFileMeta) bool {
						return d.FileName == rg.DataFileName && d.IsCompacted() && d.Level == 5 && d.SchemaID == r.Schema.ID
					}) {
						t.Errorf("bucket %d: a rewritten file %s has a deletion vector", b.Bucket, rg.DataFileName)
					}
				}
			}
		}
	}
	if got := mergedRows(t, tbl); !sameRows(got, model) {
		t.Fatalf("after the compaction: %d rows, model %d", len(got), len(model))
	}
	// A second full compaction has nothing to do.
	again, err := tableops.Compact(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	if again.Snapshot != nil {
		t.Errorf("a compacted table was compacted again: %+v", again.Buckets)
	}
	checkNoOrphanFiles(t, tbl, root)
}

func sameRows(a, b map[string][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || fmt.Sprint(v) != fmt.Sprint(w) {
			return false
		}
	}
	return true
}

// checkFileRows reads a written file back: its rows are sorted by key with unique keys, every
// row belongs to the file's bucket, the metadata's counts, key range and sequence range match.
func checkFileRows(t *testing.T, tbl *table.Table, r *restore.Restorer, layout *kvfile.Layout, part []byte, bucket int32, f *meta.DataFileMeta) {
	t.Helper()
	ctx := context.Background()
	spec, err := r.PartitionSpec(part)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := r.Paths.DataFilePathFactory(spec, int(bucket))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := kvfile.Open(ctx, tbl.FileIO, dp.ToPath(f.FileName, ""), f.FileName, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var prev []any
	var n, deletes int64
	minSeq, maxSeq := int64(1<<62), int64(-1)
	for {
		kv, _, err := rd.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && binrow.CompareKeys(prev, kv.Key) >= 0 {
			t.Fatalf("%s: keys not strictly ascending: %v then %v", f.FileName, prev, kv.Key)
		}
		prev = kv.Key
		n++
		if kv.IsRetract() {
			deletes++
		}
		minSeq, maxSeq = min(minSeq, kv.Seq), max(maxSeq, kv.Seq)
		b, err := tableops.BucketOf(r.Schema, kv.Value)
		if err != nil {
			t.Fatal(err)
		}
		if int32(b) != bucket {
			t.Fatalf("%s: row %v hashes to bucket %d, written to %d", f.FileName, kv.Value, b, bucket)
		}
	}
	if n != f.RowCount || deletes != *f.DeleteRowCount || minSeq != f.MinSequenceNumber || maxSeq != f.MaxSequenceNumber {
		t.Fatalf("%s: read %d rows (%d deletes, seq %d..%d), meta %d (%d, %d..%d)", f.FileName, n, deletes, minSeq, maxSeq,
			f.RowCount, *f.DeleteRowCount, f.MinSequenceNumber, f.MaxSequenceNumber)
	}
}
