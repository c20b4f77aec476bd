package mergetree

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

func keyed(name string, lo, hi int32) KeyedFile {
	return KeyedFile{File: &meta.DataFileMeta{FileName: name}, Min: []any{lo}, Max: []any{hi}}
}

// sections spells a partition as "A,B|C" for runs and "/" between sections.
func sections(out [][][]KeyedFile) string {
	var ss []string
	for _, section := range out {
		var rs []string
		for _, run := range section {
			var fs []string
			for _, f := range run {
				fs = append(fs, f.File.FileName)
			}
			rs = append(rs, strings.Join(fs, ","))
		}
		ss = append(ss, strings.Join(rs, "|"))
	}
	return strings.Join(ss, " / ")
}

// TestIntervalPartition checks the cut into sections of transitively overlapping key ranges
// (a range starting at the section's bound still overlaps it) and the packing of each section
// into sorted runs.
func TestIntervalPartition(t *testing.T) {
	for _, c := range []struct {
		files []KeyedFile
		want  string
	}{
		{[]KeyedFile{keyed("E", 10, 12), keyed("D", 6, 9), keyed("B", 2, 5), keyed("C", 6, 7), keyed("A", 1, 3)},
			"A|B / C|D / E"},
		// G starts after F ends: it joins F's run, the run ending first.
		{[]KeyedFile{keyed("G", 3, 4), keyed("H", 1, 5), keyed("F", 1, 2)}, "F,G|H"},
		{[]KeyedFile{keyed("A", 1, 3), keyed("B", 3, 4), keyed("C", 5, 6)}, "A|B / C"},
		{[]KeyedFile{keyed("A", 1, 1)}, "A"},
		{nil, ""},
	} {
		if got := sections(IntervalPartition(c.files)); got != c.want {
			t.Errorf("%v: %q, want %q", names(c.files), got, c.want)
		}
	}
}

func names(files []KeyedFile) string {
	var s []string
	for _, f := range files {
		s = append(s, fmt.Sprintf("%s[%v,%v]", f.File.FileName, f.Min[0], f.Max[0]))
	}
	return strings.Join(s, " ")
}
