package blockcodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// SerializeBitmap is Paimon's RoaringNavigableMap64#serialize: the bitmap run-optimized, in the
// portable 64-bit Roaring format (Roaring64NavigableMap#serializePortable).
func SerializeBitmap(b *roaring64.Bitmap) ([]byte, error) {
	b.RunOptimize()
	var buf bytes.Buffer
	if _, err := b.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("serialize bitmap: %w", err)
	}
	return buf.Bytes(), nil
}

// DeserializeBitmap parses a portable 64-bit Roaring bitmap that must fill data exactly. A
// malformed bitmap is an error (the Roaring library's panics on hostile input are turned into
// one).
func DeserializeBitmap(data []byte) (bm *roaring64.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("malformed bitmap: %v", r)
		}
	}()
	if err := checkPortable64(data); err != nil {
		return nil, fmt.Errorf("malformed bitmap: %w", err)
	}
	bm = roaring64.New()
	n, err := bm.ReadFrom(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("malformed bitmap: %w", err)
	}
	if n != int64(len(data)) {
		return nil, fmt.Errorf("malformed bitmap: %d trailing bytes", int64(len(data))-n)
	}
	if err := bm.Validate(); err != nil {
		return nil, fmt.Errorf("malformed bitmap: %w", err)
	}
	return bm, nil
}

const (
	serialCookieNoRun = 12346
	serialCookie      = 12347
)

// checkPortable64 walks the portable 64-bit layout (a little-endian bucket count, then per
// bucket a 32-bit high key and a 32-bit Roaring bitmap) and checks every count against the
// bytes present before the Roaring library allocates by them.
func checkPortable64(data []byte) error {
	if len(data) < 8 {
		return errors.New("shorter than the bucket count")
	}
	count := binary.LittleEndian.Uint64(data)
	rest := data[8:]
	if count > uint64(len(rest))/12 {
		return fmt.Errorf("%d buckets cannot fit in %d bytes", count, len(rest))
	}
	for i := uint64(0); i < count; i++ {
		if len(rest) < 4 {
			return fmt.Errorf("bucket %d: truncated key", i)
		}
		rest = rest[4:]
		if err := checkPortable32(rest); err != nil {
			return fmt.Errorf("bucket %d: %w", i, err)
		}
		var rb roaring.Bitmap
		n, err := rb.ReadFrom(bytes.NewReader(rest))
		if err != nil {
			return fmt.Errorf("bucket %d: %w", i, err)
		}
		rest = rest[n:]
	}
	return nil
}

// checkPortable32 checks the header of a portable 32-bit Roaring bitmap: its container count
// and descriptive header must fit in the bytes present.
func checkPortable32(b []byte) error {
	if len(b) < 4 {
		return errors.New("truncated cookie")
	}
	cookie := binary.LittleEndian.Uint32(b)
	var size, need uint64
	switch {
	case cookie&0xffff == serialCookie:
		size = uint64(cookie>>16) + 1
		need = 4 + (size+7)/8 + 4*size
	case cookie == serialCookieNoRun:
		if len(b) < 8 {
			return errors.New("truncated container count")
		}
		size = uint64(binary.LittleEndian.Uint32(b[4:]))
		need = 8 + 8*size
	default:
		return fmt.Errorf("unknown cookie %#x", cookie)
	}
	if size > 1<<16 || need > uint64(len(b)) {
		return fmt.Errorf("%d containers cannot fit in %d bytes", size, len(b))
	}
	return nil
}
