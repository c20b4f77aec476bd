package search

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/pqvalue"
	"github.com/paimon-pkft/pkft/internal/types"
)

// dictValue is row i's value of the dictionary-encoded file's columns: id (INT32, required,
// repeating every 1,000 rows), big (INT64, null in runs of 37 rows every 100 and in every third row
// of rows 5,000-5,999: long runs and bit-packed levels) and word (STRING, null every 7th row below
// row 8,000, from there the same word 20 rows in a row: bit-packed and RLE runs of indices).
func dictValue(i int) (id int32, big *int64, word *string) {
	id = int32(i%1000*3 - 1500)
	if i%100 >= 37 && !(i >= 5000 && i < 6000 && i%3 == 0) {
		v := int64(i%500) << 40
		big = &v
	}
	if i%7 != 0 || i >= 8000 {
		w := fmt.Sprintf("word-%d", i%300)
		if i >= 8000 {
			w = fmt.Sprintf("word-%d", i/20%300) // runs of one index: RLE runs
		}
		word = &w
	}
	return id, big, word
}

// dictFile writes n rows of dictValue in row groups of rgRows, dictionary-encoded in small zstd
// pages with the page index; a column whose dictionary outgrows dictLimit bytes goes on in PLAIN
// pages.
func dictFile(t testing.TB, n, rgRows int, dictLimit int64) []byte {
	t.Helper()
	word, err := pqschema.NewPrimitiveNodeLogical("word", parquet.Repetitions.Optional, pqschema.StringLogicalType{}, parquet.Types.ByteArray, -1, 3)
	if err != nil {
		t.Fatal(err)
	}
	root, err := pqschema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, pqschema.FieldList{
		pqschema.NewInt32Node("id", parquet.Repetitions.Required, 1),
		pqschema.NewInt64Node("big", parquet.Repetitions.Optional, 2), word}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(1<<10), parquet.WithBatchSize(64), parquet.WithPageIndexEnabled(true),
		parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryPageSizeLimit(dictLimit))
	pw := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	for start := 0; start < n; start += rgRows {
		rows := min(rgRows, n-start)
		ids, bigs, bigDefs, words, wordDefs := make([]int32, rows), []int64{}, make([]int16, rows), []parquet.ByteArray{}, make([]int16, rows)
		for j := range rows {
			id, big, word := dictValue(start + j)
			ids[j] = id
			if big != nil {
				bigs, bigDefs[j] = append(bigs, *big), 1
			}
			if word != nil {
				words, wordDefs[j] = append(words, parquet.ByteArray(*word)), 1
			}
		}
		rg := pw.AppendRowGroup()
		writeRowGroup(t, rg,
			func(cw file.ColumnChunkWriter) error {
				_, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(ids, nil, nil)
				return err
			},
			func(cw file.ColumnChunkWriter) error {
				_, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch(bigs, bigDefs, nil)
				return err
			},
			func(cw file.ColumnChunkWriter) error {
				_, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(words, wordDefs, nil)
				return err
			})
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadRowsOfDictionaryPages: the dictionary-encoded pages of a column are read by dictChunk
// (the file's chunks are eligible, the pages many), up to the PLAIN pages a dictionary that
// outgrew its page falls back to; every row read, first and last rows of pages and row groups,
// nulls in runs and bit-packed, on either side of the fallback, is the row written.
func TestReadRowsOfDictionaryPages(t *testing.T) {
	const n, rgRows = 12_000, 5_000
	for _, c := range []struct {
		name      string
		dictLimit int64
		fallback  bool // every chunk holds PLAIN pages after the dictionary-encoded ones
	}{{"dictionary-only", 1 << 20, false}, {"fallback-to-plain", 1 << 10, true}} {
		t.Run(c.name, func(t *testing.T) {
			data := dictFile(t, n, rgRows, c.dictLimit)
			pf, err := pqvalue.OpenRowReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var positions []int64
			for rg := range pf.NumRowGroups() {
				pir, err := pf.GetPageIndexReader().RowGroup(rg)
				if err != nil {
					t.Fatal(err)
				}
				for col := range 3 {
					cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(col)
					if err != nil {
						t.Fatal(err)
					}
					if !dictChunkEligible(cc, pf.MetaData().Schema.Column(col)) {
						t.Fatalf("row group %d column %d: not read by dictChunk (encodings %v)", rg, col, cc.EncodingStats())
					}
					plain := slices.ContainsFunc(cc.EncodingStats(), func(st metadata.PageEncodingStats) bool {
						return st.PageType == file.PageTypeDataPage && st.Encoding == parquet.Encodings.Plain
					})
					if want := c.fallback; plain != want {
						t.Fatalf("row group %d column %d: PLAIN pages %v, want %v (encodings %v)", rg, col, plain, want, cc.EncodingStats())
					}
					oi, err := pir.GetOffsetIndex(col)
					if err != nil {
						t.Fatal(err)
					}
					if len(oi.GetPageLocations()) < 4 {
						t.Fatalf("row group %d column %d: %d pages, want several", rg, col, len(oi.GetPageLocations()))
					}
					for _, loc := range oi.GetPageLocations() {
						first := int64(rg*rgRows) + loc.FirstRowIndex
						positions = append(positions, first-1, first, first+1)
					}
				}
			}
			pf.Close()
			for i := int64(4990); i < 6010; i += 3 {
				positions = append(positions, i, i+1, i+3010) // the bit-packed nulls; the runs of one word
			}
			positions = append(positions, n-1)
			slices.Sort(positions)
			positions = slices.Compact(positions)
			if positions[0] < 0 {
				positions = positions[1:]
			}
			cols := []column{{name: "id", typ: types.Int()}, {name: "big", typ: types.BigInt()}, {name: "word", typ: types.String()}}
			rows, err := readRows(context.Background(), bytes.NewReader(data), int64(len(data)), "data-x.parquet", cols, positions)
			if err != nil {
				t.Fatal(err)
			}
			for k, pos := range positions {
				id, big, word := dictValue(int(pos))
				want := []any{id, nil, nil}
				if big != nil {
					want[1] = *big
				}
				if word != nil {
					want[2] = *word
				}
				if fmt.Sprint(rows[k]) != fmt.Sprint(want) {
					t.Fatalf("row %d = %v, want %v", pos, rows[k], want)
				}
			}
		})
	}
}

// FuzzHybridDecode: the RLE/bit-packing hybrid readers of dictChunk return a value or an error
// for any bytes, never panic or loop; a present level's index never exceeds its position.
func FuzzHybridDecode(f *testing.F) {
	f.Add([]byte{0x10, 0x01}, uint8(1), uint16(3), uint16(8))             // an RLE run of 8 ones
	f.Add([]byte{0x03, 0xa5, 0x0f}, uint8(1), uint16(9), uint16(16))      // a bit-packed run of 2 groups
	f.Add([]byte{0x03, 0xff, 0x01, 0x02}, uint8(3), uint16(5), uint16(8)) // bit-packed, width 3
	f.Fuzz(func(t *testing.T, data []byte, width uint8, k, n uint16) {
		if _, err := hybridAt(data, int(width%33), int(k)); err == nil && len(data) == 0 {
			t.Fatal("a value from no data")
		}
		present, index, err := hybridPresent(data, int(k), int(n))
		if err == nil && (index > int(k) || (present && int(k) >= int(n))) {
			t.Fatalf("level %d of %d: present %v, index %d", k, n, present, index)
		}
	})
}
