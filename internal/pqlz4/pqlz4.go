// Package pqlz4 registers with arrow-go's Parquet reader the LZ4 codec (Parquet's deprecated
// LZ4, codec 5) as Java writes it: Paimon's Parquet writer with file.compression = lz4 uses
// Hadoop's Lz4Codec, whose pages are blocks of [uncompressed length][compressed length][LZ4
// block] with both lengths 4-byte big-endian. arrow-go leaves that codec unimplemented, so
// without this package Go cannot read Java's lz4 data files. A page that is not Hadoop-framed is
// read as one raw LZ4 block, as Arrow C++'s reader does (some writers used that form). Import it
// for its side effect; Go itself writes LZ4_RAW.
package pqlz4

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

func init() {
	compress.RegisterCodec(compress.Codecs.Lz4, hadoopCodec{})
}

// hadoopCodec is the Hadoop-framed LZ4 codec.
type hadoopCodec struct{}

// Encode frames src as one Hadoop block.
func (c hadoopCodec) Encode(dst, src []byte) []byte {
	bound := c.CompressBound(int64(len(src)))
	if int64(cap(dst)) < bound {
		dst = make([]byte, bound)
	}
	dst = dst[:bound]
	var comp lz4.Compressor
	n, err := comp.CompressBlock(src, dst[8:])
	if err != nil {
		panic(fmt.Errorf("lz4 (hadoop): %w", err))
	}
	if n == 0 && len(src) > 0 {
		panic(errors.New("lz4 (hadoop): incompressible block does not fit its bound"))
	}
	binary.BigEndian.PutUint32(dst[0:4], uint32(len(src)))
	binary.BigEndian.PutUint32(dst[4:8], uint32(n))
	return dst[:8+n]
}

// EncodeLevel is Encode: LZ4 blocks have no level.
func (c hadoopCodec) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

// CompressBound is the bound of one framed block.
func (hadoopCodec) CompressBound(n int64) int64 { return int64(lz4.CompressBlockBound(int(n))) + 8 }

// Decode decodes a page; it panics on malformed input (arrow-go recovers, see DecodeWithError).
func (c hadoopCodec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError decodes a page into dst, whose length is the page's uncompressed size: as
// Hadoop blocks when the framing accounts for the input exactly, else as one raw LZ4 block.
func (hadoopCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if out, ok := decodeHadoop(dst, src); ok {
		return out, nil
	}
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return nil, fmt.Errorf("lz4 page is neither Hadoop-framed nor a raw LZ4 block: %w", err)
	}
	return dst[:n], nil
}

// decodeHadoop decodes src as Hadoop LZ4 blocks into dst; ok is false when src is not framed so.
func decodeHadoop(dst, src []byte) ([]byte, bool) {
	written := 0
	for len(src) >= 8 {
		raw := int(binary.BigEndian.Uint32(src[0:4]))
		comp := int(binary.BigEndian.Uint32(src[4:8]))
		src = src[8:]
		if comp < 0 || comp > len(src) || raw < 0 || raw > len(dst)-written {
			return nil, false
		}
		n, err := lz4.UncompressBlock(src[:comp], dst[written:written+raw])
		if err != nil || n != raw {
			return nil, false
		}
		written += n
		src = src[comp:]
	}
	if len(src) != 0 {
		return nil, false
	}
	return dst[:written], true
}
