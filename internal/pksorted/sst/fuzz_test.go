package sst

import (
	"bytes"
	"testing"
)

// FuzzParseBlock: arbitrary bytes parse as a block or fail, never panic; a block the writer built
// parses back to its entries.
func FuzzParseBlock(f *testing.F) {
	w := NewBlockWriter()
	w.Add([]byte("a"), []byte("1"))
	w.Add([]byte("b"), []byte("2"))
	f.Add(append([]byte{}, w.Finish()...))
	w.Reset()
	w.Add([]byte("a"), []byte("1"))
	w.Add([]byte("bb"), []byte("22"))
	f.Add(append([]byte{}, w.Finish()...))
	f.Fuzz(func(t *testing.T, b []byte) {
		blk, err := ParseBlock(b)
		if err != nil {
			return
		}
		_, _ = blk.Seek([]byte("b"), func(x, y []byte) (int, error) { return bytes.Compare(x, y), nil })
	})
}

// TestBlockLayouts: equal-size entries make an aligned block, unequal an unaligned one, no entry
// an unaligned empty block; each parses back.
func TestBlockLayouts(t *testing.T) {
	for _, tc := range []struct {
		entries [][2]string
		kind    byte
	}{
		{[][2]string{{"a", "1"}, {"b", "2"}}, alignedType},
		{[][2]string{{"a", "1"}, {"bb", "2"}}, unalignedType},
		{nil, unalignedType},
	} {
		w := NewBlockWriter()
		for _, e := range tc.entries {
			w.Add([]byte(e[0]), []byte(e[1]))
		}
		b := w.Finish()
		if b[len(b)-1] != tc.kind {
			t.Fatalf("%v: block type %d, want %d", tc.entries, b[len(b)-1], tc.kind)
		}
		blk, err := ParseBlock(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(blk.Entries) != len(tc.entries) {
			t.Fatalf("%v: %d entries parsed", tc.entries, len(blk.Entries))
		}
		for i, e := range blk.Entries {
			if string(e.Key) != tc.entries[i][0] || string(e.Value) != tc.entries[i][1] {
				t.Fatalf("entry %d: %q=%q", i, e.Key, e.Value)
			}
		}
	}
}
