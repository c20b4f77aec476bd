package filemeta

import (
	"bytes"
	"testing"
)

// TestEncodeDecode covers keys present, an empty key that is not null, and only nulls.
func TestEncodeDecode(t *testing.T) {
	for _, m := range []Meta{
		{FirstKey: []byte{1, 2}, LastKey: []byte{9}, HasNulls: true},
		{FirstKey: []byte{}, LastKey: []byte("z"), HasNulls: false},
		{HasNulls: true},
	} {
		got, err := Decode(m.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.FirstKey, m.FirstKey) || (got.FirstKey == nil) != (m.FirstKey == nil) ||
			!bytes.Equal(got.LastKey, m.LastKey) || (got.LastKey == nil) != (m.LastKey == nil) || got.HasNulls != m.HasNulls {
			t.Errorf("decode(encode(%+v)) = %+v", m, got)
		}
	}
}

// TestLegacyAllNull: the old form (no version, both lengths zero, nulls) means an all-null file.
func TestLegacyAllNull(t *testing.T) {
	m, err := Decode([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !m.OnlyNulls() || !m.HasNulls {
		t.Fatalf("%+v, want only nulls", m)
	}
}

// TestEncodingBytes pins the layout: little-endian lengths, null flag, version 1, flags.
func TestEncodingBytes(t *testing.T) {
	got := Meta{FirstKey: []byte{7}, HasNulls: true}.Encode()
	want := []byte{1, 0, 0, 0, 7, 0, 0, 0, 0, 1, 1, lastKeyIsNull}
	if !bytes.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// FuzzDecode: arbitrary bytes decode or fail, never panic.
func FuzzDecode(f *testing.F) {
	f.Add(Meta{FirstKey: []byte("a"), LastKey: []byte("b")}.Encode())
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = Decode(b) })
}
