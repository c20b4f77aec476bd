package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeaderLayoutIsJavas re-encodes every manifest, manifest list and index manifest of the
// Java-written golden tables with the codec Java used and checks that Go's container header
// (magic, metadata map, up to the sync marker) is byte for byte the one Java wrote.
func TestHeaderLayoutIsJavas(t *testing.T) {
	files, err := filepath.Glob("../../testdata/tables/java/*/manifest/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Java-written manifests under testdata/tables/java")
	}
	codecs := map[string]string{"zstandard": "zstd", "deflate": "deflate", "snappy": "snappy", "null": "null"}
	checked := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := readHeaderMeta(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		opts := WriteOptions{Compression: codecs[string(meta["avro.codec"])]}
		var buf bytes.Buffer
		name := filepath.Base(path)
		switch {
		case strings.HasPrefix(name, "manifest-list-"):
			list, err := ReadManifestList(name, bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			err = WriteManifestList(&buf, list, opts)
			if err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(name, "index-manifest-"):
			entries, err := ReadIndexManifest(name, bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if err := WriteIndexManifest(&buf, entries, opts); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(name, "manifest-"):
			entries, err := ReadManifestFile(name, bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if err := WriteManifestFile(&buf, entries, opts); err != nil {
				t.Fatal(err)
			}
		default:
			continue
		}
		want, got := headerBytes(t, data), headerBytes(t, buf.Bytes())
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Go's header differs from Java's\n got %q\nwant %q", path, got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no manifest checked")
	}
}

// headerBytes is the container header without its (random) sync marker.
func headerBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	r := &byteReader{b: data, off: 4}
	if _, err := readMetadata(r); err != nil {
		t.Fatal(err)
	}
	return data[:r.off]
}
