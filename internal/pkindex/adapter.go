package pkindex

import "github.com/paimon-pkft/pkft/internal/meta"

// DataFileInfo projects data file metadata onto what level planning compares; pass it to
// [NewLevels] to plan over *meta.DataFileMeta values.
func DataFileInfo(f *meta.DataFileMeta) FileInfo {
	return FileInfo{Name: f.FileName, RowCount: f.RowCount, Level: f.Level}
}
