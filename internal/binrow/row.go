package binrow

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/paimon-pkft/pkft/internal/types"
)

// BinaryRow is an encoded row together with its arity, which the bytes alone do not record.
// It is the unit Java stores for partitions, keys and statistics.
type BinaryRow struct {
	Arity int
	Data  []byte
}

// EmptyRow returns Java's BinaryRow.EMPTY_ROW: arity 0, eight zero bytes (kind INSERT, empty
// null bit set). Non-partitioned tables use it as their partition.
func EmptyRow() BinaryRow { return BinaryRow{Arity: 0, Data: make([]byte, FixedPartSize(0))} }

// NewBinaryRow encodes values for rowType into a BinaryRow.
func NewBinaryRow(rowType types.DataType, values []any) (BinaryRow, error) {
	data, err := Encode(rowType, values)
	if err != nil {
		return BinaryRow{}, err
	}
	return BinaryRow{Arity: rowType.FieldCount(), Data: data}, nil
}

// Decode decodes the row's values for rowType, whose field count must equal the arity.
func (r BinaryRow) Decode(rowType types.DataType) ([]any, error) {
	if rowType.FieldCount() != r.Arity {
		return nil, fmt.Errorf("decode binary row: arity %d but row type has %d fields",
			r.Arity, rowType.FieldCount())
	}
	return Decode(rowType, r.Data)
}

// HashCode returns Java's BinaryRow#hashCode for the row bytes.
func (r BinaryRow) HashCode() int32 { return HashCode(r.Data) }

// Serialize returns the byte[] form of SerializationUtils#serializeBinaryRow, used for
// partitions and statistics in manifests: the arity as a big-endian int followed by the row
// bytes.
func (r BinaryRow) Serialize() []byte {
	out := make([]byte, 4+len(r.Data))
	binary.BigEndian.PutUint32(out, uint32(int32(r.Arity)))
	copy(out[4:], r.Data)
	return out
}

// DeserializeBinaryRow parses the form written by Serialize (SerializationUtils
// #deserializeBinaryRow). Unlike Java it also rejects a negative arity and data shorter than the
// arity's fixed part, which no Java writer produces.
func DeserializeBinaryRow(b []byte) (BinaryRow, error) {
	if len(b) < 4 {
		return BinaryRow{}, fmt.Errorf("deserialize binary row: %d bytes, need at least 4", len(b))
	}
	arity := int(int32(binary.BigEndian.Uint32(b)))
	if arity < 0 {
		return BinaryRow{}, fmt.Errorf("deserialize binary row: negative arity %d", arity)
	}
	data := b[4:]
	if len(data) < FixedPartSize(arity) {
		return BinaryRow{}, fmt.Errorf("deserialize binary row: %d data bytes, shorter than the fixed part of arity %d",
			len(data), arity)
	}
	return BinaryRow{Arity: arity, Data: append([]byte{}, data...)}, nil
}

// HashCode returns Java's BinaryRow#hashCode over encoded row bytes: MurmurHashUtils#hashBytes
// (Murmur3 x86 32-bit, seed 42, little-endian 4-byte words, trailing bytes mixed one at a time
// as sign-extended values).
func HashCode(data []byte) int32 {
	n := len(data)
	aligned := n - n%4
	h := hashWords(data[:aligned], murmurSeed)
	for i := aligned; i < n; i++ {
		h = mixH1(h, mixK1(uint32(int32(int8(data[i])))))
	}
	return int32(fmix(h, uint32(n)))
}

// HashBytesByWords returns MurmurHashUtils#hashBytesByWords: the same hash for data whose length
// is a multiple of 4; it rejects other lengths, which Java only asserts against.
func HashBytesByWords(data []byte) (int32, error) {
	if len(data)%4 != 0 {
		return 0, fmt.Errorf("hash by words: length %d is not a multiple of 4", len(data))
	}
	return int32(fmix(hashWords(data, murmurSeed), uint32(len(data)))), nil
}

// Bucket returns the bucket DefaultBucketFunction assigns to an encoded bucket-key row:
// |hashCode % numBuckets|.
func Bucket(keyRow []byte, numBuckets int) (int, error) {
	if numBuckets <= 0 {
		return 0, fmt.Errorf("bucket: number of buckets %d must be positive", numBuckets)
	}
	b := int(HashCode(keyRow)) % numBuckets
	if b < 0 {
		b = -b
	}
	return b, nil
}

const (
	murmurSeed = 42
	murmurC1   = 0xcc9e2d51
	murmurC2   = 0x1b873593
)

func hashWords(data []byte, seed uint32) uint32 {
	h := seed
	for i := 0; i+4 <= len(data); i += 4 {
		h = mixH1(h, mixK1(binary.LittleEndian.Uint32(data[i:])))
	}
	return h
}

func mixK1(k uint32) uint32 {
	k *= murmurC1
	k = bits.RotateLeft32(k, 15)
	return k * murmurC2
}

func mixH1(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

func fmix(h, length uint32) uint32 {
	h ^= length
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
