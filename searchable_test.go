package pkft_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// TestWrittenRowsSearchableAfterRewrite checks what the README and docs/library.md say of
// written rows: they are searched once a compaction has rewritten their files. A first write
// into an empty deletion-vector table is moved up unchanged by the compaction at commit and left
// as it is by a full compaction, so no archive covers it and Maintain has nothing to build;
// with compaction.force-rewrite-all-files every compaction rewrites and builds archives, and the
// rows are found from the commit on.
func TestWrittenRowsSearchableAfterRewrite(t *testing.T) {
	testenv.Native(t)
	for _, tc := range []struct {
		name      string
		force     bool
		wantHits  int
		wantBuilt int
		// indexedAtCommit: the compaction at commit builds archives.
		indexedAtCommit bool
	}{
		{name: "moved-up", force: false, wantHits: 0, wantBuilt: 0, indexedAtCommit: false},
		{name: "force-rewrite-all-files", force: true, wantHits: 1, wantBuilt: 0, indexedAtCommit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			sch := arrow.NewSchema([]arrow.Field{
				{Name: "id", Type: arrow.PrimitiveTypes.Int64},
				{Name: "content", Type: arrow.BinaryTypes.String, Nullable: true},
			}, nil)
			def, err := pkft.ArrowDefinition(sch)
			if err != nil {
				t.Fatal(err)
			}
			def.PrimaryKeys = []string{"id"}
			def.Options = map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}
			if tc.force {
				def.Options["compaction.force-rewrite-all-files"] = "true"
			}
			tbl, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "docs"), def)
			if err != nil {
				t.Fatal(err)
			}
			b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
			defer b.Release()
			b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
			b.Field(1).(*array.StringBuilder).AppendValues([]string{"a lake", "a striped zebra", "a river"}, nil)
			rec := b.NewRecordBatch()
			defer rec.Release()
			w, err := tbl.NewWriter(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRecord(ctx, rec); err != nil {
				t.Fatal(err)
			}
			wr, err := w.Commit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if wr.CompactSnapshotID == 0 {
				t.Fatalf("the commit ran no compaction: %+v", wr)
			}
			if got := wr.ArchivesBuilt > 0; got != tc.indexedAtCommit {
				t.Errorf("the commit built %d archives; want archives built: %v", wr.ArchivesBuilt, tc.indexedAtCommit)
			}
			search := func(when string) {
				t.Helper()
				res, err := tbl.Search(ctx, "zebra")
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Hits) != tc.wantHits {
					t.Errorf("%s: %d hits, want %d: %+v", when, len(res.Hits), tc.wantHits, res.Hits)
				}
			}
			search("after the commit")
			if _, err := tbl.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			search("after a full compaction")
			mr, err := tbl.Maintain(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if built, _, _ := mr.Totals(); built != tc.wantBuilt {
				t.Errorf("maintenance built %d archives, want %d", built, tc.wantBuilt)
			}
			search("after maintenance")

			// The rows are read all the same: the batch read does not depend on archives.
			rr, err := tbl.Scan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			rows := 0
			for rr.Next() {
				rows += int(rr.RecordBatch().NumRows())
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if rows != 3 {
				t.Errorf("scan read %d rows, want 3", rows)
			}
		})
	}
}
