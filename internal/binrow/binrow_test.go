package binrow

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/types"
)

// hx turns "00 01 ..." (spaces and | ignored) into bytes.
func hx(t *testing.T, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func row(ts ...types.DataType) types.DataType {
	fs := make([]types.DataField, len(ts))
	for i, t := range ts {
		fs[i] = types.Field(i, "f"+string(rune('0'+i)), t)
	}
	return types.Row(fs...)
}

func dec(unscaled int64, scale int) Decimal { return DecimalFromInt64(unscaled, scale) }

func bigDec(t *testing.T, s string, scale int) Decimal {
	t.Helper()
	d, err := ParseDecimal(s, scale)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// BinaryRowTest#testBasic and #testHeaderSize: sizes of the null bit set and fixed part.
func TestSizes(t *testing.T) {
	for _, c := range []struct{ arity, fixed int }{{0, 8}, {1, 16}, {65, 536}, {128, 1048}} {
		if got := FixedPartSize(c.arity); got != c.fixed {
			t.Errorf("FixedPartSize(%d) = %d, want %d", c.arity, got, c.fixed)
		}
	}
	for _, c := range []struct{ arity, bits int }{{56, 8}, {57, 16}, {120, 16}, {121, 24}} {
		if got := NullBitsSize(c.arity); got != c.bits {
			t.Errorf("NullBitsSize(%d) = %d, want %d", c.arity, got, c.bits)
		}
	}
}

// Byte vectors derived from BinaryRowWriter / AbstractBinaryWriter / RowHelper#copyInto on a
// little-endian JVM. Each comment explains the layout.
func TestEncodeVectors(t *testing.T) {
	cases := []struct {
		name string
		rt   types.DataType
		kind types.RowKind
		vals []any
		want string
	}{
		{
			// BinaryRow.EMPTY_ROW: arity 0 still has an 8-byte header word.
			name: "empty row", rt: row(), vals: []any{},
			want: "00 00 00 00 00 00 00 00",
		},
		{
			// BinaryRowTest#testHeader: kind UPDATE_BEFORE in byte 0; field 1 null sets bit
			// 1+8 = byte 1 bit 1; writeInt fills the low 4 bytes of slot 0; setNullAt zeroes slot 1.
			name: "header and null bit", rt: row(types.Int(), types.Int()), kind: types.UpdateBefore,
			vals: []any{int32(10), nil},
			want: "01 02 00 00 00 00 00 00 | 0a 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 00",
		},
		{
			// putBoolean/put/putShort/putInt/putFloat/putLong/putDouble write native (LE) bytes
			// at the start of each slot; DATE and TIME are ints.
			name: "fixed-width types",
			rt: row(types.Boolean(), types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(),
				types.Float(), types.Double(), types.Date(), types.Time(3)),
			vals: []any{true, int8(-2), int16(-300), int32(-5), int64(1) << 40, float32(1.5), -2.0,
				int32(19000), int32(3600000)},
			want: "00 00 00 00 00 00 00 00" + // 9 fields + 8 header bits fit one 8-byte word
				"01 00 00 00 00 00 00 00" +
				"fe 00 00 00 00 00 00 00" +
				"d4 fe 00 00 00 00 00 00" +
				"fb ff ff ff 00 00 00 00" +
				"00 00 00 00 00 01 00 00" +
				"00 00 c0 3f 00 00 00 00" +
				"00 00 00 00 00 00 00 c0" +
				"38 4a 00 00 00 00 00 00" +
				"80 ee 36 00 00 00 00 00",
		},
		{
			// writeBytesToFixLenPart: <= 7 bytes inline, data in bytes 0..len-1, byte 7 = 0x80|len.
			name: "inline strings", rt: row(types.String(), types.String(), types.VarChar(10)),
			vals: []any{"", "abc", "abcdefg"},
			want: "00 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 80 | 61 62 63 00 00 00 00 83 | 61 62 63 64 65 66 67 87",
		},
		{
			// 8 bytes go to the variable part: slot = offset(16)<<32 | 8; no padding needed.
			name: "8-byte string", rt: row(types.String()), vals: []any{"abcdefgh"},
			want: "00 00 00 00 00 00 00 00 | 08 00 00 00 10 00 00 00 | 61 62 63 64 65 66 67 68",
		},
		{
			// 9 bytes: slot = 16<<32 | 9; zeroOutPaddingBytes pads the chunk to 16 bytes.
			name: "9-byte binary", rt: row(types.Bytes()), vals: []any{[]byte("abcdefghi")},
			want: "00 00 00 00 00 00 00 00 | 09 00 00 00 10 00 00 00 | 61 62 63 64 65 66 67 68 69 00 00 00 00 00 00 00",
		},
		{
			// BinaryRowTest#testDecimal (compact): DECIMAL(4, 2) 0.05 is the unscaled long 5;
			// a null compact decimal is a plain null slot.
			name: "compact decimal", rt: row(types.Decimal(4, 2), types.Decimal(4, 2)),
			vals: []any{dec(5, 2), nil},
			want: "00 02 00 00 00 00 00 00 | 05 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 00",
		},
		{
			// BinaryRowTest#testDecimal (not compact): DECIMAL(25, 5) 5.55000 has unscaled 555000,
			// BigInteger#toByteArray 08 77 f8, written at the start of a zeroed 16-byte region at
			// offset 24 (slot = 24<<32 | 3). The null decimal (RowHelper writeNulls) still reserves
			// 16 zero bytes at offset 40 and records slot = 40<<32 | 0.
			name: "non-compact decimal", rt: row(types.Decimal(25, 5), types.Decimal(25, 5)),
			vals: []any{dec(555000, 5), nil},
			want: "00 02 00 00 00 00 00 00 | 03 00 00 00 18 00 00 00 | 00 00 00 00 28 00 00 00 |" +
				"08 77 f8 00 00 00 00 00 00 00 00 00 00 00 00 00 |" +
				"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		},
		{
			// Negative unscaled -555000 is the minimal two's complement f7 88 08.
			name: "negative non-compact decimal", rt: row(types.Decimal(25, 5)),
			vals: []any{dec(-555000, 5)},
			want: "00 00 00 00 00 00 00 00 | 03 00 00 00 10 00 00 00 | f7 88 08 00 00 00 00 00 00 00 00 00 00 00 00 00",
		},
		{
			// Compact at precision 18 (unscaled long, two's complement); 19 switches to bytes:
			// -1 is the single byte ff, 128 is 00 80.
			name: "decimal precision boundary",
			rt:   row(types.Decimal(18, 0), types.Decimal(19, 0), types.Decimal(19, 0)),
			vals: []any{dec(-1, 0), dec(-1, 0), dec(128, 0)},
			want: "00 00 00 00 00 00 00 00 | ff ff ff ff ff ff ff ff | 01 00 00 00 20 00 00 00 | 02 00 00 00 30 00 00 00 |" +
				"ff 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 |" +
				"00 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		},
		{
			// BinaryRowTest#testTimestampData (compact): TIMESTAMP(3) stores epoch millis (123).
			name: "compact timestamp", rt: row(types.Timestamp(3), types.TimestampLTZ(0)),
			vals: []any{Timestamp{Millis: 123}, Timestamp{Millis: -123}},
			want: "00 00 00 00 00 00 00 00 | 7b 00 00 00 00 00 00 00 | 85 ff ff ff ff ff ff ff",
		},
		{
			// BinaryRowTest#testTimestampData (not compact): 1969-01-01T00:00:00.123456789 is
			// millis -31535999877 (8 bytes at offset 24) and nanoOfMilli 456789 = 0x6f855 in the
			// slot's low word; the null TIMESTAMP(9) reserves 8 zero bytes at offset 32. Java
			// asserts the row size is 40.
			name: "non-compact timestamp", rt: row(types.Timestamp(9), types.Timestamp(9)),
			vals: []any{Timestamp{Millis: -31535999877, NanoOfMilli: 456789}, nil},
			want: "00 02 00 00 00 00 00 00 | 55 f8 06 00 18 00 00 00 | 00 00 00 00 20 00 00 00 |" +
				"7b d4 4e a8 f8 ff ff ff | 00 00 00 00 00 00 00 00",
		},
		{
			// TIMESTAMP_LTZ(4) is not compact either.
			name: "non-compact ltz", rt: row(types.TimestampLTZ(4)),
			vals: []any{Timestamp{Millis: 1, NanoOfMilli: 100000}},
			want: "00 00 00 00 00 00 00 00 | a0 86 01 00 10 00 00 00 | 01 00 00 00 00 00 00 00",
		},
		{
			// BinaryRowTest#testNested: the nested row ("1", 1) is itself a 24-byte BinaryRow
			// written to the variable part at offset 24 (slot = 24<<32 | 24).
			name: "nested row",
			rt:   row(row(types.String(), types.Int()), types.Int()),
			vals: []any{[]any{"1", int32(1)}, nil},
			want: "00 02 00 00 00 00 00 00 | 18 00 00 00 18 00 00 00 | 00 00 00 00 00 00 00 00 |" +
				"00 00 00 00 00 00 00 00 | 31 00 00 00 00 00 00 81 | 01 00 00 00 00 00 00 00",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := EncodeWithKind(c.rt, c.kind, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			want := hx(t, c.want)
			if !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got %x\nwant %x", got, want)
			}
			back, err := Decode(c.rt, got)
			if err != nil {
				t.Fatal(err)
			}
			assertValues(t, back, c.vals)
			kind, err := RowKindOf(got)
			if err != nil || kind != c.kind {
				t.Errorf("RowKindOf = %v, %v; want %v", kind, err, c.kind)
			}
		})
	}
}

func assertValues(t *testing.T, got, want []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if !valueEqual(got[i], want[i]) {
			t.Errorf("value %d = %#v, want %#v", i, got[i], want[i])
		}
	}
}

func valueEqual(a, b any) bool {
	switch x := b.(type) {
	case Decimal:
		y, ok := a.(Decimal)
		return ok && x.Equal(y)
	case []any:
		y, ok := a.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valueEqual(y[i], x[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := a.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case float32:
		y, ok := a.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	}
	return reflect.DeepEqual(a, b)
}

// Round trips for every supported type, with nulls in every position and values at the
// inline/variable and compact/non-compact boundaries.
func TestRoundTrip(t *testing.T) {
	rt := row(types.Boolean(), types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(),
		types.Float(), types.Double(), types.Char(3), types.String(), types.Binary(2), types.Bytes(),
		types.Decimal(18, 4), types.Decimal(19, 4), types.Decimal(38, 10), types.Date(), types.Time(0),
		types.Timestamp(3), types.Timestamp(4), types.TimestampLTZ(3), types.TimestampLTZ(9),
		row(types.String().AsNotNull(), types.Decimal(30, 2)))
	full := []any{false, int8(math.MinInt8), int16(math.MaxInt16), int32(math.MinInt32), int64(math.MaxInt64),
		float32(math.Inf(-1)), math.NaN(), "abc", "héllo wörld, longer than seven", []byte{0, 1}, []byte{},
		bigDec(t, "-99999999999999.9999", 4), bigDec(t, "999999999999999.9999", 4),
		bigDec(t, "-9999999999999999999999999999.9999999999", 10), int32(-1), int32(86399999),
		Timestamp{Millis: -1}, Timestamp{Millis: math.MaxInt64, NanoOfMilli: 999999}, Timestamp{Millis: 7},
		Timestamp{Millis: math.MinInt64, NanoOfMilli: 1}, []any{"k", bigDec(t, "-0.01", 2)}}
	if len(full) != rt.FieldCount() {
		t.Fatal("test setup")
	}
	rows := [][]any{full}
	for i := range full {
		r := append([]any{}, full...)
		r[i] = nil
		rows = append(rows, r)
	}
	allNull := make([]any, len(full))
	rows = append(rows, allNull)
	for ri, vals := range rows {
		enc, err := Encode(rt, vals)
		if err != nil {
			t.Fatalf("row %d: %v", ri, err)
		}
		if len(enc)%8 != 0 {
			t.Errorf("row %d: size %d not 8-byte aligned", ri, len(enc))
		}
		got, err := Decode(rt, enc)
		if err != nil {
			t.Fatalf("row %d: %v", ri, err)
		}
		assertValues(t, got, vals)
		r := BinaryRow{Arity: rt.FieldCount(), Data: enc}
		back, err := DeserializeBinaryRow(r.Serialize())
		if err != nil || back.Arity != r.Arity || !bytes.Equal(back.Data, enc) {
			t.Errorf("row %d: serialize round trip failed: %v", ri, err)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		name string
		rt   types.DataType
		vals []any
		msg  string
	}{
		{"not a row", types.Int(), []any{int32(1)}, "not a ROW"},
		{"arity", row(types.Int()), []any{}, "0 values for 1 fields"},
		{"wrong go type", row(types.Int()), []any{int64(1)}, "want int32"},
		{"int range", row(types.TinyInt()), []any{300}, "out of range"},
		{"scale", row(types.Decimal(10, 2)), []any{dec(1, 3)}, "scale"},
		{"precision", row(types.Decimal(3, 0)), []any{dec(1000, 0)}, "precision"},
		{"nanos", row(types.Timestamp(9)), []any{Timestamp{NanoOfMilli: 1000000}}, "out of range"},
		{"array", row(types.Array(types.Int())), []any{[]any{}}, "not supported"},
	}
	for _, c := range cases {
		_, err := Encode(c.rt, c.vals)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want containing %q", c.name, err, c.msg)
		}
	}
	// Go ints are accepted for integer columns when in range.
	got, err := Encode(row(types.SmallInt(), types.BigInt()), []any{-1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := hx(t, "00 00 00 00 00 00 00 00 | ff ff 00 00 00 00 00 00 | 02 00 00 00 00 00 00 00")
	if !bytes.Equal(got, want) {
		t.Errorf("got %x want %x", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		rt   types.DataType
		data string
		msg  string
	}{
		{"short", row(types.Int()), "00 00 00 00 00 00 00 00 | 01 00 00", "shorter than the fixed part"},
		{"string offset", row(types.String()), "00 00 00 00 00 00 00 00 | 08 00 00 00 10 00 00 00 | 61 62", "outside"},
		{"negative offset", row(types.Decimal(20, 0)), "00 00 00 00 00 00 00 00 | 01 00 00 00 00 00 00 f0", "outside"},
		{"negative size", row(types.Bytes()), "00 00 00 00 00 00 00 00 | ff ff ff ff 10 00 00 00", "outside"},
		{"inline length", row(types.String()), "00 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 88", "inline length"},
		{"decimal empty", row(types.Decimal(20, 0)), "00 00 00 00 00 00 00 00 | 00 00 00 00 10 00 00 00 | 00 00 00 00 00 00 00 00", "zero-length"},
		{"decimal overflow", row(types.Decimal(20, 0)), "00 00 00 00 00 00 00 00 | 09 00 00 00 10 00 00 00 | 7f ff ff ff ff ff ff ff ff 00 00 00 00 00 00 00", "precision"},
		{"timestamp offset", row(types.Timestamp(6)), "00 00 00 00 00 00 00 00 | 00 00 00 00 14 00 00 00 | 00 00 00 00 00 00 00 00", "outside"},
		{"timestamp nanos", row(types.Timestamp(6)), "00 00 00 00 00 00 00 00 | 40 42 0f 00 10 00 00 00 | 00 00 00 00 00 00 00 00", "out of range"},
		{"nested short", row(row(types.Int())), "00 00 00 00 00 00 00 00 | 08 00 00 00 10 00 00 00 | 00 00 00 00 00 00 00 00", "shorter"},
		{"unsupported", row(types.Map(types.Int(), types.Int())), "00 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 00", "not supported"},
	}
	for _, c := range cases {
		_, err := Decode(c.rt, hx(t, c.data))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want containing %q", c.name, err, c.msg)
		}
	}
	if _, err := RowKindOf([]byte{9}); err == nil {
		t.Error("RowKindOf accepted byte 9")
	}
}

// FixedBucketRowKeyExtractorTest#testBucket: INT rows (5), (5, 6) and (5, 6, 7) fall into
// buckets 96, 27 and 40 of 100 under DefaultBucketFunction (|BinaryRow#hashCode % 100|).
func TestBucketJavaVectors(t *testing.T) {
	cases := []struct {
		vals   []any
		bucket int
	}{
		{[]any{int32(5)}, 96},
		{[]any{int32(5), int32(6)}, 27},
		{[]any{int32(5), int32(6), int32(7)}, 40},
	}
	for _, c := range cases {
		ts := make([]types.DataType, len(c.vals))
		for i := range ts {
			ts[i] = types.Int()
		}
		enc, err := Encode(row(ts...), c.vals)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Bucket(enc, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.bucket {
			t.Errorf("bucket of %v = %d, want %d (hash %d)", c.vals, got, c.bucket, HashCode(enc))
		}
		byWords, err := HashBytesByWords(enc)
		if err != nil || byWords != HashCode(enc) {
			t.Errorf("HashBytesByWords = %d, %v; want %d", byWords, err, HashCode(enc))
		}
	}
	if _, err := Bucket(nil, 0); err == nil {
		t.Error("Bucket accepted 0 buckets")
	}
	if _, err := HashBytesByWords([]byte{1, 2, 3}); err == nil {
		t.Error("HashBytesByWords accepted unaligned length")
	}
}

// The tail loop of MurmurHashUtils#hashBytes mixes each trailing byte sign-extended. Expected
// values come from an independent Murmur3 x86_32 computation (seed 42) that sign-extends tail
// bytes one at a time.
func TestHashCodeTail(t *testing.T) {
	cases := []struct {
		data []byte
		want int32
	}{
		{[]byte{}, murmurRef(nil)},
		{[]byte{0x80}, murmurRef([]byte{0x80})},
		{[]byte{1, 2, 3, 4, 0xff, 0x7f}, murmurRef([]byte{1, 2, 3, 4, 0xff, 0x7f})},
	}
	for _, c := range cases {
		if got := HashCode(c.data); got != c.want {
			t.Errorf("HashCode(%x) = %d, want %d", c.data, got, c.want)
		}
	}
	// Sign extension matters: 0x80 and 0x80 zero-extended must differ.
	if HashCode([]byte{0x80}) == murmurZeroExtended([]byte{0x80}) {
		t.Error("tail byte not sign-extended")
	}
}

// murmurRef is a straightforward Murmur3 x86_32 with Java's signed tail handling, written
// separately from the production code with plain int64 arithmetic.
func murmurRef(data []byte) int32 { return murmurGeneric(data, true) }

func murmurZeroExtended(data []byte) int32 { return murmurGeneric(data, false) }

func murmurGeneric(data []byte, signed bool) int32 {
	const mask = 0xffffffff
	rotl := func(x uint64, r uint) uint64 { return ((x << r) | (x >> (32 - r))) & mask }
	mixK := func(k uint64) uint64 {
		k = (k * 0xcc9e2d51) & mask
		k = rotl(k, 15)
		return (k * 0x1b873593) & mask
	}
	mixH := func(h, k uint64) uint64 {
		h ^= k
		h = rotl(h, 13)
		return (h*5 + 0xe6546b64) & mask
	}
	h := uint64(42)
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24
		h = mixH(h, mixK(k))
	}
	for i := n; i < len(data); i++ {
		k := uint64(data[i])
		if signed && data[i]&0x80 != 0 {
			k |= 0xffffff00
		}
		h = mixH(h, mixK(k))
	}
	h ^= uint64(len(data))
	h ^= h >> 16
	h = (h * 0x85ebca6b) & mask
	h ^= h >> 13
	h = (h * 0xc2b2ae35) & mask
	h ^= h >> 16
	return int32(uint32(h))
}

// FixedBucketRowKeyExtractorTest#testUnCompactDecimalAndTimestampNullValueBucketNumber: null
// non-compact decimals and timestamps keep their reserved region, so the bucket-key bytes (and
// hash) include it.
func TestNullNonCompactHashIncludesReservedRegion(t *testing.T) {
	enc, err := Encode(row(types.Decimal(38, 18)), []any{nil})
	if err != nil {
		t.Fatal(err)
	}
	// field 0's null bit is bit 8: byte 1, bit 0.
	want := hx(t, "00 01 00 00 00 00 00 00 | 00 00 00 00 10 00 00 00 | 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")
	if !bytes.Equal(enc, want) {
		t.Fatalf("got %x want %x", enc, want)
	}
	if HashCode(enc) == HashCode(want[:16]) {
		t.Error("hash ignores reserved region")
	}
}

// SerializationUtils#serializeBinaryRow: big-endian arity, then the row bytes.
func TestSerialize(t *testing.T) {
	e := EmptyRow()
	if got, want := e.Serialize(), hx(t, "00 00 00 00 | 00 00 00 00 00 00 00 00"); !bytes.Equal(got, want) {
		t.Errorf("empty row serialized %x, want %x", got, want)
	}
	r, err := NewBinaryRow(row(types.Int()), []any{int32(5)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Serialize(), hx(t, "00 00 00 01 | 00 00 00 00 00 00 00 00 | 05 00 00 00 00 00 00 00"); !bytes.Equal(got, want) {
		t.Errorf("serialized %x, want %x", got, want)
	}
	if r.HashCode() != HashCode(r.Data) {
		t.Error("BinaryRow.HashCode differs from HashCode")
	}
	for _, bad := range []string{"", "00 00 01", "ff ff ff ff", "00 00 00 01 | 00 00 00 00 00 00 00 00", "7f ff ff ff | 00"} {
		if _, err := DeserializeBinaryRow(hx(t, bad)); err == nil {
			t.Errorf("DeserializeBinaryRow(%s) accepted", bad)
		}
	}
	if _, err := r.Decode(row(types.Int(), types.Int())); err == nil {
		t.Error("arity mismatch accepted")
	}
}

func TestSimpleStats(t *testing.T) {
	st := row(types.Int(), types.String())
	lo, _ := NewBinaryRow(st, []any{int32(1), "a"})
	hi, _ := NewBinaryRow(st, []any{int32(9), "this is long"})
	one := int64(1)
	s, err := SimpleStatsFromSerialized(lo.Serialize(), hi.Serialize(), []*int64{nil, &one})
	if err != nil {
		t.Fatal(err)
	}
	if s.IsEmpty() {
		t.Error("non-empty stats reported empty")
	}
	minV, err := s.DecodeMin(st)
	if err != nil {
		t.Fatal(err)
	}
	maxV, err := s.DecodeMax(st)
	if err != nil {
		t.Fatal(err)
	}
	assertValues(t, minV, []any{int32(1), "a"})
	assertValues(t, maxV, []any{int32(9), "this is long"})
	if !bytes.Equal(s.SerializedMin(), lo.Serialize()) || !bytes.Equal(s.SerializedMax(), hi.Serialize()) {
		t.Error("serialized stats differ")
	}
	e := EmptyStats()
	if !e.IsEmpty() {
		t.Error("EmptyStats not empty")
	}
	e2, err := SimpleStatsFromSerialized(e.SerializedMin(), e.SerializedMax(), nil)
	if err != nil || !e2.IsEmpty() {
		t.Errorf("empty stats round trip: %v", err)
	}
	if _, err := SimpleStatsFromSerialized([]byte{1}, e.SerializedMax(), nil); err == nil {
		t.Error("bad min accepted")
	}
	if _, err := s.DecodeMin(row(types.Int())); err == nil {
		t.Error("wrong stats type accepted")
	}
}

func TestDecimalHelpers(t *testing.T) {
	cases := []struct {
		s     string
		scale int
		str   string
		bytes string
	}{
		{"5.55", 5, "5.55000", "08 77 f8"},
		{"-5.55", 5, "-5.55000", "f7 88 08"},
		{"0", 2, "0.00", "00"},
		{"-0.05", 2, "-0.05", "fb"},
		{"127", 0, "127", "7f"},
		{"128", 0, "128", "00 80"},
		{"-128", 0, "-128", "80"},
		{"-129", 0, "-129", "ff 7f"},
		{"99999999999999999999999999999999999999", 0, "99999999999999999999999999999999999999", "4b 3b 4c a8 5a 86 c4 7a 09 8a 22 3f ff ff ff ff"},
	}
	for _, c := range cases {
		d := bigDec(t, c.s, c.scale)
		if d.String() != c.str {
			t.Errorf("String(%s) = %s, want %s", c.s, d.String(), c.str)
		}
		b := twosComplement(d.Unscaled)
		if want := hx(t, c.bytes); !bytes.Equal(b, want) {
			t.Errorf("toByteArray(%s) = %x, want %x", c.s, b, want)
		}
		if fromTwosComplement(b).Cmp(d.Unscaled) != 0 {
			t.Errorf("fromTwosComplement(%x) != %s", b, d.Unscaled)
		}
	}
	for _, bad := range []string{"", "-", "1.234", "abc", "1-2", "--1"} {
		if _, err := ParseDecimal(bad, 2); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", bad)
		}
	}
	if !(Decimal{}).Equal(Decimal{}) || dec(1, 0).Equal(dec(1, 1)) || !dec(1, 0).Equal(Decimal{Unscaled: big.NewInt(1)}) {
		t.Error("Decimal.Equal")
	}
}
