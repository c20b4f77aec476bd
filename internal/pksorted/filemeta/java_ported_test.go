package filemeta

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// Ports of Paimon's SortedIndexFileMetaTest (release-2.0.0): round trips through Encode and
// Decode, and the legacy layout without the format version and null-key flags.

// roundTrip decodes the encoding of m.
func roundTrip(t *testing.T, m Meta) Meta {
	t.Helper()
	got, err := Decode(m.Encode())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// legacyBytes is the layout written before the format version: each key's little-endian length
// and bytes, then the null flag.
func legacyBytes(first, last []byte, hasNulls bool) []byte {
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(first)))
	out = append(out, first...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(last)))
	out = append(out, last...)
	if hasNulls {
		return append(out, 1)
	}
	return append(out, 0)
}

// checkMeta asserts m's keys (nil for a null key, which an empty key is not), null flag and
// OnlyNulls.
func checkMeta(t *testing.T, m Meta, first, last []byte, hasNulls, onlyNulls bool) {
	t.Helper()
	if (m.FirstKey == nil) != (first == nil) || !bytes.Equal(m.FirstKey, first) {
		t.Errorf("first key %v (nil %v), want %v (nil %v)", m.FirstKey, m.FirstKey == nil, first, first == nil)
	}
	if (m.LastKey == nil) != (last == nil) || !bytes.Equal(m.LastKey, last) {
		t.Errorf("last key %v (nil %v), want %v (nil %v)", m.LastKey, m.LastKey == nil, last, last == nil)
	}
	if m.HasNulls != hasNulls || m.OnlyNulls() != onlyNulls {
		t.Errorf("hasNulls %v onlyNulls %v, want %v %v", m.HasNulls, m.OnlyNulls(), hasNulls, onlyNulls)
	}
}

func TestEmptyFirstKey(t *testing.T) {
	m := roundTrip(t, Meta{FirstKey: []byte{}, LastKey: []byte{1, 2, 3}})
	checkMeta(t, m, []byte{}, []byte{1, 2, 3}, false, false)
}

func TestEmptyFirstAndLastKeyWithNulls(t *testing.T) {
	m := roundTrip(t, Meta{FirstKey: []byte{}, LastKey: []byte{}, HasNulls: true})
	checkMeta(t, m, []byte{}, []byte{}, true, false)
}

func TestOnlyNulls(t *testing.T) {
	m := roundTrip(t, Meta{HasNulls: true})
	checkMeta(t, m, nil, nil, true, true)
}

func TestLegacyOnlyNulls(t *testing.T) {
	m, err := Decode(legacyBytes([]byte{}, []byte{}, true))
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, m, nil, nil, true, true)
}

func TestLegacyEmptyFirstKey(t *testing.T) {
	m, err := Decode(legacyBytes([]byte{}, []byte{1, 2, 3}, false))
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, m, []byte{}, []byte{1, 2, 3}, false, false)
}

func TestLegacyEmptyFirstAndLastKeyWithoutNulls(t *testing.T) {
	m, err := Decode(legacyBytes([]byte{}, []byte{}, false))
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, m, []byte{}, []byte{}, false, false)
}
