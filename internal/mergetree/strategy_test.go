package mergetree

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// Ports of UniversalCompactionTest, ForceUpLevel0CompactionTest, EarlyFullCompactionTest and
// OffPeakHoursTest (paimon-core, release-2.0.0); see compat/golden/JAVA_TEST_MAP.md.

func file(size int64) *meta.DataFileMeta { return &meta.DataFileMeta{FileSize: size} }

func run(level int32, size int64) LevelSortedRun {
	return LevelSortedRun{Level: level, Run: NewSortedRun([]*meta.DataFileMeta{file(size)})}
}

func level0(sizes ...int64) []LevelSortedRun {
	runs := make([]LevelSortedRun, len(sizes))
	for i, s := range sizes {
		runs[i] = run(0, s)
	}
	return runs
}

func sizes(u *CompactUnit) []int64 {
	var out []int64
	for _, f := range u.Files {
		out = append(out, f.FileSize)
	}
	return out
}

func ofTesting(maxSizeAmp, sizeRatio, trigger int32) *Universal {
	return NewUniversal(maxSizeAmp, sizeRatio, trigger, nil, nil)
}

var noClock = Clock{}

func mustPick(t *testing.T, s Strategy, c Clock, numLevels int32, runs []LevelSortedRun) *CompactUnit {
	t.Helper()
	u, err := s.Pick(c, numLevels, runs)
	if err != nil {
		t.Fatalf("pick: %v", err)
	}
	return u
}

func wantSizes(t *testing.T, u *CompactUnit, want ...int64) {
	t.Helper()
	if u == nil {
		t.Fatalf("picked nothing, want %v", want)
	}
	if got := sizes(u); !slices.Equal(got, want) {
		t.Fatalf("picked sizes %v, want %v", got, want)
	}
}

func wantNone(t *testing.T, u *CompactUnit) {
	t.Helper()
	if u != nil {
		t.Fatalf("picked %v (output level %d), want nothing", sizes(u), u.OutputLevel)
	}
}

func wantLevel(t *testing.T, u *CompactUnit, level int32) {
	t.Helper()
	if u == nil || u.OutputLevel != level {
		t.Fatalf("unit %+v, want output level %d", u, level)
	}
}

// UniversalCompactionTest#testOutputLevel
func TestUniversalOutputLevel(t *testing.T) {
	u := ofTesting(25, 1, 3)
	levels := func() []LevelSortedRun {
		var runs []LevelSortedRun
		for _, l := range []int32{0, 0, 1, 3, 4} {
			runs = append(runs, run(l, 1))
		}
		return runs
	}
	for runCount, want := range map[int32]int32{1: 1, 2: 1, 3: 2, 4: 3, 5: 5} {
		if got := u.createUnit(noClock, levels(), 5, runCount).OutputLevel; got != want {
			t.Errorf("createUnit(runCount %d): output level %d, want %d", runCount, got, want)
		}
	}
}

// UniversalCompactionTest#testPick
func TestUniversalPick(t *testing.T) {
	u := ofTesting(25, 1, 3)
	// by size amplification
	wantSizes(t, mustPick(t, u, noClock, 3, level0(1, 2, 3, 3)), 1, 2, 3, 3)
	// by size ratio
	wantSizes(t, mustPick(t, u, noClock, 4, []LevelSortedRun{run(0, 1), run(1, 1), run(2, 1), run(3, 50)}), 1, 1, 1)
	// by file num: 3 joins the candidates by size ratio after picking by file num
	wantSizes(t, mustPick(t, u, noClock, 4, []LevelSortedRun{run(0, 1), run(1, 2), run(2, 3), run(3, 50)}), 1, 2, 3)
}

// UniversalCompactionTest#testOptimizedCompactionInterval
func TestUniversalOptimizedCompactionInterval(t *testing.T) {
	interval := int64(1000)
	u := NewUniversal(100, 1, 3, NewEarlyFullCompaction(&interval, nil, nil, nil), nil)
	at := func(ms int64) Clock { return Clock{UnixMilli: ms} }
	layout := func(a, b, c int64) []LevelSortedRun { return []LevelSortedRun{run(0, a), run(1, b), run(2, c)} }

	// first time, force optimized compaction
	wantSizes(t, mustPick(t, u, at(0), 3, layout(1, 3, 5)), 1, 3, 5)
	// modify time, optimized compaction
	wantSizes(t, mustPick(t, u, at(1001), 3, layout(1, 3, 5)), 1, 3, 5)
	// third time, no compaction
	wantNone(t, mustPick(t, u, at(1001), 3, layout(1, 3, 5)))
	// 4th time, by size amplification
	wantSizes(t, mustPick(t, u, at(1500), 3, layout(3, 3, 5)), 3, 3, 5)
	// 5th time, nothing: the size-amplification pick counted as a full compaction
	wantNone(t, mustPick(t, u, at(2001), 3, layout(1, 3, 5)))
}

// UniversalCompactionTest#testTotalSizeThreshold
func TestUniversalTotalSizeThreshold(t *testing.T) {
	threshold := int64(10)
	u := NewUniversal(100, 1, 3, NewEarlyFullCompaction(nil, &threshold, nil, nil), nil)
	wantSizes(t, mustPick(t, u, noClock, 3, []LevelSortedRun{run(0, 1), run(1, 3), run(2, 5)}), 1, 3, 5)
	wantNone(t, mustPick(t, u, noClock, 3, []LevelSortedRun{run(0, 2), run(1, 6), run(2, 10)}))
	wantNone(t, mustPick(t, u, noClock, 3, []LevelSortedRun{run(3, 5)}))
}

// UniversalCompactionTest#testNoOutputLevel0
func TestUniversalNoOutputLevel0(t *testing.T) {
	u := ofTesting(25, 1, 3)
	wantSizes(t, mustPick(t, u, noClock, 3, []LevelSortedRun{run(0, 1), run(0, 1), run(1, 1), run(2, 50)}), 1, 1, 1)
	wantSizes(t, mustPick(t, u, noClock, 3, []LevelSortedRun{run(0, 1), run(0, 2), run(1, 3), run(2, 50)}), 1, 2, 3)
}

// UniversalCompactionTest#testExtremeCaseNoOutputLevel0
func TestUniversalExtremeCaseNoOutputLevel0(t *testing.T) {
	u := ofTesting(200, 1, 5)
	p := mustPick(t, u, noClock, 6, level0(1, 1, 1, 1024, 1024*1024))
	wantSizes(t, p, 1, 1, 1, 1024, 1024*1024)
	wantLevel(t, p, 5)
}

// addSize prepends a new run of size 1, as a flush does.
func addSize(s []int64) []int64 { return append([]int64{1}, s...) }

// UniversalCompactionTest#testSizeAmplification
func TestUniversalSizeAmplification(t *testing.T) {
	u := ofTesting(25, 0, 1)
	s := []int64{1}
	for i, want := range [][]int64{
		{2}, {3}, {4}, {1, 4}, {6}, {1, 6}, {8}, {1, 8}, {1, 1, 8}, {11}, {1, 11}, {1, 1, 11},
		{14}, {1, 14}, {1, 1, 14}, {1, 1, 1, 14}, {18},
	} {
		s = addSize(s)
		unit, err := u.pickForSizeAmp(noClock, 3, level0(s...))
		if err != nil {
			t.Fatal(err)
		}
		if unit != nil {
			var sum int64
			for _, f := range unit.Files {
				sum += f.FileSize
			}
			s = []int64{sum}
		}
		if !slices.Equal(s, want) {
			t.Fatalf("step %d: sizes %v, want %v", i, s, want)
		}
	}
}

// pickForSizeRatioSizes is UniversalCompactionTest#pickForSizeRatio: run i on level i, the
// picked runs replaced by one run of their total size.
func pickForSizeRatioSizes(t *testing.T, u *Universal, s []int64) []int64 {
	t.Helper()
	runs := make([]LevelSortedRun, len(s))
	for i, size := range s {
		runs[i] = run(int32(i), size)
	}
	unit, err := u.pickForSizeRatio(noClock, int32(len(s)), runs)
	if err != nil {
		t.Fatal(err)
	}
	if unit == nil {
		return s
	}
	rest := slices.Clone(s)
	var sum int64
	for _, f := range unit.Files {
		sum += f.FileSize
		if i := slices.Index(rest, f.FileSize); i >= 0 {
			rest = slices.Delete(rest, i, i+1)
		}
	}
	return append([]int64{sum}, rest...)
}

// UniversalCompactionTest#testSizeRatio
func TestUniversalSizeRatio(t *testing.T) {
	u := ofTesting(25, 1, 5)
	s := []int64{1, 1, 1, 1}
	for i, want := range [][]int64{
		{5}, {1, 5}, {1, 1, 5}, {1, 1, 1, 5}, {4, 5}, {1, 4, 5}, {1, 1, 4, 5}, {3, 4, 5}, {1, 3, 4, 5},
		{2, 3, 4, 5}, {1, 2, 3, 4, 5}, {16}, {1, 16}, {1, 1, 16}, {1, 1, 1, 16}, {4, 16}, {1, 4, 16},
		{1, 1, 4, 16}, {3, 4, 16}, {1, 3, 4, 16}, {2, 3, 4, 16}, {1, 2, 3, 4, 16}, {11, 16},
	} {
		s = pickForSizeRatioSizes(t, u, addSize(s))
		if !slices.Equal(s, want) {
			t.Fatalf("step %d: sizes %v, want %v", i, s, want)
		}
	}
}

// UniversalCompactionTest#testSizeRatioThreshold
func TestUniversalSizeRatioThreshold(t *testing.T) {
	s := []int64{8, 9, 10}
	if got := pickForSizeRatioSizes(t, ofTesting(25, 10, 2), s); !slices.Equal(got, s) {
		t.Errorf("size ratio 10: %v, want %v", got, s)
	}
	if got := pickForSizeRatioSizes(t, ofTesting(25, 20, 2), s); !slices.Equal(got, []int64{27}) {
		t.Errorf("size ratio 20: %v, want [27]", got)
	}
}

// UniversalCompactionTest#testLookup
func TestForceUpLevel0Lookup(t *testing.T) {
	s := NewForceUpLevel0(ofTesting(25, 1, 3), nil)
	// level 0 to max level
	p := mustPick(t, s, noClock, 3, level0(1, 2, 2, 2))
	wantSizes(t, p, 1, 2, 2, 2)
	wantLevel(t, p, 2)
	// level 0 force pick
	p = mustPick(t, s, noClock, 3, []LevelSortedRun{run(0, 1), run(1, 2), run(2, 2)})
	wantSizes(t, p, 1, 2, 2)
	wantLevel(t, p, 2)
	// level 0 to empty level
	p = mustPick(t, s, noClock, 3, []LevelSortedRun{run(0, 1), run(2, 2)})
	wantSizes(t, p, 1)
	wantLevel(t, p, 1)
}

// UniversalCompactionTest#testForcePickL0
func TestForceUpLevel0MaxInterval(t *testing.T) {
	maxInterval := int32(5)
	s := NewForceUpLevel0(NewUniversal(25, 1, 5, nil, nil), &maxInterval)
	for _, tc := range []struct {
		runs  []LevelSortedRun
		sizes []int64
		level int32
	}{
		{level0(1, 2, 2, 2), []int64{1, 2, 2, 2}, 2},
		{[]LevelSortedRun{run(0, 2), run(1, 2), run(2, 2)}, []int64{2, 2, 2}, 2},
		{[]LevelSortedRun{run(0, 1), run(2, 2)}, []int64{1}, 1},
	} {
		for i := int32(1); i <= maxInterval; i++ {
			p := mustPick(t, s, noClock, 3, tc.runs)
			if i < maxInterval {
				wantNone(t, p)
				continue
			}
			wantSizes(t, p, tc.sizes...)
			wantLevel(t, p, tc.level)
		}
	}
}

// ForceUpLevel0CompactionTest#testForceCompaction0
func TestForceUpLevel0Compaction0(t *testing.T) {
	s := NewForceUpLevel0(ofTesting(200, 1, 5), nil)
	wantLevel(t, mustPick(t, s, noClock, 3, level0(1, 1)), 2)
	wantLevel(t, mustPick(t, s, noClock, 3, []LevelSortedRun{run(0, 1), run(1, 10)}), 2)
	wantLevel(t, mustPick(t, s, noClock, 3, []LevelSortedRun{run(0, 1), run(0, 5), run(2, 10)}), 1)
	wantNone(t, mustPick(t, s, noClock, 3, []LevelSortedRun{run(2, 10)}))
	wantLevel(t, mustPick(t, s, noClock, 3, level0(1, 5, 10, 20)), 2)
}

// ForceUpLevel0CompactionTest#testForceCompaction0ConsidersLevel2
func TestForceUpLevel0ConsidersLevel2(t *testing.T) {
	s := NewForceUpLevel0(ofTesting(200, 1, 5), nil)
	p := mustPick(t, s, noClock, 3, []LevelSortedRun{run(0, 1), run(1, 99), run(2, 100)})
	if len(p.Files) != 3 {
		t.Fatalf("picked %d files, want 3", len(p.Files))
	}
	wantLevel(t, p, 2)
	p = mustPick(t, s, noClock, 3, []LevelSortedRun{run(0, 1), run(1, 99), run(2, 102)})
	if len(p.Files) != 2 {
		t.Fatalf("picked %d files, want 2", len(p.Files))
	}
	wantLevel(t, p, 1)
}

func i64(v int64) *int64 { return &v }

// EarlyFullCompactionTest#testCreate* (EarlyFullCompaction#create through the options)
func TestEarlyFullCompactionFromOptions(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{OptOptimizationInterval: "1 h"}, true},
		{map[string]string{OptTotalSizeThreshold: "100 mb"}, true},
		{map[string]string{OptOptimizationInterval: "1 h", OptTotalSizeThreshold: "100 mb"}, true},
		{map[string]string{OptIncrementalSizeThreshold: "1 kb"}, true},
	} {
		o, err := ParseOptions(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := earlyFullCompactionOf(o, i64(1234567890)) != nil; got != tc.want {
			t.Errorf("%v: trigger %v, want %v", tc.opts, got, tc.want)
		}
	}
}

// createRuns is EarlyFullCompactionTest#createRuns: level-0 runs of the sizes.
func createRuns(s ...int64) []LevelSortedRun { return level0(s...) }

// EarlyFullCompactionTest#testSingleRun, #testNoOptions
func TestEarlyFullCompactionSingleRunAndNoOptions(t *testing.T) {
	if u := NewEarlyFullCompaction(i64(1000), i64(1000), nil, nil).TryFullCompact(noClock, 5, createRuns(100)); u != nil {
		t.Error("a single run triggered a full compaction")
	}
	if u := NewEarlyFullCompaction(nil, nil, nil, nil).TryFullCompact(noClock, 5, createRuns(100, 200)); u != nil {
		t.Error("no options triggered a full compaction")
	}
}

func wantFull(t *testing.T, u *CompactUnit, files int) {
	t.Helper()
	if u == nil {
		t.Fatal("no full compaction, want one")
	}
	if u.OutputLevel != 4 || len(u.Files) != files {
		t.Fatalf("unit to level %d with %d files, want level 4 with %d", u.OutputLevel, len(u.Files), files)
	}
}

// EarlyFullCompactionTest#testIntervalDoesNotRetriggerWhenSeededRecent, #testIntervalTriggersWhenSeededOld
func TestEarlyFullCompactionSeeded(t *testing.T) {
	e := NewEarlyFullCompaction(i64(1000), nil, nil, i64(9500))
	wantNone(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(100, 200)))
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_501}, 5, createRuns(100, 200)), 2)

	e = NewEarlyFullCompaction(i64(1000), nil, nil, i64(5000))
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(100, 200)), 2)
}

// EarlyFullCompactionTest#testInterval
func TestEarlyFullCompactionInterval(t *testing.T) {
	e := NewEarlyFullCompaction(i64(1000), nil, nil, nil)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(100, 200)), 2)
	wantNone(t, e.TryFullCompact(Clock{UnixMilli: 10_500}, 5, createRuns(100, 200)))
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 11_001}, 5, createRuns(100, 200)), 2)
}

// EarlyFullCompactionTest#testTotalSizeThreshold
func TestEarlyFullCompactionTotalSize(t *testing.T) {
	e := NewEarlyFullCompaction(nil, i64(1000), nil, nil)
	wantFull(t, e.TryFullCompact(noClock, 5, createRuns(100, 200)), 2)
	wantNone(t, e.TryFullCompact(noClock, 5, createRuns(500, 500)))
	wantNone(t, e.TryFullCompact(noClock, 5, createRuns(500, 1000)))
}

// EarlyFullCompactionTest#testIncrementalSizeThreshold
func TestEarlyFullCompactionIncrementalSize(t *testing.T) {
	e := NewEarlyFullCompaction(nil, nil, i64(500), nil)
	wantFull(t, e.TryFullCompact(noClock, 5, createRuns(400, 200)), 2)
	wantNone(t, e.TryFullCompact(noClock, 5, createRuns(100, 200)))
	wantNone(t, e.TryFullCompact(noClock, 5, []LevelSortedRun{run(0, 100), run(0, 300), run(4, 500)}))
	wantFull(t, e.TryFullCompact(noClock, 5, []LevelSortedRun{run(0, 100), run(0, 300), run(0, 300), run(4, 500)}), 4)
}

// EarlyFullCompactionTest#testIntervalTriggersFirst, #testThresholdTriggersWhenIntervalFails
func TestEarlyFullCompactionIntervalAndThreshold(t *testing.T) {
	e := NewEarlyFullCompaction(i64(1000), i64(500), nil, nil)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(300, 300)), 2)

	e = NewEarlyFullCompaction(i64(1000), i64(500), nil, nil)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(10, 20)), 2)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_500}, 5, createRuns(30, 30)), 2)
	wantNone(t, e.TryFullCompact(Clock{UnixMilli: 10_500}, 5, createRuns(300, 300)))
}

// EarlyFullCompactionTest#testUpdateLastWhenFullCompactIsTriggeredByTotalSize, ...ByIncSize
func TestEarlyFullCompactionThresholdsUpdateLast(t *testing.T) {
	e := NewEarlyFullCompaction(i64(1000), i64(500), nil, nil)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(300, 300)), 2)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_100}, 5, createRuns(300, 100)), 2)
	wantNone(t, e.TryFullCompact(Clock{UnixMilli: 11_001}, 5, createRuns(300, 300)))

	e = NewEarlyFullCompaction(i64(1000), nil, i64(500), nil)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_000}, 5, createRuns(300, 100)), 2)
	wantFull(t, e.TryFullCompact(Clock{UnixMilli: 10_100}, 5, createRuns(300, 300)), 2)
	wantNone(t, e.TryFullCompact(Clock{UnixMilli: 11_001}, 5, createRuns(300, 100)))
}

// OffPeakHoursTest
func TestOffPeakHours(t *testing.T) {
	const ratio = 10
	o, err := ParseOptions(map[string]string{OptOffPeakStartHour: "22", OptOffPeakEndHour: "6", OptOffPeakRatio: "10"})
	if err != nil {
		t.Fatal(err)
	}
	p := NewOffPeakHours(o.OffPeakStartHour, o.OffPeakEndHour, o.OffPeakRatio)
	if p == nil || p.CurrentRatio(23) != ratio || p.CurrentRatio(7) != 0 {
		t.Fatalf("off-peak 22-6 from options: %+v", p)
	}
	if o, _ := ParseOptions(nil); NewOffPeakHours(o.OffPeakStartHour, o.OffPeakEndHour, o.OffPeakRatio) != nil {
		t.Error("default options have off-peak hours")
	}
	for _, h := range [][2]int32{{-1, -1}, {5, 5}, {2, -1}, {-1, 2}} {
		if NewOffPeakHours(h[0], h[1], ratio) != nil {
			t.Errorf("hours %v: off-peak hours, want none", h)
		}
	}
	normal := NewOffPeakHours(2, 8, ratio)
	for hour, want := range map[int32]int32{1: 0, 2: ratio, 5: ratio, 7: ratio, 8: 0, 9: 0} {
		if got := normal.CurrentRatio(hour); got != want {
			t.Errorf("2-8 at %d: %d, want %d", hour, got, want)
		}
	}
	overnight := NewOffPeakHours(22, 6, ratio)
	for hour, want := range map[int32]int32{21: 0, 22: ratio, 23: ratio, 0: ratio, 5: ratio, 6: 0, 10: 0} {
		if got := overnight.CurrentRatio(hour); got != want {
			t.Errorf("22-6 at %d: %d, want %d", hour, got, want)
		}
	}
}

// The off-peak ratio widens the size ratio only within the off-peak hours.
func TestUniversalOffPeakRatio(t *testing.T) {
	u := NewUniversal(200, 1, 3, nil, NewOffPeakHours(2, 8, 20))
	runs := func() []LevelSortedRun { return []LevelSortedRun{run(0, 8), run(1, 9), run(2, 10)} }
	wantNone(t, mustPick(t, u, Clock{Hour: 12}, 3, runs()))
	wantSizes(t, mustPick(t, u, Clock{Hour: 3}, 3, runs()), 8, 9, 10)
}

// A non-positive sorted-run trigger with no runs is an error, as Java's index failure is.
func TestUniversalBadTriggerIsAnError(t *testing.T) {
	if _, err := ofTesting(200, 1, 0).Pick(noClock, 3, nil); err == nil {
		t.Error("trigger 0 with no runs: no error")
	}
	if _, err := ofTesting(200, 1, -3).Pick(noClock, 3, level0(1, 100, 10000)); err == nil {
		t.Error("trigger -3: no error")
	}
}

func TestPickFullCompaction(t *testing.T) {
	a, b := &meta.DataFileMeta{FileName: "a", FileSize: 1, Level: 2}, &meta.DataFileMeta{FileName: "b", FileSize: 1, Level: 2}
	maxOnly := []LevelSortedRun{{Level: 2, Run: NewSortedRun([]*meta.DataFileMeta{a, b})}}
	if u := PickFullCompaction(3, nil, nil, nil, false); u != nil {
		t.Error("no runs: picked")
	}
	if u := PickFullCompaction(3, maxOnly, nil, nil, false); u != nil {
		t.Error("max level only, no deletion vectors: picked")
	}
	u := PickFullCompaction(3, maxOnly, nil, func(n string) bool { return n == "b" }, false)
	if u == nil || !u.FileRewrite || len(u.Files) != 1 || u.Files[0] != b || u.OutputLevel != 2 {
		t.Errorf("max level only, b with a deletion vector: %+v", u)
	}
	u = PickFullCompaction(3, maxOnly, nil, nil, true)
	if u == nil || !u.FileRewrite || len(u.Files) != 2 {
		t.Errorf("max level only, force rewrite: %+v", u)
	}
	u = PickFullCompaction(3, append([]LevelSortedRun{run(0, 1)}, maxOnly...), nil, nil, false)
	if u == nil || u.FileRewrite || len(u.Files) != 3 || u.OutputLevel != 2 {
		t.Errorf("level 0 and max level: %+v", u)
	}
}

// NewStrategy selects as MergeTreeCompactManagerFactory#createCompactStrategy does.
func TestNewStrategySelection(t *testing.T) {
	for _, tc := range []struct {
		opts     map[string]string
		force    bool
		interval *int32
	}{
		{map[string]string{}, false, nil},
		{map[string]string{OptForceUpLevel0: "true"}, true, nil},
		{map[string]string{OptDeletionVectorsEnabled: "true"}, true, nil},
		{map[string]string{OptChangelogProducer: "LOOKUP"}, true, nil},
		{map[string]string{OptForceLookup: "true"}, true, nil},
		{map[string]string{OptMergeEngine: "first-row"}, true, nil},
		{map[string]string{OptDeletionVectorsEnabled: "true", OptLookupCompact: "gentle"}, true, ptr32(10)},
		{map[string]string{OptDeletionVectorsEnabled: "true", OptLookupCompact: "gentle", OptLookupCompactMaxInterval: "3"}, true, ptr32(5)},
		{map[string]string{OptDeletionVectorsEnabled: "true", OptLookupCompact: "gentle", OptLookupCompactMaxInterval: "7"}, true, ptr32(7)},
		{map[string]string{OptLookupCompact: "gentle"}, false, nil},
	} {
		o, err := ParseOptions(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		s := NewStrategy(o, nil, nil)
		f, isForce := s.(*ForceUpLevel0)
		if isForce != tc.force {
			t.Errorf("%v: %T", tc.opts, s)
			continue
		}
		if isForce && ((f.maxInterval == nil) != (tc.interval == nil) || (f.maxInterval != nil && *f.maxInterval != *tc.interval)) {
			t.Errorf("%v: max interval %v, want %v", tc.opts, f.maxInterval, tc.interval)
		}
	}
}

func ptr32(v int32) *int32 { return &v }

func TestKeepNormalUnitAndDropDelete(t *testing.T) {
	f1 := &meta.DataFileMeta{Level: 1}
	if KeepNormalUnit(nil) || KeepNormalUnit(&CompactUnit{OutputLevel: 1}) || KeepNormalUnit(&CompactUnit{OutputLevel: 1, Files: []*meta.DataFileMeta{f1}}) {
		t.Error("kept an empty unit or a single file staying on its level")
	}
	if !KeepNormalUnit(&CompactUnit{OutputLevel: 2, Files: []*meta.DataFileMeta{f1}}) {
		t.Error("dropped a single file moving up")
	}
	u := &CompactUnit{OutputLevel: 2}
	if !DropDelete(u, 2, false, false) || DropDelete(u, 3, false, false) || !DropDelete(u, 3, true, false) ||
		DropDelete(u, 2, true, true) || DropDelete(&CompactUnit{}, 0, true, false) {
		t.Error("drop-delete decision differs from MergeTreeCompactManager's")
	}
}

// A pick of every run counts as a full compaction for the interval, even one forced up from
// level 0 over a single run (which the early trigger itself never takes).
func TestForcedPickOfAllRunsResetsInterval(t *testing.T) {
	interval := int64(1000)
	s := NewForceUpLevel0(NewUniversal(200, 1, 5, NewEarlyFullCompaction(&interval, nil, nil, nil), nil), nil)
	wantLevel(t, mustPick(t, s, Clock{UnixMilli: 10_000}, 3, level0(1)), 2)
	// Two runs within the interval: no early full compaction, level 0 forced to level 1.
	p := mustPick(t, s, Clock{UnixMilli: 10_500}, 3, []LevelSortedRun{run(0, 1), run(2, 100)})
	wantSizes(t, p, 1)
	wantLevel(t, p, 1)
	// Past the interval: everything.
	wantSizes(t, mustPick(t, s, Clock{UnixMilli: 11_001}, 3, []LevelSortedRun{run(0, 1), run(2, 100)}), 1, 100)
}

// TriggerCompaction decides as MergeTreeCompactManager#triggerCompaction: full or normal pick,
// the manager's filter, and whether deletes may be dropped.
func TestTriggerCompaction(t *testing.T) {
	top := &meta.DataFileMeta{FileName: "top", FileSize: 100, Level: 2, MinKey: []byte{0}, MaxKey: []byte{9}}
	l0 := &meta.DataFileMeta{FileName: "new", FileSize: 1, MaxSequenceNumber: 5, MinKey: []byte{0}, MaxKey: []byte{9}}
	levels, err := NewLevels(bytesCompare, []*meta.DataFileMeta{top, l0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOptions(map[string]string{OptDeletionVectorsEnabled: "true"})
	if err != nil {
		t.Fatal(err)
	}
	s := NewStrategy(o, nil, nil)
	u, drop, err := TriggerCompaction(noClock, s, levels, false, o, nil, nil)
	if err != nil || u == nil || u.OutputLevel != 1 || len(u.Files) != 1 || drop {
		t.Errorf("forced level 0 below the top level without deletion vectors: %+v, drop %v, %v", u, drop, err)
	}
	if _, drop, _ := TriggerCompaction(noClock, s, levels, false, o, func(string) bool { return false }, nil); !drop {
		t.Error("with a deletion-vector maintainer deletes are not dropped")
	}
	chain := o
	chain.ChainTable = true
	if _, drop, _ := TriggerCompaction(noClock, s, levels, false, chain, func(string) bool { return false }, nil); drop {
		t.Error("a chain table drops deletes")
	}
	u, drop, err = TriggerCompaction(noClock, s, levels, true, o, nil, nil)
	if err != nil || u == nil || u.OutputLevel != 2 || len(u.Files) != 2 || !drop {
		t.Errorf("full compaction: %+v, drop %v, %v", u, drop, err)
	}
	// One file already on the max level: the size-amplification pick of it is dropped.
	alone, _ := NewLevels(bytesCompare, []*meta.DataFileMeta{top}, 3)
	if u, _, err := TriggerCompaction(noClock, NewUniversal(-1, 1, 1, nil, nil), alone, false, o, nil, nil); err != nil || u != nil {
		t.Errorf("single max-level file: %+v, %v", u, err)
	}
}

func bytesCompare(a, b []byte) int { return bytes.Compare(a, b) }

// The restored max-level files seed the last full compaction: their newest creation time, a
// local wall-clock time, read in the writer's zone.
func TestNewStrategySeedsLastFullCompaction(t *testing.T) {
	o, err := ParseOptions(map[string]string{OptOptimizationInterval: "1 h", OptNumLevels: "3"})
	if err != nil {
		t.Fatal(err)
	}
	zone := time.FixedZone("UTC+2", 2*3600)
	wall := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC).UnixMilli() // 12:00 on the writer's clock
	restored := []*meta.DataFileMeta{
		{FileName: "top", Level: 2, CreationTime: &wall},
		{FileName: "l1", Level: 1, CreationTime: i64(wall + 10*3600*1000)}, // not the max level
	}
	instant := time.Date(2026, 1, 2, 12, 0, 0, 0, zone).UnixMilli()
	if got := CreationEpochMillis(wall, zone); got != instant {
		t.Fatalf("creation instant %d, want %d", got, instant)
	}
	runs := []LevelSortedRun{run(0, 1), run(2, 100)}
	// 59 minutes after the restored full compaction: nothing early.
	s := NewStrategy(o, restored, zone)
	if u := mustPick(t, s, Clock{UnixMilli: instant + 59*60*1000}, 3, runs); u != nil && len(u.Files) == 2 {
		t.Errorf("early full compaction within the interval: %+v", u)
	}
	// 61 minutes after it: a full compaction.
	s = NewStrategy(o, restored, zone)
	wantSizes(t, mustPick(t, s, Clock{UnixMilli: instant + 61*60*1000}, 3, runs), 1, 100)
	// Nothing restored on the max level: the first pick compacts fully.
	s = NewStrategy(o, restored[1:], zone)
	wantSizes(t, mustPick(t, s, Clock{UnixMilli: instant}, 3, runs), 1, 100)
}
