package paths

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DefaultPartitionName is the default of the table option
// partition.default-name: the directory value used when a partition value is
// null, empty or whitespace only.
const DefaultPartitionName = "__DEFAULT_PARTITION__"

// PartitionKV is one partition column and its value already formatted as a
// string. A null value is passed as "" (Paimon maps null, empty and
// whitespace-only values alike to the default partition name).
type PartitionKV struct {
	Key   string
	Value string
}

// escapeSet marks the ASCII characters Paimon's PartitionPathUtils escapes:
// control characters, DEL and "#%'*/:=?\{}[]^ plus the double quote.
var escapeSet = func() (set [128]bool) {
	for c := 0; c < ' '; c++ {
		set[c] = true
	}
	for _, c := range "\"#%'*/:=?\\\x7f{}[]^" {
		set[c] = true
	}
	return set
}()

func needsEscaping(c byte) bool { return c < 128 && escapeSet[c] }

// EscapePathName escapes one partition key or value for use in a directory
// name: every character of the escape set becomes %XX (upper-case hex).
// Non-ASCII characters are kept as they are. An empty name is an error, as in
// Java.
func EscapePathName(s string) (string, error) {
	if s == "" {
		return "", errors.New("path name should not be null or empty")
	}
	var b *strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscaping(c) {
			if b == nil {
				b = &strings.Builder{}
				b.Grow(len(s) + 2)
				b.WriteString(s[:i])
			}
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&0xF])
		} else if b != nil {
			b.WriteByte(c)
		}
	}
	if b == nil {
		return s, nil
	}
	return b.String(), nil
}

// UnescapePathName reverses EscapePathName. Like Java, a '%' followed by two
// characters that parse as a non-negative hexadecimal int (Integer.parseInt
// radix 16, so "+F" counts and so does "-0") is replaced by that character;
// anything else is kept literally. Only ASCII hex digits are recognised
// (Java would also accept other Unicode digits).
func UnescapePathName(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			if code, ok := parseJavaHex2(s[i+1 : i+3]); ok {
				b.WriteRune(rune(code))
				i += 2
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// parseJavaHex2 parses two characters the way Integer.parseInt(s, 16) does
// and reports whether the result is a usable code (>= 0).
func parseJavaHex2(s string) (int, bool) {
	if s[0] == '+' || s[0] == '-' {
		v, err := strconv.ParseUint(s[1:], 16, 8)
		if err != nil {
			return 0, false
		}
		if s[0] == '-' {
			return 0, v == 0
		}
		return int(v), true
	}
	v, err := strconv.ParseUint(s, 16, 8)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// PartitionValue applies Paimon's null handling to a formatted partition
// value (InternalRowPartitionComputer.generatePartValues): a value that is
// empty or consists only of Java whitespace is replaced by defaultName.
func PartitionValue(value, defaultName string) string {
	if IsJavaWhitespaceOnly(value) {
		return defaultName
	}
	return value
}

// PartitionPath builds the relative partition directory "k1=v1/k2=v2/" of a
// partition spec (PartitionPathUtils.generatePartitionPath): keys and values
// escaped, each pair followed by "/". An empty spec yields "". Values are used
// as given; apply PartitionValue first for the default-name substitution.
func PartitionPath(spec []PartitionKV) (string, error) {
	var b strings.Builder
	for _, kv := range spec {
		k, err := EscapePathName(kv.Key)
		if err != nil {
			return "", fmt.Errorf("partition key: %w", err)
		}
		if kv.Value == "" {
			return "", fmt.Errorf("partition value '%s' of %q cannot be used as a partition path component", kv.Value, kv.Key)
		}
		v, err := EscapePathName(kv.Value)
		if err != nil {
			return "", fmt.Errorf("partition value of %q: %w", kv.Key, err)
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
		b.WriteByte('/')
	}
	return b.String(), nil
}

// IsJavaWhitespaceOnly reports whether s is empty or made only of characters
// for which Java's Character.isWhitespace is true: the Unicode space, line
// and paragraph separators except the no-break spaces U+00A0, U+2007 and
// U+202F, plus U+0009-U+000D and U+001C-U+001F. U+180E is not counted
// (it is whitespace only on Java 8, whose Unicode tables predate 6.3).
func IsJavaWhitespaceOnly(s string) bool {
	for _, r := range s {
		if !isJavaWhitespace(r) {
			return false
		}
	}
	return true
}

func isJavaWhitespace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20:
		return true
	case r == 0x1680, r >= 0x2000 && r <= 0x2006, r >= 0x2008 && r <= 0x200A:
		return true
	case r == 0x2028, r == 0x2029, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// epochJulian is the Julian day number of 1970-01-01.
const epochJulian = 2440588

// FormatDate formats a DATE partition value (days since 1970-01-01) the way
// Paimon names its directory. With partition.legacy-name = true (the
// default) Java calls Integer.toString on the internal value, so the
// directory holds the day number ("19723"); otherwise the value is cast to
// STRING through DateTimeUtils.formatDate ("2024-01-01"), whose year is
// always printed with exactly four digits (Java's int4, which misprints
// years outside 0..9999; this port keeps that behaviour). Other types are
// formatted by the caller: in legacy mode Java uses the internal value's
// toString, otherwise the type's cast to STRING.
func FormatDate(days int32, legacy bool) string {
	if legacy {
		return strconv.FormatInt(int64(days), 10)
	}
	// Mirror Java int arithmetic (truncating division, 32-bit wrap).
	julian := days + epochJulian
	j := julian + 32044
	g := j / 146097
	dg := j % 146097
	c := (dg/36524 + 1) * 3 / 4
	dc := dg - c*36524
	b := dc / 1461
	db := dc % 1461
	a := (db/365 + 1) * 3 / 4
	da := db - a*365
	y := g*400 + c*100 + b*4 + a
	m := (da*5+308)/153 - 2
	d := da - (m+4)*153/5 + 122
	year := y - 4800 + (m+2)/12
	month := (m+2)%12 + 1
	day := d + 1

	buf := make([]rune, 0, 10)
	digit := func(v int32) rune { return rune('0' + v) }
	buf = append(buf, digit((year/1000)%10), digit((year/100)%10), digit((year/10)%10), digit(year%10), '-')
	buf = append(buf, digit((month/10)%10), digit(month%10), '-')
	buf = append(buf, digit((day/10)%10), digit(day%10))
	return string(buf)
}
