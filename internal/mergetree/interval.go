package mergetree

import (
	"slices"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// KeyedFile is a data file with its decoded key range (its min and max keys, in the table's key
// order of binrow.CompareKeys).
type KeyedFile struct {
	File     *meta.DataFileMeta
	Min, Max []any
}

// IntervalPartition is IntervalPartition#partition: files sorted by (min key, max key) are cut
// into sections of transitively overlapping key ranges, each split into sorted runs.
func IntervalPartition(files []KeyedFile) [][][]KeyedFile {
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b KeyedFile) int {
		if c := binrow.CompareKeys(a.Min, b.Min); c != 0 {
			return c
		}
		return binrow.CompareKeys(a.Max, b.Max)
	})
	var out [][][]KeyedFile
	var section []KeyedFile
	var bound []any
	for _, f := range sorted {
		if len(section) > 0 && binrow.CompareKeys(f.Min, bound) > 0 {
			out = append(out, sortedRuns(section))
			section, bound = nil, nil
		}
		section = append(section, f)
		if bound == nil || binrow.CompareKeys(f.Max, bound) > 0 {
			bound = f.Max
		}
	}
	if len(section) > 0 {
		out = append(out, sortedRuns(section))
	}
	return out
}

// sortedRuns packs a section's files into sorted runs: each file joins the run ending with the
// smallest max key if it starts after it, else starts a new run.
func sortedRuns(files []KeyedFile) [][]KeyedFile {
	runs := [][]KeyedFile{{files[0]}}
	for _, f := range files[1:] {
		best := 0
		for i := range runs {
			if binrow.CompareKeys(runs[i][len(runs[i])-1].Max, runs[best][len(runs[best])-1].Max) < 0 {
				best = i
			}
		}
		last := runs[best][len(runs[best])-1]
		if binrow.CompareKeys(f.Min, last.Max) > 0 {
			runs[best] = append(runs[best], f)
		} else {
			runs = append(runs, []KeyedFile{f})
		}
	}
	return runs
}
