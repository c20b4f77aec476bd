package bitmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
)

// Reader answers predicates on one bitmap index file as Java's BitmapIndexReader does.
type Reader struct {
	r    io.ReaderAt
	size int64
	ser  *sortkey.Serializer
	// The null rows, non-null rows and dictionary block index are read on first use, as
	// Java's reader reads them (a null check reads no dictionary).
	infos    [3]blockInfo
	nulls    *roaring64.Bitmap
	nonNulls *roaring64.Bitmap
	blocks   []dictBlockMeta
	loaded   bool
	dicts    map[int][]dictEntry
}

// Open reads the footer, the null and non-null bitmaps and the index block of a file of size
// bytes.
func Open(r io.ReaderAt, size int64, ser *sortkey.Serializer) (*Reader, error) {
	if size < FooterLength {
		return nil, errors.New("bitmap index: invalid bitmap global index file size")
	}
	f := make([]byte, FooterLength)
	if _, err := r.ReadAt(f, size-FooterLength); err != nil {
		return nil, fmt.Errorf("bitmap index: read footer: %w", err)
	}
	if m := binary.BigEndian.Uint32(f[44:]); m != Magic {
		return nil, fmt.Errorf("bitmap index: not a bitmap global index file (bad footer magic %#x)", m)
	}
	if v := int32(binary.BigEndian.Uint32(f[40:])); v != Version {
		return nil, fmt.Errorf("bitmap index: unsupported bitmap global index file version: %d", v)
	}
	if int32(binary.BigEndian.Uint32(f[36:])) < 0 {
		return nil, errors.New("bitmap index: invalid bitmap value count")
	}
	info := func(at int) (blockInfo, error) {
		b := blockInfo{offset: int64(binary.BigEndian.Uint64(f[at:])), length: int32(binary.BigEndian.Uint32(f[at+8:]))}
		if b.offset < 0 || b.length < 0 {
			return blockInfo{}, errors.New("bitmap index: invalid bitmap block offset or length")
		}
		return b, nil
	}
	rd := &Reader{r: r, size: size, ser: ser, dicts: map[int][]dictEntry{}}
	for i := range rd.infos {
		var err error
		if rd.infos[i], err = info(12 * i); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

func (rd *Reader) nullRows() (*roaring64.Bitmap, error) {
	return rd.cachedBitmap(&rd.nulls, rd.infos[0], "null rows")
}

func (rd *Reader) nonNullRows() (*roaring64.Bitmap, error) {
	return rd.cachedBitmap(&rd.nonNulls, rd.infos[1], "non-null rows")
}

// cachedBitmap returns a copy of the bitmap at info, read into *cache on first use.
func (rd *Reader) cachedBitmap(cache **roaring64.Bitmap, info blockInfo, what string) (*roaring64.Bitmap, error) {
	if *cache == nil {
		b, err := rd.readBitmap(info)
		if err != nil {
			return nil, fmt.Errorf("bitmap index: %s: %w", what, err)
		}
		*cache = b
	}
	return (*cache).Clone(), nil
}

// dictBlocks returns the dictionary block index, reading it on first use.
func (rd *Reader) dictBlocks() ([]dictBlockMeta, error) {
	if rd.loaded {
		return rd.blocks, nil
	}
	raw, err := rd.readCompressible(rd.infos[2])
	if err != nil {
		return nil, fmt.Errorf("bitmap index: dictionary block index: %w", err)
	}
	entries, err := parseKeyInfos(raw)
	if err != nil {
		return nil, fmt.Errorf("bitmap index: dictionary block index: %w", err)
	}
	for _, e := range entries {
		rd.blocks = append(rd.blocks, dictBlockMeta{firstKey: e.key, blockInfo: e.bitmap})
	}
	rd.loaded = true
	return rd.blocks, nil
}

func (rd *Reader) read(b blockInfo, extra int) ([]byte, error) {
	if b.offset+int64(b.length)+int64(extra) > rd.size {
		return nil, fmt.Errorf("block at %d of %d bytes lies outside the %d-byte file", b.offset, b.length, rd.size)
	}
	buf := make([]byte, int(b.length)+extra)
	if _, err := rd.r.ReadAt(buf, b.offset); err != nil {
		return nil, fmt.Errorf("read block at %d: %w", b.offset, err)
	}
	return buf, nil
}

func (rd *Reader) readBitmap(b blockInfo) (*roaring64.Bitmap, error) {
	buf, err := rd.read(b, 0)
	if err != nil {
		return nil, err
	}
	return blockcodec.DeserializeBitmap(buf)
}

func (rd *Reader) readCompressible(b blockInfo) ([]byte, error) {
	buf, err := rd.read(b, blockcodec.TrailerLength)
	if err != nil {
		return nil, err
	}
	return blockcodec.Decode(buf[:b.length], buf[b.length:])
}

func parseKeyInfos(raw []byte) ([]dictEntry, error) {
	count, n := binary.Uvarint(raw)
	if n <= 0 || n > 5 || count > 1<<31-1 {
		return nil, errors.New("malformed entry count")
	}
	if count > uint64(len(raw)) {
		return nil, fmt.Errorf("%d entries cannot fit in %d bytes", count, len(raw))
	}
	raw = raw[n:]
	out := make([]dictEntry, 0, count)
	for i := uint64(0); i < count; i++ {
		kl, n := binary.Uvarint(raw)
		if n <= 0 || n > 5 || kl > uint64(len(raw)-n) {
			return nil, fmt.Errorf("entry %d: malformed key length", i)
		}
		key := raw[n : n+int(kl)]
		raw = raw[n+int(kl):]
		off, n := binary.Uvarint(raw)
		if n <= 0 || n > 9 || off > 1<<63-1 {
			return nil, fmt.Errorf("entry %d: malformed offset", i)
		}
		raw = raw[n:]
		l, n := binary.Uvarint(raw)
		if n <= 0 || n > 5 || l > 1<<31-1 {
			return nil, fmt.Errorf("entry %d: malformed length", i)
		}
		raw = raw[n:]
		out = append(out, dictEntry{key: key, bitmap: blockInfo{offset: int64(off), length: int32(l)}})
	}
	if len(raw) != 0 {
		return nil, fmt.Errorf("%d bytes after the last entry", len(raw))
	}
	return out, nil
}

func (rd *Reader) dictionary(i int) ([]dictEntry, error) {
	if d, ok := rd.dicts[i]; ok {
		return d, nil
	}
	raw, err := rd.readCompressible(rd.blocks[i].blockInfo)
	if err != nil {
		return nil, fmt.Errorf("bitmap index: dictionary block %d: %w", i, err)
	}
	d, err := parseKeyInfos(raw)
	if err != nil {
		return nil, fmt.Errorf("bitmap index: dictionary block %d: %w", i, err)
	}
	rd.dicts[i] = d
	return d, nil
}

// KeyRows is one dictionary entry: a distinct non-null key and its rows.
type KeyRows struct {
	Key  any
	Rows *roaring64.Bitmap
}

// Entries returns every dictionary entry in file order.
func (rd *Reader) Entries() ([]KeyRows, error) {
	if _, err := rd.dictBlocks(); err != nil {
		return nil, err
	}
	var out []KeyRows
	for i := range rd.blocks {
		d, err := rd.dictionary(i)
		if err != nil {
			return nil, err
		}
		for _, e := range d {
			k, err := rd.ser.Decode(e.key)
			if err != nil {
				return nil, fmt.Errorf("bitmap index key: %w", err)
			}
			b, err := rd.readBitmap(e.bitmap)
			if err != nil {
				return nil, fmt.Errorf("bitmap index: bitmap of %v: %w", k, err)
			}
			out = append(out, KeyRows{Key: k, Rows: b})
		}
	}
	return out, nil
}

// NullRows returns the rows whose key is null.
func (rd *Reader) NullRows() (*roaring64.Bitmap, error) { return rd.nullRows() }

// NonNullRows returns the rows whose key is not null.
func (rd *Reader) NonNullRows() (*roaring64.Bitmap, error) { return rd.nonNullRows() }

// Evaluate returns the rows the file selects for p, as Java's BitmapIndexReader does: a null
// literal selects nothing (in skips it; notIn with one selects nothing); startsWith, endsWith and
// contains compare serialized bytes; ranges scan the dictionary. Like is refused: Java answers it
// only through a key matcher built by its read path.
func (rd *Reader) Evaluate(p pred.Predicate) (*roaring64.Bitmap, error) {
	if err := p.Arity(); err != nil {
		return nil, fmt.Errorf("bitmap index: %w", err)
	}
	var l any
	if len(p.Literals) > 0 {
		l = p.Literals[0]
	}
	switch p.Op {
	case pred.IsNull:
		return rd.nullRows()
	case pred.IsNotNull:
		return rd.nonNullRows()
	case pred.Equal:
		if l == nil {
			return roaring64.New(), nil
		}
		return rd.equal(l)
	case pred.NotEqual:
		if l == nil {
			return roaring64.New(), nil
		}
		eq, err := rd.equal(l)
		if err != nil {
			return nil, err
		}
		out, err := rd.nonNullRows()
		if err != nil {
			return nil, err
		}
		out.AndNot(eq)
		return out, nil
	case pred.In, pred.NotIn:
		if p.Op == pred.NotIn {
			for _, x := range p.Literals {
				if x == nil {
					return roaring64.New(), nil
				}
			}
		}
		in := roaring64.New()
		for _, x := range p.Literals {
			if x == nil {
				continue
			}
			b, err := rd.equal(x)
			if err != nil {
				return nil, err
			}
			in.Or(b)
		}
		if p.Op == pred.In {
			return in, nil
		}
		out, err := rd.nonNullRows()
		if err != nil {
			return nil, err
		}
		out.AndNot(in)
		return out, nil
	case pred.LessThan, pred.LessOrEqual, pred.GreaterThan, pred.GreaterOrEqual:
		if l == nil {
			return roaring64.New(), nil
		}
		return rd.scan(func(k any) bool {
			c := rd.ser.Compare(k, l)
			switch p.Op {
			case pred.LessThan:
				return c < 0
			case pred.LessOrEqual:
				return c <= 0
			case pred.GreaterThan:
				return c > 0
			}
			return c >= 0
		})
	case pred.Between:
		from, to := p.Literals[0], p.Literals[1]
		if from == nil || to == nil || rd.ser.Compare(from, to) > 0 {
			return roaring64.New(), nil
		}
		return rd.scan(func(k any) bool { return rd.ser.Compare(k, from) >= 0 && rd.ser.Compare(k, to) <= 0 })
	case pred.StartsWith, pred.EndsWith, pred.Contains:
		if l == nil {
			return nil, fmt.Errorf("bitmap index: predicate %s with a null literal", p.Op)
		}
		b, err := rd.ser.Encode(l)
		if err != nil {
			return nil, fmt.Errorf("bitmap index: %w", err)
		}
		if len(b) == 0 {
			return rd.nonNullRows()
		}
		if p.Op == pred.StartsWith {
			return rd.startsWith(b)
		}
		return rd.scanSerialized(func(k []byte) bool {
			if p.Op == pred.EndsWith {
				return bytes.HasSuffix(k, b)
			}
			return bytes.Contains(k, b)
		})
	}
	return nil, fmt.Errorf("bitmap index: predicate %s is not supported", p.Op)
}

func (rd *Reader) equal(l any) (*roaring64.Bitmap, error) {
	if _, err := rd.dictBlocks(); err != nil {
		return nil, err
	}
	if len(rd.blocks) == 0 {
		return roaring64.New(), nil
	}
	lo, hi := 0, len(rd.blocks)-1
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		k, err := rd.ser.Decode(rd.blocks[mid].firstKey)
		if err != nil {
			return nil, fmt.Errorf("bitmap index key: %w", err)
		}
		if rd.ser.Compare(k, l) <= 0 {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if hi < 0 {
		return roaring64.New(), nil
	}
	d, err := rd.dictionary(hi)
	if err != nil {
		return nil, err
	}
	for _, e := range d {
		k, err := rd.ser.Decode(e.key)
		if err != nil {
			return nil, fmt.Errorf("bitmap index key: %w", err)
		}
		switch c := rd.ser.Compare(k, l); {
		case c == 0:
			return rd.readBitmap(e.bitmap)
		case c > 0:
			return roaring64.New(), nil
		}
	}
	return roaring64.New(), nil
}

// MatchKeys returns the rows of every dictionary key match accepts, scanning the whole
// dictionary (Java's BitmapIndexReader#like with the key predicate its read path builds).
func (rd *Reader) MatchKeys(match func(key any) bool) (*roaring64.Bitmap, error) {
	return rd.scan(match)
}

func (rd *Reader) scan(match func(any) bool) (*roaring64.Bitmap, error) {
	return rd.scanEntries(func(e dictEntry) (bool, error) {
		k, err := rd.ser.Decode(e.key)
		if err != nil {
			return false, fmt.Errorf("bitmap index key: %w", err)
		}
		return match(k), nil
	})
}

func (rd *Reader) scanSerialized(match func([]byte) bool) (*roaring64.Bitmap, error) {
	return rd.scanEntries(func(e dictEntry) (bool, error) { return match(e.key), nil })
}

func (rd *Reader) scanEntries(match func(dictEntry) (bool, error)) (*roaring64.Bitmap, error) {
	if _, err := rd.dictBlocks(); err != nil {
		return nil, err
	}
	out := roaring64.New()
	for i := range rd.blocks {
		d, err := rd.dictionary(i)
		if err != nil {
			return nil, err
		}
		for _, e := range d {
			ok, err := match(e)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			b, err := rd.readBitmap(e.bitmap)
			if err != nil {
				return nil, fmt.Errorf("bitmap index: %w", err)
			}
			out.Or(b)
		}
	}
	return out, nil
}

func (rd *Reader) startsWith(prefix []byte) (*roaring64.Bitmap, error) {
	if _, err := rd.dictBlocks(); err != nil {
		return nil, err
	}
	out := roaring64.New()
	up := pred.PrefixUpperBound(prefix)
	lo, hi := 0, len(rd.blocks)-1
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(rd.blocks[mid].firstKey, prefix) <= 0 {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	for i := max(hi, 0); i < len(rd.blocks); i++ {
		if up != nil && bytes.Compare(rd.blocks[i].firstKey, up) >= 0 {
			return out, nil
		}
		d, err := rd.dictionary(i)
		if err != nil {
			return nil, err
		}
		for _, e := range d {
			if bytes.Compare(e.key, prefix) < 0 {
				continue
			}
			if !bytes.HasPrefix(e.key, prefix) {
				return out, nil
			}
			b, err := rd.readBitmap(e.bitmap)
			if err != nil {
				return nil, fmt.Errorf("bitmap index: %w", err)
			}
			out.Or(b)
		}
	}
	return out, nil
}
