// Package dv reads and writes Paimon 2.0.0 deletion vectors and their index
// files (index type DELETION_VECTORS).
//
// A deletion-vector index file is one version byte (1) followed by one block
// per data file. Every block is
//
//	int32 big-endian  length L of the bitmap data
//	L bytes           bitmap data: a 4-byte magic number, then the bitmap
//	int32 big-endian  CRC-32 of the L bytes of bitmap data
//
// Two variants exist (Java BitmapDeletionVector and Bitmap64DeletionVector):
//
//   - 32-bit: big-endian magic 1581511376, then a RoaringBitmap in the
//     portable format. Its recorded range length is L (magic + bitmap).
//   - 64-bit: little-endian magic 1681511377, then OptimizedRoaringBitmap64
//     in the portable Roaring64 format (little-endian uint64 bitmap count,
//     then per 32-bit key ascending: little-endian uint32 key and a portable
//     RoaringBitmap). Java writes one bitmap for every key from 0 to the
//     largest, empty ones included. Its recorded range length is L + 8 (the
//     whole block).
//
// The table option deletion-vectors.bitmap64 chooses the variant a writer
// uses; readers accept both.
package dv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"iter"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// IndexType is the index type of deletion-vector index files.
const IndexType = "DELETION_VECTORS"

// VersionV1 is the version byte at the start of a deletion-vector index file.
const VersionV1 byte = 1

// Magic numbers of the two bitmap variants.
const (
	Bitmap32Magic int32 = 1581511376
	Bitmap64Magic int32 = 1681511377
)

// Position limits of the two variants (RoaringBitmap32.MAX_VALUE and
// OptimizedRoaringBitmap64.MAX_VALUE).
const (
	MaxPosition32 int64 = math.MaxInt32
	MaxPosition64 int64 = (math.MaxInt32-1)<<32 | 0x80000000
)

// ErrTooLarge reports a deletion vector whose serialized block would exceed
// the 2 GB Java can address.
var ErrTooLarge = errors.New("deletion vector: serialized bitmap exceeds 2 GB")

// blockOverhead is the length prefix plus the trailing CRC.
const blockOverhead = 8

// DeletionVector records the deleted row positions of one data file.
type DeletionVector interface {
	// Delete marks a row position deleted; positions outside the variant's
	// range are an error.
	Delete(pos int64) error
	// IsDeleted reports whether a row position is deleted.
	IsDeleted(pos int64) bool
	// Cardinality is the number of deleted positions.
	Cardinality() int64
	// IsEmpty reports whether no position is deleted.
	IsEmpty() bool
	// Positions yields the deleted positions in ascending order.
	Positions() iter.Seq[int64]
	// Is64 reports whether this is the 64-bit variant.
	Is64() bool
	// appendBlock appends the serialized block and returns the range length
	// Paimon records for it.
	appendBlock(dst []byte) ([]byte, int64, error)
}

// New returns an empty deletion vector of the 64-bit variant when bitmap64
// is true (table option deletion-vectors.bitmap64), of the 32-bit one
// otherwise.
func New(bitmap64 bool) DeletionVector {
	if bitmap64 {
		return NewBitmap64()
	}
	return NewBitmap32()
}

// Bitmap32 is the 32-bit deletion vector (Java BitmapDeletionVector). It
// holds positions 0..MaxPosition32.
type Bitmap32 struct{ bm *roaring.Bitmap }

// NewBitmap32 returns an empty 32-bit deletion vector.
func NewBitmap32() *Bitmap32 { return &Bitmap32{bm: roaring.New()} }

// Bitmap exposes the underlying bitmap, e.g. as a row filter. Callers must
// not modify it.
func (d *Bitmap32) Bitmap() *roaring.Bitmap { return d.bm }

// Delete marks pos deleted.
func (d *Bitmap32) Delete(pos int64) error {
	if pos < 0 || pos > MaxPosition32 {
		return fmt.Errorf("deletion vector: position %d out of range [0, %d] of a 32-bit deletion vector", pos, MaxPosition32)
	}
	d.bm.Add(uint32(pos))
	return nil
}

// IsDeleted reports whether pos is deleted.
func (d *Bitmap32) IsDeleted(pos int64) bool {
	return pos >= 0 && pos <= math.MaxUint32 && d.bm.Contains(uint32(pos))
}

// Cardinality is the number of deleted positions.
func (d *Bitmap32) Cardinality() int64 { return int64(d.bm.GetCardinality()) }

// IsEmpty reports whether nothing is deleted.
func (d *Bitmap32) IsEmpty() bool { return d.bm.IsEmpty() }

// Is64 is false.
func (d *Bitmap32) Is64() bool { return false }

// Positions yields the deleted positions in ascending order.
func (d *Bitmap32) Positions() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for v := range roaring.Values(d.bm) {
			if !yield(int64(v)) {
				return
			}
		}
	}
}

func (d *Bitmap32) appendBlock(dst []byte) ([]byte, int64, error) {
	d.bm.RunOptimize()
	size := 4 + d.bm.GetSerializedSizeInBytes()
	if size+blockOverhead > math.MaxInt32 {
		return dst, 0, ErrTooLarge
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	dst = binary.BigEndian.AppendUint32(dst, uint32(Bitmap32Magic))
	buf := bytes.NewBuffer(dst)
	if _, err := d.bm.WriteTo(buf); err != nil {
		return dst, 0, fmt.Errorf("deletion vector: serialize bitmap: %w", err)
	}
	dst = buf.Bytes()
	if uint64(len(dst)-start-4) != size {
		return dst, 0, fmt.Errorf("deletion vector: bitmap serialized to %d bytes, expected %d", len(dst)-start-4, size)
	}
	dst = binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start+4:]))
	// Java's BitmapDeletionVector.serializeTo returns the size of magic +
	// bitmap, and that is what DeletionFileWriter records as the length.
	return dst, int64(size), nil
}

// Bitmap64 is the 64-bit deletion vector (Java Bitmap64DeletionVector). It
// holds positions 0..MaxPosition64.
type Bitmap64 struct{ bm *roaring64.Bitmap }

// NewBitmap64 returns an empty 64-bit deletion vector.
func NewBitmap64() *Bitmap64 { return &Bitmap64{bm: roaring64.New()} }

// Bitmap exposes the underlying bitmap, e.g. as a row filter. Callers must
// not modify it.
func (d *Bitmap64) Bitmap() *roaring64.Bitmap { return d.bm }

// Delete marks pos deleted.
func (d *Bitmap64) Delete(pos int64) error {
	if pos < 0 || pos > MaxPosition64 {
		return fmt.Errorf("deletion vector: position %d out of range [0, %d] of a 64-bit deletion vector", pos, MaxPosition64)
	}
	d.bm.Add(uint64(pos))
	return nil
}

// IsDeleted reports whether pos is deleted.
func (d *Bitmap64) IsDeleted(pos int64) bool { return pos >= 0 && d.bm.Contains(uint64(pos)) }

// Cardinality is the number of deleted positions.
func (d *Bitmap64) Cardinality() int64 { return int64(d.bm.GetCardinality()) }

// IsEmpty reports whether nothing is deleted.
func (d *Bitmap64) IsEmpty() bool { return d.bm.IsEmpty() }

// Is64 is true.
func (d *Bitmap64) Is64() bool { return true }

// Positions yields the deleted positions in ascending order.
func (d *Bitmap64) Positions() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for v := range roaring64.Values(d.bm) {
			if !yield(int64(v)) {
				return
			}
		}
	}
}

// emptyRoaring is the portable serialization of an empty RoaringBitmap.
var emptyRoaring = []byte{0x3a, 0x30, 0, 0, 0, 0, 0, 0}

// appendBlock writes Java's layout: OptimizedRoaringBitmap64 keeps a dense
// array of 32-bit bitmaps from key 0 to the largest key and serializes every
// one of them, empty ones included (4-byte key + 8-byte empty bitmap). The
// non-empty ones are taken from roaring64's own portable serialization, so
// the work is proportional to the serialized size, not to the cardinality.
func (d *Bitmap64) appendBlock(dst []byte) ([]byte, int64, error) {
	var count uint64
	if !d.bm.IsEmpty() {
		count = d.bm.Maximum()>>32 + 1
	}
	// Every one of the count entries takes at least a key and an empty
	// bitmap: refuse early what cannot fit, before building anything.
	if 4+8+count*(4+uint64(len(emptyRoaring)))+blockOverhead > math.MaxInt32 {
		return dst, 0, ErrTooLarge
	}
	d.bm.RunOptimize()
	var sb bytes.Buffer
	if _, err := d.bm.WriteTo(&sb); err != nil {
		return dst, 0, fmt.Errorf("deletion vector: serialize bitmap: %w", err)
	}
	src := sb.Bytes()
	if len(src) < 8 {
		return dst, 0, errors.New("deletion vector: short roaring64 serialization")
	}
	present := binary.LittleEndian.Uint64(src)
	src = src[8:]

	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, 0) // length, patched below
	dst = binary.LittleEndian.AppendUint32(dst, uint32(Bitmap64Magic))
	dst = binary.LittleEndian.AppendUint64(dst, count)
	next := uint32(0)
	for i := uint64(0); i < present; i++ {
		if len(src) < 4 {
			return dst, 0, errors.New("deletion vector: short roaring64 serialization")
		}
		key := binary.LittleEndian.Uint32(src)
		_, n, err := readRoaring(src[4:])
		if err != nil {
			return dst, 0, err
		}
		for ; next < key; next++ {
			dst = binary.LittleEndian.AppendUint32(dst, next)
			dst = append(dst, emptyRoaring...)
		}
		next = key + 1
		dst = append(dst, src[:4+n]...)
		src = src[4+n:]
	}
	size := len(dst) - start - 4
	if size+blockOverhead > math.MaxInt32 {
		return dst, 0, ErrTooLarge
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(size))
	dst = binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start+4:]))
	// Java's Bitmap64DeletionVector.serializeTo returns the whole block size.
	return dst, int64(len(dst) - start), nil
}

// Serialize returns the block of one deletion vector as Java's
// DeletionVector.serializeToBytes produces it.
func Serialize(d DeletionVector) ([]byte, error) {
	b, _, err := d.appendBlock(nil)
	return b, err
}

// Deserialize parses one block without a recorded length to check against
// (Java DeletionVector.deserializeFromBytes). Bytes after the block are
// ignored.
func Deserialize(block []byte) (DeletionVector, error) {
	return parseBlock(block, -1)
}

// ParseBlock parses the block of one deletion vector whose range length
// (as recorded in the index manifest) is length. block must start at the
// range offset; bytes after the block are ignored.
func ParseBlock(block []byte, length int64) (DeletionVector, error) {
	if length < 0 {
		return nil, fmt.Errorf("deletion vector: negative range length %d", length)
	}
	return parseBlock(block, length)
}

// blockHeader validates the first 8 bytes of a block (length and magic)
// against the recorded range length (-1: unknown) and returns the bitmap
// data length L and the variant.
func blockHeader(h []byte, length int64) (dataLen int64, is64 bool, err error) {
	if len(h) < 8 {
		return 0, false, fmt.Errorf("deletion vector: block truncated: %d bytes", len(h))
	}
	dataLen = int64(int32(binary.BigEndian.Uint32(h)))
	magicBE := int32(binary.BigEndian.Uint32(h[4:]))
	switch {
	case magicBE == Bitmap32Magic:
		if length >= 0 && dataLen != length {
			return 0, false, fmt.Errorf("deletion vector: size not match, actual size: %d, expected size: %d", dataLen, length)
		}
	case int32(binary.LittleEndian.Uint32(h[4:])) == Bitmap64Magic:
		is64 = true
		if length >= 0 && dataLen != length-blockOverhead {
			return 0, false, fmt.Errorf("deletion vector: size not match, actual size: %d, expected size: %d", dataLen, length-blockOverhead)
		}
	default:
		return 0, false, fmt.Errorf("deletion vector: invalid magic number %d (32-bit: %d, 64-bit: %d)", magicBE, Bitmap32Magic, Bitmap64Magic)
	}
	if dataLen < 4 {
		return 0, false, fmt.Errorf("deletion vector: invalid bitmap data length %d", dataLen)
	}
	return dataLen, is64, nil
}

func parseBlock(block []byte, length int64) (DeletionVector, error) {
	dataLen, is64, err := blockHeader(block, length)
	if err != nil {
		return nil, err
	}
	if int64(len(block)) < 4+dataLen+4 {
		return nil, fmt.Errorf("deletion vector: block truncated: need %d bytes, have %d", 4+dataLen+4, len(block))
	}
	data := block[4 : 4+dataLen]
	crc := binary.BigEndian.Uint32(block[4+dataLen:])
	if got := crc32.ChecksumIEEE(data); got != crc {
		return nil, fmt.Errorf("deletion vector: checksum mismatch: stored %08x, computed %08x", crc, got)
	}
	if is64 {
		return parseBitmap64(data[4:])
	}
	bm, _, err := readRoaring(data[4:])
	if err != nil {
		return nil, err
	}
	return &Bitmap32{bm: bm}, nil
}

// readRoaring reads one portable RoaringBitmap from the front of b and
// returns it with the number of bytes it used. The bitmap is validated, so a
// corrupt serialization is an error rather than a broken bitmap.
func readRoaring(b []byte) (*roaring.Bitmap, int64, error) {
	bm := roaring.New()
	n, err := bm.ReadFrom(bytes.NewReader(b))
	if err != nil {
		return nil, 0, fmt.Errorf("deletion vector: read bitmap: %w", err)
	}
	if err := bm.Validate(); err != nil {
		return nil, 0, fmt.Errorf("deletion vector: invalid bitmap: %w", err)
	}
	return bm, n, nil
}

// parseBitmap64 reads OptimizedRoaringBitmap64's portable serialization.
// Keys must ascend and lie in [0, MaxInt32-1]; gaps (sparse keys) and empty
// bitmaps are allowed, as in Java. The non-empty bitmaps are re-framed into
// roaring64's own portable form and loaded from there, which keeps the cost
// proportional to the input size (a few bytes of run container can stand
// for millions of positions).
func parseBitmap64(b []byte) (*Bitmap64, error) {
	if len(b) < 8 {
		return nil, errors.New("deletion vector: 64-bit bitmap truncated before its bitmap count")
	}
	count := int64(binary.LittleEndian.Uint64(b))
	if count < 0 || count > math.MaxInt32 {
		return nil, fmt.Errorf("deletion vector: invalid bitmap count: %d", count)
	}
	b = b[8:]
	framed := make([]byte, 8, 8+len(b))
	var present uint64
	lastKey := int64(-1)
	for i := int64(0); i < count; i++ {
		if len(b) < 4 {
			return nil, fmt.Errorf("deletion vector: 64-bit bitmap truncated at key %d of %d", i, count)
		}
		key := int64(int32(binary.LittleEndian.Uint32(b)))
		switch {
		case key < 0:
			return nil, fmt.Errorf("deletion vector: invalid unsigned key: %d", key)
		case key > math.MaxInt32-1:
			return nil, fmt.Errorf("deletion vector: key is too large: %d", key)
		case key <= lastKey:
			return nil, errors.New("deletion vector: keys must be sorted in ascending order")
		}
		lastKey = key
		bm, n, err := readRoaring(b[4:])
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", key, err)
		}
		if !bm.IsEmpty() {
			framed = append(framed, b[:4+n]...)
			present++
		}
		b = b[4+n:]
	}
	binary.LittleEndian.PutUint64(framed, present)
	out := roaring64.New()
	if _, err := out.ReadFrom(bytes.NewReader(framed)); err != nil {
		return nil, fmt.Errorf("deletion vector: load 64-bit bitmap: %w", err)
	}
	return &Bitmap64{bm: out}, nil
}
