package schema

import "testing"

func TestParseMemorySize(t *testing.T) {
	for in, want := range map[string]int64{"8 mb": 8 << 20, "16MB": 16 << 20, "1024": 1024, "2 gb": 2 << 30, "64 kb": 64 << 10, " 3 b ": 3} {
		if got, err := ParseMemorySize(in); err != nil || got != want {
			t.Errorf("%q: %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "mb", "8 parsecs", "99999999999999 tb"} {
		if _, err := ParseMemorySize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
