package pkindex

import "github.com/paimon-pkft/pkft/impl/meta"

// DataFileInfo projects data file metadata onto what level planning compares; pass it to
// [NewLevels] to plan over *meta.DataFileMeta values.
func DataFileInfo(f *meta.DataFileMeta) FileInfo {
	return FileInfo{Name: f.FileName, RowCount: f.RowCount, Level: f.Level}
}

// ShouldReadDataFile reports whether a data file feeds primary-key indexes: it was written
// by compaction and lives above level 0; a file without a recorded source never does (Java
// PrimaryKeyIndexSourcePolicy.shouldRead).
func ShouldReadDataFile(f *meta.DataFileMeta) bool {
	if f.FileSource == nil {
		return false
	}
	return ShouldRead(FileSource(*f.FileSource), true, f.Level)
}
