package textreader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
)

type want struct {
	text string
	null bool
}

func open(t *testing.T, data []byte, spec FileSpec) *Reader {
	t.Helper()
	r, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)), spec)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func spec(name string, rows int64) FileSpec {
	return FileSpec{FileName: name, RowCount: rows, SchemaID: 0, FieldID: paimonparquet.DefaultTextFieldID, FieldName: contentAt0}
}

// readAll reads RowCount rows and checks them against w.
func readAll(t *testing.T, r *Reader, w []want) {
	t.Helper()
	ctx := context.Background()
	if r.RowCount() != int64(len(w)) {
		t.Fatalf("RowCount = %d, want %d", r.RowCount(), len(w))
	}
	for i, e := range w {
		row, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if row.Pos != int64(i) || row.Null != e.null || row.String() != e.text {
			t.Fatalf("row %d = {pos %d null %v %q}, want {pos %d null %v %q}", i, row.Pos, row.Null, row.Text, i, e.null, e.text)
		}
		if row.Null && row.Text != nil {
			t.Fatalf("row %d: null row carries text %q", i, row.Text)
		}
	}
}

// Port of PkFullTextDataFileReaderTest#testReadsProjectedTextAndPreservesNullPositions.
func TestReadsProjectedTextAndPreservesNullPositions(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{}, 3, strs("first", nil, "third"))
	r := open(t, data, spec("data-0.parquet", 3))
	readAll(t, r, []want{{text: "first"}, {null: true}, {text: "third"}})
	_, err := r.Next(context.Background())
	if !errors.Is(err, ErrReadPast) || !strings.Contains(err.Error(), "read past data file data-0.parquet") {
		t.Fatalf("Next past end: %v, want ErrReadPast naming the file", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestEncodingsAndLayouts(t *testing.T) {
	const rows = 2500
	gen := func(i int) ([]byte, bool) {
		switch {
		case i%7 == 3:
			return nil, true
		case i%11 == 0:
			return []byte{}, false // empty, not null
		default:
			// Few distinct values so dictionary encoding applies, plus
			// some long unique ones.
			if i%13 == 0 {
				return []byte(fmt.Sprintf("unique text %d %s", i, strings.Repeat("é", i%50))), false
			}
			return []byte(fmt.Sprintf("word-%d", i%5)), false
		}
	}
	genRequired := func(i int) ([]byte, bool) {
		v, null := gen(i)
		if null {
			return []byte("was null"), false
		}
		return v, false
	}
	cases := []struct {
		name  string
		fx    paimonparquet.Options
		gen   paimonparquet.TextFunc
		batch int
	}{
		{name: "plain", fx: paimonparquet.Options{}, gen: gen},
		{name: "dictionary", fx: paimonparquet.Options{Dictionary: true}, gen: gen},
		{name: "dictionary small pages many row groups", fx: paimonparquet.Options{Dictionary: true, PageSize: 256, RowGroupRows: 700}, gen: gen, batch: 100},
		{name: "plain small pages", fx: paimonparquet.Options{PageSize: 200, RowGroupRows: 1000}, gen: gen, batch: 7},
		{name: "batch size one", fx: paimonparquet.Options{RowGroupRows: 333}, gen: gen, batch: 1},
		{name: "required", fx: paimonparquet.Options{Required: true, RowGroupRows: 999}, gen: genRequired},
		{name: "required dictionary", fx: paimonparquet.Options{Required: true, Dictionary: true, PageSize: 300}, gen: genRequired, batch: 64},
		{name: "plain binary", fx: paimonparquet.Options{PlainBinary: true, RowGroupRows: 1200}, gen: gen},
		{name: "snappy", fx: paimonparquet.Options{Compression: compress.Codecs.Snappy, RowGroupRows: 1024}, gen: gen},
		{name: "zstd dictionary", fx: paimonparquet.Options{Compression: compress.Codecs.Zstd, Dictionary: true, PageSize: 512}, gen: gen},
		{name: "gzip", fx: paimonparquet.Options{Compression: compress.Codecs.Gzip}, gen: gen},
		{name: "page v2", fx: paimonparquet.Options{PageV2: true, PageSize: 400, Compression: compress.Codecs.Zstd}, gen: gen},
		{name: "page v2 dictionary", fx: paimonparquet.Options{PageV2: true, Dictionary: true, PageSize: 400}, gen: gen},
		{name: "thin mode", fx: paimonparquet.Options{Thin: true, RowGroupRows: 800}, gen: gen},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := bytesOf(t, tc.fx, rows, tc.gen)
			s := spec("data-1.parquet", rows)
			s.BatchSize = tc.batch
			r := open(t, data, s)
			w := make([]want, rows)
			for i := range w {
				v, null := tc.gen(i)
				w[i] = want{text: string(v), null: null}
			}
			readAll(t, r, w)
			if _, err := r.Next(context.Background()); !errors.Is(err, ErrReadPast) {
				t.Fatalf("Next past end: %v, want ErrReadPast", err)
			}
		})
	}
}

func TestRenamedColumnResolvedThroughFileSchema(t *testing.T) {
	// Schema 0 called field 1 "body" and had another STRING field (id 3)
	// called "content"; schema 1 renamed field 1 to "content". A file
	// written with schema 0 must be read through its own schema: column
	// "body", not the current name.
	data := bytesOf(t, paimonparquet.Options{TextName: "body", ExtraString: "content"}, 3, strs("a", nil, "c"))
	lookup := names(map[[2]int64]string{
		{0, 1}: "body", {0, 3}: "content",
		{1, 1}: "content", {1, 3}: "old_content",
	})
	r := open(t, data, FileSpec{FileName: "data-2.parquet", RowCount: 3, SchemaID: 0, FieldID: 1, FieldName: lookup})
	readAll(t, r, []want{{text: "a"}, {null: true}, {text: "c"}})

	// Resolving through the wrong (current) schema would read the decoy.
	r2 := open(t, data, FileSpec{FileName: "data-2.parquet", RowCount: 3, SchemaID: 1, FieldID: 3, FieldName: lookup})
	readAll(t, r2, []want{{null: true}, {null: true}, {null: true}})
}

func TestFieldMissingFromFileSchemaReadsNulls(t *testing.T) {
	// The column was added after the file was written: schema 0 has no
	// field 1, so every row is null, but every row position still counts.
	data := bytesOf(t, paimonparquet.Options{OmitText: true, RowGroupRows: 2}, 5, strs(nil, nil, nil, nil, nil))
	r := open(t, data, FileSpec{FileName: "data-3.parquet", RowCount: 5, SchemaID: 0, FieldID: 1, FieldName: names(nil)})
	readAll(t, r, []want{{null: true}, {null: true}, {null: true}, {null: true}, {null: true}})
	if _, err := r.Next(context.Background()); !errors.Is(err, ErrReadPast) {
		t.Fatalf("Next past end: %v", err)
	}
}

func TestColumnMissingFromParquetReadsNulls(t *testing.T) {
	// The schema names the field but the Parquet file has no such column:
	// Paimon's Parquet reader fills it with nulls.
	data := bytesOf(t, paimonparquet.Options{OmitText: true}, 2, strs(nil, nil))
	r := open(t, data, spec("data-4.parquet", 2))
	readAll(t, r, []want{{null: true}, {null: true}})
}

func TestColumnNameMatchIsCaseSensitive(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{TextName: "Content"}, 1, strs("x"))
	r := open(t, data, spec("data-5.parquet", 1))
	readAll(t, r, []want{{null: true}})
}

func TestSchemaLookupFailure(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{}, 1, strs("x"))
	boom := errors.New("schema file missing")
	s := spec("data-6.parquet", 1)
	s.FieldName = func(int64, int32) (string, error) { return "", boom }
	_, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)), s)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "data-6.parquet") {
		t.Fatalf("Open: %v, want wrapped lookup error", err)
	}
}

func TestNonStringColumnIsRejected(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{IntText: true}, 1, strs("x"))
	_, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)), spec("data-7.parquet", 1))
	if err == nil || !strings.Contains(err.Error(), "BYTE_ARRAY") {
		t.Fatalf("Open: %v, want a physical type error", err)
	}
}

func TestShortFileFails(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{RowGroupRows: 2}, 3, strs("a", "b", "c"))
	r := open(t, data, spec("data-short.parquet", 5))
	ctx := context.Background()
	for i := range 3 {
		if _, err := r.Next(ctx); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	_, err := r.Next(ctx)
	if !errors.Is(err, ErrTooFewRows) {
		t.Fatalf("Next: %v, want ErrTooFewRows", err)
	}
	for _, s := range []string{"data-short.parquet", "declared 5", "file has 3"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not mention %q", err, s)
		}
	}
	// The check is repeated, as Java's iterator check is.
	if _, err := r.Next(ctx); !errors.Is(err, ErrTooFewRows) {
		t.Fatalf("second Next: %v", err)
	}
}

func TestLongFileFails(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{Dictionary: true}, 5, strs("a", "b", "c", "d", "e"))
	r := open(t, data, spec("data-long.parquet", 3))
	ctx := context.Background()
	for i, w := range []string{"a", "b"} {
		row, err := r.Next(ctx)
		if err != nil || row.String() != w {
			t.Fatalf("row %d = %q, %v", i, row.Text, err)
		}
	}
	// The last declared row is consumed but reported as an error, because
	// the file continues past it.
	_, err := r.Next(ctx)
	if !errors.Is(err, ErrTooManyRows) {
		t.Fatalf("Next: %v, want ErrTooManyRows", err)
	}
	for _, s := range []string{"data-long.parquet", "declared 3", "file has 5"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not mention %q", err, s)
		}
	}
	if _, err := r.Next(ctx); !errors.Is(err, ErrReadPast) {
		t.Fatalf("Next after: %v, want ErrReadPast", err)
	}
}

func TestEmptyFile(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{}, 0, strs())
	r := open(t, data, spec("data-empty.parquet", 0))
	if _, err := r.Next(context.Background()); !errors.Is(err, ErrReadPast) {
		t.Fatalf("Next: %v, want ErrReadPast", err)
	}
	r2 := open(t, data, spec("data-empty.parquet", 1))
	if _, err := r2.Next(context.Background()); !errors.Is(err, ErrTooFewRows) {
		t.Fatalf("Next: %v, want ErrTooFewRows", err)
	}
}

func TestUnsupportedFormat(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{}, 1, strs("x"))
	cases := []struct {
		name, format string
		unsupported  bool
	}{
		{name: "data-1.orc", unsupported: true},
		{name: "data-1.csv.gz", unsupported: true},
		{name: "data-1.parquet", format: "orc", unsupported: true},
		{name: "data-1", unsupported: false}, // illegal name, not a format
		{name: "data-1.PARQUET"},
		{name: "data-1.orc", format: "parquet"},
	}
	for _, tc := range cases {
		s := spec(tc.name, 1)
		s.Format = tc.format
		r, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)), s)
		switch {
		case tc.unsupported:
			if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "data file "+tc.name+" is ") ||
				!strings.Contains(err.Error(), "pkft reads parquet and avro data files") {
				t.Errorf("%s/%q: %v, want ErrUnsupportedFormat", tc.name, tc.format, err)
			}
		case tc.name == "data-1":
			if err == nil || errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "not a legal file name") {
				t.Errorf("%s: %v, want illegal file name", tc.name, err)
			}
		default:
			if err != nil {
				t.Errorf("%s/%q: %v", tc.name, tc.format, err)
				continue
			}
			_ = r.Close()
		}
	}
}

func TestFormatOf(t *testing.T) {
	cases := map[string]string{
		"data-a-0.parquet":  "parquet",
		"data-a-0.orc":      "orc",
		"data-a-0.csv.gz":   "csv",
		"data-a-0.json.ZST": "json",
		"a.b.avro":          "avro",
	}
	for name, want := range cases {
		got, err := FormatOf(name)
		if err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, bad := range []string{"noext", "x.gz", ""} {
		if _, err := FormatOf(bad); err == nil {
			t.Errorf("FormatOf(%q) succeeded", bad)
		}
	}
}

func TestTruncatedAndCorruptFiles(t *testing.T) {
	fx := paimonparquet.Options{Dictionary: true, PageSize: 256, RowGroupRows: 150, Compression: compress.Codecs.Snappy}
	gen := func(i int) ([]byte, bool) {
		if i%5 == 0 {
			return nil, true
		}
		return []byte(fmt.Sprintf("value %d", i%17)), false
	}
	const rows = 400
	data := bytesOf(t, fx, rows, gen)
	ctx := context.Background()

	drain := func(d []byte) error {
		r, err := Open(ctx, bytes.NewReader(d), int64(len(d)), spec("data-c.parquet", rows))
		if err != nil {
			return err
		}
		defer r.Close()
		for range rows {
			if _, err := r.Next(ctx); err != nil {
				return err
			}
		}
		return nil
	}

	// Truncation anywhere loses the footer.
	for _, n := range []int{0, 1, 4, 8, 100, len(data) / 2, len(data) - 9, len(data) - 1} {
		if err := drain(data[:n]); err == nil {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
	// Garbage over the data pages with the footer intact.
	bad := bytes.Clone(data)
	for i := 4; i < len(bad)/2; i++ {
		bad[i] = 0xff
	}
	if err := drain(bad); err == nil {
		t.Errorf("overwritten data pages: no error")
	}
	// Single byte flips must never panic or hang; errors are fine.
	step := 11
	if testing.Short() {
		step = 97
	}
	for i := 0; i < len(data); i += step {
		flipped := bytes.Clone(data)
		flipped[i] ^= 0x5a
		_ = drain(flipped)
	}
}

func TestCloseAndContext(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{}, 3, strs("a", "b", "c"))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(canceled, bytes.NewReader(data), int64(len(data)), spec("data-x.parquet", 3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open with canceled context: %v", err)
	}
	r := open(t, data, spec("data-x.parquet", 3))
	if _, err := r.Next(canceled); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with canceled context: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := r.Next(context.Background()); err == nil {
		t.Fatal("Next after Close succeeded")
	}
}

func TestReadsFromOSFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data-f.parquet")
	if _, err := paimonparquet.WriteFile(path, 3, strs("x", nil, "z"), paimonparquet.Options{RowGroupRows: 2}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), f, st.Size(), spec("data-f.parquet", 3))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readAll(t, r, []want{{text: "x"}, {null: true}, {text: "z"}})
}

func TestMissingLookupAndBadSize(t *testing.T) {
	data := bytesOf(t, paimonparquet.Options{}, 1, strs("x"))
	s := spec("data-1.parquet", 1)
	s.FieldName = nil
	if _, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)), s); err == nil {
		t.Fatal("Open without lookup succeeded")
	}
	if _, err := Open(context.Background(), bytes.NewReader(data), -1, spec("data-1.parquet", 1)); err == nil {
		t.Fatal("Open with negative size succeeded")
	}
}

// FuzzRead feeds arbitrary bytes to the reader: it must return errors, never
// panic or loop forever. Without -fuzz only the seeds run.
func FuzzRead(f *testing.F) {
	f.Add(bytesOf(f, paimonparquet.Options{}, 3, strs("first", nil, "third")), int64(3))
	f.Add(bytesOf(f, paimonparquet.Options{Dictionary: true, PageSize: 64, RowGroupRows: 4, Compression: compress.Codecs.Snappy}, 10,
		strs("a", "b", nil, "a", "b", "c", nil, "", "a", "b")), int64(10))
	f.Add(bytesOf(f, paimonparquet.Options{Required: true, PageV2: true}, 2, strs("x", "y")), int64(2))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"), int64(1))
	f.Fuzz(func(t *testing.T, data []byte, rows int64) {
		if rows < 0 || rows > 1<<16 {
			rows = 1 << 16
		}
		ctx := context.Background()
		r, err := Open(ctx, bytes.NewReader(data), int64(len(data)), spec("data-fuzz.parquet", rows))
		if err != nil {
			return
		}
		defer r.Close()
		for range rows {
			if _, err := r.Next(ctx); err != nil {
				return
			}
		}
	})
}

// TestAvroDataFile: the text column of an Avro data file is read by its name at the file's
// schema version, every row in file order with nulls kept; a column the file predates reads as
// null; a row count the blocks disagree with is an error.
func TestAvroDataFile(t *testing.T) {
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(`{"type":"record","name":"r","fields":[{"name":"_SEQUENCE_NUMBER","type":"long"},
		{"name":"n","type":["null","int"]},{"name":"body","type":["null","string"]}]}`, &buf, ocf.WithBlockLength(3), ocf.WithCodec(ocf.Snappy))
	if err != nil {
		t.Fatal(err)
	}
	var want []any
	for i := 0; i < 10; i++ {
		rec := map[string]any{"_SEQUENCE_NUMBER": int64(i), "n": map[string]any{"int": i}, "body": nil}
		want = append(want, nil)
		if i%4 != 1 {
			text := strings.Repeat("ü", i) + "z"
			rec["body"] = map[string]any{"string": text}
			want[i] = text
		}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	open := func(rows int64, name string) *Reader {
		t.Helper()
		s := spec("data-a-0.avro", rows)
		s.FieldName = func(int64, int32) (string, error) {
			if name == "" {
				return "", ErrFieldNotInSchema
			}
			return name, nil
		}
		r, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)), s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, name := range []string{"body", ""} {
		r := open(10, name)
		for i := 0; i < 10; i++ {
			row, err := r.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			w := want[i]
			if name == "" {
				w = nil
			}
			if row.Pos != int64(i) || row.Null != (w == nil) || (w != nil && row.String() != w) {
				t.Fatalf("%q row %d: %+v, want %v", name, i, row, w)
			}
		}
		if _, err := r.Next(context.Background()); !errors.Is(err, ErrReadPast) {
			t.Fatalf("after the last row: %v", err)
		}
		_ = r.Close()
	}
	r := open(11, "body")
	var err2 error
	for i := 0; i < 11 && err2 == nil; i++ {
		_, err2 = r.Next(context.Background())
	}
	if !errors.Is(err2, ErrTooFewRows) {
		t.Fatalf("11 rows declared of 10: %v", err2)
	}
	r = open(9, "body")
	err2 = nil
	for i := 0; i < 9 && err2 == nil; i++ {
		_, err2 = r.Next(context.Background())
	}
	if !errors.Is(err2, ErrTooManyRows) {
		t.Fatalf("9 rows declared of 10: %v", err2)
	}
}

// TestTextColumnFirstInFile: a text column that is the file's first leaf column (index 0; Paimon
// writes the key columns first, other writers need not) is read, not taken for missing.
func TestTextColumnFirstInFile(t *testing.T) {
	content, err := pqschema.NewPrimitiveNodeLogical(paimonparquet.DefaultTextName, parquet.Repetitions.Optional, pqschema.StringLogicalType{},
		parquet.Types.ByteArray, -1, paimonparquet.DefaultTextFieldID)
	if err != nil {
		t.Fatal(err)
	}
	root, err := pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, pqschema.FieldList{content, pqschema.NewInt32Node("id", parquet.Repetitions.Required, 0)}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	pw := file.NewParquetWriter(&buf, root)
	rg := pw.AppendRowGroup()
	cw, err := rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch([]parquet.ByteArray{parquet.ByteArray("first"), parquet.ByteArray("third")}, []int16{1, 0, 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if cw, err = rg.NextColumn(); err != nil {
		t.Fatal(err)
	}
	if _, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch([]int32{1, 2, 3}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	readAll(t, open(t, buf.Bytes(), spec("data-first.parquet", 3)), []want{{text: "first"}, {null: true}, {text: "third"}})
}

// TestNilInputAndCanceledReadOfMissingColumn: a nil file is refused whatever its size, and a file
// without the text column (every row null) still stops at its first row when the context is
// canceled.
func TestNilInputAndCanceledReadOfMissingColumn(t *testing.T) {
	if _, err := Open(context.Background(), nil, 10, spec("data-nil.parquet", 1)); err == nil || !strings.Contains(err.Error(), "invalid input") {
		t.Fatalf("Open of a nil file: %v", err)
	}
	data := bytesOf(t, paimonparquet.Options{OmitText: true}, 3, strs("a", "b", "c"))
	r := open(t, data, spec("data-omit.parquet", 3))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Next(canceled); !errors.Is(err, context.Canceled) {
		t.Fatalf("first row of a file without the column, context canceled: %v", err)
	}
}
