package javacompat

import (
	"slices"
	"strings"
	"testing"
)

// The expected values in this file were printed by OpenJDK 17 (String#hashCode, and the keySet
// order of a new HashMap<>() filled with put in the listed order).

func TestStringHashCode(t *testing.T) {
	cases := map[string]int32{"": 0, "a": 97, "tokenizer": 142124823, "😀": 1772899}
	for s, want := range cases {
		if got := StringHashCode(s); got != want {
			t.Errorf("hashCode(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestTrim(t *testing.T) {
	if got := Trim("\t\x00 key \n"); got != "key" {
		t.Errorf("Trim = %q", got)
	}
	if got := Trim("\u00a0key\u3000"); got != "\u00a0key\u3000" {
		t.Errorf("Trim stripped a non-ASCII space: %q", got)
	}
}

func TestHashMapOrder(t *testing.T) {
	split := func(s string) []string { return strings.Split(s, "|") }
	cases := []struct{ insert, java string }{
		{"q|b|a", "q|a|b"},
		{"ngram.max-gram|ngram.min-gram|tokenizer", "ngram.max-gram|ngram.min-gram|tokenizer"},
		// Thirteen keys: one resize to 32 bins.
		{"ascii-folding|jieba.search-mode|language|lower-case|max-token-length|ngram.max-gram|ngram.min-gram|ngram.prefix-only|remove-stop-words|stem|stop-words|tokenizer|with-position",
			"ngram.prefix-only|with-position|lower-case|language|ngram.max-gram|tokenizer|jieba.search-mode|ascii-folding|remove-stop-words|stop-words|max-token-length|ngram.min-gram|stem"},
		{"a|b|c|d|e|f|g|h|i|j|k|l|m", "a|b|c|d|e|f|g|h|i|j|k|l|m"},
		{"Da|Ta|Db|Tb|Dc|Tc|Dd|Td|De|Te", "Dd|Td|De|Te|Da|Ta|Db|Tb|Dc|Tc"},
		// Ten keys in bin 3 of 16: the ninth forces resizes instead of a tree bin.
		{"k18|k29|k90|k140|k151|k162|k173|k184|k195|k250", "k90|k18|k140|k162|k184|k29|k151|k173|k195|k250"},
	}
	for _, c := range cases {
		got, err := HashMapOrder(split(c.insert))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, split(c.java)) {
			t.Errorf("insert %s:\n got  %s\n java %s", c.insert, strings.Join(got, "|"), c.java)
		}
	}
}

func TestFlatJSONStringMap(t *testing.T) {
	got := FlatJSONStringMap([]string{"tokenizer", "stop-words", "x"}, []string{"ngram", "a\"b\\c\n\x01é中", "/"})
	want := `{"tokenizer":"ngram","stop-words":"a\"b\\c\n\u0001é中","x":"/"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := FlatJSONStringMap(nil, nil); got != "{}" {
		t.Errorf("empty map: %s", got)
	}
}

func TestDoubleToString(t *testing.T) {
	cases := map[float64]string{
		2.5: "2.5", 2: "2.0", 1e7: "1.0E7", 1.5e10: "1.5E10", 0.001: "0.001", 1e-4: "1.0E-4", -3: "-3.0", 0: "0.0",
	}
	for f, want := range cases {
		if got := DoubleToString(f); got != want {
			t.Errorf("DoubleToString(%v) = %q, want %q", f, got, want)
		}
	}
}
