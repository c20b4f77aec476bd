// Package state classifies the sorted-family payloads (btree or bitmap index files) of one
// bucket against its active data files, as Java's PkSortedBucketIndexState and
// PkSortedIndexGroup do: a level is covered when exactly one payload of the family describes
// exactly that level's eligible files (by name order, with their row counts) and is consistent
// with them; every other payload is rejected.
package state

import (
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// Group is one covered level: its source files in name order and its payload(s).
type Group struct {
	DataLevel   int32
	SourceFiles []pkindex.SourceFile
	Payloads    []*meta.IndexFileMeta
}

// BucketState is the classification of one bucket for one sorted index (field and type).
type BucketState struct {
	// Groups are the covered levels in ascending order.
	Groups []Group
	// Covered and Uncovered are the eligible source files of covered and uncovered levels, by
	// level then name.
	Covered, Uncovered []pkindex.SourceFile
	// Rejected are the payloads that cover nothing: in input order for mismatches and
	// unparsable source meta, then the payloads of levels whose group failed, by level.
	Rejected []*meta.IndexFileMeta
}

// NewGroup validates the payloads of one level (Java PkSortedIndexGroup.create): exactly one
// payload, distinct source names whose row counts sum without overflow, at least one source,
// and each payload of indexType for fieldID whose source meta lists exactly sourceFiles, on one
// level, with row range [0, rows-1] and row counts summing to the sources' rows. ok is false
// otherwise.
func NewGroup(fieldID int32, indexType string, sourceFiles []pkindex.SourceFile, payloads []*meta.IndexFileMeta) (Group, bool) {
	if len(payloads) != 1 || len(sourceFiles) == 0 {
		return Group{}, false
	}
	var rows int64
	names := map[string]bool{}
	for _, f := range sourceFiles {
		if names[f.FileName()] {
			return Group{}, false
		}
		names[f.FileName()] = true
		if f.RowCount() > math.MaxInt64-rows {
			return Group{}, false
		}
		rows += f.RowCount()
	}
	var payloadRows int64
	level := int32(-1)
	seen := map[string]bool{}
	for _, p := range payloads {
		gm := p.GlobalIndex
		if gm == nil {
			return Group{}, false
		}
		sm, err := pkindex.SourceMetaFromIndexFile(p.FileName, gm.SourceMeta)
		if err != nil || seen[p.FileName] || !slices.Equal(sm.SourceFiles(), sourceFiles) ||
			(level >= 0 && level != sm.DataLevel()) || p.IndexType != indexType ||
			gm.IndexFieldID != fieldID || gm.RowRangeStart != 0 || gm.RowRangeEnd != rows-1 {
			return Group{}, false
		}
		seen[p.FileName] = true
		level = sm.DataLevel()
		if p.RowCount > math.MaxInt64-payloadRows {
			return Group{}, false
		}
		payloadRows += p.RowCount
	}
	if payloadRows != rows {
		return Group{}, false
	}
	return Group{DataLevel: level, SourceFiles: slices.Clone(sourceFiles), Payloads: slices.Clone(payloads)}, true
}

// FromActiveDataFiles classifies payloads (the bucket's active index files of this sorted
// index) against the bucket's active data files (Java
// PkSortedBucketIndexState.fromActiveDataFiles).
func FromActiveDataFiles(fieldID int32, indexType string, dataFiles []*meta.DataFileMeta, payloads []*meta.IndexFileMeta) BucketState {
	sources := map[int32][]pkindex.SourceFile{}
	for _, f := range dataFiles {
		if !pkindex.ShouldReadDataFile(f) {
			continue
		}
		sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			// A negative row count cannot describe a source; Java would fail constructing it.
			continue
		}
		sources[f.Level] = append(sources[f.Level], sf)
	}
	for _, l := range sources {
		slices.SortFunc(l, func(a, b pkindex.SourceFile) int { return javaio.CompareJava(a.FileName(), b.FileName()) })
	}
	var st BucketState
	byLevel := map[int32][]*meta.IndexFileMeta{}
	for _, p := range payloads {
		var raw []byte
		if p.GlobalIndex != nil {
			raw = p.GlobalIndex.SourceMeta
		}
		sm, err := pkindex.SourceMetaFromIndexFile(p.FileName, raw)
		if err != nil {
			st.Rejected = append(st.Rejected, p)
			continue
		}
		want, ok := sources[sm.DataLevel()]
		if !ok || !slices.Equal(want, sm.SourceFiles()) {
			st.Rejected = append(st.Rejected, p)
			continue
		}
		byLevel[sm.DataLevel()] = append(byLevel[sm.DataLevel()], p)
	}
	covered := map[int32]bool{}
	for _, level := range sortedKeys(byLevel) {
		g, ok := NewGroup(fieldID, indexType, sources[level], byLevel[level])
		if !ok {
			st.Rejected = append(st.Rejected, byLevel[level]...)
			continue
		}
		st.Groups = append(st.Groups, g)
		covered[level] = true
	}
	for _, level := range sortedKeys(sources) {
		if covered[level] {
			st.Covered = append(st.Covered, sources[level]...)
		} else {
			st.Uncovered = append(st.Uncovered, sources[level]...)
		}
	}
	return st
}

func sortedKeys[V any](m map[int32]V) []int32 {
	keys := make([]int32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
