package btree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/pksorted/sst"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
)

// Reader answers predicates on one BTree index file as Java's BTreeIndexReader does.
type Reader struct {
	ser      *sortkey.Serializer
	sst      *sst.Reader
	nulls    *roaring64.Bitmap
	min, max any
}

// Open reads the footer, index block and null bitmap of a file of size bytes; meta is the
// file's SortedIndexFileMeta (from its GlobalIndexMeta), which gives the key range.
func Open(r io.ReaderAt, size int64, ser *sortkey.Serializer, meta filemeta.Meta) (*Reader, error) {
	if size < FooterLength {
		return nil, fmt.Errorf("btree index: file of %d bytes is shorter than the %d-byte footer", size, FooterLength)
	}
	f := make([]byte, FooterLength)
	if _, err := r.ReadAt(f, size-FooterLength); err != nil {
		return nil, fmt.Errorf("btree index: read footer: %w", err)
	}
	if m := binary.LittleEndian.Uint32(f[48:]); m != Magic {
		return nil, fmt.Errorf("btree index: not a btree index file (bad magic number %#x)", m)
	}
	index := sst.Handle{Offset: int64(binary.LittleEndian.Uint64(f[20:])), Size: int32(binary.LittleEndian.Uint32(f[28:]))}
	nulls := sst.Handle{Offset: int64(binary.LittleEndian.Uint64(f[32:])), Size: int32(binary.LittleEndian.Uint32(f[40:]))}
	rd := &Reader{ser: ser}
	var err error
	if meta.FirstKey != nil {
		if meta.LastKey == nil {
			return nil, errors.New("btree index: file meta has a first key but no last key")
		}
		if rd.min, err = ser.Decode(meta.FirstKey); err != nil {
			return nil, fmt.Errorf("btree index: file meta first key: %w", err)
		}
		if rd.max, err = ser.Decode(meta.LastKey); err != nil {
			return nil, fmt.Errorf("btree index: file meta last key: %w", err)
		}
	}
	rd.sst, err = sst.OpenReader(r, size, index, rd.compareEncoded)
	if err != nil {
		return nil, fmt.Errorf("btree index: %w", err)
	}
	rd.nulls = roaring64.New()
	if nulls.Offset != 0 || nulls.Size != 0 {
		if nulls.Offset < 0 || nulls.Size < 0 || nulls.Offset+int64(nulls.Size)+4 > size {
			return nil, fmt.Errorf("btree index: null bitmap at %d of %d bytes lies outside the file", nulls.Offset, nulls.Size)
		}
		b := make([]byte, int(nulls.Size)+4)
		if _, err := r.ReadAt(b, nulls.Offset); err != nil {
			return nil, fmt.Errorf("btree index: read null bitmap: %w", err)
		}
		data := b[:nulls.Size]
		if crc32.ChecksumIEEE(data) != binary.LittleEndian.Uint32(b[nulls.Size:]) {
			return nil, errors.New("btree index: crc check failure decoding the null bitmap")
		}
		if rd.nulls, err = blockcodec.DeserializeBitmap(data); err != nil {
			return nil, fmt.Errorf("btree index: null bitmap: %w", err)
		}
	}
	return rd, nil
}

func (rd *Reader) compareEncoded(a, b []byte) (int, error) {
	x, err := rd.ser.Decode(a)
	if err != nil {
		return 0, fmt.Errorf("btree index key: %w", err)
	}
	y, err := rd.ser.Decode(b)
	if err != nil {
		return 0, fmt.Errorf("btree index key: %w", err)
	}
	return rd.ser.Compare(x, y), nil
}

// KeyRowIDs is one entry: a distinct non-null key and its row ids in written order.
type KeyRowIDs struct {
	Key    any
	RowIDs []int64
}

// Entries returns every non-null entry in key order.
func (rd *Reader) Entries() ([]KeyRowIDs, error) {
	var out []KeyRowIDs
	for i := 0; i < rd.sst.NumBlocks(); i++ {
		blk, err := rd.sst.DataBlock(i)
		if err != nil {
			return nil, fmt.Errorf("btree index: %w", err)
		}
		for _, e := range blk.Entries {
			k, err := rd.ser.Decode(e.Key)
			if err != nil {
				return nil, fmt.Errorf("btree index key: %w", err)
			}
			ids, err := decodeRowIDs(e.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, KeyRowIDs{Key: k, RowIDs: ids})
		}
	}
	return out, nil
}

// NullRows returns the row ids whose key is null.
func (rd *Reader) NullRows() *roaring64.Bitmap { return rd.nulls.Clone() }

func decodeRowIDs(b []byte) ([]int64, error) {
	n, m := binary.Uvarint(b)
	if m <= 0 || m > 5 || n > 1<<31-1 {
		return nil, errors.New("btree index: malformed row id count")
	}
	if n == 0 {
		return nil, errors.New("btree index: invalid row id length 0")
	}
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("btree index: %d row ids cannot fit in %d bytes", n, len(b))
	}
	b = b[m:]
	ids := make([]int64, n)
	for i := range ids {
		v, k := binary.Uvarint(b)
		if k <= 0 || k > 9 || v > 1<<63-1 {
			return nil, fmt.Errorf("btree index: malformed row id %d", i)
		}
		ids[i] = int64(v)
		b = b[k:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("btree index: %d bytes after the row ids", len(b))
	}
	return ids, nil
}

// Evaluate returns the row ids the file selects for p, as Java's visit methods do: ranges and
// lookups are exact; endsWith, contains and like select every non-null row (Paimon filters those
// rows afterwards).
func (rd *Reader) Evaluate(p pred.Predicate) (*roaring64.Bitmap, error) {
	if err := p.Arity(); err != nil {
		return nil, fmt.Errorf("btree index: %w", err)
	}
	for _, l := range p.Literals {
		if l == nil {
			return nil, fmt.Errorf("btree index: predicate %s with a null literal", p.Op)
		}
	}
	lit := func(i int) any { return p.Literals[i] }
	switch p.Op {
	case pred.IsNull:
		return rd.nulls.Clone(), nil
	case pred.IsNotNull, pred.EndsWith, pred.Contains, pred.Like:
		return rd.allNonNull()
	case pred.Equal:
		return rd.rangeQuery(lit(0), lit(0), true, true)
	case pred.NotEqual:
		all, err := rd.allNonNull()
		if err != nil {
			return nil, err
		}
		eq, err := rd.rangeQuery(lit(0), lit(0), true, true)
		if err != nil {
			return nil, err
		}
		all.AndNot(eq)
		return all, nil
	case pred.LessThan:
		return rd.rangeQuery(rd.min, lit(0), true, false)
	case pred.LessOrEqual:
		return rd.rangeQuery(rd.min, lit(0), true, true)
	case pred.GreaterThan:
		return rd.rangeQuery(lit(0), rd.max, false, true)
	case pred.GreaterOrEqual:
		return rd.rangeQuery(lit(0), rd.max, true, true)
	case pred.Between:
		return rd.rangeQuery(lit(0), lit(1), true, true)
	case pred.In, pred.NotIn:
		in := roaring64.New()
		for _, l := range p.Literals {
			r, err := rd.rangeQuery(l, l, true, true)
			if err != nil {
				return nil, err
			}
			in.Or(r)
		}
		if p.Op == pred.In {
			return in, nil
		}
		all, err := rd.allNonNull()
		if err != nil {
			return nil, err
		}
		all.AndNot(in)
		return all, nil
	case pred.StartsWith:
		if rd.min == nil {
			return roaring64.New(), nil
		}
		enc, err := rd.ser.Encode(lit(0))
		if err != nil {
			return nil, fmt.Errorf("btree index: %w", err)
		}
		up := pred.PrefixUpperBound(enc)
		if up == nil {
			return rd.rangeQuery(lit(0), rd.max, true, true)
		}
		upper, err := rd.ser.Decode(up)
		if err != nil {
			return nil, fmt.Errorf("btree index: prefix upper bound: %w", err)
		}
		return rd.rangeQuery(lit(0), upper, true, false)
	}
	return nil, fmt.Errorf("btree index: predicate %s is not supported", p.Op)
}

func (rd *Reader) allNonNull() (*roaring64.Bitmap, error) {
	if rd.min == nil {
		return roaring64.New(), nil
	}
	return rd.rangeQuery(rd.min, rd.max, true, true)
}

// rangeQuery collects the row ids of keys in the range; a nil bound (a file of only nulls)
// selects nothing, where Java would fail on the null key.
func (rd *Reader) rangeQuery(from, to any, fromInc, toInc bool) (*roaring64.Bitmap, error) {
	out := roaring64.New()
	if from == nil || to == nil {
		return out, nil
	}
	enc, err := rd.ser.Encode(from)
	if err != nil {
		return nil, fmt.Errorf("btree index: %w", err)
	}
	bi, blk, ei, err := rd.sst.Seek(enc)
	if err != nil {
		return nil, fmt.Errorf("btree index: %w", err)
	}
	for ; bi < rd.sst.NumBlocks(); bi, ei = bi+1, 0 {
		if blk == nil {
			if blk, err = rd.sst.DataBlock(bi); err != nil {
				return nil, fmt.Errorf("btree index: %w", err)
			}
		}
		for _, e := range blk.Entries[ei:] {
			k, err := rd.ser.Decode(e.Key)
			if err != nil {
				return nil, fmt.Errorf("btree index key: %w", err)
			}
			if !fromInc && rd.ser.Compare(k, from) == 0 {
				continue
			}
			if d := rd.ser.Compare(k, to); d > 0 || (!toInc && d == 0) {
				return out, nil
			}
			ids, err := decodeRowIDs(e.Value)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				out.Add(uint64(id))
			}
		}
		blk = nil
	}
	return out, nil
}
