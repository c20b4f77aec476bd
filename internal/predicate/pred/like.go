package pred

import (
	"fmt"
	"regexp"
	"strings"
)

// OptimizeLike rewrites a LIKE pattern without '_' that has at most a leading and a trailing
// '%' as Paimon's LikeOptimization does: "abc" is Equal, "abc%" StartsWith, "%abc" EndsWith and
// "%abc%" Contains, each with the literal between the wildcards. ok is false for every other
// pattern. As in Java, a backslash is not treated as an escape here.
func OptimizeLike(pattern string) (op Op, literal string, ok bool) {
	if strings.Contains(pattern, "_") || pattern == "" {
		return 0, "", false
	}
	inner := pattern
	lead, trail := strings.HasPrefix(inner, "%"), false
	if lead {
		inner = inner[1:]
	}
	if strings.HasSuffix(inner, "%") {
		trail = true
		inner = inner[:len(inner)-1]
	}
	if inner == "" || strings.Contains(inner, "%") {
		return 0, "", false
	}
	switch {
	case lead && trail:
		return Contains, inner, true
	case lead:
		return EndsWith, inner, true
	case trail:
		return StartsWith, inner, true
	}
	return Equal, inner, true
}

// javaDot is what an unescaped '.' of a Java regular expression matches: any character but a
// line terminator.
const javaDot = `[^\n\r\x{85}\x{2028}\x{2029}]`

// CompileLike returns the matcher of a SQL LIKE pattern as Paimon's Like function tests a
// string: '%' matches any run of characters, '_' any one character but a line terminator, and
// a backslash escapes '%', '_' or itself. A backslash before anything else, or at the end, is
// an invalid escape sequence, an error as in Java.
func CompileLike(pattern string) (func(string) bool, error) {
	var re strings.Builder
	re.WriteString(`\A(?:`)
	runes := []rune(pattern)
	for i := 0; i < len(runes); i++ {
		switch c := runes[i]; c {
		case '\\':
			if i == len(runes)-1 {
				return nil, fmt.Errorf("invalid escape sequence '%s', %d", pattern, i)
			}
			next := runes[i+1]
			if next != '_' && next != '%' && next != '\\' {
				return nil, fmt.Errorf("invalid escape sequence '%s', %d", pattern, i)
			}
			re.WriteString(regexp.QuoteMeta(string(next)))
			i++
		case '_':
			re.WriteString(javaDot)
		case '%':
			re.WriteString(`(?s:.*)`)
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString(`)\z`)
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("like pattern %q: %w", pattern, err)
	}
	return compiled.MatchString, nil
}
