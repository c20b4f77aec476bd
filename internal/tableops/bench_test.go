package tableops_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
	"github.com/paimon-pkft/pkft/internal/types"
)

// syntheticTable writes a one-bucket primary-key full-text table (id INT NOT NULL, content
// STRING, payload INT) whose latest snapshot holds files compacted files of rows rows in total
// at level 5, written as Paimon writes Parquet data files (zstd, dictionary), with corpus texts
// and no archive yet.
func syntheticTable(tb testing.TB, root string, rows, files int) {
	tb.Helper()
	ctx := context.Background()
	sch := &schema.TableSchema{
		Version: 3,
		Fields: []types.DataField{
			types.Field(0, "id", types.Int().AsNotNull()),
			types.Field(1, "content", types.String()),
			types.Field(2, "payload", types.Int()),
		},
		HighestFieldID: 2,
		PrimaryKeys:    []string{"id"},
		Options: map[string]string{
			"bucket": "1", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		},
		TimeMillis: time.Now().UnixMilli(),
	}
	if err := os.MkdirAll(filepath.Join(root, "schema"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "schema", "schema-0"), sch.Marshal(), 0o644); err != nil {
		tb.Fatal(err)
	}
	factory, err := paths.NewTableFactory(root, sch.Options)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := factory.DataFilePathFactory(nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(data.Parent(), 0o755); err != nil {
		tb.Fatal(err)
	}
	keyType := types.Row(types.Field(0, "id", types.Int().AsNotNull()))
	var entries []meta.ManifestEntry
	var first int64
	for i := range files {
		n := rows / files
		if i == files-1 {
			n = rows - (files-1)*(rows/files)
		}
		texts := corpus.Generate(uint64(i+1), n)
		path := data.NewPath()
		st, err := paimonparquet.WriteFile(path, n, func(j int) ([]byte, bool) {
			if texts[j].Null {
				return nil, true
			}
			return []byte(texts[j].Text), false
		}, paimonparquet.Options{Compression: compress.Codecs.Zstd, Dictionary: true, RowGroupRows: 1_000_000, FirstRow: first})
		if err != nil {
			tb.Fatal(err)
		}
		minKey, err := binrow.NewBinaryRow(keyType, []any{int32(first + 1)})
		if err != nil {
			tb.Fatal(err)
		}
		maxKey, err := binrow.NewBinaryRow(keyType, []any{int32(first + int64(n))})
		if err != nil {
			tb.Fatal(err)
		}
		src := meta.FileSourceCompact
		entries = append(entries, meta.ManifestEntry{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), Bucket: 0, TotalBuckets: 1,
			File: meta.DataFileMeta{
				FileName: paths.Name(path), FileSize: st.FileBytes, RowCount: int64(n),
				MinKey: minKey.Serialize(), MaxKey: maxKey.Serialize(), KeyStats: meta.EmptyStats(), ValueStats: meta.EmptyStats(),
				MinSequenceNumber: first, MaxSequenceNumber: first + int64(n) - 1, Level: 5, ExtraFiles: []string{},
				DeleteRowCount: new(int64), FileSource: &src,
			}})
		first += int64(n)
	}
	write := func(newPath func() string, enc func(w *bytes.Buffer) error) (string, int64) {
		var buf bytes.Buffer
		if err := enc(&buf); err != nil {
			tb.Fatal(err)
		}
		p := newPath()
		if err := fileio.NewLocal().WriteFileAtomic(ctx, p, buf.Bytes()); err != nil {
			tb.Fatal(err)
		}
		return paths.Name(p), int64(buf.Len())
	}
	mname, msize := write(factory.NewManifestFile, func(w *bytes.Buffer) error { return manifest.WriteManifestFile(w, entries, manifest.WriteOptions{}) })
	zero, five := int32(0), int32(5)
	list := []meta.ManifestFileMeta{{FileName: mname, FileSize: msize, NumAddedFiles: int64(len(entries)), PartitionStats: meta.SimpleStats{
		MinValues: meta.EmptyBinaryRow(), MaxValues: meta.EmptyBinaryRow(), NullCounts: []*int64{}}, MinBucket: &zero, MaxBucket: &zero, MinLevel: &five, MaxLevel: &five}}
	base, baseSize := write(factory.NewManifestList, func(w *bytes.Buffer) error { return manifest.WriteManifestList(w, nil, manifest.WriteOptions{}) })
	delta, deltaSize := write(factory.NewManifestList, func(w *bytes.Buffer) error { return manifest.WriteManifestList(w, list, manifest.WriteOptions{}) })
	var next int64
	snap := &snapshot.Snapshot{Version: snapshot.CurrentVersion, ID: 1, BaseManifestList: base, BaseManifestListSize: &baseSize,
		DeltaManifestList: delta, DeltaManifestListSize: &deltaSize, CommitUser: "synthetic", CommitIdentifier: tableops.BatchCommitIdentifier,
		CommitKind: snapshot.CommitCompact, TimeMillis: time.Now().UnixMilli(), TotalRecordCount: int64(rows), DeltaRecordCount: int64(rows), NextRowID: &next}
	if err := table.Open(fileio.NewLocal(), root).Snapshots.Commit(ctx, snap); err != nil {
		tb.Fatal(err)
	}
}

func TestMaintainSyntheticTable(t *testing.T) {
	eng, lib := engine(t)
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "synthetic")
	syntheticTable(t, root, 30_000, 3)
	tbl := table.Open(fileio.NewLocal(), root)
	res, err := tableops.Maintain(ctx, tbl, eng)
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Buckets) != 1 || len(res.Buckets[0].Built) != 1 || res.Buckets[0].Built[0].RowCount != 30_000 {
		t.Fatalf("result %+v", res)
	}
	c := checkAllCurrent(t, tbl, 1)
	searchEveryArchive(t, tbl, lib, c)
}

// BenchmarkMaintain maintains a one-bucket table of PKFT_BENCH_ROWS rows (default 1,000,000) in
// three compacted Parquet files without an archive: restore, one archive build through the
// native engine, and the commit. Compare with pkfulltext's BenchmarkBuildLevel, which builds the
// same kind of archive without the table around it.
func BenchmarkMaintain(b *testing.B) {
	eng, _ := engine(b)
	rows := 1_000_000
	if s := os.Getenv("PKFT_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 3 {
			b.Fatalf("PKFT_BENCH_ROWS=%q: want an integer of at least 3", s)
		}
		rows = n
	}
	ctx := context.Background()
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root := filepath.Join(dir, fmt.Sprint(i))
		syntheticTable(b, root, rows, 3)
		tbl := table.Open(fileio.NewLocal(), root)
		b.StartTimer()
		res, err := tableops.Maintain(ctx, tbl, eng)
		if err != nil {
			b.Fatal(err)
		}
		if res.Snapshot == nil {
			b.Fatal("nothing committed")
		}
		b.StopTimer()
		os.RemoveAll(root)
		b.StartTimer()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
