package javaio

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/paimon-pkft/pkft/internal/mutation"
)

// codeUnits returns the Java UTF-16 code units of the character starting at s[i] and the
// number of bytes it occupies, following the string mapping in the package documentation.
// It must only be called with i < len(s).
func codeUnits(s string, i int) (units [2]uint16, count int, size int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		if isWTF8Surrogate(s, i) {
			return [2]uint16{surrogateFromWTF8(s[i+1], s[i+2])}, 1, 3
		}
		return [2]uint16{utf8.RuneError}, 1, 1
	}
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		return [2]uint16{uint16(hi), uint16(lo)}, 2, size
	}
	return [2]uint16{uint16(r)}, 1, size
}

// isWTF8Surrogate reports whether s[i:] starts with the three-byte form of one surrogate
// code unit, U+D800..U+DFFF.
func isWTF8Surrogate(s string, i int) bool {
	return len(s)-i >= 3 && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF &&
		s[i+2] >= 0x80 && s[i+2] <= 0xBF
}

func surrogateFromWTF8(b1, b2 byte) uint16 {
	return 0xD000 | uint16(b1&0x3F)<<6 | uint16(b2&0x3F)
}

// unitLength is the number of modified UTF-8 bytes Java writes for one code unit.
func unitLength(c uint16) int {
	if c == 0 && mutation.On("mutf8-nul") {
		// NUL as the single byte 00 (standard UTF-8) instead of C0 80.
		return 1
	}
	switch {
	case c >= 0x0001 && c <= 0x007F:
		return 1
	case c > 0x07FF:
		return 3
	default:
		return 2
	}
}

func appendUnit(b []byte, c uint16) []byte {
	switch unitLength(c) {
	case 1:
		return append(b, byte(c))
	case 3:
		return append(b, 0xE0|byte(c>>12&0x0F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	default:
		return append(b, 0xC0|byte(c>>6&0x1F), 0x80|byte(c&0x3F))
	}
}

// EncodedUTFLength returns the number of bytes the modified UTF-8 encoding of s occupies,
// without the two-byte length prefix; Java writeUTF rejects a result above [MaxUTFLength].
func EncodedUTFLength(s string) int {
	if isASCIIString(s) {
		if mutation.On("mutf8-nul") {
			return len(s)
		}
		// One byte per character, except NUL, which takes two.
		return len(s) + strings.Count(s, "\x00")
	}
	n := 0
	for i := 0; i < len(s); {
		units, count, size := codeUnits(s, i)
		if count == 2 && mutation.On("mutf8-supplementary") {
			n += size
			i += size
			continue
		}
		for _, c := range units[:count] {
			n += unitLength(c)
		}
		i += size
	}
	return n
}

// AppendModifiedUTF8 appends the modified UTF-8 encoding of s to b without a length prefix
// and without a length limit; [Writer.WriteUTF] adds both.
func AppendModifiedUTF8(b []byte, s string) []byte {
	return appendModifiedUTF8(b, s)
}

func appendModifiedUTF8(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		units, count, size := codeUnits(s, i)
		if count == 2 && mutation.On("mutf8-supplementary") {
			// A supplementary character as its four-byte UTF-8 form instead of two
			// three-byte surrogates.
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		for _, c := range units[:count] {
			b = appendUnit(b, c)
		}
		i += size
	}
	return b
}

// decodeModifiedUTF8 decodes a writeUTF body the way Paimon's DataInputDeserializer.readUTF
// does, with the same error messages, and maps the code units to a Go string.
func decodeModifiedUTF8(body []byte) (string, error) {
	if isASCII(body) {
		// Every byte is a one-byte character (NUL included): the units are the bytes.
		return string(body), nil
	}
	return decodeModifiedUTF8Units(body)
}

// decodeModifiedUTF8Units is decodeModifiedUTF8 unit by unit, for any input.
func decodeModifiedUTF8Units(body []byte) (string, error) {
	out := make([]byte, 0, len(body))
	var pendingHigh uint16 // a high surrogate waiting for its low half, or 0
	emit := func(c uint16) {
		if pendingHigh != 0 {
			if utf16.IsSurrogate(rune(c)) && c >= 0xDC00 {
				out = utf8.AppendRune(out, utf16.DecodeRune(rune(pendingHigh), rune(c)))
				pendingHigh = 0
				return
			}
			out = appendUnit(out, pendingHigh) // lone high surrogate, WTF-8 form
			pendingHigh = 0
		}
		switch {
		case c >= 0xD800 && c <= 0xDBFF:
			pendingHigh = c
		case c >= 0xDC00 && c <= 0xDFFF:
			out = appendUnit(out, c) // lone low surrogate, WTF-8 form
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}

	n := len(body)
	for count := 0; count < n; {
		c := int(body[count])
		switch c >> 4 {
		case 0, 1, 2, 3, 4, 5, 6, 7:
			count++
			emit(uint16(c))
		case 12, 13:
			count += 2
			if count > n {
				return "", &UTFDataFormatError{Message: "malformed input: partial character at end"}
			}
			c2 := int(body[count-1])
			if c2&0xC0 != 0x80 {
				return "", &UTFDataFormatError{Message: fmt.Sprintf("malformed input around byte %d", count)}
			}
			emit(uint16((c&0x1F)<<6 | c2&0x3F))
		case 14:
			count += 3
			if count > n {
				return "", &UTFDataFormatError{Message: "malformed input: partial character at end"}
			}
			c2, c3 := int(body[count-2]), int(body[count-1])
			if c2&0xC0 != 0x80 || c3&0xC0 != 0x80 {
				return "", &UTFDataFormatError{Message: fmt.Sprintf("malformed input around byte %d", count-1)}
			}
			emit(uint16((c&0x0F)<<12 | (c2&0x3F)<<6 | c3&0x3F))
		default: // 10xx xxxx, 1111 xxxx
			return "", &UTFDataFormatError{Message: fmt.Sprintf("malformed input around byte %d", count)}
		}
	}
	if pendingHigh != 0 {
		out = appendUnit(out, pendingHigh)
	}
	return string(out), nil
}

// CompareJava orders a and b the way Java's String.compareTo does: lexicographically by
// UTF-16 code unit, a shorter prefix first. It differs from Go's byte order when runes above
// U+FFFF meet runes in U+E000..U+FFFF. Paimon sorts file names this way. The result is
// negative, zero or positive.
func CompareJava(a, b string) int {
	// Fast path: skip the common byte prefix. When the first differing bytes (or the byte after
	// the shorter string) are ASCII, they start a character on both sides and the prefix decoded
	// to the same code units on both, so the ASCII bytes are the first differing units.
	n := min(len(a), len(b))
	k := 0
	for k < n && a[k] == b[k] {
		k++
	}
	switch {
	case k == len(a) && k == len(b):
		return 0
	case k == len(a):
		if b[k] < utf8.RuneSelf {
			return -1
		}
	case k == len(b):
		if a[k] < utf8.RuneSelf {
			return 1
		}
	case a[k] < utf8.RuneSelf && b[k] < utf8.RuneSelf:
		return int(a[k]) - int(b[k])
	}
	return compareJavaUnits(a, b)
}

// isASCIIString reports whether every byte of s is below 0x80.
func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isASCII reports whether every byte of b is below 0x80.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// compareJavaUnits compares a and b code unit by code unit, decoding both from the start.
func compareJavaUnits(a, b string) int {
	i, j := 0, 0
	var ua, ub [2]uint16
	na, nb, ka, kb := 0, 0, 0, 0 // units decoded and units consumed per side
	for {
		if ka == na && i < len(a) {
			var size int
			ua, na, size = codeUnits(a, i)
			i += size
			ka = 0
		}
		if kb == nb && j < len(b) {
			var size int
			ub, nb, size = codeUnits(b, j)
			j += size
			kb = 0
		}
		aDone, bDone := ka == na, kb == nb
		switch {
		case aDone && bDone:
			return 0
		case aDone:
			return -1
		case bDone:
			return 1
		}
		if ua[ka] != ub[kb] {
			return int(ua[ka]) - int(ub[kb])
		}
		ka++
		kb++
	}
}

// SortStableByJavaString sorts s by key in Java's String order ([CompareJava]), keeping elements
// with equal keys in their input order, as Java's List.sort does. It computes each key once and
// makes O(n log n) comparisons, where a stable in-place sort moves elements O(n log² n) times.
// When every key is ASCII, most comparisons are of integers: the eight bytes that follow the
// keys' common prefix.
func SortStableByJavaString[T any](s []T, key func(T) string) {
	sortByJavaString(s, key)
}

// SortByDistinctJavaStrings is [SortStableByJavaString] that also reports whether the keys
// strictly increase once sorted, i.e. no two of them are equal in Java's order (then the order
// of s is the only one sorting it, stable or not).
func SortByDistinctJavaStrings[T any](s []T, key func(T) string) bool {
	return sortByJavaString(s, key)
}

// sortByJavaString sorts s as SortStableByJavaString does and reports whether the keys are
// distinct in Java's order.
func sortByJavaString[T any](s []T, key func(T) string) (distinct bool) {
	if len(s) < 2 {
		return true
	}
	type item struct {
		head uint64 // bytes [skip, skip+8) of key, big-endian, zero-padded; ASCII keys only
		key  string
		pos  int
		v    T
	}
	items := make([]item, len(s))
	ascii := true
	for i, v := range s {
		items[i] = item{key: key(v), pos: i, v: v}
		ascii = ascii && isASCIIString(items[i].key)
	}
	compare := CompareJava
	if !ascii {
		slices.SortFunc(items, func(a, b item) int {
			if c := CompareJava(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		})
	} else {
		compare = strings.Compare
		// ASCII characters are one code unit each: Java's order is the byte order. Past the
		// common prefix, keys whose heads differ are ordered by them (a zero pad byte sorts
		// first, as the end of a shorter key does); equal heads leave it to the whole keys.
		skip := len(items[0].key)
		for _, it := range items[1:] {
			skip = min(skip, commonPrefixLen(items[0].key, it.key))
		}
		for i := range items {
			items[i].head = head8(items[i].key, skip)
		}
		slices.SortFunc(items, func(a, b item) int {
			if a.head != b.head {
				return cmp.Compare(a.head, b.head)
			}
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		})
	}
	distinct = true
	for i := range items {
		s[i] = items[i].v
		// Heads are zero for keys that are not all ASCII; for ASCII keys a smaller head is a
		// smaller key, so only equal heads need the keys compared.
		if i > 0 && distinct && (!ascii || items[i-1].head == items[i].head) {
			distinct = compare(items[i-1].key, items[i].key) < 0
		}
	}
	return distinct
}

// commonPrefixLen returns the number of leading bytes a and b share.
func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// head8 returns bytes [from, from+8) of s as a big-endian integer, missing bytes taken as zero.
func head8(s string, from int) uint64 {
	var h uint64
	for i := from; i < from+8; i++ {
		h <<= 8
		if i < len(s) {
			h |= uint64(s[i])
		}
	}
	return h
}
