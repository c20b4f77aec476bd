package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// dictChunk reads single rows from the dictionary-encoded data pages of a column chunk: all of
// them for a key column, typically, and the first ones of a text column (parquet-java and
// arrow-go write PLAIN pages once the dictionary outgrows its page). For a row it decodes the
// row's definition level, its dictionary index and that one dictionary entry; arrow-go's column
// reader instead materializes the dictionary, growing it up to the largest index it has met, for
// every file a search reads. Other pages (PLAIN, V2, levels not RLE-encoded) are left to
// arrow-go's reader: at reports errOtherPage.
type dictChunk struct {
	pr     file.PageReader
	phys   parquet.Type
	maxDef int16
	// dict holds the dictionary page's PLAIN values (dictN of them); for BYTE_ARRAY, offs are
	// the starts of the entries found so far (entry i spans offs[i]+4 to offs[i+1]).
	dict  []byte
	dictN int
	offs  []int32
	// The current data page (V1): its values section (indices), its definition levels (nil for
	// a required column), its first row (relative to the row group) and its row count.
	levels, values []byte
	first, n       int64
	loaded         bool
}

// errOtherPage is dictChunk.at's answer for a row on a page it does not read: a PLAIN page, or a
// page unlike the encoding statistics said.
var errOtherPage = errors.New("not a dictionary-encoded V1 data page with RLE levels")

// dictChunkEligible says whether the chunk of descr described by cc is read by a dictChunk: an
// unencrypted INT32, INT64 or BYTE_ARRAY column without repetition and at most one definition
// level, whose encoding statistics list dictionary-encoded V1 data pages and perhaps PLAIN ones.
func dictChunkEligible(cc *metadata.ColumnChunkMetaData, descr *pqschema.Column) bool {
	switch descr.PhysicalType() {
	case parquet.Types.Int32, parquet.Types.Int64, parquet.Types.ByteArray:
	default:
		return false
	}
	if descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 || !cc.HasDictionaryPage() || cc.CryptoMetadata() != nil {
		return false
	}
	stats := cc.EncodingStats()
	data := 0
	for _, st := range stats {
		switch st.PageType {
		case file.PageTypeDictionaryPage:
		case file.PageTypeDataPage:
			switch st.Encoding {
			case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
				data++
			case parquet.Encodings.Plain:
			default:
				return false
			}
		default:
			return false
		}
	}
	return data > 0
}

// newDictChunk reads the chunk through pr (a page reader with the row group's page index).
func newDictChunk(pr file.PageReader, descr *pqschema.Column) *dictChunk {
	return &dictChunk{pr: pr, phys: descr.PhysicalType(), maxDef: descr.MaxDefinitionLevel()}
}

// close releases the page reader.
func (d *dictChunk) close() error { return d.pr.Close() }

// at returns row rel's value (relative to the row group): an int32, an int64 or a []byte aliasing
// the dictionary page (valid until the chunk is closed), or nil when it is null; errOtherPage when
// the row's page is not one it reads.
func (d *dictChunk) at(rel int64) (any, error) {
	if !d.loaded || rel < d.first || rel >= d.first+d.n {
		if err := d.seek(rel); err != nil {
			return nil, err
		}
	}
	if d.dict == nil { // read once a dictionary-encoded page needs it: not for a PLAIN page
		if err := d.readDictionary(); err != nil {
			return nil, err
		}
	}
	k := int(rel - d.first) // the row's value among the page's values, nulls included
	if d.maxDef > 0 {
		present, index, err := hybridPresent(d.levels, k, int(d.n))
		if err != nil {
			return nil, fmt.Errorf("definition levels: %w", err)
		}
		if !present {
			return nil, nil
		}
		k = index
	}
	if len(d.values) == 0 {
		return nil, errors.New("dictionary-encoded page without a bit width")
	}
	width := int(d.values[0])
	if width > 32 {
		return nil, fmt.Errorf("dictionary index bit width %d", width)
	}
	idx, err := hybridAt(d.values[1:], width, k)
	if err != nil {
		return nil, fmt.Errorf("dictionary indices: %w", err)
	}
	if int(idx) >= d.dictN {
		return nil, fmt.Errorf("dictionary index %d of a dictionary of %d", idx, d.dictN)
	}
	return d.entry(int(idx))
}

// readDictionary reads the chunk's dictionary page.
func (d *dictChunk) readDictionary() error {
	page, err := d.pr.GetDictionaryPage()
	if err != nil {
		return err
	}
	if page == nil {
		return errors.New("the column chunk has no dictionary page")
	}
	if enc := parquet.Encoding(page.Encoding()); enc != parquet.Encodings.Plain && enc != parquet.Encodings.PlainDict {
		return fmt.Errorf("dictionary page of encoding %s", enc)
	}
	d.dict, d.dictN = page.Data(), int(page.NumValues())
	if d.dict == nil {
		d.dict = []byte{}
	}
	switch d.phys {
	case parquet.Types.Int32, parquet.Types.Int64:
		if width := d.phys.ByteSize(); len(d.dict) < width*d.dictN {
			return fmt.Errorf("dictionary page of %d bytes for %d values", len(d.dict), d.dictN)
		}
	case parquet.Types.ByteArray:
		d.offs = append(make([]int32, 0, min(d.dictN+1, len(d.dict)/4+1)), 0)
	}
	return nil
}

// seek loads the data page holding row rel.
func (d *dictChunk) seek(rel int64) error {
	d.loaded = false
	if err := d.pr.SeekToPageWithRow(rel); err != nil {
		return err
	}
	page, ok := d.pr.Page().(*file.DataPageV1)
	if !ok {
		return errOtherPage
	}
	if enc := parquet.Encoding(page.Encoding()); enc != parquet.Encodings.RLEDict && enc != parquet.Encodings.PlainDict {
		return errOtherPage
	}
	if d.maxDef > 0 && page.DefinitionLevelEncoding() != parquet.Encodings.RLE {
		return errOtherPage
	}
	data := page.Data()
	d.first, d.n = page.FirstRowIndex(), int64(page.NumValues())
	if rel < d.first || rel >= d.first+d.n {
		return fmt.Errorf("the page of rows %d to %d holds no row %d", d.first, d.first+d.n-1, rel)
	}
	d.levels = nil
	if d.maxDef > 0 {
		if len(data) < 4 {
			return errors.New("data page too short for its definition levels")
		}
		n := binary.LittleEndian.Uint32(data)
		if uint64(n) > uint64(len(data)-4) {
			return fmt.Errorf("definition levels of %d bytes in a page of %d", n, len(data))
		}
		d.levels, data = data[4:4+n], data[4+n:]
	}
	d.values, d.loaded = data, true
	return nil
}

// entry returns dictionary entry i.
func (d *dictChunk) entry(i int) (any, error) {
	switch d.phys {
	case parquet.Types.Int32:
		return int32(binary.LittleEndian.Uint32(d.dict[4*i:])), nil
	case parquet.Types.Int64:
		return int64(binary.LittleEndian.Uint64(d.dict[8*i:])), nil
	}
	for len(d.offs) <= i+1 {
		at := d.offs[len(d.offs)-1]
		if int(at)+4 > len(d.dict) {
			return nil, fmt.Errorf("dictionary entry %d beyond the page's %d bytes", len(d.offs)-1, len(d.dict))
		}
		end := int64(at) + 4 + int64(binary.LittleEndian.Uint32(d.dict[at:]))
		if end > int64(len(d.dict)) {
			return nil, fmt.Errorf("dictionary entry %d beyond the page's %d bytes", len(d.offs)-1, len(d.dict))
		}
		d.offs = append(d.offs, int32(end))
	}
	return d.dict[d.offs[i]+4 : d.offs[i+1]], nil
}

// hybridAt returns value k of data in Parquet's RLE/bit-packing hybrid encoding of width bits.
func hybridAt(data []byte, width, k int) (uint32, error) {
	byteWidth := (width + 7) / 8
	for pos := 0; ; {
		h, n := binary.Uvarint(data[pos:])
		if n <= 0 {
			return 0, fmt.Errorf("value %d: the runs end before it", k)
		}
		pos += n
		if h&1 == 0 { // an RLE run: count, then the value in byteWidth bytes
			count := h >> 1
			if pos+byteWidth > len(data) {
				return 0, errors.New("a run's value is cut short")
			}
			if uint64(k) < count {
				var v uint32
				for b := range byteWidth {
					v |= uint32(data[pos+b]) << (8 * b)
				}
				return v, nil
			}
			k -= int(count)
			pos += byteWidth
			continue
		}
		groups := h >> 1 // bit-packed: groups of 8 values, width bytes each
		// A group takes width bytes, none at width 0 (a dictionary of one value), where only
		// the count of values must stay a number.
		if (width > 0 && groups > uint64(len(data))) || groups > math.MaxInt64/8 {
			return 0, errors.New("a bit-packed run longer than its data")
		}
		count := groups * 8
		if uint64(k) < count {
			bit := uint64(k) * uint64(width)
			var v uint64
			for got := 0; got < width; {
				i := pos + int(bit/8)
				if i >= len(data) {
					return 0, errors.New("a bit-packed run is cut short")
				}
				off := int(bit % 8)
				take := min(8-off, width-got)
				v |= uint64(data[i]>>off&(1<<take-1)) << got
				got += take
				bit += uint64(take)
			}
			return uint32(v), nil
		}
		k -= int(count)
		pos += int(groups) * width
		if pos > len(data) {
			return 0, errors.New("a bit-packed run is cut short")
		}
	}
}

// hybridPresent reads the definition levels (bit width 1) of a column with one definition level:
// whether value k of the page's n is present, and how many present values precede it.
func hybridPresent(data []byte, k, n int) (present bool, index int, err error) {
	if k < 0 || k >= n {
		return false, 0, fmt.Errorf("level %d of a page of %d values", k, n)
	}
	seen := 0 // values decoded so far
	for pos := 0; seen <= k; {
		h, w := binary.Uvarint(data[pos:])
		if w <= 0 {
			return false, 0, fmt.Errorf("level %d: the runs end before it", k)
		}
		pos += w
		if h&1 == 0 {
			count := int(min(h>>1, uint64(n-seen)))
			if pos >= len(data) {
				return false, 0, errors.New("a run's level is cut short")
			}
			set := data[pos]&1 == 1
			pos++
			if k < seen+count {
				if set {
					index += k - seen
				}
				return set, index, nil
			}
			if set {
				index += count
			}
			seen += count
			continue
		}
		groups := h >> 1
		if groups > uint64(len(data)-pos) {
			return false, 0, errors.New("a bit-packed run is cut short")
		}
		run := data[pos : pos+int(groups)]
		pos += int(groups)
		if k < seen+8*int(groups) {
			rel := k - seen
			for _, b := range run[:rel/8] {
				index += bits.OnesCount8(b)
			}
			last := run[rel/8]
			index += bits.OnesCount8(last & (1<<(rel%8) - 1))
			return last>>(rel%8)&1 == 1, index, nil
		}
		for _, b := range run {
			index += bits.OnesCount8(b)
		}
		seen += 8 * int(groups)
	}
	return false, 0, fmt.Errorf("level %d of a page of %d values", k, n)
}
