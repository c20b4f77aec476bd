// Package avrocodec decodes the compressed blocks of Avro object container files, as Avro Java's
// codecs write them, for every Avro file pkft reads: manifests, manifest lists and index
// manifests (package manifest), and Avro data files (package dataformat).
package avrocodec

import (
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Decoder decompresses one block of a container file.
type Decoder struct {
	// Decode returns the block's uncompressed bytes.
	Decode func(block []byte) ([]byte, error)
	// Close releases what the codec holds; a Decoder is not used after it.
	Close func()
}

// New returns the block decoder of the Avro codec name (null, deflate, snappy, bzip2, xz,
// zstandard), whose output is bounded by maxBytes so that corrupt input cannot force huge
// allocations.
func New(codec string, maxBytes int) (*Decoder, error) {
	noop := func() {}
	limited := func(r io.Reader) ([]byte, error) {
		out, err := io.ReadAll(io.LimitReader(r, int64(maxBytes)+1))
		if err != nil {
			return nil, err
		}
		if len(out) > maxBytes {
			return nil, fmt.Errorf("decompressed block exceeds %d bytes", maxBytes)
		}
		return out, nil
	}
	switch codec {
	case "null":
		return &Decoder{Decode: func(b []byte) ([]byte, error) { return b, nil }, Close: noop}, nil
	case "deflate":
		return &Decoder{Decode: func(b []byte) ([]byte, error) {
			fr := flate.NewReader(bytes.NewReader(b))
			defer fr.Close()
			return limited(fr)
		}, Close: noop}, nil
	case "snappy":
		return &Decoder{Decode: func(b []byte) ([]byte, error) { return decodeSnappy(b, maxBytes) }, Close: noop}, nil
	case "bzip2":
		// Avro Java's BZip2Codec writes each block as one bzip2 stream.
		return &Decoder{Decode: func(b []byte) ([]byte, error) { return limited(bzip2.NewReader(bytes.NewReader(b))) }, Close: noop}, nil
	case "xz":
		// Avro Java's XZCodec writes each block as one xz stream.
		return &Decoder{Decode: func(b []byte) ([]byte, error) {
			xr, err := xz.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			return limited(xr)
		}, Close: noop}, nil
	case "zstandard":
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(maxBytes)))
		if err != nil {
			return nil, fmt.Errorf("zstd decoder: %w", err)
		}
		return &Decoder{Decode: func(b []byte) ([]byte, error) { return dec.DecodeAll(b, nil) }, Close: dec.Close}, nil
	default:
		return nil, fmt.Errorf("unsupported Avro codec %q", codec)
	}
}

// decodeSnappy decodes Avro's snappy block: raw snappy data followed by the big-endian CRC32
// of the uncompressed bytes.
func decodeSnappy(b []byte, maxBytes int) ([]byte, error) {
	if len(b) < 4 {
		return nil, errors.New("block too short for its snappy checksum")
	}
	body := b[:len(b)-4]
	n, err := snappy.DecodedLen(body)
	if err != nil {
		return nil, err
	}
	if n > maxBytes {
		return nil, fmt.Errorf("decompressed block exceeds %d bytes", maxBytes)
	}
	out, err := snappy.Decode(nil, body)
	if err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return nil, errors.New("snappy checksum mismatch")
	}
	return out, nil
}
