package pkfulltext

import (
	"strings"
	"testing"
)

func keysOf(o AnalyzerOptions) string {
	var ks []string
	for _, x := range o {
		ks = append(ks, x.Key)
	}
	return strings.Join(ks, "|")
}

// The expected orders were printed by OpenJDK 17 running the same chain of collections Paimon
// 2.0.0 uses (TreeMap -> HashMap -> Collectors.toMap of stripped keys -> HashMap ->
// LinkedHashMap).
func TestResolveAnalyzerOptionsOrderFollowsJava(t *testing.T) {
	cases := []struct {
		name    string
		options map[string]string
		order   string
		meta    string
	}{
		{"none", map[string]string{ColumnsOption: "content"}, "", "{}"},
		{"ngram from the column JSON",
			map[string]string{FieldOptionsKey("content"): `{"tokenizer":"ngram","ngram.min-gram":"2","ngram.max-gram":2}`},
			"ngram.max-gram|ngram.min-gram|tokenizer",
			`{"ngram.max-gram":"2","ngram.min-gram":"2","tokenizer":"ngram"}`},
		{"table option and qualified column key",
			map[string]string{"full-text.tokenizer": "jieba", FieldOptionsKey("content"): `{"full-text.jieba.search-mode": false}`, "bucket": "2"},
			"jieba.search-mode|tokenizer",
			`{"jieba.search-mode":"false","tokenizer":"jieba"}`},
		{"thirteen options resize the maps",
			map[string]string{
				"full-text.ascii-folding": "v", "full-text.jieba.search-mode": "v", "full-text.language": "v",
				"full-text.lower-case": "v", "full-text.max-token-length": "v", "full-text.ngram.max-gram": "v",
				"full-text.ngram.min-gram": "v", "full-text.ngram.prefix-only": "v", "full-text.remove-stop-words": "v",
				"full-text.stem": "v", "full-text.stop-words": "v", "full-text.tokenizer": "v", "full-text.with-position": "v"},
			"ngram.prefix-only|with-position|lower-case|language|ngram.max-gram|tokenizer|jieba.search-mode|ascii-folding|stop-words|remove-stop-words|max-token-length|ngram.min-gram|stem",
			""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ResolveAnalyzerOptions(c.options, "content")
			if err != nil {
				t.Fatal(err)
			}
			if keysOf(got) != c.order {
				t.Errorf("order %s\nwant  %s", keysOf(got), c.order)
			}
			if c.meta != "" && string(got.IndexMeta()) != c.meta {
				t.Errorf("index meta %s, want %s", got.IndexMeta(), c.meta)
			}
		})
	}
}

func TestResolveAnalyzerOptionsValues(t *testing.T) {
	got, err := ResolveAnalyzerOptions(map[string]string{
		FieldOptionsKey("c"): `{"a": 1, "b": -0, "c": 2.50, "d": null, "e": {"x": [1, 2]}, "f": "s", "a": 3} trailing`,
	}, "c")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "3", "b": "0", "c": "2.5", "d": "null", "e": `{"x":[1,2]}`, "f": "s"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for _, o := range got {
		if want[o.Key] != o.Value {
			t.Errorf("%s = %q, want %q", o.Key, o.Value, want[o.Key])
		}
	}
}

func TestResolveAnalyzerOptionsErrors(t *testing.T) {
	key := FieldOptionsKey("c")
	cases := []struct {
		options map[string]string
		want    string
	}{
		{map[string]string{key: `["tokenizer"]`}, key + " must be a JSON object of option key-value pairs."},
		{map[string]string{key: `{"tokenizer":`}, key + " must be a JSON object of option key-value pairs."},
		{map[string]string{key: `{" ": "x"}`}, key + " contains an empty option key."},
		{map[string]string{key: `{"tokenizer": "ngram"}`, "full-text.tokenizer": "jieba"}, key + " defines conflicting values for full-text.tokenizer."},
	}
	for _, c := range cases {
		_, err := ResolveAnalyzerOptions(c.options, "c")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: err %v, want prefix %q", c.options, err, c.want)
		}
	}
	// The same value on both levels is not a conflict; a blank JSON means no column options.
	if _, err := ResolveAnalyzerOptions(map[string]string{key: `{"tokenizer":"jieba"}`, "full-text.tokenizer": "jieba"}, "c"); err != nil {
		t.Error(err)
	}
	if got, err := ResolveAnalyzerOptions(map[string]string{key: "  "}, "c"); err != nil || len(got) != 0 {
		t.Errorf("blank JSON: %v %v", got, err)
	}
}

func TestIndexColumns(t *testing.T) {
	if got := IndexColumns(map[string]string{ColumnsOption: " a, b ,,"}); strings.Join(got, "|") != "a|b||" {
		t.Errorf("got %q", got)
	}
	if got := IndexColumns(map[string]string{}); got != nil {
		t.Errorf("unset: %q", got)
	}
}

// javaSpread is Java's HashMap bucket hash of an ASCII string: String#hashCode spread by
// HashMap#hash.
func javaSpread(s string) uint32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	u := uint32(h)
	return u ^ u>>16
}

// TestAnalyzerOptionsOrderWithinABucket: two option keys that share a bucket of Java's HashMap,
// both with their "full-text." prefix and without it, keep the order they were inserted in at
// each hop, which is the TreeMap's: the lesser key first.
func TestAnalyzerOptionsOrderWithinABucket(t *testing.T) {
	var keys []string
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			keys = append(keys, string([]rune{a, b}))
		}
	}
	// Sharing the low six bits puts two keys in one bucket of any table of up to 64 buckets.
	var first, second string
	for i := 0; i < len(keys) && first == ""; i++ {
		for j := i + 1; j < len(keys); j++ {
			if javaSpread(keys[i])&63 == javaSpread(keys[j])&63 && javaSpread(optionPrefix+keys[i])&63 == javaSpread(optionPrefix+keys[j])&63 {
				first, second = keys[i], keys[j]
				break
			}
		}
	}
	if first == "" {
		t.Fatal("no two keys share a bucket")
	}
	opts, err := ResolveAnalyzerOptions(map[string]string{optionPrefix + second: "2", optionPrefix + first: "1"}, "content")
	if err != nil {
		t.Fatal(err)
	}
	if len(opts) != 2 || opts[0].Key != first || opts[1].Key != second {
		t.Fatalf("options %v, want %s then %s", opts, first, second)
	}
}

// TestAnalyzerOptionNumbersAsJavaStrings: numbers in a column's JSON options become the strings
// Jackson gives Paimon (asText): integers in their shortest form, others as Java's
// Double#toString, whatever digit they start with.
func TestAnalyzerOptionNumbersAsJavaStrings(t *testing.T) {
	opts, err := ResolveAnalyzerOptions(map[string]string{
		FieldOptionsKey("content"): `{"a": 0.50, "b": 9e2, "c": -0, "d": 12345678901234567890, "e": 1.5E-7, "g": 9}`,
	}, "content")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range opts {
		got[o.Key] = o.Value
	}
	want := map[string]string{"a": "0.5", "b": "900.0", "c": "0", "d": "12345678901234567890", "e": "1.5E-7", "g": "9"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
