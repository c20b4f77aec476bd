// Package meta holds the plain Go forms of Paimon 2.0.0 file metadata records: data file
// metadata, manifest entries, manifest list entries, index file metadata and index manifest
// entries. Field order and nullability follow the Java SCHEMA row types of release-2.0.0.
//
// Partitions, min/max keys and stats min/max values are kept as the serialized BinaryRow bytes
// Java stores in manifests (a 4-byte big-endian arity followed by the row bytes), so this
// package does not depend on a BinaryRow implementation.
//
// Nullability convention: a nullable scalar is a pointer; a nullable array or byte string is a
// slice where nil means null and a non-nil empty slice means an empty value.
package meta

// FileKind says whether a manifest entry adds or deletes a file (Java FileKind).
type FileKind int8

const (
	// FileKindAdd marks an added file (byte value 0).
	FileKindAdd FileKind = 0
	// FileKindDelete marks a deleted file (byte value 1).
	FileKindDelete FileKind = 1
)

// String returns the Java enum name of the kind.
func (k FileKind) String() string {
	switch k {
	case FileKindAdd:
		return "ADD"
	case FileKindDelete:
		return "DELETE"
	default:
		return "UNKNOWN"
	}
}

// Valid reports whether k is a kind Java accepts (FileKind.fromByteValue).
func (k FileKind) Valid() bool { return k == FileKindAdd || k == FileKindDelete }

// FileSource says how a data file was produced (Java FileSource).
type FileSource int8

const (
	// FileSourceAppend marks a file from new input (byte value 0).
	FileSourceAppend FileSource = 0
	// FileSourceCompact marks a file produced by compaction (byte value 1).
	FileSourceCompact FileSource = 1
)

// String returns the Java enum name of the source.
func (s FileSource) String() string {
	switch s {
	case FileSourceAppend:
		return "APPEND"
	case FileSourceCompact:
		return "COMPACT"
	default:
		return "UNKNOWN"
	}
}

// Valid reports whether s is a source Java accepts (FileSource.fromByteValue).
func (s FileSource) Valid() bool { return s == FileSourceAppend || s == FileSourceCompact }

// SimpleStats is the min/max/null-count statistics record (Java SimpleStats): fields
// _MIN_VALUES, _MAX_VALUES and _NULL_COUNTS.
type SimpleStats struct {
	// MinValues is the serialized BinaryRow of per-column minimums.
	MinValues []byte
	// MaxValues is the serialized BinaryRow of per-column maximums.
	MaxValues []byte
	// NullCounts holds per-column null counts; an element is nil when unknown.
	NullCounts []*int64
}

// EmptyBinaryRow returns the serialized form of Java's BinaryRow.EMPTY_ROW: arity 0 followed by
// the 8-byte header/null-bits word, all zero. Each call returns a fresh slice.
func EmptyBinaryRow() []byte { return make([]byte, 12) }

// EmptyStats returns the stats Java uses for zero columns (SimpleStats.EMPTY_STATS).
func EmptyStats() SimpleStats {
	return SimpleStats{MinValues: EmptyBinaryRow(), MaxValues: EmptyBinaryRow(), NullCounts: []*int64{}}
}

// DataFileMeta describes one data file (Java DataFileMeta, schema fields 0..19 in order).
type DataFileMeta struct {
	// FileName is _FILE_NAME.
	FileName string
	// FileSize is _FILE_SIZE in bytes.
	FileSize int64
	// RowCount is _ROW_COUNT.
	RowCount int64
	// MinKey is _MIN_KEY, a serialized BinaryRow.
	MinKey []byte
	// MaxKey is _MAX_KEY, a serialized BinaryRow.
	MaxKey []byte
	// KeyStats is _KEY_STATS.
	KeyStats SimpleStats
	// ValueStats is _VALUE_STATS.
	ValueStats SimpleStats
	// MinSequenceNumber is _MIN_SEQUENCE_NUMBER.
	MinSequenceNumber int64
	// MaxSequenceNumber is _MAX_SEQUENCE_NUMBER.
	MaxSequenceNumber int64
	// SchemaID is _SCHEMA_ID.
	SchemaID int64
	// Level is _LEVEL, the LSM level of the file.
	Level int32
	// ExtraFiles is _EXTRA_FILES (never null in Java; nil is written as an empty array).
	ExtraFiles []string
	// CreationTime is _CREATION_TIME as stored in Avro: milliseconds of the writer's local
	// wall-clock time interpreted as UTC (Java Timestamp of a LocalDateTime). Nullable.
	CreationTime *int64
	// DeleteRowCount is _DELETE_ROW_COUNT. Nullable.
	DeleteRowCount *int64
	// EmbeddedIndex is _EMBEDDED_FILE_INDEX. Nil means null.
	EmbeddedIndex []byte
	// FileSource is _FILE_SOURCE. Nullable.
	FileSource *FileSource
	// ValueStatsCols is _VALUE_STATS_COLS. Nil means null (stats cover all columns).
	ValueStatsCols []string
	// ExternalPath is _EXTERNAL_PATH. Nullable.
	ExternalPath *string
	// FirstRowID is _FIRST_ROW_ID. Nullable.
	FirstRowID *int64
	// WriteCols is _WRITE_COLS. Nil means null.
	WriteCols []string
}

// IsCompacted reports whether the file was produced by compaction (file source COMPACT).
func (f *DataFileMeta) IsCompacted() bool {
	return f.FileSource != nil && *f.FileSource == FileSourceCompact
}

// ManifestEntry is one entry of a manifest file (Java ManifestEntry).
type ManifestEntry struct {
	// Kind is _KIND.
	Kind FileKind
	// Partition is _PARTITION, a serialized BinaryRow.
	Partition []byte
	// Bucket is _BUCKET.
	Bucket int32
	// TotalBuckets is _TOTAL_BUCKETS.
	TotalBuckets int32
	// File is _FILE.
	File DataFileMeta
}

// ManifestFileMeta is one entry of a manifest list (Java ManifestFileMeta).
type ManifestFileMeta struct {
	// FileName is _FILE_NAME.
	FileName string
	// FileSize is _FILE_SIZE.
	FileSize int64
	// NumAddedFiles is _NUM_ADDED_FILES.
	NumAddedFiles int64
	// NumDeletedFiles is _NUM_DELETED_FILES.
	NumDeletedFiles int64
	// PartitionStats is _PARTITION_STATS.
	PartitionStats SimpleStats
	// SchemaID is _SCHEMA_ID.
	SchemaID int64
	// MinBucket is _MIN_BUCKET. Nullable.
	MinBucket *int32
	// MaxBucket is _MAX_BUCKET. Nullable.
	MaxBucket *int32
	// MinLevel is _MIN_LEVEL. Nullable.
	MinLevel *int32
	// MaxLevel is _MAX_LEVEL. Nullable.
	MaxLevel *int32
	// MinRowID is _MIN_ROW_ID. Nullable.
	MinRowID *int64
	// MaxRowID is _MAX_ROW_ID. Nullable.
	MaxRowID *int64
}

// DeletionVectorMeta locates one data file's deletion vector inside a deletion-vector index file
// (Java DeletionVectorMeta; Avro fields f0, f1, f2, _CARDINALITY).
type DeletionVectorMeta struct {
	// DataFileName is the data file the vector belongs to (f0).
	DataFileName string
	// Offset is the byte offset in the index file (f1).
	Offset int32
	// Length is the byte length (f2).
	Length int32
	// Cardinality is the number of deleted rows (_CARDINALITY). Nullable.
	Cardinality *int64
}

// GlobalIndexMeta is the global-index part of an index file (Java GlobalIndexMeta).
type GlobalIndexMeta struct {
	// RowRangeStart is _ROW_RANGE_START (inclusive).
	RowRangeStart int64
	// RowRangeEnd is _ROW_RANGE_END (inclusive).
	RowRangeEnd int64
	// IndexFieldID is _INDEX_FIELD_ID.
	IndexFieldID int32
	// ExtraFieldIDs is _EXTRA_FIELD_IDS. Nil means null.
	ExtraFieldIDs []int32
	// IndexMeta is _INDEX_META, owned by the index implementation. Nil means null.
	IndexMeta []byte
	// SourceMeta is _SOURCE_META. Nil means null.
	SourceMeta []byte
}

// IndexFileMeta describes one index file (Java IndexFileMeta).
type IndexFileMeta struct {
	// IndexType is _INDEX_TYPE, e.g. "DELETION_VECTORS", "HASH" or "full-text".
	IndexType string
	// FileName is _FILE_NAME.
	FileName string
	// FileSize is _FILE_SIZE.
	FileSize int64
	// RowCount is _ROW_COUNT.
	RowCount int64
	// DVRanges is _DELETIONS_VECTORS_RANGES in insertion order (Java LinkedHashMap keyed by
	// data file name). Nil means null.
	DVRanges []DeletionVectorMeta
	// ExternalPath is _EXTERNAL_PATH. Nullable.
	ExternalPath *string
	// GlobalIndex is _GLOBAL_INDEX. Nullable.
	GlobalIndex *GlobalIndexMeta
}

// Index types Java uses for index files.
const (
	// IndexTypeDeletionVectors is DeletionVectorsIndexFile.DELETION_VECTORS_INDEX.
	IndexTypeDeletionVectors = "DELETION_VECTORS"
	// IndexTypeHash is HashIndexFile.HASH_INDEX.
	IndexTypeHash = "HASH"
)

// IndexManifestEntry is one entry of an index manifest (Java IndexManifestEntry).
type IndexManifestEntry struct {
	// Kind is _KIND.
	Kind FileKind
	// Partition is _PARTITION, a serialized BinaryRow.
	Partition []byte
	// Bucket is _BUCKET.
	Bucket int32
	// IndexFile holds the index file fields (_INDEX_TYPE .. _GLOBAL_INDEX).
	IndexFile IndexFileMeta
}
