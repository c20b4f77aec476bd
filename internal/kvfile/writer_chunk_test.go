package kvfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// chunkTable is a table of a key, a nullable text and a double, with one bucket.
func chunkTable(t *testing.T) (*Layout, *paths.DataFilePathFactory, string) {
	t.Helper()
	key := types.Int()
	key.NotNull = true
	s := &schema.TableSchema{Version: 3, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"},
		Fields: []types.DataField{types.Field(0, "k", key), types.Field(1, "txt", types.String()), types.Field(2, "x", types.Double())}}
	layout, err := NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	pf, err := paths.NewTableFactory(root, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := pf.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return layout, dp, root
}

func chunkRecord(i int) *KeyValue {
	var txt any = fmt.Sprintf("row %d of the chunked column, %d", i, i*7919%1000)
	if i%11 == 3 {
		txt = nil
	}
	return &KeyValue{Key: []any{int32(i)}, Seq: int64(i), Kind: types.Insert, Value: []any{int32(i), txt, float64(i) / 3}}
}

// A column handed to the Parquet writer in chunks of columnChunkRows rows (so that a cancelled
// context stops a row group between two chunks) is the same bytes as the column handed over at
// once.
func TestChunkedColumnsSameBytes(t *testing.T) {
	ctx := context.Background()
	n := 3*columnChunkRows + 1234
	write := func(chunkRows int) []byte {
		layout, dp, _ := chunkTable(t)
		w, err := NewRollingWriter(fileio.NewLocal(), layout, dp, WriterOptions{Level: 5, Source: meta.FileSourceCompact})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := w.Write(ctx, chunkRecord(i)); err != nil {
				t.Fatal(err)
			}
			w.cur.chunkRows = chunkRows
		}
		files, err := w.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 {
			t.Fatalf("%d files, want 1", len(files))
		}
		b, err := os.ReadFile(dp.ToPath(files[0].FileName, ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	chunked, whole := write(columnChunkRows), write(math.MaxInt)
	if d := parquetDifference(chunked, whole); d != "" {
		t.Fatalf("the file written in chunks of %d rows differs from the file written at once: %s", columnChunkRows, d)
	}
}

// parquetDifference says how two Parquet files differ, or "" when they hold the same bytes up to
// the footer and the same footer. The Parquet writer lists a column chunk's page encoding stats
// (and encodings) in map order, so two writes of the same rows may order those lists differently:
// they are compared as sets.
func parquetDifference(a, b []byte) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d bytes against %d", len(a), len(b))
	}
	footerStart := func(f []byte) int {
		return len(f) - 8 - int(binary.LittleEndian.Uint32(f[len(f)-8:]))
	}
	fa, fb := footerStart(a), footerStart(b)
	if fa != fb {
		return fmt.Sprintf("footer at %d against %d", fa, fb)
	}
	if i := firstDifference(a[:fa], b[:fb]); i >= 0 {
		return fmt.Sprintf("byte %d of the pages differs", i)
	}
	describe := func(f []byte) (string, error) {
		r, err := file.NewParquetReader(bytes.NewReader(f))
		if err != nil {
			return "", err
		}
		defer r.Close()
		md := r.MetaData()
		var sb strings.Builder
		fmt.Fprintf(&sb, "rows=%d kv=%v\n", md.NumRows, md.KeyValueMetadata())
		for g := range md.NumRowGroups() {
			rg := md.RowGroup(g)
			for c := range rg.NumColumns() {
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					return "", err
				}
				encs := slices.Clone(cc.Encodings())
				slices.Sort(encs)
				var stats []string
				for _, s := range cc.EncodingStats() {
					stats = append(stats, fmt.Sprintf("%v/%v", s.PageType, s.Encoding))
				}
				sort.Strings(stats)
				st, err := cc.StatsSet()
				if err != nil {
					return "", err
				}
				var enc []byte
				if st {
					es, err := cc.Statistics()
					if err != nil {
						return "", err
					}
					if es != nil {
						e, err := es.Encode()
						if err != nil {
							return "", err
						}
						enc = append(append(enc, e.Min...), e.Max...)
						enc = fmt.Appendf(enc, "/%d", e.NullCount)
					}
				}
				fmt.Fprintf(&sb, "%d.%d %v data=%d dict=%d comp=%d uncomp=%d n=%d encs=%v stats=%v minmax=%q\n",
					g, c, cc.PathInSchema(), cc.DataPageOffset(), cc.DictionaryPageOffset(), cc.TotalCompressedSize(),
					cc.TotalUncompressedSize(), cc.NumValues(), encs, stats, enc)
			}
		}
		return sb.String(), nil
	}
	da, err := describe(a)
	if err != nil {
		return err.Error()
	}
	db, err := describe(b)
	if err != nil {
		return err.Error()
	}
	if da != db {
		return fmt.Sprintf("footers differ:\n%s\nagainst\n%s", da, db)
	}
	return ""
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// A writer whose context is cancelled before it closes stops before encoding the buffered row
// group, returns the cancellation, and Abort leaves no file behind.
func TestCancelledCloseWritesNothing(t *testing.T) {
	layout, dp, root := chunkTable(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := NewRollingWriter(fileio.NewLocal(), layout, dp, WriterOptions{Level: 5, Source: meta.FileSourceCompact})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 * columnChunkRows {
		if err := w.Write(ctx, chunkRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if files, err := w.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close after cancel: %d files, %v; want context.Canceled", len(files), err)
	}
	w.Abort(ctx)
	var left []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return err
	})
	if len(left) != 0 {
		t.Fatalf("files left after the cancelled close and Abort: %v", left)
	}
}

// cancelAfter is a context whose Err reports cancellation from its (n+1)th call on.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// A cancellation that comes while a row group is encoded stops it between two chunks of a
// column: here after the first chunk of the first column (the row group's check and that
// chunk's pass, the second chunk's fails).
func TestCancelStopsBetweenChunks(t *testing.T) {
	layout, dp, _ := chunkTable(t)
	w, err := NewRollingWriter(fileio.NewLocal(), layout, dp, WriterOptions{Level: 5, Source: meta.FileSourceCompact})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3 * columnChunkRows {
		if err := w.Write(ctx, chunkRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	defer w.Abort(ctx)
	if err := w.cur.flushRowGroup(&cancelAfter{Context: ctx, n: 2}); !errors.Is(err, context.Canceled) {
		t.Fatalf("flushRowGroup cancelled after the first chunk: %v, want context.Canceled", err)
	}
	// The first column (the key) saw exactly the first chunk's rows.
	if got, want := w.cur.stats[0].max, int32(columnChunkRows-1); got != want {
		t.Fatalf("the key column's max after the cancelled flush is %v, want %v (one chunk)", got, want)
	}
}

// An empty string is a value, not a null: the page index of a string column whose smallest value
// is "" records "" as the page's minimum (a reader that filters by the page index must not skip
// the page when it looks for the empty string), and the file reads "" back.
func TestEmptyStringInPageIndex(t *testing.T) {
	ctx := context.Background()
	layout, dp, _ := chunkTable(t)
	w, err := NewRollingWriter(fileio.NewLocal(), layout, dp, WriterOptions{Level: 5, Source: meta.FileSourceCompact})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		kv := chunkRecord(i)
		if i%7 == 5 {
			kv.Value[1] = ""
		}
		if err := w.Write(ctx, kv); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dp.ToPath(files[0].FileName, ""))
	if err != nil {
		t.Fatal(err)
	}
	r, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	txt := r.MetaData().Schema.ColumnIndexByName("txt")
	if txt < 0 {
		t.Fatal("no column txt")
	}
	rg, err := r.GetPageIndexReader().RowGroup(0)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := rg.GetColumnIndex(txt)
	if err != nil || ci == nil {
		t.Fatalf("column index of txt: %v, %v", ci, err)
	}
	for p, m := range ci.GetMinValues() {
		if len(m) != 0 {
			t.Errorf("page %d of txt: minimum %q in the page index, want \"\"", p, m)
		}
	}
	rd, err := Open(ctx, fileio.NewLocal(), dp.ToPath(files[0].FileName, ""), files[0].FileName, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i := 0; ; i++ {
		kv, _, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 5 && kv.Value[1] != "" {
			t.Fatalf("row %d: txt %#v, want \"\"", i, kv.Value[1])
		}
	}
}
