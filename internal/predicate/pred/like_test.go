package pred

import "testing"

// TestOptimizeLike: the rewrites of Paimon's LikeOptimization, including its treatment of a
// backslash as an ordinary character.
func TestOptimizeLike(t *testing.T) {
	for pattern, want := range map[string]struct {
		op  Op
		lit string
		ok  bool
	}{
		"abc": {Equal, "abc", true}, "abc%": {StartsWith, "abc", true}, "%abc": {EndsWith, "abc", true},
		"%abc%": {Contains, "abc", true}, `a\x%`: {StartsWith, `a\x`, true},
		"a_c": {}, "a%c": {}, "%": {}, "%%": {}, "": {}, "a%%": {}, "%%a": {},
	} {
		op, lit, ok := OptimizeLike(pattern)
		if op != want.op || lit != want.lit || ok != want.ok {
			t.Errorf("%q: %v %q %v, want %v %q %v", pattern, op, lit, ok, want.op, want.lit, want.ok)
		}
	}
}

// TestCompileLike: '%' runs, '_' one character but a line terminator, escapes, and the invalid
// escapes Java rejects.
func TestCompileLike(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"a%b", "a\nxb", true}, {"a_b", "a\nb", false}, {"a_b", "aéb", true}, {`a\%`, "a%", true},
		{`a\%`, "ab", false}, {`a\\`, `a\`, true}, {"a.c", "abc", false}, {"", "", true}, {"", "a", false},
		{"(x)%", "(x)yz", true},
	} {
		m, err := CompileLike(tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := m(tc.s); got != tc.want {
			t.Errorf("%q like %q = %v", tc.s, tc.pattern, got)
		}
	}
	for _, bad := range []string{`a\`, `a\b`} {
		if _, err := CompileLike(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}
