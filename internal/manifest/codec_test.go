package manifest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz"
)

// bzip2Fixture is a manifest file holding sampleManifestEntries() whose blocks are compressed
// with the Avro "bzip2" codec, as Avro Java's BZip2Codec writes them (one bzip2 stream per
// block). Go's standard library cannot write bzip2, so the file is checked in; regenerate it with
// PKFT_UPDATE_FIXTURES=1 go test ./internal/manifest -run TestBzip2Fixture (needs python3).
var bzip2Fixture = filepath.Join("testdata", "manifest-bzip2.avro")

// appendLong appends Avro's zig-zag varint encoding of v.
func appendLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// recodeOCF rewrites a null-codec container file with codec, compressing every block with
// compress, the way an Avro writer configured with that codec lays the file out.
func recodeOCF(t *testing.T, data []byte, codec string, compress func([]byte) []byte) []byte {
	t.Helper()
	c, err := parseOCF(data)
	if err != nil {
		t.Fatal(err)
	}
	r := &byteReader{b: data, off: 4}
	md, err := readMetadata(r)
	if err != nil {
		t.Fatal(err)
	}
	sync := data[r.off : r.off+16]
	out := append([]byte{}, ocfMagic...)
	out = appendLong(out, 2)
	for _, k := range []string{"avro.schema", "avro.codec"} {
		v := md[k]
		if k == "avro.codec" {
			v = []byte(codec)
		}
		out = appendLong(out, int64(len(k)))
		out = append(out, k...)
		out = appendLong(out, int64(len(v)))
		out = append(out, v...)
	}
	out = appendLong(out, 0)
	out = append(out, sync...)
	for _, b := range c.blocks {
		z := compress(b.data)
		out = appendLong(out, b.count)
		out = appendLong(out, int64(len(z)))
		out = append(out, z...)
		out = append(out, sync...)
	}
	return out
}

func nullCodecManifest(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteManifestFile(&buf, sampleManifestEntries(), WriteOptions{Compression: CompressionNull}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadXZManifest(t *testing.T) {
	data := recodeOCF(t, nullCodecManifest(t), "xz", func(b []byte) []byte {
		var z bytes.Buffer
		w, err := xz.NewWriter(&z)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return z.Bytes()
	})
	got, err := ReadManifestFile("manifest-xz-0", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sampleManifestEntries(), got); d != "" {
		t.Errorf("xz manifest (-want +got):\n%s", d)
	}
	// A corrupt xz block is an error naming the codec, not a panic.
	bad := bytes.Clone(data)
	bad[len(bad)-30] ^= 0xff
	if _, err := ReadManifestFile("manifest-xz-1", bytes.NewReader(bad)); err == nil {
		t.Error("corrupt xz block read without error")
	}
}

func TestBzip2Fixture(t *testing.T) {
	if os.Getenv("PKFT_UPDATE_FIXTURES") == "1" {
		data := recodeOCF(t, nullCodecManifest(t), "bzip2", func(b []byte) []byte {
			cmd := exec.Command("python3", "-c", "import bz2,sys; sys.stdout.buffer.write(bz2.compress(sys.stdin.buffer.read(), 9))")
			cmd.Stdin = bytes.NewReader(b)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			return out
		})
		if err := os.WriteFile(bzip2Fixture, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(bzip2Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if hdr := string(data[:4]); hdr != string(ocfMagic) || !bytes.Contains(data[:2000], []byte("bzip2")) {
		t.Fatal("fixture is not a bzip2 container file")
	}
	got, err := ReadManifestFile("manifest-bzip2-0", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sampleManifestEntries(), got); d != "" {
		t.Errorf("bzip2 manifest (-want +got):\n%s", d)
	}
	bad := bytes.Clone(data)
	bad[len(bad)-30] ^= 0xff
	if _, err := ReadManifestFile("manifest-bzip2-1", bytes.NewReader(bad)); err == nil {
		t.Error("corrupt bzip2 block read without error")
	}
}
