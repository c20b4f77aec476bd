// Package pickdiff is the compaction-picking differential: seeded level layouts (table options,
// a bucket's restored files, then steps of files to pick from on one strategy), run by Paimon's
// own strategies through the Java runner's pick command and by Go's internal/mergetree through
// the Go runner's (Run); the units (or none, or a failure) must be the same at every step.
package pickdiff

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// File is one data file of a layout, in the runner's JSON form.
type File struct {
	Name  string `json:"name"`
	Size  int64  `json:"size"`
	Level int32  `json:"level"`
	// MinSeq and MaxSeq are the file's sequence numbers.
	MinSeq int64 `json:"minSeq"`
	MaxSeq int64 `json:"maxSeq"`
	// Creation is the stored creation time: local wall-clock milliseconds.
	Creation int64 `json:"creation"`
	// MinKey and MaxKey bound the file's keys (one INT column).
	MinKey int32 `json:"minKey"`
	MaxKey int32 `json:"maxKey"`
}

// Step is one pick: normal (the strategy) or full (pickFullCompaction).
type Step struct {
	Mode  string `json:"mode"`
	Files []File `json:"files"`
	// DeletionVectors name the files with a deletion vector; nil (JSON null) means no
	// deletion-vector maintainer.
	DeletionVectors []string `json:"deletionVectors"`
	// Before and After are an update step's files (mode "update", persistent layouts only):
	// Levels#update(before, after).
	Before []File `json:"before,omitempty"`
	After  []File `json:"after,omitempty"`
}

// Layout is one generated case: a table's options, the files its writer restores, and the picks
// made in turn on the strategy built from them.
type Layout struct {
	Seed     int64             `json:"-"`
	Options  map[string]string `json:"options"`
	Restored []File            `json:"restored"`
	// Persistent layouts keep one Levels across their steps: the first step's files restore
	// it, update steps change it, later picks read it.
	Persistent bool   `json:"persistent"`
	Steps      []Step `json:"steps"`
}

// EncodeKey is the serialized key Go's levels compare: the INT big-endian with its sign bit
// flipped, so that byte order is numeric order.
func EncodeKey(v int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(v)^0x80000000)
}

// day is a day in milliseconds.
const day = 24 * 3600 * 1000

// Generate builds the layout of a seed. now is the generating clock: creation times of
// max-level files sit at least 20 hours (more than any zone offset) away from the optimization
// interval, so the interval's decision does not depend on the zone or the test's duration.
func Generate(seed int64, now time.Time) Layout {
	r := rand.New(rand.NewPCG(uint64(seed), 0x70_69_63_6b))
	l := Layout{Seed: seed, Options: map[string]string{}}
	opt := func(p float64, key string, v func() string) {
		if r.Float64() < p {
			l.Options[key] = v()
		}
	}
	itoa := func(lo, hi int) func() string {
		return func() string { return strconv.Itoa(lo + r.IntN(hi-lo+1)) }
	}
	pick := func(vs ...string) func() string { return func() string { return vs[r.IntN(len(vs))] } }

	opt(0.5, "compaction.max-size-amplification-percent", itoa(0, 400))
	negativeAmp := r.Float64() < 0.05
	if negativeAmp {
		// Java takes it: with a trigger of 1 every pick is then a size-amplification pick of all
		// runs, which the compact manager drops when it is one file already on the max level.
		l.Options["compaction.max-size-amplification-percent"] = itoa(-5, -1)()
	}
	opt(0.5, "compaction.size-ratio", itoa(0, 40))
	trigger := 5
	if r.Float64() < 0.6 || negativeAmp {
		trigger = 1 + r.IntN(7)
		if negativeAmp {
			trigger = 1
		}
		if r.Float64() < 0.03 {
			trigger = -2 + r.IntN(3) // 0 and below: Java's index failures
		}
		l.Options["num-sorted-run.compaction-trigger"] = strconv.Itoa(trigger)
	}
	numLevels := trigger + 1
	if r.Float64() < 0.4 {
		numLevels = 2 + r.IntN(6)
		l.Options["num-levels"] = strconv.Itoa(numLevels)
	}
	opt(0.1, "num-sorted-run.stop-trigger", itoa(0, 12))
	var interval int64
	if r.Float64() < 0.2 {
		days := 2 + r.IntN(3)
		interval = int64(days) * day
		l.Options["compaction.optimization-interval"] = pick(strconv.Itoa(days)+" d", strconv.Itoa(days*24)+" h",
			strconv.Itoa(days*24*60)+"min")()
	}
	opt(0.15, "compaction.total-size-threshold", func() string { return strconv.Itoa(r.IntN(5000)) + pick(" b", "")() })
	opt(0.15, "compaction.incremental-size-threshold", func() string { return strconv.Itoa(r.IntN(3)) + " kb" })
	if r.Float64() < 0.3 {
		l.Options["compaction.offpeak.start.hour"] = itoa(-1, 23)()
		l.Options["compaction.offpeak.end.hour"] = itoa(-1, 23)()
		l.Options["compaction.offpeak-ratio"] = itoa(0, 60)()
	}
	opt(0.2, "compaction.force-up-level-0", pick("true", "false", "TRUE"))
	opt(0.4, "deletion-vectors.enabled", pick("true", "false"))
	opt(0.15, "changelog-producer", pick("none", "input", "full-compaction", "lookup", "LOOKUP"))
	opt(0.1, "force-lookup", pick("true", "false"))
	opt(0.1, "merge-engine", pick("deduplicate", "first-row", "partial-update", "aggregation"))
	opt(0.4, "lookup-compact", pick("radical", "gentle", "GENTLE"))
	opt(0.3, "lookup-compact.max-interval", itoa(-1, 8))
	opt(0.05, "write-only", pick("true", "false"))
	opt(0.15, "compaction.force-rewrite-all-files", pick("true", "false"))
	opt(0.05, "chain-table.enabled", pick("true", "false"))
	if r.Float64() < 0.03 {
		// A value Java cannot parse, under an option its strategy always reads.
		bad := [][2]string{
			{"compaction.size-ratio", "1.5"}, {"num-sorted-run.compaction-trigger", " 3"}, {"num-levels", "many"},
			{"compaction.optimization-interval", "1 fortnight"}, {"compaction.total-size-threshold", "big"},
			{"deletion-vectors.enabled", "yes"}, {"merge-engine", "last-row"}, {"compaction.offpeak-ratio", "2147483648"},
			{"changelog-producer", "always"},
		}[r.IntN(9)]
		l.Options[bad[0]] = bad[1]
	}

	maxLevel := max(numLevels-1, 1)
	seq := int64(0)
	names := 0
	nowMillis := now.UnixMilli()
	layout := func() []File {
		var files []File
		name := func() string {
			names++
			// Names order level-0 files whose sequence numbers and creation times tie; the
			// non-ASCII ones order differently by UTF-16 units than by UTF-8 bytes.
			return fmt.Sprintf("data-%d-%d%s.parquet", seed, names, pick("", "", "-é", "-\uff61", "-\U0001F600")())
		}
		size := func() int64 {
			switch r.IntN(6) {
			case 0:
				return int64(r.IntN(3))
			case 1, 2:
				return 1 + int64(r.IntN(100))
			case 3:
				return 100 + int64(r.IntN(2000))
			default:
				return 1 + int64(r.IntN(1<<20))
			}
		}
		creation := func(level int) int64 {
			if level == maxLevel && interval > 0 {
				ago := pick("before", "after")()
				if ago == "before" {
					return nowMillis - interval + 20*3600*1000 + int64(r.IntN(day))
				}
				return nowMillis - interval - 20*3600*1000 - int64(r.IntN(day))
			}
			return nowMillis - int64(r.IntN(30*day))
		}
		for range r.IntN(9) {
			seq += int64(r.IntN(3))
			f := File{Name: name(), Size: size(), Level: 0, MaxSeq: seq, MinSeq: seq - int64(r.IntN(3)),
				Creation: creation(0), MinKey: int32(r.IntN(1000)), MaxKey: int32(1000 + r.IntN(1000))}
			if r.Float64() < 0.2 && len(files) > 0 {
				// Same creation time as another level-0 file: the name decides.
				f.Creation = files[r.IntN(len(files))].Creation
			}
			files = append(files, f)
		}
		top := maxLevel
		if r.Float64() < 0.05 {
			top++ // a file above num-levels widens the levels
		}
		for level := 1; level <= top; level++ {
			if r.Float64() < 0.45 {
				continue
			}
			key := int32(r.IntN(100))
			for range 1 + r.IntN(3) {
				lo := key + int32(r.IntN(50))
				hi := lo + int32(r.IntN(50))
				if r.Float64() < 0.01 {
					lo -= 60 // overlaps its neighbour: Java's levels refuse it
				}
				key = hi + 1
				files = append(files, File{Name: name(), Size: size(), Level: int32(level), MinSeq: int64(r.IntN(10)),
					MaxSeq: 10 + int64(r.IntN(10)), Creation: creation(level), MinKey: max(lo, 0), MaxKey: hi})
			}
		}
		// Shuffle: the levels, not the input order, must decide the runs.
		r.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
		return files
	}
	steps := 1 + r.IntN(5)
	if r.Float64() < 0.25 {
		// Long runs of picks: the gentle counter must wrap around its interval more than once.
		steps = 6 + r.IntN(20)
	}
	quiet := strings.EqualFold(l.Options["lookup-compact"], "gentle") && r.Float64() < 0.5
	if quiet {
		// One small level-0 file over a large max level: the universal rules pick nothing (with
		// a trigger of 2 or more), so only the gentle counter decides, over enough picks to
		// reach its interval (at most 14 here) twice.
		steps = 32
	}
	var files []File
	for i := range steps {
		switch {
		case quiet:
			names++
			files = []File{
				{Name: fmt.Sprintf("data-%d-%d.parquet", seed, names), Size: 1, MaxSeq: int64(100 + i), MinSeq: int64(100 + i),
					Creation: nowMillis, MinKey: 0, MaxKey: 10},
				{Name: fmt.Sprintf("data-%d-top.parquet", seed), Size: 1 << 20, Level: int32(maxLevel), MaxSeq: 50,
					Creation: nowMillis - 30*day, MinKey: 0, MaxKey: 100},
			}
		case r.Float64() < 0.04:
			// No files: an early full compaction picks an empty unit the manager drops.
			files = []File{}
		case r.Float64() < 0.1:
			// A single run: no early full compaction, yet a forced or size pick of all runs
			// counts as one for the next steps.
			names++
			seq++
			files = []File{{Name: fmt.Sprintf("data-%d-%d.parquet", seed, names), Size: 1 + int64(r.IntN(100)),
				MaxSeq: seq, MinSeq: seq, Creation: nowMillis, MinKey: 0, MaxKey: 10}}
			if r.Float64() < 0.5 {
				files[0].Level = int32(maxLevel)
			}
		case i == 0 || r.Float64() < 0.6:
			files = layout()
		}
		if i == 0 {
			l.Restored = files
		}
		s := Step{Mode: "normal", Files: files}
		if r.Float64() < 0.3 {
			// A deletion-vector maintainer: deletes may be dropped below the highest level.
			s.DeletionVectors = []string{}
		}
		if r.Float64() < 0.15 {
			s.Mode = "full"
			if r.Float64() < 0.5 {
				// Only the max level: the branch that rewrites files one by one.
				var top []File
				for _, f := range files {
					if int(f.Level) == maxLevel {
						top = append(top, f)
					}
				}
				s.Files = top
			}
			if r.Float64() < 0.7 {
				s.DeletionVectors = []string{}
				for _, f := range s.Files {
					if r.Float64() < 0.4 {
						s.DeletionVectors = append(s.DeletionVectors, f.Name)
					}
				}
			}
		}
		l.Steps = append(l.Steps, s)
	}
	if !quiet && r.Float64() < 0.25 {
		l.Persistent = true
		persistentSteps(r, &l, maxLevel, nowMillis, &seq, &names)
	}
	return l
}

// persistentSteps turns l into a persistent layout: its first step restores the levels, then
// updates (compaction results: files removed, new files on any level, level-0 files moved up)
// alternate with picks from the levels as they are.
func persistentSteps(r *rand.Rand, l *Layout, maxLevel int, nowMillis int64, seq *int64, names *int) {
	current := slices.Clone(l.Steps[0].Files)
	l.Steps = l.Steps[:1]
	keys := int32(100_000) // fresh key ranges, above every generated one
	for range 2 + r.IntN(12) {
		if r.Float64() < 0.5 {
			mode := "normal"
			if r.Float64() < 0.15 {
				mode = "full"
			}
			l.Steps = append(l.Steps, Step{Mode: mode})
			continue
		}
		var before, after []File
		kept := current[:0:0]
		for _, f := range current {
			if r.Float64() < 0.3 {
				before = append(before, f)
			} else {
				kept = append(kept, f)
			}
		}
		for range r.IntN(4) {
			*names++
			f := File{Name: fmt.Sprintf("data-%d-%d.parquet", l.Seed, *names), Size: 1 + int64(r.IntN(1<<16)),
				Creation: nowMillis, MinKey: keys, MaxKey: keys + int32(r.IntN(50))}
			keys += 100
			if r.Float64() < 0.4 {
				*seq += 1 + int64(r.IntN(3))
				f.MaxSeq, f.MinSeq = *seq, *seq-int64(r.IntN(2))
			} else {
				f.Level = int32(1 + r.IntN(maxLevel))
				f.MinSeq, f.MaxSeq = 0, *seq
			}
			after = append(after, f)
		}
		for _, f := range before {
			if f.Level == 0 && r.Float64() < 0.2 {
				// Moved up without a rewrite; its keys may overlap the level's.
				up := f
				up.Level = int32(1 + r.IntN(maxLevel))
				after = append(after, up)
			}
		}
		current = append(kept, after...)
		l.Steps = append(l.Steps, Step{Mode: "update", Before: before, After: after})
	}
}
