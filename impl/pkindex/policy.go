package pkindex

import "fmt"

// FileSource says how a data file came to be, with the byte values Paimon stores in
// manifests (Java org.apache.paimon.manifest.FileSource).
type FileSource int8

const (
	// FileSourceAppend marks a file written from new input.
	FileSourceAppend FileSource = 0
	// FileSourceCompact marks a file written by compaction.
	FileSourceCompact FileSource = 1
)

// String returns the Java enum constant name, or a description of an unknown value.
func (s FileSource) String() string {
	switch s {
	case FileSourceAppend:
		return "APPEND"
	case FileSourceCompact:
		return "COMPACT"
	default:
		return fmt.Sprintf("FileSource(%d)", int8(s))
	}
}

// FileSourceFromByte converts a stored byte to a FileSource, rejecting values Java's
// FileSource.fromByteValue rejects.
func FileSourceFromByte(b int8) (FileSource, error) {
	switch s := FileSource(b); s {
	case FileSourceAppend, FileSourceCompact:
		return s, nil
	default:
		return 0, fmt.Errorf("unsupported byte value '%d' for file source", b)
	}
}

// ShouldWrite reports whether a data file with this source and level feeds primary-key
// indexes: only compaction output above level 0 does (Java
// PrimaryKeyIndexSourcePolicy.shouldWrite).
func ShouldWrite(source FileSource, level int32) bool {
	return source == FileSourceCompact && level > 0
}

// ShouldRead is [ShouldWrite] for a file whose source may be unrecorded (hasSource false),
// as in Java's Optional fileSource; such a file never feeds an index (Java
// PrimaryKeyIndexSourcePolicy.shouldRead).
func ShouldRead(source FileSource, hasSource bool, level int32) bool {
	return hasSource && ShouldWrite(source, level)
}
