package pkindex

import (
	"testing"
)

// FuzzDecodeSourceMeta checks that decoding never panics and that every accepted input
// describes a valid meta which survives an encode/decode round trip.
func FuzzDecodeSourceMeta(f *testing.F) {
	f.Add(header(1, 1, 1, entry("data-1", 10)...))
	f.Add(header(1, 3, 2, append(entry("data-a", 0), entry("é中😀", 1<<40)...)...))
	f.Add(header(2, 1, 1, entry("data-1", 1)...))
	f.Add(header(1, 1, 1<<31-1))
	f.Add(header(1, 0, 1, entry("data-1", 1)...))
	f.Add(append(header(1, 1, 1, entry("data-1", 1)...), 42))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeSourceMeta(data)
		if err != nil {
			return
		}
		if m.DataLevel() <= 0 || len(m.SourceFiles()) == 0 {
			t.Fatalf("decoded an invalid meta: %+v", m)
		}
		for _, sf := range m.SourceFiles() {
			if sf.RowCount() < 0 {
				t.Fatalf("decoded a negative row count: %+v", sf)
			}
		}
		encoded, err := m.Encode()
		if err != nil {
			// Raw 00 bytes in a name decode to U+0000, which re-encodes as two bytes; a
			// name near the limit can then no longer be written, in Java as well.
			return
		}
		again, err := DecodeSourceMeta(encoded)
		if err != nil {
			t.Fatalf("decode(encode(m)): %v", err)
		}
		if !again.Equal(m) {
			t.Fatalf("round trip changed the meta: %+v -> %+v", m, again)
		}
	})
}
