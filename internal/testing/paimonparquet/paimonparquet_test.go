package paimonparquet

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

type column struct {
	name string
	id   int32
}

func columns(t *testing.T, r *file.Reader) []column {
	t.Helper()
	root := r.MetaData().Schema.Root()
	var out []column
	for i := range root.NumFields() {
		f := root.Field(i)
		out = append(out, column{f.Name(), f.FieldID()})
	}
	return out
}

// readInt32 reads an INT32 column of every row group; null values are reported as nil.
func readInt32(t *testing.T, r *file.Reader, col int) []*int32 {
	t.Helper()
	var out []*int32
	for g := range r.NumRowGroups() {
		cr, err := r.RowGroup(g).Column(col)
		if err != nil {
			t.Fatal(err)
		}
		n := r.MetaData().RowGroups[g].GetNumRows()
		vals := make([]int32, n)
		defs := make([]int16, n)
		_, nv, err := cr.(*file.Int32ColumnChunkReader).ReadBatch(n, vals, defs, nil)
		if err != nil {
			t.Fatal(err)
		}
		maxDef := r.MetaData().Schema.Column(col).MaxDefinitionLevel()
		v := 0
		for i := range n {
			if maxDef > 0 && defs[i] == 0 {
				out = append(out, nil)
				continue
			}
			x := vals[v]
			v++
			out = append(out, &x)
		}
		if v != nv {
			t.Fatalf("column %d row group %d: %d values, %d decoded", col, g, v, nv)
		}
	}
	return out
}

func readInt64(t *testing.T, r *file.Reader, col int) []int64 {
	t.Helper()
	var out []int64
	for g := range r.NumRowGroups() {
		cr, err := r.RowGroup(g).Column(col)
		if err != nil {
			t.Fatal(err)
		}
		n := r.MetaData().RowGroups[g].GetNumRows()
		vals := make([]int64, n)
		if _, _, err := cr.(*file.Int64ColumnChunkReader).ReadBatch(n, vals, nil, nil); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals...)
	}
	return out
}

// readText reads a BYTE_ARRAY column; null values are "<null>".
func readText(t *testing.T, r *file.Reader, col int) []string {
	t.Helper()
	var out []string
	maxDef := r.MetaData().Schema.Column(col).MaxDefinitionLevel()
	for g := range r.NumRowGroups() {
		cr, err := r.RowGroup(g).Column(col)
		if err != nil {
			t.Fatal(err)
		}
		n := r.MetaData().RowGroups[g].GetNumRows()
		vals := make([]parquet.ByteArray, n)
		defs := make([]int16, n)
		if _, _, err := cr.(*file.ByteArrayColumnChunkReader).ReadBatch(n, vals, defs, nil); err != nil {
			t.Fatal(err)
		}
		v := 0
		for i := range n {
			if maxDef > 0 && defs[i] == 0 {
				out = append(out, "<null>")
				continue
			}
			out = append(out, string(vals[v]))
			v++
		}
	}
	return out
}

func open(t *testing.T, data []byte) *file.Reader {
	t.Helper()
	r, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// texts yields "text-i", null for every fourth row, reusing one buffer.
func texts() TextFunc {
	var buf []byte
	return func(i int) ([]byte, bool) {
		if i%4 == 1 {
			return nil, true
		}
		buf = fmt.Appendf(buf[:0], "text-%d", i)
		return buf, false
	}
}

func TestLayoutAndValues(t *testing.T) {
	const rows = 10_000 // more than one write batch per row group
	o := Options{RowGroupRows: 4500, FirstRow: 100, Compression: compress.Codecs.Zstd, Dictionary: true}
	data, st, err := Bytes(rows, texts(), o)
	if err != nil {
		t.Fatal(err)
	}
	r := open(t, data)
	want := []column{
		{"_KEY_id", KeyFieldIDStart}, {"_SEQUENCE_NUMBER", SequenceNumberFieldID}, {"_VALUE_KIND", ValueKindFieldID},
		{"id", IDFieldID}, {"content", DefaultTextFieldID}, {"payload", PayloadFieldID},
	}
	if got := columns(t, r); !slices.Equal(got, want) {
		t.Fatalf("columns %v, want %v", got, want)
	}
	sc := r.MetaData().Schema
	if lt := sc.Column(2).LogicalType(); !lt.Equals(schema.NewIntLogicalType(8, true)) {
		t.Errorf("_VALUE_KIND logical type %v, want INT(8, signed)", sc.Column(2).LogicalType())
	}
	if _, ok := sc.Column(4).LogicalType().(schema.StringLogicalType); !ok {
		t.Errorf("content logical type %v, want STRING", sc.Column(4).LogicalType())
	}
	if sc.Column(4).MaxDefinitionLevel() != 1 || sc.Column(0).MaxDefinitionLevel() != 0 {
		t.Errorf("content should be OPTIONAL and _KEY_id REQUIRED")
	}
	if r.NumRowGroups() != 3 || r.NumRows() != rows {
		t.Fatalf("%d row groups, %d rows; want 3, %d", r.NumRowGroups(), r.NumRows(), rows)
	}
	cc, err := r.MetaData().RowGroup(0).ColumnChunk(4)
	if err != nil {
		t.Fatal(err)
	}
	if got := cc.Compression(); got != compress.Codecs.Zstd {
		t.Errorf("codec %v, want zstd", got)
	}
	if !slices.Contains(cc.Encodings(), parquet.Encodings.RLEDict) && !slices.Contains(cc.Encodings(), parquet.Encodings.PlainDict) {
		t.Errorf("encodings %v, want dictionary encoding", cc.Encodings())
	}

	keys, seqs, kinds, ids := readInt32(t, r, 0), readInt64(t, r, 1), readInt32(t, r, 2), readInt32(t, r, 3)
	text, payload := readText(t, r, 4), readInt32(t, r, 5)
	var nulls, textBytes int64
	for i := range rows {
		if *keys[i] != int32(101+i) || *ids[i] != int32(101+i) || seqs[i] != int64(100+i) || *kinds[i] != 0 {
			t.Fatalf("row %d: key %d id %d seq %d kind %d", i, *keys[i], *ids[i], seqs[i], *kinds[i])
		}
		wantText := fmt.Sprintf("text-%d", i)
		if i%4 == 1 {
			wantText = "<null>"
			nulls++
		} else {
			textBytes += int64(len(wantText))
		}
		if text[i] != wantText {
			t.Fatalf("row %d: text %q, want %q", i, text[i], wantText)
		}
		p, null := o.Payload(i)
		if null != (payload[i] == nil) || (!null && *payload[i] != p) || null != ((100+i)%3 == 0) {
			t.Fatalf("row %d: payload %v, want %d (null %v)", i, payload[i], p, null)
		}
	}
	if want := (Stats{Rows: rows, NullTexts: nulls, TextBytes: textBytes, RowGroups: 3, FileBytes: int64(len(data))}); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
}

func TestVariants(t *testing.T) {
	one := func(i int) ([]byte, bool) { return []byte("x"), false }
	cases := []struct {
		name    string
		o       Options
		columns []column
		check   func(t *testing.T, r *file.Reader)
	}{
		{
			name:    "thin renamed extra",
			o:       Options{Thin: true, TextName: "body", TextFieldID: 7, ExtraString: "other"},
			columns: []column{{"_SEQUENCE_NUMBER", SequenceNumberFieldID}, {"_VALUE_KIND", ValueKindFieldID}, {"id", 0}, {"body", 7}, {"payload", 2}, {"other", ExtraStringFieldID}},
			check: func(t *testing.T, r *file.Reader) {
				if got := readText(t, r, 5); !slices.Equal(got, []string{ExtraStringValue, ExtraStringValue}) {
					t.Errorf("extra column %q", got)
				}
			},
		},
		{
			name:    "omitted text",
			o:       Options{OmitText: true},
			columns: []column{{"_KEY_id", KeyFieldIDStart}, {"_SEQUENCE_NUMBER", SequenceNumberFieldID}, {"_VALUE_KIND", ValueKindFieldID}, {"id", 0}, {"payload", 2}},
		},
		{
			name:    "required plain binary",
			o:       Options{Required: true, PlainBinary: true, PageV2: true},
			columns: []column{{"_KEY_id", KeyFieldIDStart}, {"_SEQUENCE_NUMBER", SequenceNumberFieldID}, {"_VALUE_KIND", ValueKindFieldID}, {"id", 0}, {"content", 1}, {"payload", 2}},
			check: func(t *testing.T, r *file.Reader) {
				c := r.MetaData().Schema.Column(4)
				if _, isString := c.LogicalType().(schema.StringLogicalType); isString || c.MaxDefinitionLevel() != 0 {
					t.Errorf("content: def level %d, logical type %v; want REQUIRED without annotation", c.MaxDefinitionLevel(), c.LogicalType())
				}
				if got := readText(t, r, 4); !slices.Equal(got, []string{"x", "x"}) {
					t.Errorf("text %q", got)
				}
			},
		},
		{
			name:    "int text",
			o:       Options{IntText: true},
			columns: []column{{"_KEY_id", KeyFieldIDStart}, {"_SEQUENCE_NUMBER", SequenceNumberFieldID}, {"_VALUE_KIND", ValueKindFieldID}, {"id", 0}, {"content", 1}, {"payload", 2}},
			check: func(t *testing.T, r *file.Reader) {
				if got := r.MetaData().Schema.Column(4).PhysicalType(); got != parquet.Types.Int32 {
					t.Errorf("content physical type %s", got)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, st, err := Bytes(2, one, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			r := open(t, data)
			if got := columns(t, r); !slices.Equal(got, tc.columns) {
				t.Fatalf("columns %v, want %v", got, tc.columns)
			}
			if st.Rows != 2 || st.NullTexts != 0 || r.NumRows() != 2 {
				t.Errorf("stats %+v, file rows %d", st, r.NumRows())
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestEmptyFileHasOneEmptyRowGroup(t *testing.T) {
	data, st, err := Bytes(0, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := open(t, data)
	if r.NumRowGroups() != 1 || r.NumRows() != 0 || st.Rows != 0 || st.RowGroups != 1 {
		t.Fatalf("%d row groups, %d rows, stats %+v", r.NumRowGroups(), r.NumRows(), st)
	}
}

func TestNullInRequiredColumnFails(t *testing.T) {
	_, _, err := Bytes(3, func(i int) ([]byte, bool) { return nil, i == 2 }, Options{Required: true})
	if err == nil {
		t.Fatal("null in a required text column was written")
	}
	if _, err := Write(io.Discard, -1, nil, Options{}); err == nil {
		t.Fatal("negative row count accepted")
	}
}

// closeRecorder records whether Close was called.
type closeRecorder struct {
	bytes.Buffer
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestWriteLeavesWriterOpenAndWriteFileCloses(t *testing.T) {
	var w closeRecorder
	st, err := Write(&w, 5, texts(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.closed {
		t.Error("Write closed its writer")
	}
	if st.FileBytes != int64(w.Len()) || !bytes.HasPrefix(w.Bytes(), []byte("PAR1")) || !bytes.HasSuffix(w.Bytes(), []byte("PAR1")) {
		t.Errorf("FileBytes %d, wrote %d bytes", st.FileBytes, w.Len())
	}
	path := filepath.Join(t.TempDir(), "data-0.parquet")
	fst, err := WriteFile(path, 5, texts(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, w.Bytes()) || fst != st {
		t.Errorf("WriteFile wrote %d bytes (stats %+v), Write %d (stats %+v)", len(data), fst, w.Len(), st)
	}
}

// TestWriteStreams writes 160 MiB of text in one row group and checks the Go heap never holds
// more than a fraction of it.
func TestWriteStreams(t *testing.T) {
	const (
		rows    = 20_000
		textLen = 8 << 10
		limit   = 32 << 20
	)
	if testing.Short() {
		t.Skip("writes 160 MiB")
	}
	text := bytes.Repeat([]byte("paimon "), textLen/7)
	runtime.GC()
	peak, stop := sampleHeap()
	st, err := Write(io.Discard, rows, func(i int) ([]byte, bool) {
		text[0] = byte('a' + i%26) // defeat any deduplication
		return text, false
	}, Options{Compression: compress.Codecs.Snappy})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.TextBytes != rows*int64(len(text)) {
		t.Fatalf("text bytes %d", st.TextBytes)
	}
	if *peak > limit {
		t.Errorf("Go heap peaked at %d MiB writing %d MiB of text, want under %d MiB", *peak>>20, st.TextBytes>>20, limit>>20)
	}
	t.Logf("heap peak %.1f MiB for %d MiB of text", float64(*peak)/(1<<20), st.TextBytes>>20)
}

// sampleHeap records the maximum of the live-and-unswept heap objects every millisecond until
// stop is called.
func sampleHeap() (peak *uint64, stop func()) {
	peak = new(uint64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return peak, func() { close(done); wg.Wait() }
}
