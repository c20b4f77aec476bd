package blockcodec

import (
	"bytes"
	"testing"
)

// TestRoundTrip: each codec's blocks decode to the input; compressible input is stored
// compressed, incompressible input raw (Paimon's 7/8 rule).
func TestRoundTrip(t *testing.T) {
	compressible := bytes.Repeat([]byte("paimon btree "), 200)
	incompressible := []byte{1, 2, 3}
	for _, name := range []string{"none", "NONE", "lz4", "zstd"} {
		c, err := NewCodec(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range [][]byte{compressible, incompressible, nil} {
			stored, typ, err := c.Encode(in)
			if err != nil {
				t.Fatal(err)
			}
			if name != "none" && name != "NONE" && len(in) > 100 && typ != c.Type() {
				t.Errorf("%s: compressible block stored as %s", name, typ)
			}
			out, err := Decode(stored, Trailer(stored, typ))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("%s: round trip changed the block", name)
			}
		}
	}
}

// TestRefusals: LZO is refused by name, unknown names and corrupt trailers are errors.
func TestRefusals(t *testing.T) {
	if _, err := NewCodec("lzo", 1); err == nil {
		t.Error("lzo accepted")
	}
	if _, err := NewCodec("snappy", 1); err == nil {
		t.Error("snappy accepted")
	}
	tr := Trailer([]byte("x"), None)
	tr[1] ^= 1
	if _, err := Decode([]byte("x"), tr); err == nil {
		t.Error("a wrong checksum was accepted")
	}
}

// FuzzDecode: arbitrary stored bytes and trailers decode or fail, never panic.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"lz4", "zstd"} {
		c, _ := NewCodec(name, 1)
		stored, typ, _ := c.Encode(bytes.Repeat([]byte("ab"), 100))
		f.Add(stored, typ == LZ4)
	}
	f.Fuzz(func(t *testing.T, stored []byte, lz4 bool) {
		for _, typ := range []Type{Zstd, LZ4} {
			if (typ == LZ4) != lz4 {
				continue
			}
			_, _ = Decode(stored, Trailer(stored, typ))
		}
	})
}

// FuzzDeserializeBitmap: arbitrary bytes deserialize as a bitmap or fail, never panic.
func FuzzDeserializeBitmap(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 5, 0})
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DeserializeBitmap(b) })
}
