package pkindex

import (
	"fmt"
	"maps"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
)

// FileInfo is what level planning needs to know about an active data file.
type FileInfo struct {
	// Name is the data file name, unique within a bucket.
	Name string
	// RowCount is the number of physical rows in the file.
	RowCount int64
	// Level is the LSM level the file lives on.
	Level int32
}

// Levels plans per-level rebuilds of index payloads of type T against active data files of
// type F (Java PrimaryKeyIndexLevels<T>). Each data level above 0 should have exactly one
// payload covering exactly the level's active source files, ordered by name. A Levels holds
// only its accessor functions and is safe for concurrent use if they are.
type Levels[T, F any] struct {
	dataLevel func(T) (int32, error)
	sources   func(T) ([]SourceFile, error)
	fileInfo  func(F) FileInfo
}

// NewLevels returns a planner. dataLevel and sources read a payload's source meta (they may
// fail, e.g. when the meta does not parse); fileInfo projects a caller's data file. None may be nil.
func NewLevels[T, F any](
	dataLevel func(T) (int32, error),
	sources func(T) ([]SourceFile, error),
	fileInfo func(F) FileInfo,
) *Levels[T, F] {
	return &Levels[T, F]{dataLevel: dataLevel, sources: sources, fileInfo: fileInfo}
}

// Plan is one deterministic rebuild selection (Java PrimaryKeyIndexLevels.Plan): for
// DataLevel, replace InputUnits (the level's current payload, if any) by a payload covering
// SourceFiles. A plan without source files means: remove the input payload. Plans are made
// by [Levels.Pick] and are immutable.
type Plan[T, F any] struct {
	dataLevel   int32
	inputUnits  []T
	sourceFiles []F
}

// NewPlan returns the plan that rebuilds dataLevel: it replaces inputUnits (none or the level's
// one payload) by a payload covering sourceFiles, which must be the level's active files ordered
// by name as [Levels.Pick] orders them. Both slices are copied. It is for a caller that decided
// the plan with knowledge Pick lacks; Pick's plans need no other constructor.
func NewPlan[T, F any](dataLevel int32, inputUnits []T, sourceFiles []F) *Plan[T, F] {
	return &Plan[T, F]{dataLevel: dataLevel, inputUnits: slices.Clone(inputUnits), sourceFiles: slices.Clone(sourceFiles)}
}

// DataLevel returns the data level the plan rebuilds.
func (p *Plan[T, F]) DataLevel() int32 {
	return p.dataLevel
}

// InputUnits returns a copy of the payloads the plan replaces: none or the level's one.
func (p *Plan[T, F]) InputUnits() []T {
	return slices.Clone(p.inputUnits)
}

// SourceFiles returns a copy of the files the new payload must cover, ordered by name as
// Java's String.compareTo orders them.
func (p *Plan[T, F]) SourceFiles() []F {
	return slices.Clone(p.sourceFiles)
}

// Removes reports whether the plan has no source files, i.e. it only removes its input.
func (p *Plan[T, F]) Removes() bool {
	return len(p.sourceFiles) == 0
}

// Pick returns the plan for the lowest level that needs work, or nil when every level is
// exact. active holds the eligible active source files keyed by file name (files on level 0
// are ignored). Levels are visited in ascending order over the union of levels with active
// files and levels with a payload; the first level whose payload is missing, or whose
// payload's sources differ from the level's files (name and row count, in order), yields the
// plan. It fails when a payload's level is not positive, two payloads claim one level, or an
// accessor fails; a payload's sources are read only when its level is reached.
func (l *Levels[T, F]) Pick(units []T, active map[string]F) (*Plan[T, F], error) {
	return l.PickKnown(units, active, nil)
}

// PickKnown is [Levels.Pick] for a caller that has already checked some units against the same
// active files: a unit for which exact reports true is known to name exactly its level's files
// sorted by name, with their row counts, so its comparison is skipped (its level and sources are
// still read, and fail as in Pick). exact may be nil. The plan is the one Pick returns whenever
// exact is only true for such units.
func (l *Levels[T, F]) PickKnown(units []T, active map[string]F, exact func(T) bool) (*Plan[T, F], error) {
	desired := make(map[int32][]F)
	for _, f := range active {
		if level := l.fileInfo(f).Level; level > 0 {
			desired[level] = append(desired[level], f)
		}
	}

	unitsByLevel := make(map[int32]T, len(units))
	for i, u := range units {
		level, err := l.dataLevel(u)
		if err != nil {
			return nil, fmt.Errorf("read data level of index unit %d: %w", i, err)
		}
		if level <= 0 {
			return nil, fmt.Errorf("primary-key index data level must be positive: %d", level)
		}
		if _, dup := unitsByLevel[level]; dup {
			return nil, fmt.Errorf("multiple primary-key index units exist for data level %d", level)
		}
		unitsByLevel[level] = u
	}

	levels := slices.Collect(maps.Keys(desired))
	for level := range unitsByLevel {
		if _, ok := desired[level]; !ok {
			levels = append(levels, level)
		}
	}
	slices.Sort(levels)

	for _, level := range levels {
		files := desired[level]
		u, ok := unitsByLevel[level]
		if !ok {
			l.sortByName(files)
			return &Plan[T, F]{dataLevel: level, sourceFiles: slices.Clone(files)}, nil
		}
		sources, err := l.sources(u)
		if err != nil {
			return nil, fmt.Errorf("read source files of index unit for data level %d: %w", level, err)
		}
		if exact != nil && exact(u) {
			continue
		}
		if l.matchesUnsorted(level, sources, files, active) {
			continue
		}
		l.sortByName(files)
		if !l.matches(sources, files) {
			return &Plan[T, F]{dataLevel: level, inputUnits: []T{u}, sourceFiles: slices.Clone(files)}, nil
		}
	}
	return nil, nil
}

// IsCurrent reports whether plan still describes its level exactly: the active files on the
// plan's level, ordered by name, are the plan's files with the same row counts. A nil plan
// is never current.
func (l *Levels[T, F]) IsCurrent(plan *Plan[T, F], active map[string]F) bool {
	if plan == nil {
		return false
	}
	var current []F
	for _, f := range active {
		if l.fileInfo(f).Level == plan.dataLevel {
			current = append(current, f)
		}
	}
	if len(current) != len(plan.sourceFiles) {
		return false
	}
	l.sortByName(current)
	for i, f := range current {
		planned, actual := l.fileInfo(plan.sourceFiles[i]), l.fileInfo(f)
		if planned.Name != actual.Name || planned.RowCount != actual.RowCount {
			return false
		}
	}
	return true
}

func (l *Levels[T, F]) matches(sources []SourceFile, files []F) bool {
	if len(sources) != len(files) {
		return false
	}
	for i, s := range sources {
		info := l.fileInfo(files[i])
		if s.FileName() != info.Name || s.RowCount() != info.RowCount {
			return false
		}
	}
	return true
}

// matchesUnsorted reports, without sorting files, that files sorted by name would match sources:
// the sources' names are strictly increasing in Java order and, as many as the level's files, each
// names an active file of this level with the same row count. active is keyed by file name, so
// its files are distinct and the names found are as many distinct files of the level as it has:
// the sorted level is exactly the sources' list. False means only that the sorted comparison
// decides (a caller's map whose keys are not its files' names falls back to it).
func (l *Levels[T, F]) matchesUnsorted(level int32, sources []SourceFile, files []F, active map[string]F) bool {
	if len(sources) != len(files) {
		return false
	}
	for i, s := range sources {
		if i > 0 && javaio.CompareJava(sources[i-1].FileName(), s.FileName()) >= 0 {
			return false
		}
		f, ok := active[s.FileName()]
		if !ok {
			return false
		}
		info := l.fileInfo(f)
		if info.Name != s.FileName() || info.Level != level || info.RowCount != s.RowCount() {
			return false
		}
	}
	return true
}

func (l *Levels[T, F]) sortByName(files []F) {
	javaio.SortStableByJavaString(files, func(f F) string { return l.fileInfo(f).Name })
}
