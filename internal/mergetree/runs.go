package mergetree

import "github.com/paimon-pkft/pkft/internal/meta"

// SortedRun is a list of data files sorted by key whose key ranges do not overlap (Java's
// SortedRun): one level-0 file, or all the files of one level above 0.
type SortedRun struct {
	// Files are the run's files in key order.
	Files []*meta.DataFileMeta
	// TotalSize is the sum of the files' sizes (Java's long sum, wrapping on overflow).
	TotalSize int64
}

// NewSortedRun is a run of files already in key order (SortedRun#fromSorted).
func NewSortedRun(files []*meta.DataFileMeta) SortedRun {
	var total int64
	for _, f := range files {
		total += f.FileSize
	}
	return SortedRun{Files: files, TotalSize: total}
}

// LevelSortedRun is a sorted run with its level (Java's LevelSortedRun).
type LevelSortedRun struct {
	Level int32
	Run   SortedRun
}

// CompactUnit is what a strategy picked (Java's CompactUnit): the files to compact, the level
// the result goes to, and whether the files are rewritten one by one (a full compaction of the
// max level rewriting files with deletion vectors) rather than merged.
type CompactUnit struct {
	OutputLevel int32
	Files       []*meta.DataFileMeta
	FileRewrite bool
}

// unitFromRuns is CompactUnit#fromLevelRuns: the files of the runs in order, merged.
func unitFromRuns(outputLevel int32, runs []LevelSortedRun) *CompactUnit {
	files := []*meta.DataFileMeta{}
	for _, r := range runs {
		files = append(files, r.Run.Files...)
	}
	return &CompactUnit{OutputLevel: outputLevel, Files: files}
}
