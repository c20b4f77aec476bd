package mergetree

import (
	"bytes"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

func ms(v int64) *int64 { return &v }

func TestLevelsOrder(t *testing.T) {
	files := []*meta.DataFileMeta{
		{FileName: "old", Level: 0, MinSequenceNumber: 0, MaxSequenceNumber: 5, CreationTime: ms(1)},
		{FileName: "new", Level: 0, MinSequenceNumber: 6, MaxSequenceNumber: 9, CreationTime: ms(2)},
		{FileName: "tie-b", Level: 0, MinSequenceNumber: 3, MaxSequenceNumber: 7, CreationTime: ms(3)},
		{FileName: "tie-a", Level: 0, MinSequenceNumber: 3, MaxSequenceNumber: 7, CreationTime: ms(3)},
		{FileName: "tie-early", Level: 0, MinSequenceNumber: 3, MaxSequenceNumber: 7, CreationTime: ms(1)},
		{FileName: "l2-high", Level: 2, MinKey: []byte{5}, MaxKey: []byte{6}, FileSize: 10},
		{FileName: "l2-low", Level: 2, MinKey: []byte{1}, MaxKey: []byte{2}, FileSize: 20},
	}
	l, err := NewLevels(bytes.Compare, files, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range l.LevelSortedRuns() {
		for _, f := range r.Run.Files {
			got = append(got, f.FileName)
		}
	}
	want := []string{"new", "tie-early", "tie-a", "tie-b", "old", "l2-low", "l2-high"}
	if len(got) != len(want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("runs %v, want %v", got, want)
		}
	}
	if l.NumberOfSortedRuns() != 6 || l.NonEmptyHighestLevel() != 2 || l.TotalFileSize() != 30 || l.NumberOfLevels() != 3 {
		t.Errorf("runs %d, highest %d, size %d, levels %d", l.NumberOfSortedRuns(), l.NonEmptyHighestLevel(), l.TotalFileSize(), l.NumberOfLevels())
	}

	// A compaction result: two level-0 files and level 2 into one level-2 file.
	out := &meta.DataFileMeta{FileName: "out", Level: 2, MinKey: []byte{0}, MaxKey: []byte{9}}
	if err := l.Update([]*meta.DataFileMeta{files[0], files[1], files[5], files[6]}, []*meta.DataFileMeta{out}); err != nil {
		t.Fatal(err)
	}
	if runs := l.LevelSortedRuns(); len(runs) != 4 || runs[3].Run.Files[0] != out {
		t.Errorf("after update: %+v", runs)
	}
}

func TestLevelsRefuses(t *testing.T) {
	if _, err := NewLevels(bytes.Compare, nil, 1); err == nil {
		t.Error("one level: no error")
	}
	if _, err := NewLevels(bytes.Compare, []*meta.DataFileMeta{{FileName: "x", Level: -1}}, 3); err == nil {
		t.Error("negative level: no error")
	}
	dup := []*meta.DataFileMeta{{FileName: "a", MaxSequenceNumber: 1}, {FileName: "a", MaxSequenceNumber: 1}}
	if _, err := NewLevels(bytes.Compare, dup, 3); err == nil {
		t.Error("level-0 files ordering equal: no error")
	}
	overlap := []*meta.DataFileMeta{
		{FileName: "a", Level: 1, MinKey: []byte{1}, MaxKey: []byte{5}},
		{FileName: "b", Level: 1, MinKey: []byte{5}, MaxKey: []byte{7}},
	}
	if _, err := NewLevels(bytes.Compare, overlap, 3); err == nil {
		t.Error("overlapping key ranges on level 1: no error")
	}
	if _, err := NewLevels(bytes.Compare, nil, 1<<30); err == nil {
		t.Error("2^30 levels: no error")
	}
	// A file above numLevels widens the levels.
	l, err := NewLevels(bytes.Compare, []*meta.DataFileMeta{{FileName: "a", Level: 4}}, 2)
	if err != nil || l.NumberOfLevels() != 5 {
		t.Errorf("level-4 file with 2 levels: %v, %v", l, err)
	}
}
