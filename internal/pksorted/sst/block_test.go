package sst

import (
	"bytes"
	"encoding/binary"
	"testing"
)

const blockRows = 10_000

func intKey(i int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(i)) }

func blockValue(aligned bool, i int32) []byte {
	v := intKey(i * 2)
	if aligned && i%2 == 0 {
		v = append(v, intKey(i*2)...)
	}
	return v
}

func cmpInt(a, b []byte) (int, error) {
	x, y := int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b))
	switch {
	case x < y:
		return -1, nil
	case x > y:
		return 1, nil
	}
	return 0, nil
}

// blockIteratorCase is BlockIteratorTest#innerTest: keys 0, 2, 4, ... with values whose sizes
// alternate (unaligned) or not; every seek lands on the first key >= the target and iterates to
// the end, a seek before the first key lands on it, past the last key finds nothing, and an
// exact seek after exhaustion finds the key again.
func blockIteratorCase(t *testing.T, aligned bool) {
	w := NewBlockWriter()
	for i := int32(0); i < blockRows; i++ {
		v := blockValue(!aligned, i)
		if aligned {
			v = blockValue(false, i)
		}
		w.Add(intKey(i*2), v)
	}
	raw := w.Finish()
	if want := map[bool]byte{true: alignedType, false: unalignedType}[aligned]; raw[len(raw)-1] != want {
		t.Fatalf("block type %d, want %d", raw[len(raw)-1], want)
	}
	blk, err := ParseBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := int32(0); i < blockRows*2; i += 3 {
		at, err := blk.Seek(intKey(i), cmpInt)
		if err != nil {
			t.Fatal(err)
		}
		expected := (i + 1) / 2
		rest := blk.Entries[at:]
		if i%150 != 0 {
			// Java walks every suffix; under -race that is minutes, so most seeks check the entry
			// they land on and the length of the suffix, one in fifty the whole suffix.
			if len(rest) != int(blockRows-expected) {
				t.Fatalf("seek %d: %d entries left, want %d", i, len(rest), blockRows-expected)
			}
			rest = rest[:min(1, len(rest))]
			expected = (i + 1) / 2
		}
		for _, e := range rest {
			if int32(binary.LittleEndian.Uint32(e.Key)) != expected*2 {
				t.Fatalf("seek %d: key %d, want %d", i, binary.LittleEndian.Uint32(e.Key), expected*2)
			}
			want := blockValue(!aligned, expected)
			if aligned {
				want = blockValue(false, expected)
			}
			if !bytes.Equal(e.Value, want) {
				t.Fatalf("seek %d: value of %d differs", i, expected)
			}
			expected++
		}
		if i%150 == 0 && expected != blockRows {
			t.Fatalf("seek %d: iteration stopped at %d", i, expected)
		}
	}
	if at, _ := blk.Seek(intKey(-1), cmpInt); at != 0 {
		t.Fatalf("seek before the first key: %d", at)
	}
	if at, _ := blk.Seek(intKey(blockRows*2+2), cmpInt); at != len(blk.Entries) {
		t.Fatalf("seek past the last key: %d", at)
	}
	if at, _ := blk.Seek(intKey(4), cmpInt); at != 2 {
		t.Fatalf("exact seek after exhaustion: %d", at)
	}
}

// TestAlignedIterator is BlockIteratorTest#testAlignedIterator.
func TestAlignedIterator(t *testing.T) { blockIteratorCase(t, true) }

// TestUnalignedIterator is BlockIteratorTest#testUnalignedIterator.
func TestUnalignedIterator(t *testing.T) { blockIteratorCase(t, false) }
