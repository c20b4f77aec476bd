// Package blockcodec compresses, checks and decompresses the blocks of Paimon's SST and bitmap
// global index files: a block is its (possibly compressed) bytes followed by a 5-byte trailer of
// the compression type's persistent id and a little-endian CRC32 of the bytes and that id. A
// compressed block starts with the var-length uncompressed size; LZ4 blocks then carry Paimon's
// 8-byte header (compressed and original length, little-endian) before the raw LZ4 block, ZSTD
// blocks one zstd frame.
package blockcodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Type is a block compression type with its persistent id (Java's BlockCompressionType).
type Type uint8

// The compression types of Paimon 2.0.0.
const (
	None Type = 0
	Zstd Type = 1
	LZ4  Type = 2
	LZO  Type = 3
)

// TrailerLength is the size of a block trailer.
const TrailerLength = 5

// MaxVarIntSize is the longest var-length int.
const MaxVarIntSize = 5

// String returns Java's constant name.
func (t Type) String() string {
	switch t {
	case None:
		return "NONE"
	case Zstd:
		return "ZSTD"
	case LZ4:
		return "LZ4"
	case LZO:
		return "LZO"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Codec compresses blocks with one type and level; the zero Codec (None) stores them as is.
type Codec struct {
	typ   Type
	level int
}

// NewCodec returns the codec of a compression option value ("none", "zstd", "lz4"; case
// insensitive as in Java) at the given zstd level. LZO, which Java supports through
// aircompressor, is refused by name: pkft has no LZO implementation.
func NewCodec(name string, level int) (Codec, error) {
	switch strings.ToUpper(name) {
	case "NONE":
		return Codec{}, nil
	case "ZSTD":
		return Codec{typ: Zstd, level: level}, nil
	case "LZ4":
		return Codec{typ: LZ4}, nil
	case "LZO":
		return Codec{}, fmt.Errorf("block compression %q is not supported by pkft", name)
	}
	return Codec{}, fmt.Errorf("unknown block compression %q", name)
}

// Type returns the codec's compression type.
func (c Codec) Type() Type { return c.typ }

// Checksum is the trailer's CRC: CRC32 (IEEE) of data followed by the type's id byte.
func Checksum(data []byte, t Type) uint32 {
	h := crc32.NewIEEE()
	h.Write(data)
	h.Write([]byte{byte(t)})
	return h.Sum32()
}

// Trailer returns the 5-byte trailer of block bytes data stored with type t.
func Trailer(data []byte, t Type) []byte {
	return binary.LittleEndian.AppendUint32([]byte{byte(t)}, Checksum(data, t))
}

// Encode returns the stored bytes of an uncompressed block and their type: compressed when the
// codec compresses and the result is smaller than 7/8 of the input (Paimon's rule), else raw.
func (c Codec) Encode(raw []byte) ([]byte, Type, error) {
	if c.typ == None {
		return raw, None, nil
	}
	out := binary.AppendUvarint(make([]byte, 0, len(raw)+16), uint64(len(raw)))
	switch c.typ {
	case LZ4:
		dst := make([]byte, lz4.CompressBlockBound(len(raw)))
		n, err := lz4.CompressBlock(raw, dst, nil)
		if err != nil {
			return nil, None, fmt.Errorf("lz4 compress block: %w", err)
		}
		if n == 0 && len(raw) > 0 {
			// Incompressible: pierrec returns 0; Java's compressor would emit literals, which
			// Paimon's 7/8 rule then rejects as well.
			return raw, None, nil
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(raw)))
		out = append(out, dst[:n]...)
	case Zstd:
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(c.level)),
			zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, None, fmt.Errorf("zstd encoder: %w", err)
		}
		out = enc.EncodeAll(raw, out)
		_ = enc.Close()
	default:
		return nil, None, fmt.Errorf("block compression %s is not supported by pkft", c.typ)
	}
	if len(out) < len(raw)-len(raw)/8 {
		return out, c.typ, nil
	}
	return raw, None, nil
}

// Decode checks stored block bytes against their trailer and returns the uncompressed block.
func Decode(stored, trailer []byte) ([]byte, error) {
	if len(trailer) != TrailerLength {
		return nil, fmt.Errorf("block trailer of %d bytes, want %d", len(trailer), TrailerLength)
	}
	t := Type(trailer[0])
	if t > LZO {
		return nil, fmt.Errorf("block trailer: unknown compression type id %d", trailer[0])
	}
	want := binary.LittleEndian.Uint32(trailer[1:])
	if got := Checksum(stored, t); got != want {
		return nil, fmt.Errorf("block checksum mismatch: trailer says %#08x, block has %#08x", want, got)
	}
	if t == None {
		return stored, nil
	}
	size, n := binary.Uvarint(stored)
	if n <= 0 || n > MaxVarIntSize || size > 1<<31-1 {
		return nil, fmt.Errorf("%s block: malformed uncompressed size", t)
	}
	body := stored[n:]
	switch t {
	case LZ4:
		if len(body) < 8 {
			return nil, fmt.Errorf("LZ4 block: truncated header")
		}
		clen := binary.LittleEndian.Uint32(body)
		olen := binary.LittleEndian.Uint32(body[4:])
		if int32(clen) < 0 || int32(olen) < 0 || (olen == 0) != (clen == 0) || uint64(olen) != size {
			return nil, fmt.Errorf("LZ4 block: invalid lengths (compressed %d, original %d, block size %d)", int32(clen), int32(olen), size)
		}
		if uint64(len(body)-8) < uint64(clen) {
			return nil, fmt.Errorf("LZ4 block: %d compressed bytes announced, %d present", clen, len(body)-8)
		}
		dst := make([]byte, olen)
		m, err := lz4.UncompressBlock(body[8:8+clen], dst)
		if err != nil {
			return nil, fmt.Errorf("LZ4 block: %w", err)
		}
		if m != int(olen) {
			return nil, fmt.Errorf("LZ4 block: decompressed %d bytes, want %d", m, olen)
		}
		return dst, nil
	case Zstd:
		dec, err := zstd.NewReader(bytes.NewReader(nil), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(size+8<<20))
		if err != nil {
			return nil, fmt.Errorf("zstd decoder: %w", err)
		}
		defer dec.Close()
		out, err := dec.DecodeAll(body, make([]byte, 0, size))
		if err != nil {
			return nil, fmt.Errorf("ZSTD block: %w", err)
		}
		if uint64(len(out)) != size {
			return nil, fmt.Errorf("ZSTD block: decompressed %d bytes, want %d", len(out), size)
		}
		return out, nil
	}
	return nil, fmt.Errorf("block compression %s is not supported by pkft", t)
}
