// Package sortkey serializes and orders the keys of Paimon's sorted global indexes (btree and
// bitmap) as Java's org.apache.paimon.globalindex.KeySerializer does: one serializer per column
// type, keys as the Go values internal/binrow decodes (int8, int16, int32, int64, bool, float32,
// float64, string, binrow.Decimal, binrow.Timestamp).
package sortkey

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Serializer encodes, decodes and compares the non-null keys of one column type.
type Serializer struct {
	typ  types.DataType
	kind kind
}

type kind uint8

const (
	kindString kind = iota + 1
	kindTinyInt
	kindSmallInt
	kindInt
	kindBigInt
	kindBoolean
	kindFloat
	kindDouble
	kindDecimal
	kindTimestamp
)

// New returns the serializer of column type t, or an error naming the type when Paimon's global
// index does not support it (Java throws UnsupportedOperationException for those).
func New(t types.DataType) (*Serializer, error) {
	var k kind
	switch t.Root {
	case types.RootChar, types.RootVarChar:
		k = kindString
	case types.RootTinyInt:
		k = kindTinyInt
	case types.RootSmallInt:
		k = kindSmallInt
	case types.RootInt, types.RootDate, types.RootTime:
		k = kindInt
	case types.RootBigInt:
		k = kindBigInt
	case types.RootBoolean:
		k = kindBoolean
	case types.RootFloat:
		k = kindFloat
	case types.RootDouble:
		k = kindDouble
	case types.RootDecimal:
		k = kindDecimal
	case types.RootTimestamp, types.RootTimestampLTZ:
		k = kindTimestamp
	default:
		// Java's KeySerializer#create message, the type as DataType#toString prints it.
		return nil, fmt.Errorf("DataType: %s is not supported by global index now.", t.SQLString())
	}
	return &Serializer{typ: t, kind: k}, nil
}

// Type returns the column type this serializer was made for.
func (s *Serializer) Type() types.DataType { return s.typ }

func (s *Serializer) decimalCompact() bool { return s.typ.Precision <= 18 }

func (s *Serializer) timestampCompact() bool { return s.typ.Precision <= 3 }

// Encode returns the serialized bytes of the non-null key v (little-endian fixed-width numbers,
// UTF-8 strings, decimals as an unscaled long up to precision 18 and two's-complement bytes
// above, timestamps as epoch millis plus a var-length nano-of-milli above precision 3).
func (s *Serializer) Encode(v any) ([]byte, error) {
	wrong := func() ([]byte, error) {
		return nil, fmt.Errorf("sorted global index: key %v (%T) is not a %s value", v, v, s.typ.Root)
	}
	switch s.kind {
	case kindString:
		x, ok := v.(string)
		if !ok {
			return wrong()
		}
		return []byte(x), nil
	case kindTinyInt:
		x, ok := v.(int8)
		if !ok {
			return wrong()
		}
		return []byte{byte(x)}, nil
	case kindSmallInt:
		x, ok := v.(int16)
		if !ok {
			return wrong()
		}
		return binary.LittleEndian.AppendUint16(nil, uint16(x)), nil
	case kindInt:
		x, ok := v.(int32)
		if !ok {
			return wrong()
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(x)), nil
	case kindBigInt:
		x, ok := v.(int64)
		if !ok {
			return wrong()
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(x)), nil
	case kindBoolean:
		x, ok := v.(bool)
		if !ok {
			return wrong()
		}
		if x {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case kindFloat:
		x, ok := v.(float32)
		if !ok {
			return wrong()
		}
		return binary.LittleEndian.AppendUint32(nil, javaFloatBits(x)), nil
	case kindDouble:
		x, ok := v.(float64)
		if !ok {
			return wrong()
		}
		return binary.LittleEndian.AppendUint64(nil, javaDoubleBits(x)), nil
	case kindDecimal:
		x, ok := v.(binrow.Decimal)
		if !ok || x.Unscaled == nil {
			return wrong()
		}
		if x.Scale != s.typ.Scale {
			return nil, fmt.Errorf("sorted global index: decimal %s has scale %d, the column %d", x, x.Scale, s.typ.Scale)
		}
		if s.decimalCompact() {
			if !x.Unscaled.IsInt64() {
				return nil, fmt.Errorf("sorted global index: decimal %s exceeds precision %d", x, s.typ.Precision)
			}
			return binary.LittleEndian.AppendUint64(nil, uint64(x.Unscaled.Int64())), nil
		}
		return x.UnscaledBytes(), nil
	case kindTimestamp:
		x, ok := v.(binrow.Timestamp)
		if !ok {
			return wrong()
		}
		out := binary.LittleEndian.AppendUint64(nil, uint64(x.Millis))
		if s.timestampCompact() {
			return out, nil
		}
		if x.NanoOfMilli < 0 || x.NanoOfMilli > 999_999 {
			return nil, fmt.Errorf("sorted global index: timestamp nano-of-milli %d out of range", x.NanoOfMilli)
		}
		return binary.AppendUvarint(out, uint64(x.NanoOfMilli)), nil
	}
	return wrong()
}

// Decode returns the key serialized in b. Unlike Java, which reads past nothing but also checks
// nothing, it requires b to be exactly one key of the column's type.
func (s *Serializer) Decode(b []byte) (any, error) {
	need := func(n int) error {
		if len(b) != n {
			return fmt.Errorf("sorted global index: %s key of %d bytes, want %d", s.typ.Root, len(b), n)
		}
		return nil
	}
	switch s.kind {
	case kindString:
		return string(b), nil
	case kindTinyInt:
		if err := need(1); err != nil {
			return nil, err
		}
		return int8(b[0]), nil
	case kindSmallInt:
		if err := need(2); err != nil {
			return nil, err
		}
		return int16(binary.LittleEndian.Uint16(b)), nil
	case kindInt:
		if err := need(4); err != nil {
			return nil, err
		}
		return int32(binary.LittleEndian.Uint32(b)), nil
	case kindBigInt:
		if err := need(8); err != nil {
			return nil, err
		}
		return int64(binary.LittleEndian.Uint64(b)), nil
	case kindBoolean:
		if err := need(1); err != nil {
			return nil, err
		}
		return b[0] == 1, nil
	case kindFloat:
		if err := need(4); err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case kindDouble:
		if err := need(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case kindDecimal:
		if s.decimalCompact() {
			if err := need(8); err != nil {
				return nil, err
			}
			return binrow.DecimalFromInt64(int64(binary.LittleEndian.Uint64(b)), s.typ.Scale), nil
		}
		if len(b) == 0 {
			return nil, fmt.Errorf("sorted global index: empty DECIMAL(%d, %d) key", s.typ.Precision, s.typ.Scale)
		}
		return binrow.DecimalFromUnscaledBytes(b, s.typ.Scale), nil
	case kindTimestamp:
		if s.timestampCompact() {
			if err := need(8); err != nil {
				return nil, err
			}
			return binrow.Timestamp{Millis: int64(binary.LittleEndian.Uint64(b))}, nil
		}
		if len(b) < 9 {
			return nil, fmt.Errorf("sorted global index: %s key of %d bytes, want at least 9", s.typ.Root, len(b))
		}
		nanos, n := uvarint32(b[8:])
		if n <= 0 || 8+n != len(b) {
			return nil, fmt.Errorf("sorted global index: malformed nano-of-milli in %s key", s.typ.Root)
		}
		return binrow.Timestamp{Millis: int64(binary.LittleEndian.Uint64(b)), NanoOfMilli: int32(nanos)}, nil
	}
	return nil, fmt.Errorf("sorted global index: unsupported key kind")
}

// Compare orders two non-null keys of this serializer's type as Java's comparator of the
// deserialized values does (strings by unsigned bytes, floats as Float.compare/Double.compare).
func (s *Serializer) Compare(a, b any) int { return binrow.CompareValues(a, b) }

// CompareNullsFirst orders two keys of which either may be nil (null), nulls first, as Paimon's
// sort buffer orders an index column.
func (s *Serializer) CompareNullsFirst(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return s.Compare(a, b)
}

// uvarint32 decodes Paimon's var-length int (7 bits per byte, low first, at most 5 bytes); it
// returns n <= 0 for malformed input.
func uvarint32(b []byte) (uint32, int) {
	var v uint32
	for i := 0; i < 5 && i < len(b); i++ {
		v |= uint32(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if int32(v) < 0 {
				return 0, -1
			}
			return v, i + 1
		}
	}
	return 0, -1
}

// javaFloatBits is Float.floatToIntBits: every NaN becomes the canonical 0x7fc00000.
func javaFloatBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

// javaDoubleBits is Double.doubleToLongBits: every NaN becomes the canonical 0x7ff8000000000000.
func javaDoubleBits(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}
