package writebuffer

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// KeyComparator orders keys serialized as binary rows of one key type (binrow.Encode) as the
// merge tree orders them (binrow.CompareKeys: field by field, nulls first, Java's orderings of
// each type — the order of Java's generated RecordComparator over the key row). Fields of fixed
// width (integers, booleans, dates and times, floats, compact decimals and timestamps) and
// strings and binaries are compared in place, as Java's comparator reads the row; a key with
// another field type is decoded. A key that does not decode sorts by its bytes and is reported by
// Err.
type KeyComparator struct {
	keyType types.DataType
	fields  []types.DataType
	// inPlace says every field is compared without decoding.
	inPlace bool
	err     error
}

// NewKeyComparator returns the comparator of keys of keyType, a ROW type.
func NewKeyComparator(keyType types.DataType) (*KeyComparator, error) {
	if keyType.Root != types.RootRow {
		return nil, fmt.Errorf("writebuffer: key type %s is not a ROW", keyType.SQLString())
	}
	c := &KeyComparator{keyType: keyType, fields: keyType.FieldTypes(), inPlace: true}
	for _, t := range c.fields {
		switch t.Root {
		case types.RootBoolean, types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootDate, types.RootTime,
			types.RootBigInt, types.RootFloat, types.RootDouble, types.RootChar, types.RootVarChar, types.RootBinary, types.RootVarBinary:
		case types.RootDecimal:
			c.inPlace = c.inPlace && types.IsCompactDecimal(t.Precision)
		case types.RootTimestamp, types.RootTimestampLTZ:
			c.inPlace = c.inPlace && types.IsCompactTimestamp(t.Precision)
		default:
			c.inPlace = false
		}
	}
	return c, nil
}

// Encode serializes key (one value per key field) as the comparator's key bytes.
func (c *KeyComparator) Encode(key []any) ([]byte, error) {
	return binrow.Encode(c.keyType, key)
}

// Decode returns the key fields of encoded key bytes.
func (c *KeyComparator) Decode(b []byte) ([]any, error) {
	return binrow.Decode(c.keyType, b)
}

// Compare orders two encoded keys (a negative number when a sorts first).
func (c *KeyComparator) Compare(a, b []byte) int {
	if c.inPlace {
		if n, ok := c.compareInPlace(a, b); ok {
			return n
		}
	}
	return c.compareDecoded(a, b)
}

// compareInPlace compares the keys field by field in their bytes; ok is false when a field's
// bytes are out of range (compareDecoded then reports the key).
func (c *KeyComparator) compareInPlace(a, b []byte) (int, bool) {
	nullBytes := binrow.NullBitsSize(len(c.fields))
	if len(a) < binrow.FixedPartSize(len(c.fields)) || len(b) < binrow.FixedPartSize(len(c.fields)) {
		return 0, false
	}
	for i, t := range c.fields {
		bit := i + 8
		nullA, nullB := a[bit>>3]&(1<<(bit&7)) != 0, b[bit>>3]&(1<<(bit&7)) != 0
		switch {
		case nullA && nullB:
			continue
		case nullA:
			return -1, true
		case nullB:
			return 1, true
		}
		off := nullBytes + 8*i
		sa, sb := a[off:off+8], b[off:off+8]
		var n int
		switch t.Root {
		case types.RootBoolean:
			n = cmp.Compare(sa[0], sb[0])
		case types.RootTinyInt:
			n = cmp.Compare(int8(sa[0]), int8(sb[0]))
		case types.RootSmallInt:
			n = cmp.Compare(int16(binary.LittleEndian.Uint16(sa)), int16(binary.LittleEndian.Uint16(sb)))
		case types.RootInt, types.RootDate, types.RootTime:
			n = cmp.Compare(int32(binary.LittleEndian.Uint32(sa)), int32(binary.LittleEndian.Uint32(sb)))
		case types.RootBigInt, types.RootDecimal, types.RootTimestamp, types.RootTimestampLTZ:
			// Compact decimals hold the unscaled value, compact timestamps the milliseconds.
			n = cmp.Compare(int64(binary.LittleEndian.Uint64(sa)), int64(binary.LittleEndian.Uint64(sb)))
		case types.RootFloat:
			n = javaCompareDouble(float64(math.Float32frombits(binary.LittleEndian.Uint32(sa))), float64(math.Float32frombits(binary.LittleEndian.Uint32(sb))))
		case types.RootDouble:
			n = javaCompareDouble(math.Float64frombits(binary.LittleEndian.Uint64(sa)), math.Float64frombits(binary.LittleEndian.Uint64(sb)))
		default: // strings and binaries
			va, okA := varBytes(a, sa)
			vb, okB := varBytes(b, sb)
			if !okA || !okB {
				return 0, false
			}
			n = bytes.Compare(va, vb)
		}
		if n != 0 {
			return n, true
		}
	}
	return 0, true
}

// varBytes is the string or binary of a field's slot in row: inline in the slot (the top bit of
// its last byte set, the length in the rest of it) or at the offset and length the slot holds.
func varBytes(row, slot []byte) ([]byte, bool) {
	word := binary.LittleEndian.Uint64(slot)
	if word&(1<<63) != 0 {
		n := int(word >> 56 & 0x7f)
		if n > 7 {
			return nil, false
		}
		return slot[:n], true
	}
	off, size := word>>32, uint64(uint32(word))
	if off+size > uint64(len(row)) {
		return nil, false
	}
	return row[off : off+size], true
}

// javaCompareDouble is Java's Double.compare: numeric order, -0.0 before 0.0, NaN after
// everything and equal to itself.
func javaCompareDouble(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	bits := func(f float64) int64 {
		if math.IsNaN(f) {
			return 0x7ff8000000000000
		}
		return int64(math.Float64bits(f))
	}
	return cmp.Compare(bits(x), bits(y))
}

// compareDecoded compares the decoded keys.
func (c *KeyComparator) compareDecoded(a, b []byte) int {
	ka, errA := binrow.Decode(c.keyType, a)
	kb, errB := binrow.Decode(c.keyType, b)
	if errA != nil || errB != nil {
		if c.err == nil {
			c.err = fmt.Errorf("writebuffer: compare keys: %w", firstErr(errA, errB))
		}
		return bytes.Compare(a, b)
	}
	return binrow.CompareKeys(ka, kb)
}

// Err is the first decoding failure of a compared key (nil: none).
func (c *KeyComparator) Err() error { return c.err }

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
