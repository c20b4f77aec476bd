package pkindex

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/javaio"
)

func mustSourceFile(t *testing.T, name string, rowCount int64) SourceFile {
	t.Helper()
	f, err := NewSourceFile(name, rowCount)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustSourceMeta(t *testing.T, level int32, files ...SourceFile) SourceMeta {
	t.Helper()
	m, err := NewSourceMeta(level, files)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustEncode(t *testing.T, m SourceMeta) []byte {
	t.Helper()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustDecode(t *testing.T, b []byte) SourceMeta {
	t.Helper()
	m, err := DecodeSourceMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantErrContaining(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
}

// --- Ports of PrimaryKeyIndexSourceMetaTest (release-2.0.0) ---

func TestSourceMeta_SerializedVersionRemainsOne(t *testing.T) {
	m := mustSourceMeta(t, 1, mustSourceFile(t, "data-1", 10))
	version, err := javaio.NewReader(mustEncode(t, m)).ReadInt()
	if err != nil {
		t.Fatal(err)
	}
	if version != 1 {
		t.Fatalf("version = %d, want 1", version)
	}
}

func TestSourceMeta_DataLevelRoundTrip(t *testing.T) {
	m := mustSourceMeta(t, 3, mustSourceFile(t, "data-1", 10))
	restored := mustDecode(t, mustEncode(t, m))
	if restored.DataLevel() != 3 {
		t.Fatalf("DataLevel = %d, want 3", restored.DataLevel())
	}
	if got, want := restored.SourceFiles(), m.SourceFiles(); !equalFiles(got, want) {
		t.Fatalf("SourceFiles = %v, want %v", got, want)
	}
}

func TestSourceMeta_RejectsNonPositiveDataLevel(t *testing.T) {
	_, err := NewSourceMeta(0, []SourceFile{mustSourceFile(t, "data-1", 10)})
	wantErrContaining(t, err, "data level must be positive")
}

func TestSourceMeta_MultipleSourceRoundTrip(t *testing.T) {
	m := mustSourceMeta(t, 1, mustSourceFile(t, "data-1", 10), mustSourceFile(t, "data-2", 20))
	restored := mustDecode(t, mustEncode(t, m))
	if got, want := restored.SourceFiles(), m.SourceFiles(); !equalFiles(got, want) {
		t.Fatalf("SourceFiles = %v, want %v", got, want)
	}
	_, err := restored.SourceFile()
	wantErrContaining(t, err, "expected exactly one source file")
}

func TestSourceMeta_SingleSourceRoundTrip(t *testing.T) {
	m := mustSourceMeta(t, 1, mustSourceFile(t, "data-1", 0))
	restored := mustDecode(t, mustEncode(t, m))
	got, err := restored.SourceFile()
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.SourceFile()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("SourceFile = %v, want %v", got, want)
	}
}

func TestSourceMeta_RejectsInvalidSourceFile(t *testing.T) {
	_, err := NewSourceFile("data-1", -1)
	wantErrContaining(t, err, "row count must not be negative")
}

func TestSourceMeta_RejectsUnsupportedVersion(t *testing.T) {
	w := javaio.NewWriter(64)
	w.WriteInt(2)
	w.WriteInt(1)
	if err := w.WriteUTF("data-1"); err != nil {
		t.Fatal(err)
	}
	w.WriteLong(1)
	_, err := DecodeSourceMeta(w.Bytes())
	wantErrContaining(t, err, "unsupported index source version: 2")
}

func TestSourceMeta_RejectsSourceCountBeforeAllocation(t *testing.T) {
	w := javaio.NewWriter(8)
	w.WriteInt(1)
	w.WriteInt(1)
	w.WriteInt(1<<31 - 1)
	_, err := DecodeSourceMeta(w.Bytes())
	wantErrContaining(t, err, "source file count", "exceeds the maximum")
}

func TestSourceMeta_RejectsTruncatedAndTrailingMetadata(t *testing.T) {
	truncated := javaio.NewWriter(64)
	truncated.WriteInt(1)
	truncated.WriteInt(1)
	truncated.WriteInt(1)
	if err := truncated.WriteUTF("data-1"); err != nil {
		t.Fatal(err)
	}
	_, err := DecodeSourceMeta(truncated.Bytes())
	wantErrContaining(t, err, "failed to deserialize index source metadata")

	trailing := javaio.NewWriter(64)
	trailing.WriteInt(1)
	trailing.WriteInt(1)
	trailing.WriteInt(1)
	if err := trailing.WriteUTF("data-1"); err != nil {
		t.Fatal(err)
	}
	trailing.WriteLong(1)
	if err := trailing.WriteByte(42); err != nil {
		t.Fatal(err)
	}
	_, err = DecodeSourceMeta(trailing.Bytes())
	wantErrContaining(t, err, "unexpected trailing bytes in index source metadata")
}

func TestSourceMeta_ReadsFromIndexFile(t *testing.T) {
	m := mustSourceMeta(t, 1, mustSourceFile(t, "data-1", 5))
	// Java builds IndexFileMeta("btree", "index-1", 10, 5, GlobalIndexMeta(0, 4, 1, null,
	// null, serialized)); only the name and the source meta bytes matter here.
	restored, err := SourceMetaFromIndexFile("index-1", mustEncode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	got, err := restored.SourceFile()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := m.SourceFile(); got != want {
		t.Fatalf("SourceFile = %v, want %v", got, want)
	}
}

// --- Further behaviour read from the Java source ---

func TestSourceMetaFromIndexFileWithoutSourceMeta(t *testing.T) {
	_, err := SourceMetaFromIndexFile("index-7", nil)
	wantErrContaining(t, err, "index file index-7 has no source metadata")

	_, err = SourceMetaFromIndexFile("index-8", []byte{})
	wantErrContaining(t, err, "index file index-8", "failed to deserialize index source metadata")
}

func TestSourceMetaEncodeBytes(t *testing.T) {
	m := mustSourceMeta(t, 2, mustSourceFile(t, "data-1", 10), mustSourceFile(t, "é\x00😀", 1<<40))
	want := []byte{
		0, 0, 0, 1, // version
		0, 0, 0, 2, // level
		0, 0, 0, 2, // count
		0, 6, 'd', 'a', 't', 'a', '-', '1',
		0, 0, 0, 0, 0, 0, 0, 10,
		0, 10, 0xC3, 0xA9, 0xC0, 0x80, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80,
		0, 0, 1, 0, 0, 0, 0, 0,
	}
	got := mustEncode(t, m)
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode = % X\nwant     % X", got, want)
	}
	if restored := mustDecode(t, got); !restored.Equal(m) {
		t.Fatalf("round trip = %v, want %v", restored, m)
	}
}

func TestSourceMetaEncodeNameLengthLimit(t *testing.T) {
	longest := strings.Repeat("中", 65535/3)
	m := mustSourceMeta(t, 1, mustSourceFile(t, longest, 1))
	if restored := mustDecode(t, mustEncode(t, m)); !restored.Equal(m) {
		t.Fatal("65535-byte name did not round-trip")
	}

	m = mustSourceMeta(t, 1, mustSourceFile(t, "ok", 1), mustSourceFile(t, longest+"a", 1))
	_, err := m.Encode()
	wantErrContaining(t, err, "failed to serialize index source metadata", "source file 1", "Encoded string is too long: 65536")
	var utfErr *javaio.UTFDataFormatError
	if !errors.As(err, &utfErr) {
		t.Fatalf("err = %v, want a UTFDataFormatError inside", err)
	}
}

func TestSourceMetaEncodeRejectsZeroValue(t *testing.T) {
	_, err := SourceMeta{}.Encode()
	wantErrContaining(t, err, "failed to serialize index source metadata", "data level must be positive")
}

func TestNewSourceMetaRejectsNoFiles(t *testing.T) {
	_, err := NewSourceMeta(1, nil)
	wantErrContaining(t, err, "an index must reference source files")
}

func TestSourceMetaCopiesFiles(t *testing.T) {
	files := []SourceFile{mustSourceFile(t, "data-1", 1)}
	m := mustSourceMeta(t, 1, files...)
	files[0] = mustSourceFile(t, "other", 2)
	got := m.SourceFiles()
	got[0] = mustSourceFile(t, "changed", 3)
	if f, _ := m.SourceFile(); f.FileName() != "data-1" || f.RowCount() != 1 {
		t.Fatalf("meta changed through a slice: %v", f)
	}
}

// header encodes version, level and count followed by body.
func header(version, level, count int32, body ...byte) []byte {
	w := javaio.NewWriter(16)
	w.WriteInt(version)
	w.WriteInt(level)
	w.WriteInt(count)
	_, _ = w.Write(body)
	return w.Bytes()
}

// entry encodes one source file.
func entry(name string, rowCount int64) []byte {
	w := javaio.NewWriter(16)
	_ = w.WriteUTF(name)
	w.WriteLong(rowCount)
	return w.Bytes()
}

func concat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}

func TestDecodeSourceMetaChecksInJavaOrder(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		want  []string
		isEOF bool
	}{
		{"empty", nil, []string{"failed to deserialize", "read version"}, true},
		{"short version", []byte{0, 0, 1}, []string{"failed to deserialize", "read version"}, true},
		{"version zero", header(0, 1, 1), []string{"unsupported index source version: 0"}, false},
		{"version before anything else", []byte{0xFF, 0xFF, 0xFF, 0xFF}, []string{"unsupported index source version: -1"}, false},
		{"missing level", []byte{0, 0, 0, 1, 0, 0}, []string{"failed to deserialize", "read data level"}, true},
		{"missing count", []byte{0, 0, 0, 1, 0, 0, 0, 1}, []string{"failed to deserialize", "read source file count"}, true},
		{"zero count before level", header(1, 0, 0), []string{"an index must reference source files"}, false},
		{"negative count", header(1, 1, -1), []string{"an index must reference source files"}, false},
		{"count over 9 bytes", header(1, 1, 1, make([]byte, 9)...), []string{"source file count 1 exceeds the maximum 0"}, false},
		{"count over 19 bytes", header(1, 1, 2, make([]byte, 19)...), []string{"source file count 2 exceeds the maximum 1"}, false},
		{"empty name fits 10 bytes", header(1, 1, 1, entry("", 0)...), nil, false},
		{"truncated row count", header(1, 1, 2, concat(entry("a", 1), []byte{0, 1, 'b', 0, 0, 0, 0, 0, 0, 0})...), []string{"failed to deserialize", "source file 1 row count"}, true},
		{"truncated name", header(1, 1, 1, 0, 20, 'a', 'b', 0, 0, 0, 0, 0, 0, 0, 0), []string{"failed to deserialize", "source file 0 name"}, true},
		{"malformed name", header(1, 1, 1, concat([]byte{0, 1, 0x80}, make([]byte, 8))...), []string{"failed to deserialize", "malformed input around byte 0"}, false},
		{"negative row count before later truncation", header(1, 1, 2, concat(entry("a", -1), make([]byte, 11))...), []string{"row count must not be negative: -1"}, false},
		{"trailing before level", header(1, 0, 1, concat(entry("a", 1), []byte{42})...), []string{"unexpected trailing bytes"}, false},
		{"level zero last", header(1, 0, 1, entry("a", 1)...), []string{"data level must be positive: 0"}, false},
		{"negative level last", header(1, -3, 1, entry("a", 1)...), []string{"data level must be positive: -3"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeSourceMeta(tt.in)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantErrContaining(t, err, tt.want...)
			if got := errors.Is(err, io.ErrUnexpectedEOF); got != tt.isEOF {
				t.Fatalf("errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v (%v)", got, tt.isEOF, err)
			}
		})
	}
}

func TestDecodeSourceMetaAcceptsNonCanonicalNames(t *testing.T) {
	// Java's readUTF accepts an overlong "A" (C1 81); Go must agree.
	in := header(1, 1, 1, concat([]byte{0, 2, 0xC1, 0x81}, make([]byte, 8))...)
	m := mustDecode(t, in)
	if f, _ := m.SourceFile(); f.FileName() != "A" {
		t.Fatalf("name = %q, want A", f.FileName())
	}
}

func equalFiles(a, b []SourceFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
