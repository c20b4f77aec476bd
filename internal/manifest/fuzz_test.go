package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
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

// FuzzReadUnderWriterSchemas writes a golden metadata file (of any producer) again under a
// writer schema the fuzzer chooses (nullable unions at the top and around nested records in
// either order, reordered, extra and renamed fields, int for long, nullable fields dropped) and
// checks the decoder either reads exactly the values of the file itself or refuses.
func FuzzReadUnderWriterSchemas(f *testing.F) {
	files := goldenMetaFiles(f)
	for i, bits := range []uint8{0, 0x07, 0x03, 0x58, 0xff, 0x21, 0x80} {
		f.Add(uint16(i*37), bits, uint64(i))
	}
	want := make([]any, len(files))
	f.Fuzz(func(t *testing.T, fileIdx uint16, bits uint8, seed uint64) {
		i := int(fileIdx) % len(files)
		data, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		read := readerFor(filepath.Base(files[i]))
		if want[i] == nil {
			if want[i], err = read(files[i], data); err != nil {
				t.Fatal(err)
			}
		}
		v := variantFromBits(bits, seed)
		got, err := read(files[i], reencode(t, data, v))
		if err != nil {
			return // refused
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("%s under %v read other values:\n got %+v\nwant %+v", files[i], v, got, want[i])
		}
	})
}
