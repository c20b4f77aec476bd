package javaio

import (
	"errors"
	"io"
	"testing"
	"unicode/utf8"
)

// FuzzReadUTF checks that ReadUTF never panics, fails only with an EOF or a
// UTFDataFormatError, and that decoded strings survive a write/read round trip. The same
// input taken as a Go string must also round-trip when it is valid UTF-8.
func FuzzReadUTF(f *testing.F) {
	f.Add([]byte{0x00, 0x00})
	f.Add([]byte{0x00, 0x06, 'd', 'a', 't', 'a', '-', '1'})
	f.Add([]byte{0x00, 0x06, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80})
	f.Add([]byte{0x00, 0x04, 'a', 0xC0, 0x80, 'b'})
	f.Add([]byte{0x00, 0x02, 0xC3})
	f.Add([]byte{0x00, 0x01, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := NewReader(data).ReadUTF()
		if err != nil {
			var utfErr *UTFDataFormatError
			if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &utfErr) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
		} else if EncodedUTFLength(s) <= MaxUTFLength {
			// Raw 00 bytes decode to U+0000, which re-encodes as two bytes, so a decoded
			// string can exceed the limit; Java behaves the same.
			assertRoundTrip(t, s)
		}

		if text := string(data); utf8.ValidString(text) && EncodedUTFLength(text) <= MaxUTFLength {
			assertRoundTrip(t, text)
		}
	})
}

func assertRoundTrip(t *testing.T, s string) {
	t.Helper()
	var w Writer
	if err := w.WriteUTF(s); err != nil {
		t.Fatalf("WriteUTF(%q): %v", s, err)
	}
	got, err := NewReader(w.Bytes()).ReadUTF()
	if err != nil {
		t.Fatalf("ReadUTF(WriteUTF(%q)): %v", s, err)
	}
	if got != s {
		t.Fatalf("round trip %q -> %q", s, got)
	}
}

// FuzzSharingReaderReadsAsReader checks that a sharing reader reads every sequence of strings
// (and fails) exactly as a plain reader over the same bytes does, leaving it at the same offset.
func FuzzSharingReaderReadsAsReader(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x00, 0x01, 'a', 0x00, 0x02, 0xC3, 0xA9})
	f.Add([]byte{0x00, 0x06, 'd', 'a', 't', 'a', '-', '1', 0x00, 0x02, 0xC0, 0x80})
	f.Add([]byte{0x00, 0x03, 'a', 0x80, 'b', 0x00, 0x09, 'x'})
	f.Fuzz(func(t *testing.T, data []byte) {
		plain, sharing := NewReader(data), NewSharingReader(data)
		for {
			want, wantErr := plain.ReadUTF()
			got, gotErr := sharing.ReadUTF()
			if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Fatalf("sharing reader read %q, %v; plain reader %q, %v", got, gotErr, want, wantErr)
			}
			if plain.Available() != sharing.Available() {
				t.Fatalf("sharing reader left %d bytes, plain reader %d", sharing.Available(), plain.Available())
			}
			if wantErr != nil || plain.Available() == 0 {
				return
			}
		}
	})
}
