package dv

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadDeletionVector feeds arbitrary index file bytes and ranges to the
// reader: it must return an error or a deletion vector, never panic, and a
// vector it returns must survive a serialize/parse round trip unchanged.
func FuzzReadDeletionVector(f *testing.F) {
	f.Fuzz(func(t *testing.T, file []byte, offset, length int32) {
		d, err := ReadRangeAt(bytes.NewReader(file), int64(len(file)), Range{DataFile: "f", Offset: offset, Length: length})
		if err == nil {
			checkRoundTrip(t, d)
		}
		if d, err := Deserialize(file); err == nil {
			checkRoundTrip(t, d)
		}
		// The checksum stops most mutations early; parse the bitmap
		// payloads directly as well so the Roaring decoding is exercised.
		if d, err := parseBitmap64(file); err == nil {
			checkRoundTrip(t, d)
		}
		if bm, _, err := readRoaring(file); err == nil {
			checkRoundTrip(t, &Bitmap32{bm: bm})
		}
	})
}

func checkRoundTrip(t *testing.T, d DeletionVector) {
	t.Helper()
	if b64, ok := d.(*Bitmap64); ok && !b64.IsEmpty() && b64.Bitmap().Maximum()>>32 > 1<<16 {
		// Java's dense layout would need one entry per key up to the
		// maximum: gigabytes for a few input bytes. Not worth fuzzing.
		return
	}
	b, err := Serialize(d)
	if errors.Is(err, ErrTooLarge) {
		// Sparse high keys read from a small file can expand to Java's dense
		// layout beyond 2 GB; refusing to write it is the right answer.
		return
	}
	if err != nil {
		t.Fatalf("serialize a vector that was read: %v", err)
	}
	back, err := Deserialize(b)
	if err != nil {
		t.Fatalf("re-read a serialized vector: %v", err)
	}
	// Compare serialized forms: collecting positions could mean billions of
	// values for a few bytes of run containers.
	b2, err := Serialize(back)
	if err != nil {
		t.Fatalf("serialize again: %v", err)
	}
	if back.Is64() != d.Is64() || back.Cardinality() != d.Cardinality() || !bytes.Equal(b, b2) {
		t.Fatalf("round trip changed the vector")
	}
}
