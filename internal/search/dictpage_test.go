package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// craftedPages is a page reader over pages built by hand: a dictionary page and data pages, each
// with the first row the (simulated) offset index gives it. SeekToPageWithRow picks the last page
// whose first row is not after the row, as arrow-go's reader does with the offset index.
type craftedPages struct {
	file.PageReader // not called: the methods dictChunk uses are below
	dict            func() *file.DictionaryPage
	pages           []craftedPage
	cur             file.Page
}

// craftedPage is a V1 data page: its decompressed bytes (levels, then values), its value count,
// its first row by the offset index and the encoding of its definition levels.
type craftedPage struct {
	data     []byte
	n        int32
	first    int64
	defLevel parquet.Encoding
}

func (p *craftedPages) GetDictionaryPage() (*file.DictionaryPage, error) { return p.dict(), nil }

func (p *craftedPages) SeekToPageWithRow(row int64) error {
	i := len(p.pages) - 1
	for i > 0 && p.pages[i].first > row {
		i--
	}
	pg := p.pages[i]
	p.cur = file.NewDataPageV1WithConfig(memory.NewBufferBytes(pg.data), pg.defLevel, parquet.Encodings.RLE,
		file.DataPageConfig{Num: pg.n, Encoding: parquet.Encodings.RLEDict, UncompressedSize: int32(len(pg.data)), FirstRowIndex: pg.first})
	return nil
}

func (p *craftedPages) Page() file.Page { return p.cur }
func (p *craftedPages) Close() error    { return nil }

// plainInt32s is a dictionary page of INT32 values.
func plainInt32s(vs ...int32) func() *file.DictionaryPage {
	return func() *file.DictionaryPage {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		return file.NewDictionaryPage(memory.NewBufferBytes(b), int32(len(vs)), parquet.Encodings.Plain)
	}
}

// rawDict is a dictionary page of n values with the given bytes.
func rawDict(b []byte, n int32) func() *file.DictionaryPage {
	return func() *file.DictionaryPage {
		return file.NewDictionaryPage(memory.NewBufferBytes(b), n, parquet.Encodings.Plain)
	}
}

// indices is a values section: the bit width, then the indices bit-packed at that width.
func indices(width int, idx ...uint32) []byte {
	runs := []hybridRun{{values: idx}}
	data, _ := encodeHybrid(width, runs)
	return append([]byte{byte(width)}, data...)
}

// withLevels prefixes a values section with definition levels (RLE-encoded length, then the
// levels bit-packed at width 1).
func withLevels(present []bool, values []byte) []byte {
	lv := make([]uint32, len(present))
	for i, p := range present {
		if p {
			lv[i] = 1
		}
	}
	levels, _ := encodeHybrid(1, []hybridRun{{values: lv}})
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(levels)))
	return append(append(out, levels...), values...)
}

func int32Column(t *testing.T, rep parquet.Repetition) *pqschema.Column {
	t.Helper()
	root, err := pqschema.NewGroupNode("r", parquet.Repetitions.Required, pqschema.FieldList{pqschema.NewInt32Node("v", rep, 1)}, -1)
	if err != nil {
		t.Fatal(err)
	}
	return pqschema.NewSchema(root).Column(0)
}

func byteArrayColumn(t *testing.T) *pqschema.Column {
	t.Helper()
	root, err := pqschema.NewGroupNode("r", parquet.Repetitions.Required, pqschema.FieldList{
		pqschema.NewByteArrayNode("v", parquet.Repetitions.Required, 1)}, -1)
	if err != nil {
		t.Fatal(err)
	}
	return pqschema.NewSchema(root).Column(0)
}

// readCrafted reads rows 0..rows-1 of the crafted chunk, rendering each value (or error) as text.
func readCrafted(d *dictChunk, rows int64) []string {
	var out []string
	for r := range rows {
		v, err := d.at(r)
		switch {
		case errors.Is(err, errOtherPage):
			out = append(out, "other")
		case err != nil:
			out = append(out, "error: "+err.Error())
		case v == nil:
			out = append(out, "null")
		default:
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}

// TestDictChunkCraftedPages: dictChunk reads pages as Parquet defines them and refuses, with an
// error naming what is wrong, pages that disagree with themselves or with the offset index:
// definition levels in the encoding each writer uses (parquet-java declares BIT_PACKED for a
// required column, which has none), levels that outrun the page, an all-null page without a
// values section, the offset index claiming rows a page lacks, dictionary indices at width 32 and
// at the dictionary's size, and dictionary pages cut short.
func TestDictChunkCraftedPages(t *testing.T) {
	required, optional := int32Column(t, parquet.Repetitions.Required), int32Column(t, parquet.Repetitions.Optional)
	cases := []struct {
		name  string
		col   *pqschema.Column
		dict  func() *file.DictionaryPage
		pages []craftedPage
		rows  int64
		want  []string
	}{{
		name:  "required column, levels declared BIT_PACKED (parquet-java)",
		col:   required,
		dict:  plainInt32s(10, 20, 30),
		pages: []craftedPage{{data: indices(2, 2, 0, 1), n: 3, defLevel: parquet.Encodings.BitPacked}},
		rows:  3,
		want:  []string{"30", "10", "20"},
	}, {
		name:  "required column, levels declared RLE (arrow-go)",
		col:   required,
		dict:  plainInt32s(10, 20, 30),
		pages: []craftedPage{{data: indices(2, 1, 1, 2), n: 3, defLevel: parquet.Encodings.RLE}},
		rows:  3,
		want:  []string{"20", "20", "30"},
	}, {
		name:  "optional column, RLE levels",
		col:   optional,
		dict:  plainInt32s(10, 20),
		pages: []craftedPage{{data: withLevels([]bool{true, false, true, false}, indices(1, 1, 0)), n: 4, defLevel: parquet.Encodings.RLE}},
		rows:  4,
		want:  []string{"20", "null", "10", "null"},
	}, {
		name:  "optional column, BIT_PACKED levels: left to arrow-go's reader",
		col:   optional,
		dict:  plainInt32s(10, 20),
		pages: []craftedPage{{data: withLevels([]bool{true, true}, indices(1, 1, 0)), n: 2, defLevel: parquet.Encodings.BitPacked}},
		rows:  1,
		want:  []string{"other"},
	}, {
		name:  "all-null page without a values section",
		col:   optional,
		dict:  plainInt32s(10),
		pages: []craftedPage{{data: withLevels([]bool{false, false, false}, nil), n: 3, defLevel: parquet.Encodings.RLE}},
		rows:  3,
		want:  []string{"null", "null", "null"},
	}, {
		name:  "levels longer than the page",
		col:   optional,
		dict:  plainInt32s(10),
		pages: []craftedPage{{data: append(binary.LittleEndian.AppendUint32(nil, 3), 0x02, 0x01), n: 1, defLevel: parquet.Encodings.RLE}},
		rows:  1,
		want:  []string{"error: definition levels of 3 bytes in a page of 6"},
	}, {
		name:  "page too short for its levels' length",
		col:   optional,
		dict:  plainInt32s(10),
		pages: []craftedPage{{data: []byte{1, 0, 0}, n: 1, defLevel: parquet.Encodings.RLE}},
		rows:  1,
		want:  []string{"error: data page too short for its definition levels"},
	}, {
		name: "offset index claims rows the page lacks",
		col:  required,
		dict: plainInt32s(10, 20),
		pages: []craftedPage{
			{data: indices(1, 0, 1, 0), n: 3, first: 0, defLevel: parquet.Encodings.RLE},
			{data: indices(1, 1, 1), n: 2, first: 4, defLevel: parquet.Encodings.RLE},
		},
		rows: 6,
		want: []string{"10", "20", "10", "error: the page of rows 0 to 2 holds no row 3", "20", "20"},
	}, {
		name:  "indices at width 32",
		col:   required,
		dict:  plainInt32s(10, 20),
		pages: []craftedPage{{data: indices(32, 1, 0), n: 2, defLevel: parquet.Encodings.RLE}},
		rows:  2,
		want:  []string{"20", "10"},
	}, {
		name:  "index width over 32",
		col:   required,
		dict:  plainInt32s(10),
		pages: []craftedPage{{data: []byte{33, 0x02, 0, 0, 0, 0, 0}, n: 1, defLevel: parquet.Encodings.RLE}},
		rows:  1,
		want:  []string{"error: dictionary index bit width 33"},
	}, {
		name:  "index at the dictionary's size",
		col:   required,
		dict:  plainInt32s(10, 20),
		pages: []craftedPage{{data: indices(2, 1, 2), n: 2, defLevel: parquet.Encodings.RLE}},
		rows:  2,
		want:  []string{"20", "error: dictionary index 2 of a dictionary of 2"},
	}, {
		name:  "INT32 dictionary page cut short",
		col:   required,
		dict:  rawDict([]byte{10, 0, 0, 0, 20, 0, 0}, 2),
		pages: []craftedPage{{data: indices(1, 0), n: 1, defLevel: parquet.Encodings.RLE}},
		rows:  1,
		want:  []string{"error: dictionary page of 7 bytes for 2 values"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDictChunk(&craftedPages{dict: c.dict, pages: c.pages}, c.col)
			if got := readCrafted(d, c.rows); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("read %q, want %q", got, c.want)
			}
		})
	}
}

// TestDictChunkByteArrayEntries: BYTE_ARRAY dictionary entries are found by their length
// prefixes up to the last byte of the page (an empty last entry included), and an entry whose
// prefix or bytes run past the page is refused by its number.
func TestDictChunkByteArrayEntries(t *testing.T) {
	entries := func(parts ...string) []byte {
		var b []byte
		for _, p := range parts {
			b = append(binary.LittleEndian.AppendUint32(b, uint32(len(p))), p...)
		}
		return b
	}
	cases := []struct {
		name string
		dict []byte
		n    int32
		idx  []uint32
		want []string
	}{
		{"entries read out of order", entries("ab", "", "cde"), 3, []uint32{2, 0, 1}, []string{"cde", "ab", ""}},
		{"empty last entry", entries("ab", ""), 2, []uint32{1, 0}, []string{"", "ab"}},
		{"length prefix cut short", append(entries("ab"), 1, 0), 2, []uint32{1}, []string{"error: dictionary entry 1 beyond the page's 8 bytes"}},
		{"entry's bytes cut short", append(entries("ab", "cd"), append(binary.LittleEndian.AppendUint32(nil, 5), 'x')...), 3, []uint32{2},
			[]string{"error: dictionary entry 2 beyond the page's 17 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pages := []craftedPage{{data: indices(2, c.idx...), n: int32(len(c.idx)), defLevel: parquet.Encodings.RLE}}
			d := newDictChunk(&craftedPages{dict: rawDict(c.dict, c.n), pages: pages}, byteArrayColumn(t))
			if got := readCrafted(d, int64(len(c.idx))); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("read %q, want %q", got, c.want)
			}
		})
	}
}
