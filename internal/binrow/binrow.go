// Package binrow encodes and decodes Paimon's BinaryRow format (paimon-common
// org.apache.paimon.data.BinaryRow and BinaryRowWriter), the form in which partition values, keys
// and statistics rows are stored in manifests.
//
// Layout of a row of arity n (little-endian, as Java writes on every supported platform):
//
//	[null bit set: ((n+63+8)/64)*8 bytes; byte 0 is the row kind, field i's null bit is bit i+8]
//	[n fixed 8-byte slots]
//	[variable part: 8-byte aligned chunks referenced from the slots as offset<<32 | size]
//
// Field values are Go values, one per field, nil meaning SQL NULL:
//
//	BOOLEAN               bool
//	TINYINT               int8
//	SMALLINT              int16
//	INT                   int32
//	BIGINT                int64
//	FLOAT                 float32
//	DOUBLE                float64
//	CHAR, VARCHAR         string (UTF-8 bytes)
//	BINARY, VARBINARY     []byte
//	DECIMAL               Decimal
//	DATE                  int32 (days since 1970-01-01)
//	TIME                  int32 (milliseconds of the day)
//	TIMESTAMP(_LTZ)       Timestamp
//	ROW                   []any (a nested row, same conventions)
//
// Encode also accepts a Go int for the integer types when it is in range. ARRAY, MAP, MULTISET,
// VECTOR, VARIANT and BLOB values are not supported.
package binrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/paimon-pkft/pkft/internal/types"
)

const (
	headerBits = 8
	// maxInlineSize is the largest string/binary stored inside its fixed slot.
	maxInlineSize = 7
	// nonCompactDecimalSize is the variable-part space Java reserves for every non-compact
	// DECIMAL, null or not.
	nonCompactDecimalSize = 16
)

// NullBitsSize returns the size in bytes of the header plus null bit set of a row of the given
// arity (Java BinaryRow#calculateBitSetWidthInBytes).
func NullBitsSize(arity int) int { return ((arity + 63 + headerBits) / 64) * 8 }

// FixedPartSize returns the size of the null bit set plus the fixed slots of a row of the given
// arity (Java BinaryRow#calculateFixPartSizeInBytes).
func FixedPartSize(arity int) int { return NullBitsSize(arity) + 8*arity }

// Encode writes values as a BinaryRow of kind INSERT for rowType, which must be a ROW type with
// one field per value. Nullability declared in the type is not enforced: Java writes nulls into
// NOT NULL columns of statistics rows.
func Encode(rowType types.DataType, values []any) ([]byte, error) {
	return EncodeWithKind(rowType, types.Insert, values)
}

// EncodeWithKind is Encode with an explicit row kind in the header byte.
func EncodeWithKind(rowType types.DataType, kind types.RowKind, values []any) ([]byte, error) {
	if rowType.Root != types.RootRow {
		return nil, fmt.Errorf("encode binary row: type %s is not a ROW", rowType.SQLString())
	}
	return encodeFields(rowType.FieldTypes(), kind, values)
}

func encodeFields(fieldTypes []types.DataType, kind types.RowKind, values []any) ([]byte, error) {
	arity := len(fieldTypes)
	if len(values) != arity {
		return nil, fmt.Errorf("encode binary row: %d values for %d fields", len(values), arity)
	}
	nullBytes := NullBitsSize(arity)
	w := &writer{buf: make([]byte, FixedPartSize(arity)), nullBytes: nullBytes}
	w.buf[0] = byte(kind)
	for i, t := range fieldTypes {
		if err := w.writeField(i, t, values[i]); err != nil {
			return nil, fmt.Errorf("encode binary row field %d (%s): %w", i, t.SQLString(), err)
		}
	}
	if len(w.buf) > math.MaxInt32 {
		return nil, errors.New("encode binary row: row larger than 2 GiB")
	}
	return w.buf, nil
}

type writer struct {
	buf       []byte
	nullBytes int
}

func (w *writer) slot(i int) []byte {
	off := w.nullBytes + 8*i
	return w.buf[off : off+8]
}

func (w *writer) setNullBit(i int) {
	idx := i + headerBits
	w.buf[idx>>3] |= 1 << (idx & 7)
}

func (w *writer) putSlot(i int, v uint64) { binary.LittleEndian.PutUint64(w.slot(i), v) }

// appendVar appends data to the variable part, zero-padded to a multiple of 8 bytes, and returns
// its offset, as writeBytesToVarLenPart does.
func (w *writer) appendVar(data []byte) int {
	off := len(w.buf)
	w.buf = append(w.buf, data...)
	if pad := (8 - len(data)%8) % 8; pad > 0 {
		w.buf = append(w.buf, make([]byte, pad)...)
	}
	return off
}

func offsetAndSize(off, size int) uint64 { return uint64(off)<<32 | uint64(uint32(size)) }

func (w *writer) writeField(i int, t types.DataType, v any) error {
	if v == nil {
		return w.writeNull(i, t)
	}
	switch t.Root {
	case types.RootBoolean:
		b, ok := v.(bool)
		if !ok {
			return typeErr(v, "bool")
		}
		if b {
			w.slot(i)[0] = 1
		}
	case types.RootTinyInt:
		n, err := intValue[int8](v, math.MinInt8, math.MaxInt8)
		if err != nil {
			return err
		}
		w.slot(i)[0] = byte(n)
	case types.RootSmallInt:
		n, err := intValue[int16](v, math.MinInt16, math.MaxInt16)
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint16(w.slot(i), uint16(n))
	case types.RootInt, types.RootDate, types.RootTime:
		n, err := intValue[int32](v, math.MinInt32, math.MaxInt32)
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(w.slot(i), uint32(n))
	case types.RootBigInt:
		n, err := intValue[int64](v, math.MinInt64, math.MaxInt64)
		if err != nil {
			return err
		}
		w.putSlot(i, uint64(n))
	case types.RootFloat:
		f, ok := v.(float32)
		if !ok {
			return typeErr(v, "float32")
		}
		binary.LittleEndian.PutUint32(w.slot(i), math.Float32bits(f))
	case types.RootDouble:
		f, ok := v.(float64)
		if !ok {
			return typeErr(v, "float64")
		}
		w.putSlot(i, math.Float64bits(f))
	case types.RootChar, types.RootVarChar:
		s, ok := v.(string)
		if !ok {
			return typeErr(v, "string")
		}
		w.writeBytes(i, []byte(s))
	case types.RootBinary, types.RootVarBinary:
		b, ok := v.([]byte)
		if !ok {
			return typeErr(v, "[]byte")
		}
		w.writeBytes(i, b)
	case types.RootDecimal:
		return w.writeDecimal(i, t, v)
	case types.RootTimestamp, types.RootTimestampLTZ:
		ts, ok := v.(Timestamp)
		if !ok {
			return typeErr(v, "binrow.Timestamp")
		}
		if ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999_999 {
			return fmt.Errorf("nano of millisecond %d out of range [0, 999999]", ts.NanoOfMilli)
		}
		if types.IsCompactTimestamp(t.Precision) {
			// Java keeps only the milliseconds at compact precisions.
			w.putSlot(i, uint64(ts.Millis))
			return nil
		}
		var millis [8]byte
		binary.LittleEndian.PutUint64(millis[:], uint64(ts.Millis))
		off := w.appendVar(millis[:])
		w.putSlot(i, offsetAndSize(off, int(ts.NanoOfMilli)))
	case types.RootRow:
		vals, ok := v.([]any)
		if !ok {
			return typeErr(v, "[]any")
		}
		nested, err := encodeFields(t.FieldTypes(), types.Insert, vals)
		if err != nil {
			return err
		}
		off := w.appendVar(nested)
		w.putSlot(i, offsetAndSize(off, len(nested)))
	default:
		return fmt.Errorf("type %s is not supported in binary rows", t.Root)
	}
	return nil
}

// writeNull follows RowHelper#copyInto: non-compact decimals and timestamps keep their reserved
// variable-part space (zeroed) and record its offset with size 0; every other type gets a zero
// slot.
func (w *writer) writeNull(i int, t types.DataType) error {
	w.setNullBit(i)
	reserve := 0
	switch t.Root {
	case types.RootDecimal:
		if !types.IsCompactDecimal(t.Precision) {
			reserve = nonCompactDecimalSize
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		if !types.IsCompactTimestamp(t.Precision) {
			reserve = 8
		}
	}
	if reserve == 0 {
		w.putSlot(i, 0)
		return nil
	}
	off := w.appendVar(make([]byte, reserve))
	w.putSlot(i, offsetAndSize(off, 0))
	return nil
}

// writeBytes stores up to 7 bytes inline (data in the low bytes of the slot, 0x80|len in the
// highest byte) and longer data in the variable part.
func (w *writer) writeBytes(i int, b []byte) {
	if len(b) <= maxInlineSize {
		s := w.slot(i)
		clear(s)
		copy(s, b)
		s[7] = 0x80 | byte(len(b))
		return
	}
	off := w.appendVar(b)
	w.putSlot(i, offsetAndSize(off, len(b)))
}

func (w *writer) writeDecimal(i int, t types.DataType, v any) error {
	d, ok := v.(Decimal)
	if !ok || d.Unscaled == nil {
		return typeErr(v, "binrow.Decimal")
	}
	if d.Scale != t.Scale {
		return fmt.Errorf("decimal scale %d does not match column scale %d", d.Scale, t.Scale)
	}
	if n := digits(d.Unscaled); n > t.Precision {
		return fmt.Errorf("decimal %s has %d digits, more than precision %d", d, n, t.Precision)
	}
	if types.IsCompactDecimal(t.Precision) {
		w.putSlot(i, uint64(d.Unscaled.Int64()))
		return nil
	}
	b := twosComplement(d.Unscaled)
	if len(b) > nonCompactDecimalSize {
		return fmt.Errorf("decimal %s needs %d bytes, more than %d", d, len(b), nonCompactDecimalSize)
	}
	region := make([]byte, nonCompactDecimalSize)
	copy(region, b)
	off := w.appendVar(region)
	w.putSlot(i, offsetAndSize(off, len(b)))
	return nil
}

type signedInt interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// intValue accepts the exact Go type T, or an int within [lo, hi].
func intValue[T signedInt](v any, lo, hi int64) (T, error) {
	switch n := v.(type) {
	case T:
		return n, nil
	case int:
		if int64(n) < lo || int64(n) > hi {
			return 0, fmt.Errorf("value %d out of range [%d, %d]", n, lo, hi)
		}
		return T(n), nil
	}
	var zero T
	return 0, typeErr(v, fmt.Sprintf("%T", zero))
}

func typeErr(v any, want string) error {
	return fmt.Errorf("value of Go type %T, want %s", v, want)
}

// Decode reads a BinaryRow of rowType (a ROW type) from data, returning one value per field with
// the Go types listed in the package documentation. Every offset and length is checked, so
// arbitrary input yields an error, never a panic. Unlike Java, which reads an over-precise
// non-compact decimal as null, Decode reports it as an error.
func Decode(rowType types.DataType, data []byte) ([]any, error) {
	if rowType.Root != types.RootRow {
		return nil, fmt.Errorf("decode binary row: type %s is not a ROW", rowType.SQLString())
	}
	vals, err := decodeFields(rowType.FieldTypes(), data, 0)
	if err != nil {
		return nil, fmt.Errorf("decode binary row: %w", err)
	}
	return vals, nil
}

// maxNesting bounds recursion through nested ROW values.
const maxNesting = 64

func decodeFields(fieldTypes []types.DataType, data []byte, depth int) ([]any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("rows nested deeper than %d", maxNesting)
	}
	arity := len(fieldTypes)
	if fixed := FixedPartSize(arity); len(data) < fixed {
		return nil, fmt.Errorf("%d bytes, shorter than the fixed part (%d bytes) of arity %d",
			len(data), fixed, arity)
	}
	nullBytes := NullBitsSize(arity)
	out := make([]any, arity)
	for i, t := range fieldTypes {
		idx := i + headerBits
		if data[idx>>3]&(1<<(idx&7)) != 0 {
			continue
		}
		slotOff := nullBytes + 8*i
		v, err := decodeField(t, data, data[slotOff:slotOff+8], depth)
		if err != nil {
			return nil, fmt.Errorf("field %d (%s): %w", i, t.SQLString(), err)
		}
		out[i] = v
	}
	return out, nil
}

func decodeField(t types.DataType, data, slot []byte, depth int) (any, error) {
	word := binary.LittleEndian.Uint64(slot)
	switch t.Root {
	case types.RootBoolean:
		return slot[0] != 0, nil
	case types.RootTinyInt:
		return int8(slot[0]), nil
	case types.RootSmallInt:
		return int16(binary.LittleEndian.Uint16(slot)), nil
	case types.RootInt, types.RootDate, types.RootTime:
		return int32(binary.LittleEndian.Uint32(slot)), nil
	case types.RootBigInt:
		return int64(word), nil
	case types.RootFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(slot)), nil
	case types.RootDouble:
		return math.Float64frombits(word), nil
	case types.RootChar, types.RootVarChar:
		b, err := readBytes(data, slot, word)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case types.RootBinary, types.RootVarBinary:
		b, err := readBytes(data, slot, word)
		if err != nil {
			return nil, err
		}
		return append([]byte{}, b...), nil
	case types.RootDecimal:
		if types.IsCompactDecimal(t.Precision) {
			return Decimal{Unscaled: big.NewInt(int64(word)), Scale: t.Scale}, nil
		}
		b, err := varRegion(data, word)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, errors.New("non-null decimal with zero-length unscaled value")
		}
		d := Decimal{Unscaled: fromTwosComplement(b), Scale: t.Scale}
		if n := digits(d.Unscaled); n > t.Precision {
			return nil, fmt.Errorf("decimal %s has %d digits, more than precision %d", d, n, t.Precision)
		}
		return d, nil
	case types.RootTimestamp, types.RootTimestampLTZ:
		if types.IsCompactTimestamp(t.Precision) {
			return Timestamp{Millis: int64(word)}, nil
		}
		off := int64(int32(word >> 32))
		nanos := int32(uint32(word))
		if nanos < 0 || nanos > 999_999 {
			return nil, fmt.Errorf("nano of millisecond %d out of range [0, 999999]", nanos)
		}
		if off < 0 || off+8 > int64(len(data)) {
			return nil, fmt.Errorf("timestamp millis at offset %d outside %d-byte row", off, len(data))
		}
		return Timestamp{Millis: int64(binary.LittleEndian.Uint64(data[off:])), NanoOfMilli: nanos}, nil
	case types.RootRow:
		b, err := varRegion(data, word)
		if err != nil {
			return nil, err
		}
		return decodeFields(t.FieldTypes(), b, depth+1)
	default:
		return nil, fmt.Errorf("type %s is not supported in binary rows", t.Root)
	}
}

// readBytes reads inline (high bit of the slot set) or variable-part string/binary data.
func readBytes(data, slot []byte, word uint64) ([]byte, error) {
	if word&(1<<63) == 0 {
		return varRegion(data, word)
	}
	n := int(slot[7] & 0x7f)
	if n > maxInlineSize {
		return nil, fmt.Errorf("inline length %d exceeds %d", n, maxInlineSize)
	}
	return slot[:n], nil
}

// varRegion returns the variable-part bytes referenced by an offset<<32|size slot, checking both
// as Java's signed int casts would see them.
func varRegion(data []byte, word uint64) ([]byte, error) {
	off := int64(int32(word >> 32))
	size := int64(int32(uint32(word)))
	if off < 0 || size < 0 || off+size > int64(len(data)) {
		return nil, fmt.Errorf("variable part [%d, +%d) outside %d-byte row", off, size, len(data))
	}
	return data[off : off+size], nil
}

// RowKindOf returns the row kind stored in the header byte of a binary row.
func RowKindOf(data []byte) (types.RowKind, error) {
	if len(data) == 0 {
		return 0, errors.New("row kind of empty binary row")
	}
	return types.RowKindFromByte(data[0])
}
