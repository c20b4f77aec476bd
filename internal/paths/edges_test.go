package paths

import (
	"strings"
	"testing"
)

// The boundaries of this file's tests are those the automatic mutation run (make mutations-auto)
// found no unit test on: each case names the rule it pins.

func TestCheckFileName(t *testing.T) {
	good := []string{"data-u-0.parquet", "index-u-0", "manifest-list-u-1", "x.y", "..x", "x.."}
	for _, name := range good {
		if err := CheckFileName("data file", name); err != nil {
			t.Errorf("CheckFileName(%q): %v", name, err)
		}
	}
	bad := map[string]string{
		"":         "is empty",
		".":        "relative directory",
		"..":       "relative directory",
		"a/b":      "path separator",
		`a\b`:      "path separator",
		"a\x00b":   "NUL byte",
		"\x00":     "NUL byte",
		"s3:x":     "scheme separator",
		"x:":       "scheme separator",
		"../../up": "path separator",
	}
	for name, want := range bad {
		err := CheckFileName("manifest", name)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "manifest name") {
			t.Errorf("CheckFileName(%q) = %v, want an error saying %q", name, err, want)
		}
	}
}

// TestSplitURI pins Java Path(String)'s rule: a scheme only when a colon comes before the first
// slash (a colon at position 0 gives the empty scheme).
func TestSplitURI(t *testing.T) {
	tests := []struct{ in, scheme, authority, rest string }{
		{"a:b", "a", "", "b"},
		{":x", "", "", "x"},
		{"/a:b", "", "", "/a:b"},
		{"/tmp/a:b/c", "", "", "/tmp/a:b/c"},
		{"s3://bucket/k", "s3", "bucket", "/k"},
		{"plain", "", "", "plain"},
		// An authority needs more than the two slashes (Java: length - start > 2).
		{"//", "", "", "//"},
		{"s3://", "s3", "", "//"},
		{"s3:///k", "s3", "", "/k"},
	}
	for _, tt := range tests {
		scheme, authority, rest, _ := splitURI(tt.in)
		if scheme != tt.scheme || authority != tt.authority || rest != tt.rest {
			t.Errorf("splitURI(%q) = %q, %q, %q; want %q, %q, %q", tt.in, scheme, authority, rest, tt.scheme, tt.authority, tt.rest)
		}
	}
}

// TestEscapeShortAndNonASCII: a one-byte name that needs escaping, and a non-ASCII character
// whose UTF-8 bytes include 0x80 (kept as it is, never looked up in the ASCII escape set).
func TestEscapeShortAndNonASCII(t *testing.T) {
	for in, want := range map[string]string{"/": "%2F", "=": "%3D", "Ā": "Ā", "Ā/": "Ā%2F"} {
		got, err := EscapePathName(in)
		if err != nil || got != want {
			t.Errorf("EscapePathName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestJavaWhitespaceEdges pins the ends of each range of Character.isWhitespace.
func TestJavaWhitespaceEdges(t *testing.T) {
	yes := []rune{0x09, 0x0D, 0x1C, 0x20, 0x1680, 0x2000, 0x2006, 0x2008, 0x200A, 0x2028, 0x2029, 0x205F, 0x3000}
	no := []rune{0x08, 0x0E, 0x1B, 0x21, 0xA0, 0x167F, 0x1681, 0x1FFF, 0x2007, 0x200B, 0x202F, 0x180E, 'a'}
	for _, r := range yes {
		if !isJavaWhitespace(r) {
			t.Errorf("isJavaWhitespace(%U) = false", r)
		}
	}
	for _, r := range no {
		if isJavaWhitespace(r) {
			t.Errorf("isJavaWhitespace(%U) = true", r)
		}
	}
}

// TestIndexFilesInIndexDirByDefault: without index-file-in-data-file-dir, a bucket's index files
// go to the table's index directory.
func TestIndexFilesInIndexDirByDefault(t *testing.T) {
	f := mustFactory(t, mustOptions(t, "/w/t", nil))
	i, err := f.IndexPathFactory([]PartitionKV{{"p", "x"}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := i.NewPath(), "/w/t/index/index-u-0"; got != want {
		t.Errorf("NewPath = %q, want %q", got, want)
	}
}

func TestNewTableFactory(t *testing.T) {
	f, err := NewTableFactory("/w/t", map[string]string{OptionIndexFileInDataFileDir: "true"})
	if err != nil || f == nil {
		t.Fatalf("NewTableFactory = %v, %v", f, err)
	}
	i, err := f.IndexPathFactory(nil, 0)
	if err != nil || !strings.HasPrefix(i.NewPath(), "/w/t/bucket-0/index-") {
		t.Errorf("index path of a factory with index-file-in-data-file-dir: %v", err)
	}
	if f, err := NewTableFactory("/w/t", map[string]string{OptionIndexFileInDataFileDir: "yes"}); err == nil || f != nil {
		t.Errorf("NewTableFactory with a bad option = %v, %v; want an error", f, err)
	}
}

// TestWeightedWithoutWeights: the weighted strategy without weights (or with one path) is round
// robin, as in Java's ExternalPathProvider.create, not a weights/paths count error.
func TestWeightedWithoutWeights(t *testing.T) {
	p, err := newExternalPathProvider(StrategyWeighted, []string{"oss://a", "oss://b"}, "bucket-0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*roundRobin); !ok {
		t.Errorf("weighted without weights is %T, want round robin", p)
	}
	p, err = newExternalPathProvider(StrategyWeighted, []string{"oss://a"}, "bucket-0", []int{5})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*roundRobin); !ok {
		t.Errorf("weighted with one path is %T, want round robin", p)
	}
}

// TestWeightedShares: each root gets its weight's share of the files (4,000 draws; the bounds
// are more than ten standard deviations wide).
func TestWeightedShares(t *testing.T) {
	w := newWeighted([]string{"oss://a", "oss://b", "oss://c"}, "bucket-0", []int{1, 3, 6})
	counts := map[string]int{}
	const n = 4000
	for range n {
		counts[strings.SplitN(w.next("f"), "/", 4)[2]]++
	}
	for root, want := range map[string]float64{"a": 0.1, "b": 0.3, "c": 0.6} {
		if got := float64(counts[root]) / n; got < want-0.08 || got > want+0.08 {
			t.Errorf("root %s got %.3f of the files, want about %.1f (%v)", root, got, want, counts)
		}
	}
}
