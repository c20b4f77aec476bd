package pkindex

import (
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
)

// ShouldWrite reports whether a data file with this source and level feeds primary-key
// indexes: only compaction output above level 0 does (Java
// PrimaryKeyIndexSourcePolicy.shouldWrite).
func ShouldWrite(source meta.FileSource, level int32) bool {
	return source == meta.FileSourceCompact && level > 0
}

// ShouldReadDataFile reports whether a data file feeds primary-key indexes: it was written by
// compaction and lives above level 0; a file without a recorded source never does (Java
// PrimaryKeyIndexSourcePolicy.shouldRead).
func ShouldReadDataFile(f *meta.DataFileMeta) bool {
	if mutation.On("eligibility-ignores-source") {
		return f.Level > 0
	}
	if mutation.On("level0-compact-eligible") {
		// Every compaction output is taken for an index source, level 0 included.
		return f.FileSource != nil && *f.FileSource == meta.FileSourceCompact
	}
	return f.FileSource != nil && ShouldWrite(*f.FileSource, f.Level)
}
