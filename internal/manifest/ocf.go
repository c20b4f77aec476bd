package manifest

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"

	"github.com/paimon-pkft/pkft/internal/avrocodec"
)

// Compression names accepted by the writers; they are the values of Paimon's
// manifest.compression option that the Avro format maps to a codec.
const (
	// CompressionZstd writes the Avro "zstandard" codec (Paimon's default for manifests).
	CompressionZstd = "zstd"
	// CompressionDeflate writes the Avro "deflate" codec at the default level.
	CompressionDeflate = "deflate"
	// CompressionSnappy writes the Avro "snappy" codec (block plus CRC32 of the raw bytes).
	CompressionSnappy = "snappy"
	// CompressionNull writes uncompressed blocks (Avro "null" codec).
	CompressionNull = "null"
)

// DefaultZstdLevel is Paimon's file.compression.zstd-level default.
const DefaultZstdLevel = 1

// syncInterval is Avro Java's DataFileWriter default: a block is written once its buffered
// records reach this many bytes.
const syncInterval = 64000

// maxBlockBytes bounds one block, compressed or not, so corrupt input cannot force huge
// allocations. Paimon manifests roll at 8 MiB, and blocks are about syncInterval bytes.
const maxBlockBytes = 1 << maxBlockShift

// maxBlockShift is the base-2 logarithm of maxBlockBytes.
const maxBlockShift = 26

// WriteOptions controls how a manifest-like file is written. The zero value writes what Paimon
// 2.0.0 writes by default: zstd at level 1.
type WriteOptions struct {
	// Compression is the manifest.compression value: "zstd" (default when empty), "deflate",
	// "snappy" or "null".
	Compression string
	// ZstdLevel is the zstd level; 0 means DefaultZstdLevel.
	ZstdLevel int
}

// codecOptions maps Paimon's compression name to hamba OCF encoder options the way
// AvroFileFormat.createCodecFactory does: "zstd" (any case) is the zstandard codec at the
// configured level, anything else is an Avro codec name.
func codecOptions(o WriteOptions) ([]ocf.EncoderFunc, error) {
	c := o.Compression
	if c == "" || strings.EqualFold(c, CompressionZstd) || c == string(ocf.ZStandard) {
		level := o.ZstdLevel
		if level == 0 {
			level = DefaultZstdLevel
		}
		return []ocf.EncoderFunc{
			ocf.WithCodec(ocf.ZStandard),
			ocf.WithZStandardEncoderOptions(
				zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
				zstd.WithEncoderConcurrency(1),
			),
		}, nil
	}
	switch c {
	case CompressionDeflate:
		return []ocf.EncoderFunc{ocf.WithCodec(ocf.Deflate), ocf.WithCompressionLevel(flate.DefaultCompression)}, nil
	case CompressionSnappy:
		return []ocf.EncoderFunc{ocf.WithCodec(ocf.Snappy)}, nil
	case CompressionNull:
		return []ocf.EncoderFunc{ocf.WithCodec(ocf.Null)}, nil
	default:
		return nil, fmt.Errorf("unsupported manifest compression %q", c)
	}
}

// encodeAPI is the configuration every container file is encoded with, built once: a
// configuration compiles its encoder of a schema and Go type on first use and keeps it, so a
// configuration per file compiled the encoder again for every file.
var encodeAPI = sync.OnceValue(func() avro.API { return avro.Config{}.Freeze() })

// decodeConfig is a decoding configuration with the union branch names registered in it.
type decodeConfig struct {
	api avro.API
	// mu guards registered and the registering itself: hamba/avro's Register appends to the
	// names of a type without a lock, and registering a name again appends it again.
	mu         sync.Mutex
	registered map[string]bool
}

// register names each union branch's Go type in the configuration, once per name.
func (c *decodeConfig) register(types map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, obj := range types {
		if !c.registered[name] {
			c.api.Register(name, obj)
			c.registered[name] = true
		}
	}
}

// decodeAPIs are the decoding configurations by size limit: decodeAPIs[i] allows slices and
// byte arrays of up to 1<<i elements. Each is built once, on first use, and keeps the decoders
// it compiles; a union branch's name is registered (decodeConfig.register) with the same generic
// Go type whatever the file.
var decodeAPIs = func() (out [maxBlockShift + 1]func() *decodeConfig) {
	for i := range out {
		n := 1 << i
		out[i] = sync.OnceValue(func() *decodeConfig {
			return &decodeConfig{
				api:        avro.Config{MaxByteSliceSize: n, MaxSliceAllocSize: n}.Freeze(),
				registered: map[string]bool{},
			}
		})
	}
	return out
}()

// decodeAPI is the decoding configuration allowing slices of at least n (at most maxBlockBytes)
// elements: the smallest power of two not below n.
func decodeAPI(n int) *decodeConfig {
	n = min(max(n, 1), maxBlockBytes)
	return decodeAPIs[bits.Len(uint(n-1))]()
}

// writeOCF writes records as an Avro object container file whose header carries schemaJSON
// verbatim, so the header is what Paimon's Java writer puts there.
func writeOCF[T any](w io.Writer, schemaJSON string, opts WriteOptions, records []T) error {
	if w == nil {
		return errors.New("nil writer")
	}
	schema, err := parseSchema(schemaJSON)
	if err != nil {
		return fmt.Errorf("parse schema: %w", err)
	}
	encOpts, err := codecOptions(opts)
	if err != nil {
		return err
	}
	encOpts = append(encOpts,
		ocf.WithBlockLength(0),
		ocf.WithBlockSize(syncInterval),
		ocf.WithEncodingConfig(encodeAPI()),
		ocf.WithSchemaMarshaler(func(avro.Schema) ([]byte, error) { return []byte(schemaJSON), nil }),
	)
	hw := &javaHeaderWriter{w: w}
	enc, err := ocf.NewEncoderWithSchema(schema, hw, encOpts...)
	if err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	for i := range records {
		if err := enc.Encode(&records[i]); err != nil {
			_ = enc.Close()
			return fmt.Errorf("write record %d: %w", i, err)
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write final block: %w", err)
	}
	if !hw.done {
		return errors.New("write header: incomplete container header")
	}
	return nil
}

// javaHeaderWriter passes an OCF encoder's output to w with the header rewritten the way Avro
// Java's DataFileWriter writes it: the metadata map as one block with a positive entry count
// (hamba writes a negative count followed by the block's byte size, which the Avro spec allows
// but Java never writes), avro.schema first, then avro.codec, then any other key in byte order.
// It also hides the concrete type of w: hamba appends to a non-empty *os.File instead of writing
// a new header, which is never what a manifest writer wants.
type javaHeaderWriter struct {
	w    io.Writer
	buf  []byte
	done bool
}

func (h *javaHeaderWriter) Write(b []byte) (int, error) {
	if h.done {
		return h.w.Write(b)
	}
	h.buf = append(h.buf, b...)
	header, rest, err := javaHeader(h.buf)
	if errors.Is(err, errTruncated) {
		return len(b), nil
	}
	if err != nil {
		return 0, err
	}
	h.done = true
	if _, err := h.w.Write(append(header, rest...)); err != nil {
		return 0, err
	}
	h.buf = nil
	return len(b), nil
}

// javaHeader re-encodes the container header at the start of data (magic, metadata map, sync
// marker) in Java's layout and returns it with the bytes that follow the header.
func javaHeader(data []byte) (header, rest []byte, err error) {
	r := &byteReader{b: data}
	magic, err := r.bytes(4)
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(magic, ocfMagic) {
		return nil, nil, errors.New("write header: bad magic")
	}
	meta, err := readMetadata(r)
	if err != nil {
		return nil, nil, err
	}
	sync, err := r.bytes(16)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != "avro.schema" && k != "avro.codec" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range []string{"avro.codec", "avro.schema"} {
		if _, ok := meta[k]; ok {
			keys = append([]string{k}, keys...)
		}
	}
	out := append([]byte(nil), ocfMagic...)
	out = putAvroLong(out, int64(len(keys)))
	for _, k := range keys {
		out = putAvroLong(out, int64(len(k)))
		out = append(out, k...)
		out = putAvroLong(out, int64(len(meta[k])))
		out = append(out, meta[k]...)
	}
	out = putAvroLong(out, 0)
	out = append(out, sync...)
	return out, data[r.off:], nil
}

// putAvroLong appends v in Avro's zig-zag varint encoding.
func putAvroLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// ocfBlock is one decompressed data block.
type ocfBlock struct {
	count int64
	data  []byte
}

// ocfContents is a parsed container file.
type ocfContents struct {
	schema     avro.Schema
	schemaJSON string // the header's avro.schema, as written
	blocks     []ocfBlock
}

// byteReader walks a byte slice with Avro's zig-zag varint primitives.
type byteReader struct {
	b   []byte
	off int
}

var errTruncated = errors.New("unexpected end of file (truncated)")

func (r *byteReader) long() (int64, error) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, errors.New("malformed varint")
		}
		if r.off >= len(r.b) {
			return 0, errTruncated
		}
		c := r.b[r.off]
		r.off++
		u |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

func (r *byteReader) bytes(n int64) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("negative length %d", n)
	}
	if n > int64(len(r.b)-r.off) {
		return nil, errTruncated
	}
	out := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return out, nil
}

func (r *byteReader) lenBytes() ([]byte, error) {
	n, err := r.long()
	if err != nil {
		return nil, err
	}
	return r.bytes(n)
}

var ocfMagic = []byte{'O', 'b', 'j', 1}

// orcMagic starts every ORC file (Paimon writes manifests as ORC with manifest.format=orc).
var orcMagic = []byte("ORC")

// parseOCF reads a whole Avro object container file, checking every length against the input
// and every sync marker, and decompresses its blocks.
func parseOCF(data []byte) (*ocfContents, error) {
	r := &byteReader{b: data}
	magic, err := r.bytes(4)
	if err != nil || !bytes.Equal(magic, ocfMagic) {
		if bytes.HasPrefix(data, orcMagic) {
			return nil, errors.New("an ORC file (manifest.format=orc): pkft reads manifests, manifest lists and index manifests in Avro only")
		}
		return nil, errors.New("not an Avro object container file (bad magic)")
	}
	metadata, err := readMetadata(r)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	sync, err := r.bytes(16)
	if err != nil {
		return nil, fmt.Errorf("header sync marker: %w", err)
	}
	schemaJSON, ok := metadata["avro.schema"]
	if !ok {
		return nil, errors.New("header has no avro.schema")
	}
	schema, err := parseSchema(string(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("header schema: %w", err)
	}
	codec := "null"
	if c, ok := metadata["avro.codec"]; ok {
		codec = string(c)
	}
	dec, err := avrocodec.New(codec, maxBlockBytes)
	if err != nil {
		return nil, err
	}
	defer dec.Close()

	out := &ocfContents{schema: schema, schemaJSON: string(schemaJSON)}
	for i := 0; r.off < len(r.b); i++ {
		count, err := r.long()
		if err != nil {
			return nil, fmt.Errorf("block %d count: %w", i, err)
		}
		size, err := r.long()
		if err != nil {
			return nil, fmt.Errorf("block %d size: %w", i, err)
		}
		if count < 0 || size < 0 || size > maxBlockBytes {
			return nil, fmt.Errorf("block %d: invalid count %d or size %d (corrupt)", i, count, size)
		}
		raw, err := r.bytes(size)
		if err != nil {
			return nil, fmt.Errorf("block %d data: %w", i, err)
		}
		marker, err := r.bytes(16)
		if err != nil {
			return nil, fmt.Errorf("block %d sync marker: %w", i, err)
		}
		if !bytes.Equal(marker, sync) {
			return nil, fmt.Errorf("block %d: sync marker mismatch (corrupt)", i)
		}
		if count == 0 {
			continue
		}
		plain, err := dec.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("block %d: %s decompression: %w", i, codec, err)
		}
		if count > int64(len(plain)) {
			return nil, fmt.Errorf("block %d: %d records cannot fit in %d bytes (corrupt)", i, count, len(plain))
		}
		out.blocks = append(out.blocks, ocfBlock{count: count, data: plain})
	}
	return out, nil
}

// readMetadata reads the header's map<bytes> of file metadata.
func readMetadata(r *byteReader) (map[string][]byte, error) {
	m := map[string][]byte{}
	for {
		n, err := r.long()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return m, nil
		}
		if n < 0 {
			n = -n
			if _, err := r.long(); err != nil { // block byte size, unused
				return nil, err
			}
		}
		if n < 0 || n > int64(len(r.b)-r.off) {
			return nil, fmt.Errorf("metadata entry count %d exceeds input", n)
		}
		for j := int64(0); j < n; j++ {
			k, err := r.lenBytes()
			if err != nil {
				return nil, err
			}
			v, err := r.lenBytes()
			if err != nil {
				return nil, err
			}
			m[string(k)] = v
		}
	}
}

// decodeOCF parses data as a container file and decodes every record into T using the file's
// own (writer) schema. A file whose header carries exactly the schema Paimon's Java writer puts
// there is decoded directly; any other writer schema is resolved against expected by Avro's
// rules (resolve.go), so that a field pkft needs is read or refused, never zeroed.
func decodeOCF[T any](data []byte, expected dataType, expectedJSON string) ([]T, error) {
	c, err := parseOCF(data)
	if err != nil {
		return nil, err
	}
	var resolved *resolvedDecoder
	if c.schemaJSON != expectedJSON {
		if resolved, err = newResolvedDecoder(c.schema, expected, reflect.TypeFor[T]()); err != nil {
			return nil, err
		}
	}
	maxLen := 0
	var total int64
	for _, b := range c.blocks {
		maxLen = max(maxLen, len(b.data))
		total += b.count
	}
	// Every array element and string byte costs at least one encoded byte, so nothing in a
	// block legitimately needs more elements than the block has bytes (rounded up to a power of
	// two: the configurations are built once each, see decodeAPI).
	cfg := decodeAPI(maxLen)
	if resolved != nil {
		cfg.register(resolved.unionTypes)
	}
	out := make([]T, 0, total)
	r := avro.NewReader(nil, 0, avro.WithReaderConfig(cfg.api))
	for bi, b := range c.blocks {
		r.Reset(b.data)
		r.Error = nil
		for i := int64(0); i < b.count; i++ {
			var v T
			if resolved != nil {
				err = resolved.decode(r, &v)
			} else if r.ReadVal(c.schema, &v); r.Error != nil {
				err = r.Error
			}
			if err != nil {
				return nil, fmt.Errorf("block %d record %d: %w", bi, i, noEOF(err))
			}
			out = append(out, v)
		}
		if r.Peek(); r.Error == nil {
			return nil, fmt.Errorf("block %d: trailing bytes after %d records (corrupt)", bi, b.count)
		}
	}
	return out, nil
}

// noEOF turns a bare end-of-input inside a record into an error that says so.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("record runs past end of block (corrupt): %w", err)
	}
	return err
}
