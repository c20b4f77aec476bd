package state

import (
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// Levels returns the level planner over sorted groups (by identity, as Java compares
// PkSortedIndexGroup) and data files: the same
// pkindex.Levels the full-text family plans with (Java's BucketedSortedIndexMaintainer builds
// a PrimaryKeyIndexLevels<PkSortedIndexGroup> from the group's data level and source files,
// as the full-text maintainer builds one over its archives). Nothing of the planning is
// repeated here; only the two accessors are the sorted family's.
func Levels() *pkindex.Levels[*Group, *meta.DataFileMeta] {
	return pkindex.NewLevels(
		func(g *Group) (int32, error) { return g.DataLevel, nil },
		func(g *Group) ([]pkindex.SourceFile, error) { return slices.Clone(g.SourceFiles), nil },
		pkindex.DataFileInfo,
	)
}
