package pqlz4

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

func sample() []byte {
	var b bytes.Buffer
	for i := range 2000 {
		b.WriteString("paimon lake house ")
		b.WriteByte(byte(i))
	}
	return b.Bytes()
}

// TestRegistered checks the reader's codec registry serves LZ4 through this codec.
func TestRegistered(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Lz4)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(hadoopCodec); !ok {
		t.Fatalf("LZ4 codec %T", c)
	}
}

// TestHadoopBlocks decodes a page of two Hadoop blocks (Hadoop's BlockCompressorStream output),
// what Encode writes, and a raw LZ4 block.
func TestHadoopBlocks(t *testing.T) {
	src := sample()
	half := len(src) / 2
	var page []byte
	for _, part := range [][]byte{src[:half], src[half:]} {
		buf := make([]byte, lz4.CompressBlockBound(len(part)))
		var c lz4.Compressor
		n, err := c.CompressBlock(part, buf)
		if err != nil {
			t.Fatal(err)
		}
		page = binary.BigEndian.AppendUint32(page, uint32(len(part)))
		page = binary.BigEndian.AppendUint32(page, uint32(n))
		page = append(page, buf[:n]...)
	}
	codec := hadoopCodec{}
	for name, in := range map[string][]byte{"two blocks": page, "encoded": codec.Encode(nil, src)} {
		out, err := compress.Decode(codec, make([]byte, len(src)), in)
		if err != nil || !bytes.Equal(out, src) {
			t.Errorf("%s: decoded %d bytes (%v)", name, len(out), err)
		}
	}
	raw := make([]byte, lz4.CompressBlockBound(len(src)))
	var c lz4.Compressor
	n, err := c.CompressBlock(src, raw)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := codec.DecodeWithError(make([]byte, len(src)), raw[:n]); err != nil || !bytes.Equal(out, src) {
		t.Errorf("raw block: %d bytes (%v)", len(out), err)
	}
}

// TestMalformed: damaged pages are errors, never panics.
func TestMalformed(t *testing.T) {
	src := sample()
	good := hadoopCodec{}.Encode(nil, src)
	for name, in := range map[string][]byte{
		"truncated":    good[:len(good)/2],
		"garbage":      bytes.Repeat([]byte{0xff}, 64),
		"length lies":  append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1<<30), 4), 1, 2, 3, 4),
		"short of dst": good,
	} {
		dst := make([]byte, len(src))
		if name == "short of dst" {
			dst = dst[:10]
		}
		if out, err := compress.Decode(hadoopCodec{}, dst, in); err == nil && bytes.Equal(out, src) {
			t.Errorf("%s: decoded", name)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(hadoopCodec{}.Encode(nil, sample()), 40000)
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 0}, 1)
	f.Fuzz(func(t *testing.T, in []byte, size int) {
		if size < 0 || size > 1<<20 {
			return
		}
		_, _ = hadoopCodec{}.DecodeWithError(make([]byte, size), in)
	})
}
