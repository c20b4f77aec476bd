package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/types"
)

var benchWords = []string{
	"paimon", "lake", "format", "primary", "key", "index", "full", "text", "search",
	"archive", "bucket", "level", "compaction", "snapshot", "manifest", "schema",
	"partition", "deletion", "vector", "row", "column", "parquet", "stream", "merge",
	"tree", "sequence", "number", "value", "kind", "commit", "table", "query",
}

// benchText is a deterministic text of 4..35 words ending in "n<i>" for row i, null for every
// 20th row.
func benchText(i int) ([]byte, bool) {
	if i%20 == 7 {
		return nil, true
	}
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	n := 4 + int(x>>59)
	var buf []byte
	for w := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if w > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, benchWords[x%uint64(len(benchWords))]...)
	}
	return strconv.AppendInt(append(buf, " n"...), int64(i), 10), false
}

// benchTable writes a one-bucket table with one level-1 data file of rows rows (see
// writeBenchFile), a deletion vector deleting every 7th row, and its full-text archive built by
// the native engine, committed as snapshot 1.
func benchTable(b *testing.B, rows int, pageIndex bool, lib *native.Library) *table.Table {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schema"), 0o755); err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(goldenDir(b, "two-levels"), "schema", "schema-0"))
	if err != nil {
		b.Fatal(err)
	}
	withOption := strings.Replace(string(src), `"options" : {`, `"options" : {
    "pk-full-text.index.columns" : "content",`, 1)
	if err := os.WriteFile(filepath.Join(dir, "schema", "schema-0"), []byte(withOption), 0o644); err != nil {
		b.Fatal(err)
	}
	tb := table.Open(fileio.NewLocal(), dir)
	sch, err := tb.Schema(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}

	name := "data-bench-0.parquet"
	dataPath := filepath.Join(dir, "bucket-0", name)
	if err := os.MkdirAll(filepath.Dir(dataPath), 0o755); err != nil {
		b.Fatal(err)
	}
	writeBenchFile(b, dataPath, rows, pageIndex)
	st, err := os.Stat(dataPath)
	if err != nil {
		b.Fatal(err)
	}
	keyType := types.Row(types.Field(0, "id", types.Int()))
	key := func(v int) []byte {
		r, err := binrow.NewBinaryRow(keyType, []any{int32(v)})
		if err != nil {
			b.Fatal(err)
		}
		return r.Serialize()
	}
	zero := int64(0)
	file := meta.DataFileMeta{FileName: name, FileSize: st.Size(), RowCount: int64(rows), MinKey: key(1), MaxKey: key(rows),
		KeyStats: meta.EmptyStats(), ValueStats: meta.EmptyStats(), MaxSequenceNumber: int64(rows - 1), Level: 1,
		ExtraFiles: []string{}, DeleteRowCount: &zero, FileSource: compact()}
	write := func(fileName string, encode func(w *bytes.Buffer) error) int64 {
		var buf bytes.Buffer
		if err := encode(&buf); err != nil {
			b.Fatal(err)
		}
		if err := tb.FileIO.WriteFileAtomic(ctx, tb.ManifestPath(fileName), buf.Bytes()); err != nil {
			b.Fatal(err)
		}
		return int64(buf.Len())
	}
	size := write("manifest-bench-0", func(w *bytes.Buffer) error {
		return manifest.WriteManifestFile(w, []meta.ManifestEntry{{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), TotalBuckets: 1, File: file}}, manifest.WriteOptions{})
	})
	baseSize := write("manifest-list-bench-0", func(w *bytes.Buffer) error {
		return manifest.WriteManifestList(w, []meta.ManifestFileMeta{{FileName: "manifest-bench-0", FileSize: size, NumAddedFiles: 1, PartitionStats: meta.EmptyStats()}}, manifest.WriteOptions{})
	})
	deltaSize := write("manifest-list-bench-1", func(w *bytes.Buffer) error { return manifest.WriteManifestList(w, nil, manifest.WriteOptions{}) })

	deleted := dv.NewBitmap32()
	for i := 0; i < rows; i += 7 {
		if err := deleted.Delete(int64(i)); err != nil {
			b.Fatal(err)
		}
	}
	factory, err := paths.NewTableFactory(dir, sch.Options)
	if err != nil {
		b.Fatal(err)
	}
	ipf, err := factory.IndexPathFactory(nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	dpf, err := factory.DataFilePathFactory(nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	res, err := dv.Write(ctx, tb.FileIO, ipf, []dv.Entry{{DataFile: name, Vector: deleted}})
	if err != nil {
		b.Fatal(err)
	}
	dvFile := meta.IndexFileMeta{IndexType: meta.IndexTypeDeletionVectors, FileName: res.FileName, FileSize: res.FileSize, RowCount: 1}
	for _, r := range res.Ranges {
		dvFile.DVRanges = append(dvFile.DVRanges, meta.DeletionVectorMeta{DataFileName: r.DataFile, Offset: r.Offset, Length: r.Length, Cardinality: r.Cardinality})
	}
	analyzer, err := pkfulltext.ResolveAnalyzerOptions(sch.Options, textColumn)
	if err != nil {
		b.Fatal(err)
	}
	f := &fixture{t: tb}
	builder := &pkfulltext.Builder{
		IndexFile: &pkfulltext.IndexFile{FileIO: tb.FileIO, Paths: ipf, Engine: native.Engine{Lib: lib}},
		Readers:   &pkfulltext.DataFileReaders{FileIO: tb.FileIO, Paths: dpf, FieldID: 1, FieldName: f.fieldName},
		FieldID:   1,
		Options:   analyzer,
	}
	archive, err := builder.Build(ctx, []*meta.DataFileMeta{&file})
	if err != nil {
		b.Fatal(err)
	}
	index := "index-manifest-bench-0"
	write(index, func(w *bytes.Buffer) error {
		return manifest.WriteIndexManifest(w, []meta.IndexManifestEntry{
			{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), IndexFile: dvFile},
			{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), IndexFile: *archive},
		}, manifest.WriteOptions{})
	})
	snap := &snapshot.Snapshot{Version: snapshot.CurrentVersion, ID: 1, BaseManifestList: "manifest-list-bench-0", BaseManifestListSize: &baseSize,
		DeltaManifestList: "manifest-list-bench-1", DeltaManifestListSize: &deltaSize, IndexManifest: &index, CommitUser: "bench",
		CommitKind: snapshot.CommitCompact, TotalRecordCount: int64(rows)}
	if err := tb.Snapshots.Commit(ctx, snap); err != nil {
		b.Fatal(err)
	}
	return tb
}

// BenchmarkSearch measures one search of a table whose single archive covers PKFT_BENCH_ROWS
// rows (default 1,000,000) with every 7th row deleted: planning the snapshot, reading the
// deletion vector, searching the archive with the live-row filter, merging, and reading the key
// and text of each hit from the data file — with the Parquet offset index Paimon's writer adds
// (page-index=true) and without it.
func BenchmarkSearch(b *testing.B) {
	rows := 1_000_000
	if s := os.Getenv("PKFT_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("PKFT_BENCH_ROWS=%q: want a positive integer", s)
		}
		rows = n
	}
	lib := testenv.Native(b)
	ctx := context.Background()
	rare := rows / 2
	for rare%7 == 0 || rare%20 == 7 {
		rare++
	}
	for _, pageIndex := range []bool{true, false} {
		tb := benchTable(b, rows, pageIndex, lib)
		for _, c := range []struct {
			name  string
			query string
			limit int
		}{
			{"common-word/limit=10", "paimon", 10},
			{"common-word/limit=100", "paimon", 100},
			{"common-word/limit=1000", "paimon", 1000},
			{"two-words-and/limit=10", `{"match":{"query":"lake snapshot","operator":"and"}}`, 10},
			{"phrase/limit=10", `{"match_phrase":{"query":"primary key"}}`, 10},
			{"rare-word/limit=10", "n" + strconv.Itoa(rare), 10},
		} {
			b.Run(fmt.Sprintf("page-index=%v/%s", pageIndex, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					resp, err := Search(ctx, tb, Request{Query: c.query, Limit: c.limit}, Options{Engine: native.Engine{Lib: lib}})
					if err != nil {
						b.Fatal(err)
					}
					if len(resp.Results) == 0 {
						b.Fatalf("%s: no results", c.query)
					}
				}
			})
		}
	}
}

// writeBenchFile writes the data file of the benchmark table: id INT NOT NULL (i+1 for row i)
// and content STRING (benchText), the way parquet-java writes Paimon's data files by default —
// dictionary encoding, zstd, 1 MiB pages, and with pageIndex the column and offset indexes
// parquet-java adds — in 250,000-row row groups.
func writeBenchFile(b *testing.B, path string, rows int, pageIndex bool) {
	b.Helper()
	text, err := pqschema.NewPrimitiveNodeLogical("content", parquet.Repetitions.Optional, pqschema.StringLogicalType{}, parquet.Types.ByteArray, -1, 1)
	if err != nil {
		b.Fatal(err)
	}
	root, err := pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, pqschema.FieldList{
		pqschema.NewInt32Node("id", parquet.Repetitions.Required, 0), text}, -1)
	if err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(true),
		parquet.WithDataPageSize(1<<20), parquet.WithPageIndexEnabled(pageIndex))
	pw := file.NewParquetWriter(out, root, file.WithWriterProps(props))
	const rgRows = 250_000
	for start := 0; start < rows; start += rgRows {
		n := min(rgRows, rows-start)
		ids, defs, texts := make([]int32, n), make([]int16, n), make([]parquet.ByteArray, 0, n)
		for j := range n {
			ids[j] = int32(start + j + 1)
			if v, null := benchText(start + j); !null {
				defs[j] = 1
				texts = append(texts, v)
			}
		}
		rg := pw.AppendRowGroup()
		cw, err := rg.NextColumn()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(ids, nil, nil); err != nil {
			b.Fatal(err)
		}
		if err := cw.Close(); err != nil {
			b.Fatal(err)
		}
		if cw, err = rg.NextColumn(); err != nil {
			b.Fatal(err)
		}
		if _, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(texts, defs, nil); err != nil {
			b.Fatal(err)
		}
		if err := cw.Close(); err != nil {
			b.Fatal(err)
		}
		if err := rg.Close(); err != nil {
			b.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTopKByScore merges the rankings of 16 archives of 1,000 hits each to the best 1,000,
// what a broad query at limit 1000 merges on the bench's search table (each ranking in the order
// an archive's is sorted in).
func BenchmarkTopKByScore(b *testing.B) {
	rankings := make([][]Position, 16)
	for a := range rankings {
		for i := range 1000 {
			rankings[a] = append(rankings[a], Position{Bucket: int32(a), DataFile: fmt.Sprintf("data-%d.parquet", a), RowPosition: int64(i * 7), Score: float32((i*31+a*17)%997) / 10})
		}
		slices.SortFunc(rankings[a], func(x, y Position) int { return localOrder(&x, &y) })
	}
	b.ReportAllocs()
	for b.Loop() {
		top, err := TopKByScore(rankings, 1000)
		if err != nil || len(top) != 1000 {
			b.Fatalf("%d positions: %v", len(top), err)
		}
	}
}
