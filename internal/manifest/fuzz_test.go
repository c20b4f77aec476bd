package manifest

import (
	"bytes"
	"testing"
)

// Seeds live in testdata/fuzz/<target>; f.Add adds a few more built from the samples so the
// targets stay meaningful if the committed corpus is removed.

func FuzzReadManifest(f *testing.F) {
	for _, c := range []string{CompressionNull, CompressionZstd} {
		var buf bytes.Buffer
		if err := WriteManifestFile(&buf, sampleManifestEntries(), WriteOptions{Compression: c}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ReadManifestFile("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever reads must write and read back identically.
		var buf bytes.Buffer
		if err := WriteManifestFile(&buf, entries, WriteOptions{Compression: CompressionNull}); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		if _, err := ReadManifestFile("fuzz-rewrite", &buf); err != nil {
			t.Fatalf("reread: %v", err)
		}
	})
}

func FuzzReadIndexManifest(f *testing.F) {
	for _, c := range []string{CompressionNull, CompressionSnappy} {
		var buf bytes.Buffer
		if err := WriteIndexManifest(&buf, sampleIndexEntries(), WriteOptions{Compression: c}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ReadIndexManifest("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteIndexManifest(&buf, entries, WriteOptions{Compression: CompressionNull}); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		if _, err := ReadIndexManifest("fuzz-rewrite", &buf); err != nil {
			t.Fatalf("reread: %v", err)
		}
	})
}
