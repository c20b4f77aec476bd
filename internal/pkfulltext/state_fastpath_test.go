package pkfulltext

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// TestCoveredExactlyByEqualsSortedComparison checks that a level's cover check, which decides
// without sorting when it can, always answers what comparing with the sorted level answers.
func TestCoveredExactlyByEqualsSortedComparison(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	names := []string{"a", "b", "c", "d", "\uFFFF", "😀", "data-1", "data-10", "data-2"}
	src := func(name string, rows int64) pkindex.SourceFile {
		s, err := pkindex.NewSourceFile(name, rows)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for range 20_000 {
		var files []pkindex.SourceFile
		for range 1 + r.IntN(5) {
			files = append(files, src(names[r.IntN(len(names))], int64(1+r.IntN(2))))
		}
		sorted := slices.Clone(files)
		javaio.SortStableByJavaString(sorted, pkindex.SourceFile.FileName)
		cover := slices.Clone(sorted)
		switch r.IntN(4) {
		case 0:
			if len(cover) > 1 {
				cover[0], cover[1] = cover[1], cover[0]
			}
		case 1:
			cover[0] = src(cover[0].FileName(), cover[0].RowCount()+1)
		case 2:
			cover = cover[1:]
		}
		if len(cover) == 0 {
			continue
		}
		sm, err := pkindex.NewSourceMeta(1, cover)
		if err != nil {
			t.Fatal(err)
		}
		ls := &levelSources{files: slices.Clone(files)}
		if got, want := ls.coveredExactlyBy(sm), slices.Equal(sorted, cover); got != want {
			t.Fatalf("level %v covered by %v: %v, sorted comparison %v", files, cover, got, want)
		}
		if again := ls.coveredExactlyBy(sm); again != slices.Equal(sorted, cover) {
			t.Fatalf("level %v covered by %v: second answer %v", files, cover, again)
		}
	}
}
