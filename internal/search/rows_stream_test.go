package search

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/pqvalue"
	"github.com/paimon-pkft/pkft/internal/types"
)

// streamedText is row i's text of the streamed-pages file: about 200 bytes, null every 9th row.
func streamedText(i int) (string, bool) {
	if i%9 == 4 {
		return "", true
	}
	return fmt.Sprintf("row %d %s", i, strings.Repeat(string(rune('a'+i%26)), 180+i%17)), false
}

// streamedPagesFile writes n rows (id INT32, content STRING) zstd-compressed and PLAIN-encoded in
// data pages of about 2 MiB, with the page index: pages the row reader decompresses only as far
// as the rows it reads.
func streamedPagesFile(t testing.TB, n int) []byte {
	t.Helper()
	return pagesFile(t, n, 2<<20, streamedText)
}

// pagesFile writes n rows (id INT32, content STRING, text(i) or null) zstd-compressed and
// PLAIN-encoded in data pages of about pageSize bytes, with the page index.
func pagesFile(t testing.TB, n int, pageSize int64, text func(int) (string, bool)) []byte {
	t.Helper()
	content, err := pqschema.NewPrimitiveNodeLogical("content", parquet.Repetitions.Optional, pqschema.StringLogicalType{}, parquet.Types.ByteArray, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	root, err := pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required,
		pqschema.FieldList{pqschema.NewInt32Node("id", parquet.Repetitions.Required, 0), content}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(pageSize), parquet.WithPageIndexEnabled(true),
		parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Zstd))
	pw := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	rg := pw.AppendRowGroup()
	ids, texts, defs := make([]int32, n), []parquet.ByteArray{}, make([]int16, n)
	for i := range n {
		ids[i] = int32(i)
		if v, null := text(i); !null {
			defs[i] = 1
			texts = append(texts, parquet.ByteArray(v))
		}
	}
	writeRowGroup(t, rg,
		func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(ids, nil, nil)
			return err
		},
		func(cw file.ColumnChunkWriter) error {
			_, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(texts, defs, nil)
			return err
		})
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// textPages opens a file of pagesFile's with the row reader and returns it (to close) and the
// locations of its text column's pages (at least 3) from the offset index.
func textPages(t *testing.T, data []byte) (*file.Reader, []*metadata.PageLocation) {
	t.Helper()
	pf, err := pqvalue.OpenRowReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	oi, err := pf.GetPageIndexReader().RowGroup(0)
	if err != nil {
		t.Fatal(err)
	}
	offsets, err := oi.GetOffsetIndex(1)
	if err != nil {
		t.Fatal(err)
	}
	locs := offsets.GetPageLocations()
	if len(locs) < 3 {
		t.Fatalf("%d text pages, want at least 3", len(locs))
	}
	return pf, locs
}

// checkTextRows checks that rows read at positions of a pagesFile file are the rows written:
// the id, and text's text or null.
func checkTextRows(t *testing.T, rows [][]any, positions []int64, text func(int) (string, bool)) {
	t.Helper()
	for k, pos := range positions {
		var want any
		if v, null := text(int(pos)); !null {
			want = v
		}
		if rows[k][0] != int32(pos) || fmt.Sprint(rows[k][1]) != fmt.Sprint(want) {
			t.Fatalf("row %d = %.60v, want [%d %.60v]", pos, rows[k], pos, want)
		}
	}
}

// writeRowGroup writes the row group's columns in order, each by one of writes, and closes it.
func writeRowGroup(t testing.TB, rg file.SerialRowGroupWriter, writes ...func(file.ColumnChunkWriter) error) {
	t.Helper()
	for _, write := range writes {
		cw, err := rg.NextColumn()
		if err != nil {
			t.Fatal(err)
		}
		if err := write(cw); err != nil {
			t.Fatal(err)
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadRowsFromStreamedPages: the text pages of over 1 MiB are streamed by the row reader (a
// page's Data holds only its levels), and the rows read from them are the rows written: the first
// and last row of every page, rows next to each other, nulls, a row skipped to within a page, and
// the file's last row.
func TestReadRowsFromStreamedPages(t *testing.T) {
	const n = 40_000
	data := streamedPagesFile(t, n)
	pf, locs := textPages(t, data)
	pages, err := pf.RowGroup(0).GetColumnPageReader(1)
	if err != nil {
		t.Fatal(err)
	}
	streamed := 0
	for pages.Next() {
		if dp, ok := pages.Page().(file.DataPage); ok && len(dp.Data()) < int(dp.UncompressedSize())/2 {
			streamed++
		}
	}
	if err := pages.Err(); err != nil {
		t.Fatal(err)
	}
	if streamed < len(locs)-1 {
		t.Fatalf("%d of %d text pages streamed, want every page but perhaps the last (under 1 MiB)", streamed, len(locs))
	}
	pf.Close()

	var positions []int64
	for p, loc := range locs {
		positions = append(positions, loc.FirstRowIndex, loc.FirstRowIndex+1)
		if p+1 < len(locs) {
			next := locs[p+1].FirstRowIndex
			positions = append(positions, (loc.FirstRowIndex+next)/2, next-1)
		}
	}
	positions = append(positions, n-1)
	slices.Sort(positions)
	positions = slices.Compact(positions)
	rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet",
		[]column{{name: "id", typ: types.Int()}, {name: "content", typ: types.String()}}, positions)
	if err != nil {
		t.Fatal(err)
	}
	checkTextRows(t, rows, positions, streamedText)
}

// BenchmarkReadRows reads the key and text of 60 rows spread over a 250,000-row data file written
// as parquet-java writes Paimon's (dictionary, zstd, 1 MiB pages, page index; writeBenchFile), the
// share of a broad query's 1,000 hits one of 16 files holds, with a search's buffer pool: with the
// row reader, which streams the text pages that fell back to PLAIN, and with the whole-page
// reader.
func BenchmarkReadRows(b *testing.B) {
	const rows = 250_000
	path := filepath.Join(b.TempDir(), "data-bench.parquet")
	writeBenchFile(b, path, rows, true)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var positions []int64
	for i := range 60 {
		positions = append(positions, int64(i)*rows/60+int64(i*7919%(rows/60)))
	}
	cols := []column{{name: "id", typ: types.Int()}, {name: "content", typ: types.String()}}
	for _, m := range []struct {
		name string
		open func(r io.ReaderAt, size int64, mem memory.Allocator) (*file.Reader, error)
	}{
		{"row-reader", pqvalue.OpenRowReader},
		{"whole-pages", pqvalue.OpenReaderWith},
	} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			out := make([][]any, len(positions))
			pool := &pqvalue.BufferPool{} // a search's, as search.go keeps one for its reads
			for b.Loop() {
				for i := range out {
					out[i] = make([]any, len(cols))
				}
				err := readParquetRows(context.Background(), pool, bytes.NewReader(data), int64(len(data)), "data-bench.parquet", cols, positions, out,
					func(r io.ReaderAt) (*file.Reader, error) { return m.open(r, int64(len(data)), pool) })
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// noisyText is row i's text of pages that compress badly: about 300 pseudo-random letters, null
// every 11th row.
func noisyText(i int) (string, bool) {
	if i%11 == 3 {
		return "", true
	}
	b := make([]byte, 290+i%23)
	x := uint32(i)*2654435761 + 1
	for k := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[k] = 'a' + byte(x%26)
	}
	return fmt.Sprintf("row %d %s", i, b), false
}

// TestReadRowsFromLargeCompressedPages reads rows from text pages whose compressed size is beyond
// the page windows' read-ahead chunk (windowChunk), streamed (over 1 MiB) and whole (under it):
// the first, last and middle rows of every page, a page's last row followed by the next page's
// first, and the file's last row are the rows written.
func TestReadRowsFromLargeCompressedPages(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pageSize int64
	}{{"streamed", 3 << 20}, {"whole", 900 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 30_000
			data := pagesFile(t, n, tc.pageSize, noisyText)
			pf, locs := textPages(t, data)
			pf.Close()
			large := 0
			var positions []int64
			for p, loc := range locs {
				if loc.CompressedPageSize > windowChunk {
					large++
				}
				positions = append(positions, loc.FirstRowIndex)
				if p+1 < len(locs) {
					next := locs[p+1].FirstRowIndex
					positions = append(positions, (loc.FirstRowIndex+next)/2, next-1)
				}
			}
			if large < len(locs)-1 {
				t.Fatalf("%d of %d text pages over %d compressed bytes, want every page but perhaps the last", large, len(locs), windowChunk)
			}
			positions = append(positions, n-1)
			slices.Sort(positions)
			positions = slices.Compact(positions)
			for _, pool := range []*pqvalue.BufferPool{nil, {}} {
				out, err := readRowsIn(context.Background(), pool, bytes.NewReader(data), int64(len(data)), "data-x.parquet",
					[]column{{name: "id", typ: types.Int()}, {name: "content", typ: types.String()}}, positions)
				if err != nil {
					t.Fatal(err)
				}
				checkTextRows(t, out, positions, noisyText)
			}
		})
	}
}
