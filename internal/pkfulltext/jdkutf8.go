package pkfulltext

import (
	"strings"
	"unicode/utf8"
)

// DecodeLikeJava returns the string Java reads from a data file's UTF-8 bytes
// (BinaryString.toString): b itself when it is valid UTF-8, else b decoded with the JDK decoder's
// replacement (see decodeUTF8LikeJDK).
func DecodeLikeJava(b []byte) string { return decodeUTF8LikeJDK(b) }

// decodeUTF8LikeJDK decodes b as the JDK's UTF-8 decoder does with replacement (new String(bytes,
// UTF_8), which Paimon's BinaryString.toString falls back to when its strict decoder meets
// malformed input): each malformed sequence becomes one U+FFFD, where a malformed sequence is a
// lead byte with the continuation bytes that were valid for it (at most the "maximal subpart" of
// Unicode's recommended practice), except that a three-byte sequence encoding a surrogate
// (ED A0..BF 80..BF) is replaced as a whole by one U+FFFD, as the JDK does. A sequence cut off by
// the end of the input becomes one U+FFFD.
//
// The rule was pinned against the JDK 17 decoder on every input of up to three bytes over the
// boundary bytes of UTF-8 and on random longer inputs (testdata/jdk-utf8-vectors.txt).
func decodeUTF8LikeJDK(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	cont := func(c byte) bool { return c&0xc0 == 0x80 }
	n := len(b)
	for i := 0; i < n; {
		c := b[i]
		switch {
		case c < 0x80:
			sb.WriteByte(c)
			i++
		case c >= 0xc2 && c <= 0xdf:
			if i+1 < n && cont(b[i+1]) {
				sb.Write(b[i : i+2])
				i += 2
			} else {
				sb.WriteRune(utf8.RuneError)
				i++
			}
		case c >= 0xe0 && c <= 0xef:
			if i+2 < n {
				b2, b3 := b[i+1], b[i+2]
				if (c == 0xe0 && b2&0xe0 == 0x80) || !cont(b2) || !cont(b3) {
					sb.WriteRune(utf8.RuneError)
					if (c == 0xe0 && b2&0xe0 == 0x80) || !cont(b2) {
						i++
					} else {
						i += 2
					}
					continue
				}
				r := rune(c&0x0f)<<12 | rune(b2&0x3f)<<6 | rune(b3&0x3f)
				if r >= 0xd800 && r <= 0xdfff {
					sb.WriteRune(utf8.RuneError)
				} else {
					sb.WriteRune(r)
				}
				i += 3
				continue
			}
			// Fewer than three bytes left.
			if i+1 < n && ((c == 0xe0 && b[i+1]&0xe0 == 0x80) || !cont(b[i+1])) {
				sb.WriteRune(utf8.RuneError)
				i++
				continue
			}
			sb.WriteRune(utf8.RuneError)
			i = n
		case c >= 0xf0 && c <= 0xf7:
			if i+3 < n {
				b2, b3, b4 := b[i+1], b[i+2], b[i+3]
				r := rune(c&0x07)<<18 | rune(b2&0x3f)<<12 | rune(b3&0x3f)<<6 | rune(b4&0x3f)
				if !cont(b2) || !cont(b3) || !cont(b4) || r < 0x10000 || r > 0x10ffff {
					sb.WriteRune(utf8.RuneError)
					switch {
					case c > 0xf4 || (c == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (c == 0xf4 && b2&0xf0 != 0x80) || !cont(b2):
						i++
					case !cont(b3):
						i += 2
					default:
						i += 3
					}
					continue
				}
				sb.WriteRune(r)
				i += 4
				continue
			}
			// Fewer than four bytes left.
			if c > 0xf4 || (i+1 < n && malformed4second(c, b[i+1])) {
				sb.WriteRune(utf8.RuneError)
				i++
				continue
			}
			i += 2
			sb.WriteRune(utf8.RuneError)
			if i < n && !cont(b[i]) {
				continue
			}
			i = n
		default:
			sb.WriteRune(utf8.RuneError)
			i++
		}
	}
	return sb.String()
}

func malformed4second(b1, b2 byte) bool {
	return (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 == 0xf4 && b2&0xf0 != 0x80) || b2&0xc0 != 0x80
}
