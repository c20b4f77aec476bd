package manifest

import (
	"fmt"
	"math"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// Avro-tagged mirrors of the Paimon rows. Nullable values are pointers so that null and empty
// stay distinct through hamba/avro; fields absent from a file's writer schema decode as zero
// values (null), which is what Paimon's Avro reader does for missing fields.

type avroSimpleStats struct {
	MinValues  []byte    `avro:"_MIN_VALUES"`
	MaxValues  []byte    `avro:"_MAX_VALUES"`
	NullCounts *[]*int64 `avro:"_NULL_COUNTS"`
}

type avroDataFileMeta struct {
	FileName          string          `avro:"_FILE_NAME"`
	FileSize          int64           `avro:"_FILE_SIZE"`
	RowCount          int64           `avro:"_ROW_COUNT"`
	MinKey            []byte          `avro:"_MIN_KEY"`
	MaxKey            []byte          `avro:"_MAX_KEY"`
	KeyStats          avroSimpleStats `avro:"_KEY_STATS"`
	ValueStats        avroSimpleStats `avro:"_VALUE_STATS"`
	MinSequenceNumber int64           `avro:"_MIN_SEQUENCE_NUMBER"`
	MaxSequenceNumber int64           `avro:"_MAX_SEQUENCE_NUMBER"`
	SchemaID          int64           `avro:"_SCHEMA_ID"`
	Level             int32           `avro:"_LEVEL"`
	ExtraFiles        []string        `avro:"_EXTRA_FILES"`
	CreationTime      *int64          `avro:"_CREATION_TIME"`
	DeleteRowCount    *int64          `avro:"_DELETE_ROW_COUNT"`
	EmbeddedIndex     *[]byte         `avro:"_EMBEDDED_FILE_INDEX"`
	FileSource        *int32          `avro:"_FILE_SOURCE"`
	ValueStatsCols    *[]string       `avro:"_VALUE_STATS_COLS"`
	ExternalPath      *string         `avro:"_EXTERNAL_PATH"`
	FirstRowID        *int64          `avro:"_FIRST_ROW_ID"`
	WriteCols         *[]string       `avro:"_WRITE_COLS"`
}

type avroManifestEntry struct {
	Version      int32            `avro:"_VERSION"`
	Kind         int32            `avro:"_KIND"`
	Partition    []byte           `avro:"_PARTITION"`
	Bucket       int32            `avro:"_BUCKET"`
	TotalBuckets int32            `avro:"_TOTAL_BUCKETS"`
	File         avroDataFileMeta `avro:"_FILE"`
}

type avroManifestFileMeta struct {
	Version         int32           `avro:"_VERSION"`
	FileName        string          `avro:"_FILE_NAME"`
	FileSize        int64           `avro:"_FILE_SIZE"`
	NumAddedFiles   int64           `avro:"_NUM_ADDED_FILES"`
	NumDeletedFiles int64           `avro:"_NUM_DELETED_FILES"`
	PartitionStats  avroSimpleStats `avro:"_PARTITION_STATS"`
	SchemaID        int64           `avro:"_SCHEMA_ID"`
	MinBucket       *int32          `avro:"_MIN_BUCKET"`
	MaxBucket       *int32          `avro:"_MAX_BUCKET"`
	MinLevel        *int32          `avro:"_MIN_LEVEL"`
	MaxLevel        *int32          `avro:"_MAX_LEVEL"`
	MinRowID        *int64          `avro:"_MIN_ROW_ID"`
	MaxRowID        *int64          `avro:"_MAX_ROW_ID"`
}

type avroDeletionVectorMeta struct {
	DataFileName string `avro:"f0"`
	Offset       int32  `avro:"f1"`
	Length       int32  `avro:"f2"`
	Cardinality  *int64 `avro:"_CARDINALITY"`
}

type avroGlobalIndexMeta struct {
	RowRangeStart int64    `avro:"_ROW_RANGE_START"`
	RowRangeEnd   int64    `avro:"_ROW_RANGE_END"`
	IndexFieldID  int32    `avro:"_INDEX_FIELD_ID"`
	ExtraFieldIDs *[]int32 `avro:"_EXTRA_FIELD_IDS"`
	IndexMeta     *[]byte  `avro:"_INDEX_META"`
	SourceMeta    *[]byte  `avro:"_SOURCE_META"`
}

type avroIndexManifestEntry struct {
	Version      int32                      `avro:"_VERSION"`
	Kind         int32                      `avro:"_KIND"`
	Partition    []byte                     `avro:"_PARTITION"`
	Bucket       int32                      `avro:"_BUCKET"`
	IndexType    string                     `avro:"_INDEX_TYPE"`
	FileName     string                     `avro:"_FILE_NAME"`
	FileSize     int64                      `avro:"_FILE_SIZE"`
	RowCount     int64                      `avro:"_ROW_COUNT"`
	DVRanges     *[]*avroDeletionVectorMeta `avro:"_DELETIONS_VECTORS_RANGES"`
	ExternalPath *string                    `avro:"_EXTERNAL_PATH"`
	GlobalIndex  *avroGlobalIndexMeta       `avro:"_GLOBAL_INDEX"`
}

// Serializer versions written by Paimon 2.0.0 (ManifestEntrySerializer, ManifestFileMetaSerializer,
// IndexManifestEntrySerializer).
const (
	manifestEntryVersion      = 2
	manifestFileMetaVersion   = 2
	indexManifestEntryVersion = 1
)

// rowOrEmpty returns b, or the serialized empty BinaryRow when b is nil, because Java cannot
// deserialize an empty byte array as a row.
func rowOrEmpty(b []byte) []byte {
	if b == nil {
		return meta.EmptyBinaryRow()
	}
	return b
}

func optSlice[T any](s []T) *[]T {
	if s == nil {
		return nil
	}
	return &s
}

// fromOptSlice returns nil for null and a non-nil slice (possibly empty) otherwise.
func fromOptSlice[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []T{}
	}
	return *p
}

func cloneOr[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func toAvroStats(s meta.SimpleStats) avroSimpleStats {
	nc := cloneOr(s.NullCounts)
	return avroSimpleStats{MinValues: rowOrEmpty(s.MinValues), MaxValues: rowOrEmpty(s.MaxValues), NullCounts: &nc}
}

func fromAvroStats(s avroSimpleStats) meta.SimpleStats {
	// Java writes null counts as a non-null array; a null one reads as empty.
	return meta.SimpleStats{MinValues: s.MinValues, MaxValues: s.MaxValues, NullCounts: cloneOr(fromOptSlice(s.NullCounts))}
}

func toAvroDataFile(f *meta.DataFileMeta) avroDataFileMeta {
	var src *int32
	if f.FileSource != nil {
		v := int32(*f.FileSource)
		src = &v
	}
	return avroDataFileMeta{
		FileName:          f.FileName,
		FileSize:          f.FileSize,
		RowCount:          f.RowCount,
		MinKey:            rowOrEmpty(f.MinKey),
		MaxKey:            rowOrEmpty(f.MaxKey),
		KeyStats:          toAvroStats(f.KeyStats),
		ValueStats:        toAvroStats(f.ValueStats),
		MinSequenceNumber: f.MinSequenceNumber,
		MaxSequenceNumber: f.MaxSequenceNumber,
		SchemaID:          f.SchemaID,
		Level:             f.Level,
		ExtraFiles:        cloneOr(f.ExtraFiles),
		CreationTime:      f.CreationTime,
		DeleteRowCount:    f.DeleteRowCount,
		EmbeddedIndex:     optSlice(f.EmbeddedIndex),
		FileSource:        src,
		ValueStatsCols:    optSlice(f.ValueStatsCols),
		ExternalPath:      f.ExternalPath,
		FirstRowID:        f.FirstRowID,
		WriteCols:         optSlice(f.WriteCols),
	}
}

func fromAvroDataFile(a *avroDataFileMeta) (meta.DataFileMeta, error) {
	f := meta.DataFileMeta{
		FileName:          a.FileName,
		FileSize:          a.FileSize,
		RowCount:          a.RowCount,
		MinKey:            a.MinKey,
		MaxKey:            a.MaxKey,
		KeyStats:          fromAvroStats(a.KeyStats),
		ValueStats:        fromAvroStats(a.ValueStats),
		MinSequenceNumber: a.MinSequenceNumber,
		MaxSequenceNumber: a.MaxSequenceNumber,
		SchemaID:          a.SchemaID,
		Level:             a.Level,
		ExtraFiles:        cloneOr(a.ExtraFiles),
		CreationTime:      a.CreationTime,
		DeleteRowCount:    a.DeleteRowCount,
		EmbeddedIndex:     fromOptSlice(a.EmbeddedIndex),
		ValueStatsCols:    fromOptSlice(a.ValueStatsCols),
		ExternalPath:      a.ExternalPath,
		FirstRowID:        a.FirstRowID,
		WriteCols:         fromOptSlice(a.WriteCols),
	}
	if a.FileSource != nil {
		s := meta.FileSource(*a.FileSource)
		if int32(s) != *a.FileSource || !s.Valid() {
			return meta.DataFileMeta{}, fmt.Errorf("data file %q: unsupported file source %d", a.FileName, *a.FileSource)
		}
		f.FileSource = &s
	}
	return f, nil
}

func toKind(v int32) (meta.FileKind, error) {
	k := meta.FileKind(v)
	if v < math.MinInt8 || v > math.MaxInt8 || !k.Valid() {
		return 0, fmt.Errorf("unsupported file kind %d", v)
	}
	return k, nil
}

func checkVersion(got, want int32, what string) error {
	if got == want {
		return nil
	}
	if what != "index manifest entry" && got == 1 {
		return fmt.Errorf("%s version %d is not compatible with version %d (recreate the table)", what, got, want)
	}
	return fmt.Errorf("unsupported %s version %d", what, got)
}

func toAvroManifestEntry(e *meta.ManifestEntry) (avroManifestEntry, error) {
	if !e.Kind.Valid() {
		return avroManifestEntry{}, fmt.Errorf("file %q: invalid file kind %d", e.File.FileName, e.Kind)
	}
	if e.File.FileSource != nil && !e.File.FileSource.Valid() {
		return avroManifestEntry{}, fmt.Errorf("file %q: invalid file source %d", e.File.FileName, *e.File.FileSource)
	}
	return avroManifestEntry{
		Version:      manifestEntryVersion,
		Kind:         int32(e.Kind),
		Partition:    rowOrEmpty(e.Partition),
		Bucket:       e.Bucket,
		TotalBuckets: e.TotalBuckets,
		File:         toAvroDataFile(&e.File),
	}, nil
}

func fromAvroManifestEntry(a *avroManifestEntry) (meta.ManifestEntry, error) {
	if err := checkVersion(a.Version, manifestEntryVersion, "manifest entry"); err != nil {
		return meta.ManifestEntry{}, err
	}
	kind, err := toKind(a.Kind)
	if err != nil {
		return meta.ManifestEntry{}, fmt.Errorf("file %q: %w", a.File.FileName, err)
	}
	f, err := fromAvroDataFile(&a.File)
	if err != nil {
		return meta.ManifestEntry{}, err
	}
	return meta.ManifestEntry{Kind: kind, Partition: a.Partition, Bucket: a.Bucket, TotalBuckets: a.TotalBuckets, File: f}, nil
}

func toAvroManifestFileMeta(m *meta.ManifestFileMeta) avroManifestFileMeta {
	return avroManifestFileMeta{
		Version:         manifestFileMetaVersion,
		FileName:        m.FileName,
		FileSize:        m.FileSize,
		NumAddedFiles:   m.NumAddedFiles,
		NumDeletedFiles: m.NumDeletedFiles,
		PartitionStats:  toAvroStats(m.PartitionStats),
		SchemaID:        m.SchemaID,
		MinBucket:       m.MinBucket,
		MaxBucket:       m.MaxBucket,
		MinLevel:        m.MinLevel,
		MaxLevel:        m.MaxLevel,
		MinRowID:        m.MinRowID,
		MaxRowID:        m.MaxRowID,
	}
}

func fromAvroManifestFileMeta(a *avroManifestFileMeta) (meta.ManifestFileMeta, error) {
	if err := checkVersion(a.Version, manifestFileMetaVersion, "manifest file meta"); err != nil {
		return meta.ManifestFileMeta{}, err
	}
	return meta.ManifestFileMeta{
		FileName:        a.FileName,
		FileSize:        a.FileSize,
		NumAddedFiles:   a.NumAddedFiles,
		NumDeletedFiles: a.NumDeletedFiles,
		PartitionStats:  fromAvroStats(a.PartitionStats),
		SchemaID:        a.SchemaID,
		MinBucket:       a.MinBucket,
		MaxBucket:       a.MaxBucket,
		MinLevel:        a.MinLevel,
		MaxLevel:        a.MaxLevel,
		MinRowID:        a.MinRowID,
		MaxRowID:        a.MaxRowID,
	}, nil
}

func toAvroIndexManifestEntry(e *meta.IndexManifestEntry) (avroIndexManifestEntry, error) {
	if !e.Kind.Valid() {
		return avroIndexManifestEntry{}, fmt.Errorf("index file %q: invalid file kind %d", e.IndexFile.FileName, e.Kind)
	}
	f := &e.IndexFile
	a := avroIndexManifestEntry{
		Version:      indexManifestEntryVersion,
		Kind:         int32(e.Kind),
		Partition:    rowOrEmpty(e.Partition),
		Bucket:       e.Bucket,
		IndexType:    f.IndexType,
		FileName:     f.FileName,
		FileSize:     f.FileSize,
		RowCount:     f.RowCount,
		ExternalPath: f.ExternalPath,
	}
	if f.DVRanges != nil {
		dvs := make([]*avroDeletionVectorMeta, len(f.DVRanges))
		for i, dv := range f.DVRanges {
			dvs[i] = &avroDeletionVectorMeta{DataFileName: dv.DataFileName, Offset: dv.Offset, Length: dv.Length, Cardinality: dv.Cardinality}
		}
		a.DVRanges = &dvs
	}
	if g := f.GlobalIndex; g != nil {
		a.GlobalIndex = &avroGlobalIndexMeta{
			RowRangeStart: g.RowRangeStart,
			RowRangeEnd:   g.RowRangeEnd,
			IndexFieldID:  g.IndexFieldID,
			ExtraFieldIDs: optSlice(g.ExtraFieldIDs),
			IndexMeta:     optSlice(g.IndexMeta),
			SourceMeta:    optSlice(g.SourceMeta),
		}
	}
	return a, nil
}

func fromAvroIndexManifestEntry(a *avroIndexManifestEntry) (meta.IndexManifestEntry, error) {
	if err := checkVersion(a.Version, indexManifestEntryVersion, "index manifest entry"); err != nil {
		return meta.IndexManifestEntry{}, err
	}
	kind, err := toKind(a.Kind)
	if err != nil {
		return meta.IndexManifestEntry{}, fmt.Errorf("index file %q: %w", a.FileName, err)
	}
	f := meta.IndexFileMeta{
		IndexType:    a.IndexType,
		FileName:     a.FileName,
		FileSize:     a.FileSize,
		RowCount:     a.RowCount,
		ExternalPath: a.ExternalPath,
	}
	if a.DVRanges != nil {
		if f.DVRanges, err = dedupDVRanges(*a.DVRanges); err != nil {
			return meta.IndexManifestEntry{}, fmt.Errorf("index file %q: %w", a.FileName, err)
		}
	}
	if g := a.GlobalIndex; g != nil {
		f.GlobalIndex = &meta.GlobalIndexMeta{
			RowRangeStart: g.RowRangeStart,
			RowRangeEnd:   g.RowRangeEnd,
			IndexFieldID:  g.IndexFieldID,
			ExtraFieldIDs: fromOptSlice(g.ExtraFieldIDs),
			IndexMeta:     fromOptSlice(g.IndexMeta),
			SourceMeta:    fromOptSlice(g.SourceMeta),
		}
	}
	return meta.IndexManifestEntry{Kind: kind, Partition: a.Partition, Bucket: a.Bucket, IndexFile: f}, nil
}

// dedupDVRanges mirrors reading the ranges into Java's LinkedHashMap: a repeated data file name
// keeps its first position but takes the last value. A null element, which the schema allows but
// Java cannot read, is an error.
func dedupDVRanges(in []*avroDeletionVectorMeta) ([]meta.DeletionVectorMeta, error) {
	out := make([]meta.DeletionVectorMeta, 0, len(in))
	pos := make(map[string]int, len(in))
	for i, dv := range in {
		if dv == nil {
			return nil, fmt.Errorf("deletion vector range %d is null", i)
		}
		m := meta.DeletionVectorMeta{DataFileName: dv.DataFileName, Offset: dv.Offset, Length: dv.Length, Cardinality: dv.Cardinality}
		if i, ok := pos[m.DataFileName]; ok {
			out[i] = m
			continue
		}
		pos[m.DataFileName] = len(out)
		out = append(out, m)
	}
	return out, nil
}
