package pkfulltext

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestDecodeUTF8LikeJDK checks the decoding of malformed UTF-8 against vectors recorded from the
// JDK's decoder (testdata/jdk-utf8-vectors.txt): the text Java indexes for a data file's bytes.
func TestDecodeUTF8LikeJDK(t *testing.T) {
	f, err := os.Open("testdata/jdk-utf8-vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		in, want, _ := strings.Cut(line, " ")
		b, err := hex.DecodeString(in)
		if err != nil {
			t.Fatalf("vector %q: %v", line, err)
		}
		text := decodeUTF8LikeJDK(b)
		if !utf8.ValidString(text) {
			// The engine takes the text as UTF-8: a malformed byte must become U+FFFD, as in Java's
			// String, not pass through.
			t.Errorf("decode %s: %q is not valid UTF-8", in, text)
		}
		var got strings.Builder
		for _, u := range utf16.Encode([]rune(text)) {
			fmt.Fprintf(&got, "%04x", u)
		}
		if got.String() != want {
			t.Errorf("decode %s: got %s, JDK %s", in, got.String(), want)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d vectors", n)
	}
}

func TestEngineText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"中文 é 😀", "中文 é 😀"},
		// One U+FFFD per malformed sequence, as the JDK decodes: not one per byte (Go's
		// utf8.DecodeRune) nor one per run (strings.ToValidUTF8).
		{"a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"a\xe2\x82b", "a\uFFFDb"},
		{"a\xf0\x9f\x98", "a\uFFFD"},
		{"\xed\xa0\x80x", "\uFFFDx"},
		{"\xc0\xafx", "\uFFFD\uFFFDx"},
		// NUL cannot cross the engine's C ABI; Java's JNI binding passes it, and the tokenizers
		// treat it as U+0001 (see engineText).
		{"apple\x00banana", "apple\x01banana"},
		{"\x00\x00", "\x01\x01"},
	} {
		if got := engineText([]byte(c.in)); got != c.want {
			t.Errorf("engineText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A row with a NUL or malformed UTF-8 builds like any other (it used to fail the build, so the
// level was retried on every commit and never indexed): the text after the NUL is searchable as
// Java's archive of the same file makes it, and malformed bytes do not glue words together.
func TestIndexFile_NulAndMalformedUTF8RowsBuild(t *testing.T) {
	lib := nativeLib(t)
	f, _ := newIndexFile(t, nativeEngine(lib))
	rows := texts("apple\x00banana", "cherry\xffdate", "plain words")
	archive, err := f.Build(context.Background(), []Source{{compactFile("data-1", 3, 1), &memReader{texts: rows}}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(f.Paths.ToPath(archive.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, err := lib.OpenReader(context.Background(), file, archive.FileSize)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for q, want := range map[string]int64{"banana": 0, "apple": 0, "date": 1, "cherry": 1} {
		hits, err := r.Search(context.Background(), `{"match":{"query":"`+q+`"}}`, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].RowID != want {
			t.Errorf("%s: hits %v, want row %d", q, hits, want)
		}
	}
}

// TestDecodeUTF8LikeJDKSupplementaryBounds: after a malformed byte (so the text is not valid
// UTF-8 as a whole), the first and the last supplementary characters (U+10000, F0 90 80 80, and
// U+10FFFF, F4 8F BF BF) still decode as themselves, as any well-formed sequence does in Java.
func TestDecodeUTF8LikeJDKSupplementaryBounds(t *testing.T) {
	for in, want := range map[string]string{
		"\xff\xf0\x90\x80\x80": "\ufffd\U00010000",
		"\xff\xf4\x8f\xbf\xbf": "\ufffd\U0010ffff",
		"\xf0\x90\x80\x80\x80": "\U00010000\ufffd",
	} {
		if got := decodeUTF8LikeJDK([]byte(in)); got != want {
			t.Errorf("decode %x: %+q, want %+q", in, got, want)
		}
	}
}
