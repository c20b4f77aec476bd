package pkindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMatchesUnsortedImpliesSortedMatch checks the planning shortcut: whenever matchesUnsorted
// accepts, sorting the level's files and comparing them in order (what Pick otherwise does)
// accepts too, and for sources made from the sorted files the shortcut does accept. As in Pick,
// the level's files are the active files (keyed by name) of that level; active also holds files
// of another level, which a source naming them must not match.
func TestMatchesUnsortedImpliesSortedMatch(t *testing.T) {
	l := newTestLevels()
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "b", "c", "d", "e", "\uFFFF", "😀", "data-1", "data-10", "data-2"}
	for range 20_000 {
		active := map[string]FileInfo{}
		for range r.IntN(8) {
			f := FileInfo{Name: names[r.IntN(len(names))], RowCount: int64(1 + r.IntN(2)), Level: int32(1 + r.IntN(2))}
			active[f.Name] = f
		}
		var files []FileInfo
		for _, f := range active {
			if f.Level == 1 {
				files = append(files, f)
			}
		}
		sorted := slices.Clone(files)
		l.sortByName(sorted)
		var sources []SourceFile
		for _, f := range sorted {
			s, _ := NewSourceFile(f.Name, f.RowCount)
			sources = append(sources, s)
		}
		switch r.IntN(6) { // perturb some
		case 0:
			if len(sources) > 1 {
				sources[0], sources[1] = sources[1], sources[0]
			}
		case 1:
			if len(sources) > 0 {
				sources[0], _ = NewSourceFile(sources[0].FileName(), sources[0].RowCount()+1)
			}
		case 3: // a name twice (the level's files are distinct: the shortcut must not count it twice)
			if len(sources) > 1 {
				sources[1] = sources[0]
			}
		case 2: // a source naming a file of the other level instead
			for name, f := range active {
				if f.Level == 2 && len(sources) > 0 {
					sources[len(sources)-1], _ = NewSourceFile(name, f.RowCount)
					break
				}
			}
		}
		fast := l.matchesUnsorted(1, sources, slices.Clone(files), active)
		slow := l.matches(sources, sorted)
		if fast && !slow {
			t.Fatalf("shortcut accepts sources %v for files %v, the sorted comparison does not", sources, files)
		}
		if slow && !fast {
			t.Fatalf("shortcut rejects matching sources %v for files %v", sources, files)
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
