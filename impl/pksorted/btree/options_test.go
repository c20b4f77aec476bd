package btree

import (
	"strings"
	"testing"
)

// TestParseOptionsChecksFallbackBudget: the reader's fallback budget key is no format option but
// is accepted by the writer's option check when it is a memory size, and refused by name when it
// is not; its default is Java's 256 MiB.
func TestParseOptionsChecksFallbackBudget(t *testing.T) {
	for _, v := range []string{"0", "1 b", "64 mb"} {
		if _, err := ParseOptions(map[string]string{OptFallbackScanMaxSize: v}); err != nil {
			t.Errorf("%s = %q: %v", OptFallbackScanMaxSize, v, err)
		}
	}
	for _, v := range []string{"-1", "lots", ""} {
		if _, err := ParseOptions(map[string]string{OptFallbackScanMaxSize: v}); err == nil || !strings.Contains(err.Error(), OptFallbackScanMaxSize) {
			t.Errorf("%s = %q: %v, want a refusal naming the key", OptFallbackScanMaxSize, v, err)
		}
	}
	if n, err := FallbackScanMaxSize(nil); err != nil || n != 256<<20 {
		t.Errorf("default budget %d, %v", n, err)
	}
}
