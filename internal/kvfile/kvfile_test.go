package kvfile_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

func nn(t types.DataType) types.DataType { t.NotNull = true; return t }

// allTypes is a table with a composite key and a value column of every supported type.
func allTypes(opts map[string]string) *schema.TableSchema {
	f := func(id int, name string, t types.DataType) types.DataField { return types.Field(id, name, t) }
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	return &schema.TableSchema{Version: 3, ID: 0, PrimaryKeys: []string{"k1", "k2"}, Options: o, Fields: []types.DataField{
		f(0, "k1", nn(types.Int())),
		f(1, "k2", nn(types.String())),
		f(2, "b", types.Boolean()),
		f(3, "ti", types.TinyInt()),
		f(4, "si", types.SmallInt()),
		f(5, "bi", types.BigInt()),
		f(6, "fl", types.Float()),
		f(7, "db", types.Double()),
		f(8, "d9", types.DataType{Root: types.RootDecimal, Precision: 9, Scale: 2}),
		f(9, "d18", types.DataType{Root: types.RootDecimal, Precision: 18, Scale: 4}),
		f(10, "d38", types.DataType{Root: types.RootDecimal, Precision: 38, Scale: 10}),
		f(11, "dt", types.Date()),
		f(12, "tm", types.DataType{Root: types.RootTime}),
		f(13, "ts3", types.DataType{Root: types.RootTimestamp, Precision: 3}),
		f(14, "ts6", types.DataType{Root: types.RootTimestamp, Precision: 6}),
		f(15, "ts9", types.DataType{Root: types.RootTimestamp, Precision: 9}),
		f(16, "ltz", types.DataType{Root: types.RootTimestampLTZ, Precision: 6}),
		f(17, "bin", types.DataType{Root: types.RootVarBinary, Length: 100}),
		f(18, "txt", types.String()),
	}}
}

func record(i int) *kvfile.KeyValue {
	key := []any{int32(i / 3), fmt.Sprintf("k%03d", i)}
	var value []any
	if i%5 == 4 {
		value = []any{key[0], key[1], nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
	} else {
		neg := int64(1 - 2*(i%2))
		value = []any{key[0], key[1], i%2 == 0, int8(i - 100), int16(i * 100), int64(i) << 40 * neg, float32(i) / 3, float64(i) * math.Pi,
			binrow.DecimalFromInt64(int64(i)*neg*1234, 2), binrow.DecimalFromInt64(int64(i)*99999999, 4),
			binrow.Decimal{Unscaled: new(big.Int).Mul(big.NewInt(int64(i)*neg), new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)), Scale: 10},
			int32(19000 + i), int32(i * 1000),
			binrow.Timestamp{Millis: int64(i) * 1_000_000}, binrow.Timestamp{Millis: -int64(i) * 1_000_001, NanoOfMilli: int32(i%1000) * 1000},
			binrow.Timestamp{Millis: int64(i) * 7, NanoOfMilli: int32(i) * 13}, binrow.Timestamp{Millis: int64(i), NanoOfMilli: 5000},
			[]byte{byte(i), 0xff, 0}, strings.Repeat("é", i%20) + fmt.Sprint(i)}
	}
	kind := types.Insert
	if i%7 == 6 {
		kind = types.Delete
	}
	return &kvfile.KeyValue{Key: key, Seq: int64(100 + i), Kind: kind, Value: value}
}

func writeFiles(t *testing.T, s *schema.TableSchema, n int) (*paths.DataFilePathFactory, []*meta.DataFileMeta, []*kvfile.KeyValue) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	pf, err := paths.NewTableFactory(root, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := pf.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	w, err := kvfile.NewRollingWriter(fileio.NewLocal(), layout, dp, kvfile.WriterOptions{Level: 3, Source: meta.FileSourceCompact, SchemaID: 0})
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kvfile.KeyValue
	for i := 0; i < n; i++ {
		kv := record(i)
		recs = append(recs, kv)
		if err := w.Write(ctx, kv); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return dp, files, recs
}

func readAll(t *testing.T, s *schema.TableSchema, dp *paths.DataFilePathFactory, files []*meta.DataFileMeta) []*kvfile.KeyValue {
	t.Helper()
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	var out []*kvfile.KeyValue
	for _, f := range files {
		r, err := kvfile.Open(context.Background(), fileio.NewLocal(), dp.ToPath(f.FileName, ""), f.FileName, layout)
		if err != nil {
			t.Fatal(err)
		}
		for {
			kv, _, err := r.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, kv)
		}
		r.Close()
	}
	return out
}

// TestRoundTripEveryType writes records with every supported type (nulls included), in normal
// and thin mode, and reads them back unchanged.
func TestRoundTripEveryType(t *testing.T) {
	for _, thin := range []string{"false", "true"} {
		s := allTypes(map[string]string{kvfile.ThinModeOption: thin})
		dp, files, want := writeFiles(t, s, 500)
		if len(files) != 1 {
			t.Fatalf("thin=%s: %d files", thin, len(files))
		}
		f := files[0]
		if f.RowCount != 500 || f.MinSequenceNumber != 100 || f.MaxSequenceNumber != 599 || *f.DeleteRowCount != 71 || f.Level != 3 || !f.IsCompacted() {
			t.Errorf("thin=%s: meta %+v", thin, f)
		}
		got := readAll(t, s, dp, files)
		if len(got) != len(want) {
			t.Fatalf("thin=%s: read %d records, wrote %d", thin, len(got), len(want))
		}
		for i := range got {
			if g, w := fmt.Sprint(*got[i]), fmt.Sprint(*want[i]); g != w {
				t.Fatalf("thin=%s: record %d:\n got %s\nwant %s", thin, i, g, w)
			}
		}
		lo, _ := binrow.DeserializeBinaryRow(f.MinKey)
		hi, _ := binrow.DeserializeBinaryRow(f.MaxKey)
		kt := types.Row(s.Fields[0], s.Fields[1])
		if l, _ := lo.Decode(kt); fmt.Sprint(l) != fmt.Sprint(want[0].Key) {
			t.Errorf("min key %v", l)
		}
		if h, _ := hi.Decode(kt); fmt.Sprint(h) != fmt.Sprint(want[len(want)-1].Key) {
			t.Errorf("max key %v", h)
		}
	}
}

// TestParquetSchemaAsJava compares the Parquet schema Go writes with a Java-written data file of
// the same table (composite DECIMAL and TIMESTAMP key).
func TestParquetSchemaAsJava(t *testing.T) {
	javaFile := filepath.Join("..", "..", "testdata", "tables", "java", "composite-key", "bucket-0")
	matches, _ := filepath.Glob(filepath.Join(javaFile, "data-*.parquet"))
	if len(matches) == 0 {
		t.Fatal("no Java data file")
	}
	jr, err := file.OpenParquetFile(matches[0], false)
	if err != nil {
		t.Fatal(err)
	}
	defer jr.Close()
	data, err := fileio.NewLocal().ReadFile(context.Background(), filepath.Join("..", "..", "testdata", "tables", "java", "composite-key", "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	popts, _ := paths.OptionsFromTable(root, s.Options)
	pf, _ := paths.NewFileStorePathFactory(popts)
	dp, _ := pf.DataFilePathFactory(nil, 0)
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	w, err := kvfile.NewRollingWriter(fileio.NewLocal(), layout, dp, kvfile.WriterOptions{Source: meta.FileSourceAppend})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d := binrow.DecimalFromInt64(1, 2)
	if err := w.Write(ctx, &kvfile.KeyValue{Key: []any{d, binrow.Timestamp{Millis: 1}}, Value: []any{d, binrow.Timestamp{Millis: 1}, "x", d}}); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := file.OpenParquetFile(dp.ToPath(files[0].FileName, ""), false)
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Close()
	if g, j := gr.MetaData().Schema.String(), jr.MetaData().Schema.String(); g != j {
		t.Errorf("schema:\n go %s\njava %s", g, j)
	}
	if g, j := gr.MetaData().RowGroups[0].Columns[0].MetaData.Codec, jr.MetaData().RowGroups[0].Columns[0].MetaData.Codec; g != j {
		t.Errorf("codec: go %v, java %v", g, j)
	}
	// Java writes a page index for every column chunk: so does Go, and its offset index
	// locates each page.
	for c := range jr.MetaData().Schema.NumColumns() {
		jc, err := jr.MetaData().RowGroup(0).ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		gc, err := gr.MetaData().RowGroup(0).ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		name := jr.MetaData().Schema.Column(c).Path()
		if g, j := gc.GetOffsetIndexLocation() != nil, jc.GetOffsetIndexLocation() != nil; g != j {
			t.Errorf("column %s: offset index go %v, java %v", name, g, j)
		}
		if g, j := gc.GetColumnIndexLocation() != nil, jc.GetColumnIndexLocation() != nil; g != j {
			t.Errorf("column %s: column index go %v, java %v", name, g, j)
		}
		pir := gr.GetPageIndexReader()
		if pir == nil {
			t.Fatal("Go's file has no page index")
		}
		rg, err := pir.RowGroup(0)
		if err != nil || rg == nil {
			t.Fatalf("Go's file: page index of row group 0: %v", err)
		}
		oi, err := rg.GetOffsetIndex(c)
		if err != nil || oi == nil || len(oi.GetPageLocations()) != 1 || oi.GetPageLocations()[0].FirstRowIndex != 0 {
			t.Errorf("column %s: offset index %v (%v), want one page from row 0", name, oi, err)
		}
	}
}

// TestStatsModes checks the statistics of each stats mode as Java records them.
func TestStatsModes(t *testing.T) {
	ctx := context.Background()
	write := func(opts map[string]string, vals [][]any) *meta.DataFileMeta {
		s := &schema.TableSchema{Version: 3, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1"}, Fields: []types.DataField{
			types.Field(0, "id", nn(types.Int())), types.Field(1, "s", types.String()), types.Field(2, "f", types.Double())}}
		for k, v := range opts {
			s.Options[k] = v
		}
		root := t.TempDir()
		popts, _ := paths.OptionsFromTable(root, s.Options)
		pf, _ := paths.NewFileStorePathFactory(popts)
		dp, _ := pf.DataFilePathFactory(nil, 0)
		layout, err := kvfile.NewLayout(s)
		if err != nil {
			t.Fatal(err)
		}
		w, err := kvfile.NewRollingWriter(fileio.NewLocal(), layout, dp, kvfile.WriterOptions{Source: meta.FileSourceAppend})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if err := w.Write(ctx, &kvfile.KeyValue{Key: []any{int32(i)}, Seq: int64(i), Value: append([]any{int32(i)}, v...)}); err != nil {
				t.Fatal(err)
			}
		}
		files, err := w.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return files[0]
	}
	long := strings.Repeat("a", 20) + "z"
	vals := [][]any{{long, 1.5}, {"b", math.NaN()}, {nil, -2.0}}
	decode := func(st meta.SimpleStats, cols int) ([]any, []any) {
		ft := []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "s", types.String()), types.Field(2, "f", types.Double())}
		rt := types.Row(ft[3-cols:]...)
		lo, _ := binrow.DeserializeBinaryRow(st.MinValues)
		hi, _ := binrow.DeserializeBinaryRow(st.MaxValues)
		l, err := lo.Decode(rt)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hi.Decode(rt)
		if err != nil {
			t.Fatal(err)
		}
		return l, h
	}
	// Default truncate(16): the long string's min is its first 16 characters and its max the
	// next string after them; NaN makes the double column's min and max unknown.
	f := write(nil, vals)
	lo, hi := decode(f.ValueStats, 3)
	if lo[1] != strings.Repeat("a", 16) || hi[1] != "b" || lo[2] != nil || hi[2] != nil || *f.ValueStats.NullCounts[1] != 1 || f.ValueStatsCols != nil {
		t.Errorf("truncate(16): min %v max %v nulls %v cols %v", lo, hi, f.ValueStats.NullCounts, f.ValueStatsCols)
	}
	// full: exact values.
	f = write(map[string]string{kvfile.StatsModeOption: "full"}, [][]any{{long, 1.5}, {"b", -0.0}})
	lo, hi = decode(f.ValueStats, 3)
	if lo[1] != long || hi[1] != "b" || lo[2] != -0.0 || hi[2] != 1.5 {
		t.Errorf("full: min %v max %v", lo, hi)
	}
	// counts: null counts only.
	f = write(map[string]string{kvfile.StatsModeOption: "counts"}, vals)
	lo, hi = decode(f.ValueStats, 3)
	if lo[1] != nil || hi[1] != nil || *f.ValueStats.NullCounts[1] != 1 {
		t.Errorf("counts: min %v max %v nulls %v", lo, hi, f.ValueStats.NullCounts)
	}
	// none on one field: the dense store drops it and names the rest.
	f = write(map[string]string{"fields.s.stats-mode": "none"}, vals)
	if strings.Join(f.ValueStatsCols, ",") != "id,f" || len(f.ValueStats.NullCounts) != 2 {
		t.Errorf("field none: cols %v nulls %d", f.ValueStatsCols, len(f.ValueStats.NullCounts))
	}
	// Key stats are kept in full (truncate(128)) whatever the mode.
	f = write(map[string]string{kvfile.StatsModeOption: "none"}, vals)
	kl, _ := binrow.DeserializeBinaryRow(f.KeyStats.MinValues)
	if v, _ := kl.Decode(types.Row(types.Field(0, "id", types.Int()))); v[0] != int32(0) || len(f.ValueStatsCols) != 0 || f.ValueStatsCols == nil {
		t.Errorf("none: key min %v value cols %v", v, f.ValueStatsCols)
	}
}

// TestRollingByTargetFileSize checks a small target-file-size rolls the output into several
// files with ascending, disjoint key ranges.
func TestRollingByTargetFileSize(t *testing.T) {
	s := allTypes(map[string]string{kvfile.TargetFileSizeOption: "64kb"})
	dp, files, want := writeFiles(t, s, 6000)
	if len(files) < 3 {
		t.Fatalf("%d files for 6000 records at a 64 KiB target", len(files))
	}
	var rows int64
	for i, f := range files {
		rows += f.RowCount
		if i > 0 && files[i-1].MaxSequenceNumber >= f.MinSequenceNumber {
			t.Errorf("file %d starts at sequence %d, the previous ends at %d", i, f.MinSequenceNumber, files[i-1].MaxSequenceNumber)
		}
	}
	if rows != int64(len(want)) || len(readAll(t, s, dp, files)) != len(want) {
		t.Fatalf("%d rows in files, %d written", rows, len(want))
	}
}

// TestRollingByRowCount checks target-file-row-num rolls new data but not compaction output.
func TestRollingByRowCount(t *testing.T) {
	s := allTypes(map[string]string{kvfile.TargetFileRowNumOption: "100"})
	_, files, _ := writeFiles(t, s, 450) // compaction output: size only
	if len(files) != 1 {
		t.Errorf("compaction output rolled by rows: %d files", len(files))
	}
	ctx := context.Background()
	popts, _ := paths.OptionsFromTable(t.TempDir(), s.Options)
	pf, _ := paths.NewFileStorePathFactory(popts)
	dp, _ := pf.DataFilePathFactory(nil, 0)
	layout, _ := kvfile.NewLayout(s)
	w, err := kvfile.NewRollingWriter(fileio.NewLocal(), layout, dp, kvfile.WriterOptions{Source: meta.FileSourceAppend})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 450; i++ {
		if err := w.Write(ctx, record(i)); err != nil {
			t.Fatal(err)
		}
	}
	files, err = w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 || files[0].RowCount != 100 || files[4].RowCount != 50 {
		t.Errorf("append output: %d files", len(files))
	}
}

// TestCompressionPerLevel checks file.compression.per.level picks each level's codec, the others
// file.compression's, as KeyValueFileWriterFactory does, and that file.format.per.level accepts
// Parquet levels only.
func TestCompressionPerLevel(t *testing.T) {
	ctx := context.Background()
	s := allTypes(map[string]string{"file.compression": "snappy", "file.compression.per.level": "0:lz4, 3:none", "file.format.per.level": "0:parquet,5:PARQUET"})
	root := t.TempDir()
	pf, err := paths.NewTableFactory(root, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := pf.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	for level, want := range map[int32]string{0: "LZ4_RAW", 3: "UNCOMPRESSED", 5: "SNAPPY"} {
		w, err := kvfile.NewRollingWriter(fileio.NewLocal(), layout, dp, kvfile.WriterOptions{Level: level, Source: meta.FileSourceCompact})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, record(int(level))); err != nil {
			t.Fatal(err)
		}
		files, err := w.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r, err := file.OpenParquetFile(dp.ToPath(files[0].FileName, ""), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.MetaData().RowGroups[0].Columns {
			if got := c.MetaData.Codec.String(); got != want {
				t.Errorf("level %d: column %v codec %v, want %v", level, c.MetaData.PathInSchema, got, want)
			}
		}
		r.Close()
	}
	for opt, v := range map[string]string{"file.format.per.level": "1:orc", "file.compression.per.level": "0:lzo"} {
		if _, err := kvfile.NewLayout(allTypes(map[string]string{opt: v})); err == nil || !strings.Contains(err.Error(), opt) {
			t.Errorf("%s=%s: layout error %v, want one naming the option", opt, v, err)
		}
	}
}
