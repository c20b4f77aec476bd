package mergetree

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// FuzzPick: any options and layout are picked without a panic, and a unit is always the files
// of the first runs in order, to a level above 0 within the tree (Java never outputs level 0).
func FuzzPick(f *testing.F) {
	f.Add(int8(5), int8(1), int16(200), int8(-1), []byte{0, 1, 0, 2, 1, 3, 2, 9})
	f.Add(int8(1), int8(0), int16(25), int8(3), []byte{0, 1, 0, 1, 0, 1, 5, 200})
	f.Add(int8(0), int8(9), int16(0), int8(2), []byte{})
	f.Add(int8(-3), int8(2), int16(100), int8(7), []byte{0, 5, 0, 50, 0, 250})
	f.Fuzz(func(t *testing.T, trigger, ratio int8, amp int16, levels int8, layout []byte) {
		opts := map[string]string{
			OptNumSortedRunTrigger:         strconv.Itoa(int(trigger)),
			OptSizeRatio:                   strconv.Itoa(int(ratio)),
			OptMaxSizeAmplificationPercent: strconv.Itoa(int(amp)),
			OptTotalSizeThreshold:          "10",
			OptOffPeakStartHour:            "2",
			OptOffPeakEndHour:              "20",
			OptOffPeakRatio:                strconv.Itoa(int(ratio) * 3),
		}
		if levels >= 0 {
			opts[OptNumLevels] = strconv.Itoa(int(levels))
		}
		if ratio%2 == 0 {
			opts[OptDeletionVectorsEnabled] = "true"
			opts[OptLookupCompact] = "gentle"
		}
		o, err := ParseOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		var files []*meta.DataFileMeta
		for i := 0; i+1 < len(layout) && len(files) < 64; i += 2 {
			level := int32(layout[i] % 8)
			files = append(files, &meta.DataFileMeta{
				FileName: strconv.Itoa(i), FileSize: int64(layout[i+1]) * int64(layout[i+1]), Level: level,
				MaxSequenceNumber: int64(i), MinKey: binary.BigEndian.AppendUint32(nil, uint32(i)),
				MaxKey: binary.BigEndian.AppendUint32(nil, uint32(i)),
			})
		}
		l, err := NewLevels(bytes.Compare, files, o.NumLevels)
		if err != nil {
			return
		}
		s := NewStrategy(o, files, nil)
		runs := l.LevelSortedRuns()
		for step := range 3 {
			u, err := s.Pick(Clock{UnixMilli: int64(step), Hour: int32(step * 5)}, l.NumberOfLevels(), runs)
			if err != nil || u == nil {
				continue
			}
			checkPrefix(t, u, runs, l.NumberOfLevels())
		}
		if u := PickFullCompaction(l.NumberOfLevels(), runs, nil, func(string) bool { return ratio > 0 }, false); u != nil && !u.FileRewrite {
			checkPrefix(t, u, runs, l.NumberOfLevels())
		}
	})
}

func checkPrefix(t *testing.T, u *CompactUnit, runs []LevelSortedRun, numLevels int32) {
	t.Helper()
	if u.OutputLevel < 1 || u.OutputLevel >= numLevels {
		t.Fatalf("output level %d of %d levels", u.OutputLevel, numLevels)
	}
	var prefix []*meta.DataFileMeta
	for _, r := range runs {
		if len(prefix) >= len(u.Files) {
			break
		}
		prefix = append(prefix, r.Run.Files...)
	}
	if len(prefix) != len(u.Files) {
		t.Fatalf("unit of %d files is not a run prefix", len(u.Files))
	}
	for i := range prefix {
		if prefix[i] != u.Files[i] {
			t.Fatalf("unit file %d is %s, run prefix has %s", i, u.Files[i].FileName, prefix[i].FileName)
		}
	}
}
