package mergetree

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// maxLevels bounds the number of levels NewLevels allocates.
const maxLevels = 1 << 16

// KeyComparator orders two serialized key rows (a data file's min and max keys) as the table's
// key comparator does.
type KeyComparator func(a, b []byte) int

// Levels are the files of one bucket's merge tree by level (Java's Levels): level 0 holds one
// sorted run per file, newest first; every higher level is one sorted run.
type Levels struct {
	keys   KeyComparator
	level0 []*meta.DataFileMeta // in level0Order
	levels []SortedRun          // levels[i] is level i+1
}

// NewLevels restores the levels of files: at least numLevels levels, more when a file sits on a
// higher level. It fails as Java's constructor does: fewer than two levels, a negative level, two
// level-0 files that order equal, or files of one level whose key ranges overlap; and, where
// Java would run out of memory, more than 65,536 levels.
func NewLevels(keys KeyComparator, files []*meta.DataFileMeta, numLevels int32) (*Levels, error) {
	restored := int64(numLevels)
	for _, f := range files {
		restored = max(restored, int64(f.Level)+1)
	}
	if restored <= 1 {
		return nil, errors.New("mergetree: number of levels must be at least 2")
	}
	if restored > maxLevels {
		// Java would allocate them all and run out of memory.
		return nil, fmt.Errorf("mergetree: %d levels: more than the %d pkft supports (num-levels)", restored, maxLevels)
	}
	l := &Levels{keys: keys, levels: make([]SortedRun, restored-1)}
	for i := range l.levels {
		l.levels[i] = NewSortedRun(nil)
	}
	byLevel := map[int32][]*meta.DataFileMeta{}
	for _, f := range files {
		byLevel[f.Level] = append(byLevel[f.Level], f)
	}
	for _, level := range slices.Sorted(maps.Keys(byLevel)) {
		if err := l.updateLevel(level, nil, byLevel[level]); err != nil {
			return nil, err
		}
	}
	n := len(l.level0)
	for _, r := range l.levels {
		n += len(r.Files)
	}
	if n != len(files) {
		return nil, fmt.Errorf("mergetree: %d files restored into levels holding %d: level-0 files that order equal", len(files), n)
	}
	return l, nil
}

// level0Order is the order of Java's level-0 TreeSet: larger max sequence number first, then
// smaller min sequence number, earlier creation time (a missing one first), file name.
func level0Order(a, b *meta.DataFileMeta) int {
	if a.MaxSequenceNumber != b.MaxSequenceNumber {
		return cmp.Compare(b.MaxSequenceNumber, a.MaxSequenceNumber)
	}
	if c := cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber); c != 0 {
		return c
	}
	switch {
	case a.CreationTime == nil && b.CreationTime != nil:
		return -1
	case a.CreationTime != nil && b.CreationTime == nil:
		return 1
	case a.CreationTime != nil:
		if c := cmp.Compare(*a.CreationTime, *b.CreationTime); c != 0 {
			return c
		}
	}
	return javaio.CompareJava(a.FileName, b.FileName)
}

// NumberOfLevels is the number of levels, level 0 included.
func (l *Levels) NumberOfLevels() int32 { return int32(len(l.levels) + 1) }

// MaxLevel is the highest level.
func (l *Levels) MaxLevel() int32 { return int32(len(l.levels)) }

// Level0 is the level-0 files, newest first.
func (l *Levels) Level0() []*meta.DataFileMeta { return slices.Clone(l.level0) }

// NumberOfSortedRuns counts the level-0 files and the non-empty higher levels.
func (l *Levels) NumberOfSortedRuns() int {
	n := len(l.level0)
	for _, r := range l.levels {
		if len(r.Files) > 0 {
			n++
		}
	}
	return n
}

// NonEmptyHighestLevel is the highest level holding a file, -1 when there is none.
func (l *Levels) NonEmptyHighestLevel() int32 {
	for i := len(l.levels) - 1; i >= 0; i-- {
		if len(l.levels[i].Files) > 0 {
			return int32(i + 1)
		}
	}
	if len(l.level0) == 0 {
		return -1
	}
	return 0
}

// TotalFileSize is the sum of every file's size.
func (l *Levels) TotalFileSize() int64 {
	var s int64
	for _, f := range l.level0 {
		s += f.FileSize
	}
	for _, r := range l.levels {
		s += r.TotalSize
	}
	return s
}

// AllFiles is every file in sorted-run order.
func (l *Levels) AllFiles() []*meta.DataFileMeta {
	var files []*meta.DataFileMeta
	for _, r := range l.LevelSortedRuns() {
		files = append(files, r.Run.Files...)
	}
	return files
}

// LevelSortedRuns are the runs a strategy picks from: each level-0 file newest first, then each
// non-empty level upwards.
func (l *Levels) LevelSortedRuns() []LevelSortedRun {
	runs := make([]LevelSortedRun, 0, len(l.level0)+len(l.levels))
	for _, f := range l.level0 {
		runs = append(runs, LevelSortedRun{Level: 0, Run: NewSortedRun([]*meta.DataFileMeta{f})})
	}
	for i, r := range l.levels {
		if len(r.Files) > 0 {
			runs = append(runs, LevelSortedRun{Level: int32(i + 1), Run: r})
		}
	}
	return runs
}

// Update replaces the before files by the after files (a compaction result or a new file), level
// by level; files on levels beyond the highest are ignored, as in Java. A level-0 file is removed
// when one orders equal to it; a higher-level file when one has its name.
func (l *Levels) Update(before, after []*meta.DataFileMeta) error {
	group := func(files []*meta.DataFileMeta) map[int32][]*meta.DataFileMeta {
		m := map[int32][]*meta.DataFileMeta{}
		for _, f := range files {
			m[f.Level] = append(m[f.Level], f)
		}
		return m
	}
	gb, ga := group(before), group(after)
	for i := int32(0); i < l.NumberOfLevels(); i++ {
		if err := l.updateLevel(i, gb[i], ga[i]); err != nil {
			return err
		}
	}
	return nil
}

func (l *Levels) updateLevel(level int32, before, after []*meta.DataFileMeta) error {
	if len(before) == 0 && len(after) == 0 {
		return nil
	}
	if level < 0 {
		return fmt.Errorf("mergetree: file %s on level %d", firstName(before, after), level)
	}
	if level == 0 {
		for _, b := range before {
			if i, ok := slices.BinarySearchFunc(l.level0, b, level0Order); ok {
				l.level0 = slices.Delete(l.level0, i, i+1)
			}
		}
		for _, a := range after {
			if i, ok := slices.BinarySearchFunc(l.level0, a, level0Order); !ok {
				l.level0 = slices.Insert(l.level0, i, a)
			}
		}
		return nil
	}
	files := slices.DeleteFunc(slices.Clone(l.levels[level-1].Files), func(f *meta.DataFileMeta) bool {
		return slices.ContainsFunc(before, func(b *meta.DataFileMeta) bool { return b.FileName == f.FileName })
	})
	files = append(files, after...)
	// SortedRun#fromUnsorted: a stable sort by min key, then no overlap between neighbours.
	slices.SortStableFunc(files, func(a, b *meta.DataFileMeta) int { return l.keys(a.MinKey, b.MinKey) })
	for i := 1; i < len(files); i++ {
		if l.keys(files[i].MinKey, files[i-1].MaxKey) <= 0 {
			return fmt.Errorf("mergetree: level %d: the key ranges of %s and %s overlap", level, files[i-1].FileName, files[i].FileName)
		}
	}
	l.levels[level-1] = NewSortedRun(files)
	return nil
}

func firstName(a, b []*meta.DataFileMeta) string {
	if len(a) > 0 {
		return a[0].FileName
	}
	return b[0].FileName
}
