package aggregate

import (
	"strings"
)

// listAgg is FieldListaggAgg: non-blank inputs joined with the delimiter; with distinct, the
// input's tokens (split at the delimiter, a space when it is empty) that are blank or already in
// the accumulator are dropped; no retraction.
type listAgg struct {
	base
	delimiter string
	distinct  bool
}

func (a listAgg) Agg(acc, in any) (any, error) {
	if in == nil {
		return acc, nil
	}
	s, ok := in.(string)
	if !ok {
		return nil, valueErr(a.base, acc, in)
	}
	if blank(s) {
		return acc, nil
	}
	if acc == nil {
		return in, nil
	}
	t, ok := acc.(string)
	if !ok {
		return nil, valueErr(a.base, acc, in)
	}
	if blank(t) {
		return in, nil
	}
	if !a.distinct {
		return t + a.delimiter + s, nil
	}
	seen := map[string]bool{}
	for _, tok := range splitTokens(t, a.delimiter) {
		seen[tok] = true
	}
	var b strings.Builder
	b.WriteString(t)
	for _, tok := range splitTokens(s, a.delimiter) {
		if blank(tok) || seen[tok] {
			continue
		}
		seen[tok] = true
		b.WriteString(a.delimiter)
		b.WriteString(tok)
	}
	return b.String(), nil
}

// splitTokens is BinaryStringUtils#splitByWholeSeparatorPreserveAllTokens: no tokens of an empty
// string, every token (empty ones too) between occurrences of the separator, which is a space
// when empty.
func splitTokens(s, sep string) []string {
	if s == "" {
		return nil
	}
	if sep == "" {
		sep = " "
	}
	return strings.Split(s, sep)
}

// blank is StringUtils#isBlank: every UTF-16 unit is Character#isWhitespace.
func blank(s string) bool {
	for _, r := range s {
		if !javaWhitespace(r) {
			return false
		}
	}
	return true
}

// javaWhitespace is Character#isWhitespace: a Unicode space, line or paragraph separator other
// than the non-breaking spaces, or one of \t \n \u000B \f \r \u001C-\u001F.
func javaWhitespace(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\u000B', r == '\f', r == '\r', r >= 0x1C && r <= 0x1F:
		return true
	case r == '\u00A0', r == '\u2007', r == '\u202F':
		return false
	case r == ' ', r == '\u1680', r >= '\u2000' && r <= '\u200A', r == '\u2028', r == '\u2029', r == '\u205F', r == '\u3000':
		return true
	}
	return false
}
