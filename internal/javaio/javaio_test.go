package javaio

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestIntegersAreBigEndian(t *testing.T) {
	w := NewWriter(1)
	w.WriteInt(1)
	w.WriteInt(-2)
	w.WriteLong(0x0102030405060708)
	w.WriteLong(-1)
	w.WriteShort(-2)
	w.WriteBoolean(true)
	w.WriteBoolean(false)
	if err := w.WriteByte(42); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte{7, 8}); err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0, 0, 0, 1,
		0xFF, 0xFF, 0xFF, 0xFE,
		1, 2, 3, 4, 5, 6, 7, 8,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFE,
		1, 0, 42, 7, 8,
	}
	got := w.Bytes()
	if !bytes.Equal(got, want) || w.Len() != len(want) {
		t.Fatalf("bytes = % X, want % X", got, want)
	}

	r := NewReader(got)
	if v, err := r.ReadInt(); err != nil || v != 1 {
		t.Fatalf("ReadInt = %d, %v", v, err)
	}
	if v, err := r.ReadInt(); err != nil || v != -2 {
		t.Fatalf("ReadInt = %d, %v", v, err)
	}
	if v, err := r.ReadLong(); err != nil || v != 0x0102030405060708 {
		t.Fatalf("ReadLong = %d, %v", v, err)
	}
	if v, err := r.ReadLong(); err != nil || v != -1 {
		t.Fatalf("ReadLong = %d, %v", v, err)
	}
	if v, err := r.ReadShort(); err != nil || v != -2 {
		t.Fatalf("ReadShort = %d, %v", v, err)
	}
	if v, err := r.ReadBoolean(); err != nil || !v {
		t.Fatalf("ReadBoolean = %v, %v", v, err)
	}
	if v, err := r.ReadBoolean(); err != nil || v {
		t.Fatalf("ReadBoolean = %v, %v", v, err)
	}
	if v, err := r.ReadByte(); err != nil || v != 42 {
		t.Fatalf("ReadByte = %d, %v", v, err)
	}
	if v, err := r.ReadFully(2); err != nil || !bytes.Equal(v, []byte{7, 8}) {
		t.Fatalf("ReadFully = %v, %v", v, err)
	}
	if r.Available() != 0 || r.Position() != len(want) {
		t.Fatalf("Available = %d, Position = %d", r.Available(), r.Position())
	}
}

func TestBytesIsACopy(t *testing.T) {
	var w Writer
	w.WriteInt(5)
	b := w.Bytes()
	b[3] = 9
	if got := w.Bytes(); got[3] != 5 {
		t.Fatalf("Bytes shares the buffer: % X", got)
	}
}

func TestTruncatedReadsFailWithoutConsuming(t *testing.T) {
	reads := []struct {
		name string
		size int
		read func(*Reader) error
	}{
		{"byte", 1, func(r *Reader) error { _, err := r.ReadByte(); return err }},
		{"boolean", 1, func(r *Reader) error { _, err := r.ReadBoolean(); return err }},
		{"short", 2, func(r *Reader) error { _, err := r.ReadShort(); return err }},
		{"unsigned short", 2, func(r *Reader) error { _, err := r.ReadUnsignedShort(); return err }},
		{"int", 4, func(r *Reader) error { _, err := r.ReadInt(); return err }},
		{"long", 8, func(r *Reader) error { _, err := r.ReadLong(); return err }},
		{"fully", 9, func(r *Reader) error { _, err := r.ReadFully(9); return err }},
	}
	for _, tt := range reads {
		for n := 0; n < tt.size; n++ {
			r := NewReader(make([]byte, n))
			if err := tt.read(r); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s on %d bytes: err = %v, want unexpected EOF", tt.name, n, err)
			}
			if r.Position() != 0 {
				t.Errorf("%s on %d bytes consumed %d bytes", tt.name, n, r.Position())
			}
		}
	}
	if _, err := NewReader([]byte{1}).ReadFully(-1); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadFully(-1): err = %v", err)
	}
}

func TestWriteUTFVectors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []byte
	}{
		{"empty", "", []byte{0x00, 0x00}},
		{"ascii", "data-1", []byte{0x00, 0x06, 'd', 'a', 't', 'a', '-', '1'}},
		{"e acute", "é", []byte{0x00, 0x02, 0xC3, 0xA9}},
		{"chinese", "中文", []byte{0x00, 0x06, 0xE4, 0xB8, 0xAD, 0xE6, 0x96, 0x87}},
		{"emoji U+1F600", "😀", []byte{0x00, 0x06, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}},
		{"embedded NUL", "a\x00b", []byte{0x00, 0x04, 'a', 0xC0, 0x80, 'b'}},
		{"U+007F", "\u007f", []byte{0x00, 0x01, 0x7F}},
		{"U+0080", "\u0080", []byte{0x00, 0x02, 0xC2, 0x80}},
		{"U+07FF", "\u07ff", []byte{0x00, 0x02, 0xDF, 0xBF}},
		{"U+0800", "\u0800", []byte{0x00, 0x03, 0xE0, 0xA0, 0x80}},
		{"U+FFFF", "\uffff", []byte{0x00, 0x03, 0xEF, 0xBF, 0xBF}},
		{"U+10FFFF", "\U0010FFFF", []byte{0x00, 0x06, 0xED, 0xAF, 0xBF, 0xED, 0xBF, 0xBF}},
		// Invalid Go UTF-8 is written as the U+FFFD Go yields for each bad byte.
		{"invalid byte", "a\xffb", []byte{0x00, 0x05, 'a', 0xEF, 0xBF, 0xBD, 'b'}},
		{"truncated rune", "\xe4\xb8", []byte{0x00, 0x06, 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD}},
		// A WTF-8 lone surrogate is written as that one code unit.
		{"lone surrogate", "\xed\xa0\x80", []byte{0x00, 0x03, 0xED, 0xA0, 0x80}},
		// The start of a surrogate's three bytes cut by the end of the string, after other
		// text, is bad bytes, each one U+FFFD (the check reads no byte past the end).
		{"cut surrogate, one byte", "ab\xed", []byte{0x00, 0x05, 'a', 'b', 0xEF, 0xBF, 0xBD}},
		{"cut surrogate, two bytes", "ab\xed\xa0", []byte{0x00, 0x08, 'a', 'b', 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w Writer
			if err := w.WriteUTF(tt.in); err != nil {
				t.Fatal(err)
			}
			if got := w.Bytes(); !bytes.Equal(got, tt.want) {
				t.Fatalf("WriteUTF(%q) = % X, want % X", tt.in, got, tt.want)
			}
			if n := EncodedUTFLength(tt.in); n != len(tt.want)-2 {
				t.Fatalf("EncodedUTFLength = %d, want %d", n, len(tt.want)-2)
			}
		})
	}
}

func TestReadUTFVectors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", []byte{0x00, 0x00}, ""},
		{"ascii", []byte{0x00, 0x06, 'd', 'a', 't', 'a', '-', '1'}, "data-1"},
		{"e acute", []byte{0x00, 0x02, 0xC3, 0xA9}, "é"},
		{"chinese", []byte{0x00, 0x06, 0xE4, 0xB8, 0xAD, 0xE6, 0x96, 0x87}, "中文"},
		{"emoji U+1F600", []byte{0x00, 0x06, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}, "😀"},
		{"embedded NUL", []byte{0x00, 0x04, 'a', 0xC0, 0x80, 'b'}, "a\x00b"},
		// Java's readUTF is lenient about these non-canonical forms.
		{"raw NUL", []byte{0x00, 0x01, 0x00}, "\x00"},
		{"overlong two-byte", []byte{0x00, 0x02, 0xC1, 0x81}, "A"},
		{"overlong three-byte NUL", []byte{0x00, 0x03, 0xE0, 0x80, 0x80}, "\x00"},
		{"lone high surrogate", []byte{0x00, 0x04, 0xED, 0xA0, 0x80, 'a'}, "\xed\xa0\x80a"},
		{"lone low surrogate", []byte{0x00, 0x03, 0xED, 0xB0, 0x80}, "\xed\xb0\x80"},
		{"high at end", []byte{0x00, 0x04, 'a', 0xED, 0xA0, 0x80}, "a\xed\xa0\x80"},
		{"two highs then low", []byte{0x00, 0x09, 0xED, 0xA0, 0x80, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}, "\xed\xa0\x80😀"},
		// DBFF, the last high surrogate, with DFFF, the last low one.
		{"U+10FFFF", []byte{0x00, 0x06, 0xED, 0xAF, 0xBF, 0xED, 0xBF, 0xBF}, "\U0010FFFF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in)
			got, err := r.ReadUTF()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("ReadUTF(% X) = %q, want %q", tt.in, got, tt.want)
			}
			if r.Available() != 0 {
				t.Fatalf("%d bytes left", r.Available())
			}
		})
	}
}

func TestReadUTFRejectsMalformedInput(t *testing.T) {
	tests := []struct {
		name string
		body []byte
		msg  string
	}{
		{"continuation byte first", []byte{0x80}, "malformed input around byte 0"},
		{"four-byte lead", []byte{'a', 0xF0, 0x9F, 0x98, 0x80}, "malformed input around byte 1"},
		{"0xFF", []byte{'a', 'b', 0xFF}, "malformed input around byte 2"},
		{"partial two-byte", []byte{'a', 0xC3}, "malformed input: partial character at end"},
		{"partial three-byte", []byte{0xE4, 0xB8}, "malformed input: partial character at end"},
		{"bad second of two", []byte{0xC3, 'A'}, "malformed input around byte 2"},
		{"bad second of three", []byte{'x', 0xE4, 'A', 0xAD}, "malformed input around byte 3"},
		{"bad third of three", []byte{0xE4, 0xB8, 'A'}, "malformed input around byte 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]byte{0, byte(len(tt.body))}, tt.body...)
			_, err := NewReader(in).ReadUTF()
			var utfErr *UTFDataFormatError
			if !errors.As(err, &utfErr) {
				t.Fatalf("err = %v, want UTFDataFormatError", err)
			}
			if utfErr.Message != tt.msg {
				t.Fatalf("message = %q, want %q", utfErr.Message, tt.msg)
			}
		})
	}
}

func TestReadUTFTruncated(t *testing.T) {
	for _, in := range [][]byte{nil, {0x00}, {0x00, 0x02}, {0x00, 0x03, 'a', 'b'}, {0xFF, 0xFF}} {
		r := NewReader(in)
		_, err := r.ReadUTF()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ReadUTF(% X): err = %v, want unexpected EOF", in, err)
		}
	}
}

func TestWriteUTFLengthLimit(t *testing.T) {
	accepted := []struct {
		name, in, want string
	}{
		{"ascii", strings.Repeat("a", MaxUTFLength), ""},
		{"three-byte", strings.Repeat("中", MaxUTFLength/3), ""},                      // 21845 * 3
		{"supplementary", strings.Repeat("😀", 10922) + "abc", ""},                    // 10922 * 6 + 3
		{"NUL", strings.Repeat("\x00", MaxUTFLength/2) + "a", ""},                    // 32767 * 2 + 1
		{"two-byte", strings.Repeat("é", MaxUTFLength/2) + "\x7f", ""},               // 32767 * 2 + 1
		{"ascii then emoji", strings.Repeat("a", MaxUTFLength-6) + "\U0001F600", ""}, // 65529 + 6
		{"invalid bytes", strings.Repeat("\xff", MaxUTFLength/3), strings.Repeat("\uFFFD", MaxUTFLength/3)},
	}
	for _, tt := range accepted {
		var w Writer
		if err := w.WriteUTF(tt.in); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b := w.Bytes()
		if len(b) != MaxUTFLength+2 || b[0] != 0xFF || b[1] != 0xFF {
			t.Fatalf("%s: encoded length %d, prefix % X", tt.name, len(b), b[:2])
		}
		got, err := NewReader(b).ReadUTF()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := tt.want
		if want == "" {
			want = tt.in
		}
		if got != want {
			t.Fatalf("%s: round trip changed the string", tt.name)
		}
	}

	rejected := []struct {
		s string
		n int
	}{
		{strings.Repeat("a", MaxUTFLength+1), 65536},
		{strings.Repeat("中", MaxUTFLength/3) + "a", 65536},
		{strings.Repeat("\x00", 32768), 65536},
		{strings.Repeat("a", MaxUTFLength-5) + "\U0001F600", 65536},
		{strings.Repeat("中", 30000), 90000},
	}
	for _, tt := range rejected {
		w := NewWriter(4)
		w.WriteInt(7)
		err := w.WriteUTF(tt.s)
		var utfErr *UTFDataFormatError
		if !errors.As(err, &utfErr) {
			t.Fatalf("err = %v, want UTFDataFormatError", err)
		}
		if want := "Encoded string is too long: " + strconv.Itoa(tt.n); utfErr.Message != want {
			t.Fatalf("message = %q, want %q", utfErr.Message, want)
		}
		if w.Len() != 4 {
			t.Fatalf("failed WriteUTF wrote %d bytes", w.Len()-4)
		}
	}
}

func TestRoundTripPreservesJavaStrings(t *testing.T) {
	for _, s := range []string{
		"", "data-5a1c-0.parquet", "é中文😀", "a\x00b", "\xed\xa0\x80", "x\xed\xbf\xbfy",
		"\U00010000\uffff\u0800\u07ff\u0080\u007f\u0001",
	} {
		var w Writer
		if err := w.WriteUTF(s); err != nil {
			t.Fatal(err)
		}
		got, err := NewReader(w.Bytes()).ReadUTF()
		if err != nil {
			t.Fatal(err)
		}
		if got != s {
			t.Fatalf("round trip %q -> %q", s, got)
		}
	}
}

func TestAppendModifiedUTF8HasNoPrefix(t *testing.T) {
	got := AppendModifiedUTF8([]byte{1}, "\x00é")
	if want := []byte{1, 0xC0, 0x80, 0xC3, 0xA9}; !bytes.Equal(got, want) {
		t.Fatalf("got % X, want % X", got, want)
	}
}

func TestCompareJava(t *testing.T) {
	tests := []struct {
		a, b string
		sign int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "a", -1},
		{"data-a", "data-b", -1},
		{"data-10", "data-9", -1},
		{"ab", "a", 1},
		{"é", "é", 0},
		// Java orders by UTF-16 code unit: the high surrogate D83D sorts before U+FFFF,
		// although Go's byte order puts U+1F600 after it.
		{"\U0001F600", "\uffff", -1},
		{"\uffff", "\U0001F600", 1},
		{"\ue000", "\U00010000", 1},
		{"\U0001F600", "\U0001F601", -1},
		// A lone high surrogate is a prefix of the pair it starts.
		{"\xed\xa0\xbd", "\U0001F600", -1},
		{"\U0001F600x", "\U0001F600", 1},
		// A character cut short is bad bytes (U+FFFD each), not a prefix of the whole one:
		// E4 B8 against E4 B8 80 (U+4E00) is FFFD FFFD against 4E00. The byte after the
		// common prefix, 80, is no ASCII.
		{"\xe4\xb8", "\xe4\xb8\x80", 1},
		{"\xe4\xb8\x80", "\xe4\xb8", -1},
		// The same with an ASCII byte on the other side: E4 B8 80 (U+4E00) against E4 B8 41
		// (FFFD FFFD A).
		{"\xe4\xb8\x80", "\xe4\xb8A", -1},
		{"\xe4\xb8A", "\xe4\xb8\x80", 1},
	}
	for _, tt := range tests {
		got := CompareJava(tt.a, tt.b)
		if sign(got) != tt.sign {
			t.Errorf("CompareJava(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.sign)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestRawNULsCanOutgrowTheLimitOnReencode(t *testing.T) {
	body := make([]byte, MaxUTFLength)
	s, err := NewReader(append([]byte{0xFF, 0xFF}, body...)).ReadUTF()
	if err != nil {
		t.Fatal(err)
	}
	if s != string(body) {
		t.Fatal("raw NULs must decode to U+0000")
	}
	var w Writer
	var utfErr *UTFDataFormatError
	if err := w.WriteUTF(s); !errors.As(err, &utfErr) || utfErr.Message != "Encoded string is too long: 131070" {
		t.Fatalf("err = %v", err)
	}
}
