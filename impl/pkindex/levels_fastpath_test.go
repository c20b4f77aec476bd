package pkindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMatchesUnsortedImpliesSortedMatch checks the planning shortcut: whenever matchesUnsorted
// accepts, sorting the files and comparing them in order (what Pick otherwise does) accepts too,
// and for sources made from the sorted files with distinct names the shortcut does accept.
func TestMatchesUnsortedImpliesSortedMatch(t *testing.T) {
	l := newTestLevels()
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "b", "c", "d", "e", "\uFFFF", "😀", "data-1", "data-10", "data-2"}
	for range 20_000 {
		var files []FileInfo
		for range r.IntN(6) {
			files = append(files, FileInfo{Name: names[r.IntN(len(names))], RowCount: int64(1 + r.IntN(2)), Level: 1})
		}
		sorted := slices.Clone(files)
		l.sortByName(sorted)
		var sources []SourceFile
		for _, f := range sorted {
			s, _ := NewSourceFile(f.Name, f.RowCount)
			sources = append(sources, s)
		}
		switch r.IntN(4) { // perturb some
		case 0:
			if len(sources) > 1 {
				sources[0], sources[1] = sources[1], sources[0]
			}
		case 1:
			if len(sources) > 0 {
				sources[0], _ = NewSourceFile(sources[0].FileName(), sources[0].RowCount()+1)
			}
		}
		fast := l.matchesUnsorted(sources, slices.Clone(files))
		slow := l.matches(sources, sorted)
		if fast && !slow {
			t.Fatalf("shortcut accepts sources %v for files %v, the sorted comparison does not", sources, files)
		}
		distinct := len(slices.Compact(slices.Sorted(slices.Values(namesOf(files))))) == len(files)
		if slow && distinct && !fast {
			t.Fatalf("shortcut rejects matching sources %v for distinct files %v", sources, files)
		}
	}
}

func namesOf(files []FileInfo) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}
