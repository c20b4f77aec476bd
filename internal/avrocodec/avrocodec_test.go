package avrocodec

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/golang/snappy"
)

func TestDecodersRoundTripAndBound(t *testing.T) {
	plain := bytes.Repeat([]byte("paimon manifest block "), 100)
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.DefaultCompression)
	fw.Write(plain)
	fw.Close()
	snappied := snappy.Encode(nil, plain)
	snappied = binary.BigEndian.AppendUint32(snappied, crc32.ChecksumIEEE(plain))
	for codec, block := range map[string][]byte{"null": plain, "deflate": deflated.Bytes(), "snappy": snappied} {
		d, err := New(codec, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Decode(block)
		d.Close()
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%s: %v, %d bytes", codec, err, len(got))
		}
		if codec == "null" {
			continue
		}
		small, _ := New(codec, 100)
		if _, err := small.Decode(block); err == nil || !strings.Contains(err.Error(), "exceeds 100 bytes") {
			t.Fatalf("%s over the bound: %v", codec, err)
		}
	}
	bad := append([]byte(nil), snappied...)
	bad[len(bad)-1] ^= 1
	d, _ := New("snappy", 1<<20)
	if _, err := d.Decode(bad); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("corrupt snappy checksum: %v", err)
	}
	if _, err := New("lzo", 1); err == nil || !strings.Contains(err.Error(), `"lzo"`) {
		t.Fatalf("unknown codec: %v", err)
	}
}
