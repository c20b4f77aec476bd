package manifest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paimon-pkft/pkft/internal/meta"
)

func ptr[T any](v T) *T { return &v }

// binRow builds a fake serialized BinaryRow: arity then payload. Contents do not matter here.
func binRow(arity byte, payload ...byte) []byte {
	return append([]byte{0, 0, 0, arity, 0, 0, 0, 0, 0, 0, 0, 0}, payload...)
}

func fullDataFile() meta.DataFileMeta {
	return meta.DataFileMeta{
		FileName:          "data-1b2c-0.parquet",
		FileSize:          12345,
		RowCount:          77,
		MinKey:            binRow(1, 1, 2, 3, 4, 5, 6, 7, 8),
		MaxKey:            binRow(1, 9, 9, 9, 9, 9, 9, 9, 9),
		KeyStats:          meta.SimpleStats{MinValues: binRow(1, 1), MaxValues: binRow(1, 2), NullCounts: []*int64{ptr[int64](0)}},
		ValueStats:        meta.SimpleStats{MinValues: binRow(2, 3), MaxValues: binRow(2, 4), NullCounts: []*int64{ptr[int64](3), nil}},
		MinSequenceNumber: 10,
		MaxSequenceNumber: 86,
		SchemaID:          2,
		Level:             3,
		ExtraFiles:        []string{"data-1b2c-0.parquet.index"},
		CreationTime:      ptr[int64](1_700_000_000_123),
		DeleteRowCount:    ptr[int64](5),
		EmbeddedIndex:     []byte{0xca, 0xfe},
		FileSource:        ptr(meta.FileSourceCompact),
		ValueStatsCols:    []string{"id", "text"},
		ExternalPath:      ptr("s3://bucket/ext/data-1b2c-0.parquet"),
		FirstRowID:        ptr[int64](1000),
		WriteCols:         []string{"id"},
	}
}

func minimalDataFile() meta.DataFileMeta {
	return meta.DataFileMeta{
		FileName:   "data-min-0.parquet",
		FileSize:   1,
		RowCount:   1,
		MinKey:     meta.EmptyBinaryRow(),
		MaxKey:     meta.EmptyBinaryRow(),
		KeyStats:   meta.EmptyStats(),
		ValueStats: meta.EmptyStats(),
		ExtraFiles: []string{},
	}
}

// emptyButSet has every nullable collection present but empty, which must not read back as null.
func emptyButSet() meta.DataFileMeta {
	f := minimalDataFile()
	f.FileName = "data-empty-0.parquet"
	f.EmbeddedIndex = []byte{}
	f.ValueStatsCols = []string{}
	f.WriteCols = []string{}
	f.ExternalPath = ptr("")
	f.FileSource = ptr(meta.FileSourceAppend)
	f.CreationTime = ptr[int64](0)
	return f
}

func sampleManifestEntries() []meta.ManifestEntry {
	return []meta.ManifestEntry{
		{Kind: meta.FileKindAdd, Partition: binRow(1, 42), Bucket: 3, TotalBuckets: 4, File: fullDataFile()},
		{Kind: meta.FileKindDelete, Partition: meta.EmptyBinaryRow(), Bucket: 0, TotalBuckets: -1, File: minimalDataFile()},
		{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), Bucket: 1, TotalBuckets: 2, File: emptyButSet()},
	}
}

func sampleManifestList() []meta.ManifestFileMeta {
	return []meta.ManifestFileMeta{
		{
			FileName: "manifest-a-0", FileSize: 4096, NumAddedFiles: 3, NumDeletedFiles: 1,
			PartitionStats: meta.SimpleStats{MinValues: binRow(1, 1), MaxValues: binRow(1, 9), NullCounts: []*int64{ptr[int64](0)}},
			SchemaID:       4,
			MinBucket:      ptr[int32](0), MaxBucket: ptr[int32](7),
			MinLevel: ptr[int32](0), MaxLevel: ptr[int32](5),
			MinRowID: ptr[int64](0), MaxRowID: ptr[int64](99),
		},
		{FileName: "manifest-b-1", FileSize: 10, PartitionStats: meta.EmptyStats()},
	}
}

func sampleIndexEntries() []meta.IndexManifestEntry {
	return []meta.IndexManifestEntry{
		{Kind: meta.FileKindAdd, Partition: binRow(1, 7), Bucket: 2, IndexFile: meta.IndexFileMeta{
			IndexType: meta.IndexTypeDeletionVectors, FileName: "index-dv-0", FileSize: 300, RowCount: 2,
			DVRanges: []meta.DeletionVectorMeta{
				{DataFileName: "data-z.parquet", Offset: 1, Length: 20, Cardinality: ptr[int64](4)},
				{DataFileName: "data-a.parquet", Offset: 21, Length: 30},
			},
		}},
		{Kind: meta.FileKindAdd, Partition: binRow(1, 7), Bucket: 2, IndexFile: meta.IndexFileMeta{
			IndexType: "full-text", FileName: "index-ft-1", FileSize: 9000, RowCount: 77,
			ExternalPath: ptr("oss://x/index-ft-1"),
			GlobalIndex: &meta.GlobalIndexMeta{
				RowRangeStart: 0, RowRangeEnd: 76, IndexFieldID: 2,
				ExtraFieldIDs: []int32{}, IndexMeta: []byte(`{"tokenizer":"default"}`), SourceMeta: []byte{0, 0, 0, 1},
			},
		}},
		{Kind: meta.FileKindDelete, Partition: meta.EmptyBinaryRow(), Bucket: 0, IndexFile: meta.IndexFileMeta{
			IndexType: "btree", FileName: "index-bt-2", FileSize: 1, RowCount: 1,
			DVRanges:    []meta.DeletionVectorMeta{},
			GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: 5, RowRangeEnd: 9, IndexFieldID: 1, ExtraFieldIDs: []int32{3, 4}},
		}},
		{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), Bucket: 0, IndexFile: meta.IndexFileMeta{
			IndexType: meta.IndexTypeHash, FileName: "index-hash-3", FileSize: 8, RowCount: 2,
		}},
	}
}

var allCompressions = []string{"", CompressionZstd, "ZSTD", CompressionDeflate, CompressionSnappy, CompressionNull}

func TestManifestFileRoundTrip(t *testing.T) {
	for _, c := range allCompressions {
		t.Run("codec="+c, func(t *testing.T) {
			var buf bytes.Buffer
			in := sampleManifestEntries()
			if err := WriteManifestFile(&buf, in, WriteOptions{Compression: c}); err != nil {
				t.Fatal(err)
			}
			out, err := ReadManifestFile("manifest-x-0", &buf)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(in, out); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestManifestListRoundTrip(t *testing.T) {
	for _, c := range allCompressions {
		t.Run("codec="+c, func(t *testing.T) {
			var buf bytes.Buffer
			in := sampleManifestList()
			if err := WriteManifestList(&buf, in, WriteOptions{Compression: c}); err != nil {
				t.Fatal(err)
			}
			out, err := ReadManifestList("manifest-list-x-0", &buf)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(in, out); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestIndexManifestRoundTrip(t *testing.T) {
	for _, c := range allCompressions {
		t.Run("codec="+c, func(t *testing.T) {
			var buf bytes.Buffer
			in := sampleIndexEntries()
			if err := WriteIndexManifest(&buf, in, WriteOptions{Compression: c}); err != nil {
				t.Fatal(err)
			}
			out, err := ReadIndexManifest("index-manifest-x-0", &buf)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(in, out); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestEmptyFilesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteManifestFile(&buf, nil, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := ReadManifestFile("m", &buf)
	if err != nil || len(out) != 0 {
		t.Fatalf("got %v, %v; want no entries", out, err)
	}
}

// TestNilDefaults checks what a zero-valued record is written as: the forms Java itself writes
// for empty rows and lists, never nulls in non-null columns.
func TestNilDefaults(t *testing.T) {
	var buf bytes.Buffer
	in := []meta.ManifestEntry{{Kind: meta.FileKindAdd, File: meta.DataFileMeta{FileName: "f"}}}
	if err := WriteManifestFile(&buf, in, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := ReadManifestFile("m", &buf)
	if err != nil {
		t.Fatal(err)
	}
	want := meta.ManifestEntry{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(), File: minimalDataFile()}
	want.File.FileName, want.File.FileSize, want.File.RowCount = "f", 0, 0
	if d := cmp.Diff(want, out[0]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestHeaderCarriesJavaSchemaAndCodec(t *testing.T) {
	for _, tc := range []struct{ compression, codec string }{
		{"", "zstandard"}, {"zstd", "zstandard"}, {"deflate", "deflate"}, {"snappy", "snappy"}, {"null", "null"},
	} {
		var buf bytes.Buffer
		if err := WriteIndexManifest(&buf, sampleIndexEntries(), WriteOptions{Compression: tc.compression}); err != nil {
			t.Fatal(err)
		}
		if _, err := parseOCF(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		hdr, err := readHeaderMeta(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if got := string(hdr["avro.schema"]); got != IndexManifestEntrySchema() {
			t.Errorf("schema in header = %s", got)
		}
		if got := string(hdr["avro.codec"]); got != tc.codec {
			t.Errorf("compression %q: codec in header = %q, want %q", tc.compression, got, tc.codec)
		}
	}
}

func readHeaderMeta(b []byte) (map[string][]byte, error) {
	r := &byteReader{b: b, off: 4}
	return readMetadata(r)
}

func TestUnsupportedCompression(t *testing.T) {
	for _, c := range []string{"none", "bzip2", "lz4"} {
		err := WriteManifestFile(&bytes.Buffer{}, sampleManifestEntries(), WriteOptions{Compression: c})
		if err == nil || !strings.Contains(err.Error(), c) {
			t.Errorf("compression %q: err = %v", c, err)
		}
	}
}

// TestManyBlocks writes enough entries to span several 64000-byte blocks.
func TestManyBlocks(t *testing.T) {
	var in []meta.ManifestEntry
	for i := 0; i < 1500; i++ {
		e := sampleManifestEntries()[0]
		e.File.RowCount = int64(i)
		in = append(in, e)
	}
	for _, c := range []string{CompressionZstd, CompressionNull} {
		var buf bytes.Buffer
		if err := WriteManifestFile(&buf, in, WriteOptions{Compression: c}); err != nil {
			t.Fatal(err)
		}
		parsed, err := parseOCF(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(parsed.blocks) < 2 {
			t.Errorf("codec %s: %d blocks, want several", c, len(parsed.blocks))
		}
		for i, b := range parsed.blocks[:len(parsed.blocks)-1] {
			if len(b.data) < syncInterval {
				t.Errorf("codec %s: block %d has %d bytes, below the sync interval", c, i, len(b.data))
			}
		}
		out, err := ReadManifestFile("big", &buf)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(in, out); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
	}
}

func TestReadErrorsNameTheFile(t *testing.T) {
	var good bytes.Buffer
	if err := WriteManifestFile(&good, sampleManifestEntries(), WriteOptions{Compression: CompressionNull}); err != nil {
		t.Fatal(err)
	}
	data := good.Bytes()
	parsed, err := parseOCF(data)
	if err != nil {
		t.Fatal(err)
	}
	// The single data block sits just before the final 16-byte sync marker.
	blockStart := len(data) - 16 - len(parsed.blocks[0].data)

	corruptRecord := bytes.Clone(data)
	corruptRecord[blockStart] = 0x7f // _VERSION becomes -64
	corruptSync := bytes.Clone(data)
	corruptSync[len(data)-1] ^= 0xff
	badMagic := bytes.Clone(data)
	badMagic[0] = 'X'
	// The block header is a one-byte record count (3) then the varint block size.
	sizeLen := 1
	for n := len(parsed.blocks[0].data) << 1; n >= 0x80; n >>= 7 {
		sizeLen++
	}
	extraRecord := bytes.Clone(data)
	if extraRecord[blockStart-sizeLen-1] != 6 {
		t.Fatalf("unexpected block header layout")
	}
	extraRecord[blockStart-sizeLen-1] = 8 // claims 4 records

	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"truncated header", data[:20], "truncated"},
		{"truncated block", data[:len(data)-30], "truncated"},
		{"truncated sync", data[:len(data)-3], "truncated"},
		{"bad magic", badMagic, "bad magic"},
		{"corrupt sync", corruptSync, "sync marker"},
		{"corrupt record", corruptRecord, "version"},
		{"record count too high", extraRecord, "past end of block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadManifestFile("manifest-42-0", bytes.NewReader(tc.data))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), "manifest-42-0") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q should name the file and mention %q", err, tc.want)
			}
		})
	}
}

func TestCorruptCompressedBlock(t *testing.T) {
	for _, c := range []string{CompressionZstd, CompressionDeflate, CompressionSnappy} {
		var buf bytes.Buffer
		if err := WriteIndexManifest(&buf, sampleIndexEntries(), WriteOptions{Compression: c}); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		// Flip bytes in the middle of the compressed block (before the final sync marker).
		for i := len(data) - 16 - 12; i < len(data)-16-4; i++ {
			data[i] ^= 0x5a
		}
		_, err := ReadIndexManifest("index-manifest-7", bytes.NewReader(data))
		if err == nil || !strings.Contains(err.Error(), "index-manifest-7") {
			t.Errorf("codec %s: err = %v, want an error naming the file", c, err)
		}
	}
}

func TestWrongFileKindAndVersion(t *testing.T) {
	in := sampleManifestEntries()[:1]
	in[0].Kind = 5
	if err := WriteManifestFile(&bytes.Buffer{}, in, WriteOptions{}); err == nil {
		t.Error("writing kind 5 succeeded")
	}
	// A manifest list read as a manifest file fails on the missing/invalid fields, not silently.
	var buf bytes.Buffer
	if err := WriteIndexManifest(&buf, sampleIndexEntries(), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifestFile("idx", &buf); err == nil || !strings.Contains(err.Error(), "lacks required field _TOTAL_BUCKETS") {
		t.Errorf("reading an index manifest as a manifest file: err = %v", err)
	}
}

// TestOlderWriterSchema reads a file written with fewer columns (like Paimon 1.x manifests
// without _FIRST_ROW_ID and _WRITE_COLS): the missing nullable fields read as null.
func TestOlderWriterSchema(t *testing.T) {
	typ := manifestEntryType()
	file := &typ.fields[5].typ
	file.fields = file.fields[:len(file.fields)-2]
	in := sampleManifestEntries()
	recs := make([]avroManifestEntry, len(in))
	for i := range in {
		var err error
		if recs[i], err = toAvroManifestEntry(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := writeOCF(&buf, avroSchemaJSON(typ), WriteOptions{}, recs); err != nil {
		t.Fatal(err)
	}
	out, err := ReadManifestFile("old", &buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i].File.FirstRowID, in[i].File.WriteCols = nil, nil
	}
	if d := cmp.Diff(in, out); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestForeignSchemaRejected(t *testing.T) {
	type rec struct {
		V    int32 `avro:"_VERSION"`
		Next *rec  `avro:"next"`
	}
	var recs = []rec{{V: 2, Next: &rec{V: 3}}}
	var buf bytes.Buffer
	s := `{"type":"record","name":"record","fields":[{"name":"_VERSION","type":"int"},{"name":"next","type":["null","record"],"default":null}]}`
	if err := writeOCF(&buf, s, WriteOptions{}, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifestFile("foreign", &buf); err == nil || !strings.Contains(err.Error(), "required field _KIND") {
		t.Errorf("err = %v", err)
	}
}
