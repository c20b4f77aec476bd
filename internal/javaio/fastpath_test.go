package javaio

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// pieces are the fragments the fast-path tests build strings from: ASCII, two- and three-byte
// characters, characters around U+E000..U+FFFF and above U+FFFF (where Java's order differs from
// Go's byte order), NUL, and invalid or truncated UTF-8.
var pieces = []string{"a", "b", "z", "0", "-", ".", "\x00", "é", "中", "\uE000", "\uFFFD", "\uFFFF", "😀", "𝄞",
	"\xe4", "\xe4\xb8", "\xb8", "\xff", "\xf0\x9f", "\xed\xa0\x80"}

func randomString(r *rand.Rand) string {
	var s string
	for range r.IntN(6) {
		s += pieces[r.IntN(len(pieces))]
	}
	return s
}

// TestCompareJavaFastPathMatchesUnits checks that CompareJava, which skips the common byte prefix
// and decides on ASCII bytes directly, returns exactly what the unit-by-unit comparison returns.
func TestCompareJavaFastPathMatchesUnits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		prefix := randomString(r)
		a, b := prefix+randomString(r), prefix+randomString(r)
		if got, want := CompareJava(a, b), compareJavaUnits(a, b); got != want {
			t.Fatalf("CompareJava(%q, %q) = %d, unit by unit %d", a, b, got, want)
		}
	}
}

// TestDecodeModifiedUTF8ASCIIFastPath checks the ASCII shortcut decodes as the unit decoder does,
// NUL bytes included.
func TestDecodeModifiedUTF8ASCIIFastPath(t *testing.T) {
	for _, body := range [][]byte{nil, []byte("data-0.parquet"), {0, 'a', 0x7f, 0}} {
		got, err := decodeModifiedUTF8(body)
		want, werr := decodeModifiedUTF8Units(body)
		if err != nil || werr != nil || got != want {
			t.Fatalf("decode %q = %q, %v; unit decoder %q, %v", body, got, err, want, werr)
		}
	}
}

func FuzzCompareJava(f *testing.F) {
	f.Add("data-1.parquet", "data-2.parquet")
	f.Add("a\uFFFF", "a😀")
	f.Add("x\xe4", "x\xe4\xb8\xad")
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := CompareJava(a, b), compareJavaUnits(a, b); got != want {
			t.Fatalf("CompareJava(%q, %q) = %d, unit by unit %d", a, b, got, want)
		}
	})
}

// TestSortStableByJavaString checks the order against a stable sort with CompareJava, equal keys
// kept in input order.
func TestSortStableByJavaString(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type elem struct {
		key string
		pos int
	}
	ascii := []string{"a", "b", "z", "0", "-", ".", "\x00", "data-", "1", "10"}
	for round := range 400 {
		var in []elem
		for i := range r.IntN(300) {
			key := randomString(r)
			if round%2 == 0 { // ASCII only: the byte-order path
				key = ""
				for range r.IntN(6) {
					key += ascii[r.IntN(len(ascii))]
				}
			}
			if round%4 == 2 { // a long common prefix, skipped by the byte-order path
				key = "data-0000" + key
			}
			in = append(in, elem{key: key, pos: i})
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(a, b elem) int { return CompareJava(a.key, b.key) })
		got := slices.Clone(in)
		SortStableByJavaString(got, func(e elem) string { return e.key })
		if !slices.Equal(got, want) {
			t.Fatalf("SortStableByJavaString(%v) = %v, want %v", in, got, want)
		}
		got = slices.Clone(in)
		distinct := SortByDistinctJavaStrings(got, func(e elem) string { return e.key })
		wantDistinct := true
		for i := 1; i < len(want); i++ {
			wantDistinct = wantDistinct && CompareJava(want[i-1].key, want[i].key) < 0
		}
		if !slices.Equal(got, want) || distinct != wantDistinct {
			t.Fatalf("SortByDistinctJavaStrings(%v) = %v, %v, want %v, %v", in, got, distinct, want, wantDistinct)
		}
	}
}

// TestSortFewKeys checks the sorts on the smallest inputs, which the random sizes of
// TestSortStableByJavaString rarely draw.
func TestSortFewKeys(t *testing.T) {
	for _, tt := range []struct {
		in, want []string
		distinct bool
	}{
		{nil, nil, true},
		{[]string{"a"}, []string{"a"}, true},
		{[]string{"b", "a"}, []string{"a", "b"}, true},
		{[]string{"a", "a"}, []string{"a", "a"}, false},
		{[]string{"\uffff", "\U0001F600"}, []string{"\U0001F600", "\uffff"}, true},
	} {
		got := slices.Clone(tt.in)
		distinct := SortByDistinctJavaStrings(got, func(s string) string { return s })
		if !slices.Equal(got, tt.want) || distinct != tt.distinct {
			t.Errorf("SortByDistinctJavaStrings(%q) = %q, %v, want %q, %v", tt.in, got, distinct, tt.want, tt.distinct)
		}
		got = slices.Clone(tt.in)
		if SortStableByJavaString(got, func(s string) string { return s }); !slices.Equal(got, tt.want) {
			t.Errorf("SortStableByJavaString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEncodedUTFLengthASCII checks the ASCII shortcut against the encoder.
func TestEncodedUTFLengthASCII(t *testing.T) {
	// 80, the least byte that is no ASCII, is a bad byte: U+FFFD, three bytes.
	for _, s := range []string{"", "data-1.parquet", "\x00", "a\x00b\x00", "\x7f", "\x80", "a\x80b"} {
		if got, want := EncodedUTFLength(s), len(AppendModifiedUTF8(nil, s)); got != want {
			t.Errorf("EncodedUTFLength(%q) = %d, encoded %d bytes", s, got, want)
		}
	}
}
