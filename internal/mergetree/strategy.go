package mergetree

import (
	"fmt"
	"time"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// Clock is the wall-clock input of a pick. Java's strategies read it themselves:
// System.currentTimeMillis for the optimization interval (EarlyFullCompaction) and the hour of
// LocalDateTime.now in the JVM's zone for off-peak hours (UniversalCompaction#ratioForOffPeak).
type Clock struct {
	// UnixMilli is the current time in milliseconds since the epoch.
	UnixMilli int64
	// Hour is the current hour of the day (0-23) in the writer's local zone.
	Hour int32
}

// ClockAt is the clock of t, its hour in t's location.
func ClockAt(t time.Time) Clock { return Clock{UnixMilli: t.UnixMilli(), Hour: int32(t.Hour())} }

// Strategy picks the next compaction of a bucket from its sorted runs (Java's CompactStrategy):
// nil when nothing is to be compacted. The error is a layout Java's strategy fails on (an index
// out of range with a non-positive sorted-run trigger).
type Strategy interface {
	Pick(c Clock, numLevels int32, runs []LevelSortedRun) (*CompactUnit, error)
}

// EarlyFullCompaction triggers a full compaction before the size rules would (Java's
// EarlyFullCompaction): when the optimization interval has passed since the last full
// compaction, when the total size is below a threshold, or when the size above the max level
// exceeds one.
type EarlyFullCompaction struct {
	intervalMillis       *int64
	totalThreshold       *int64
	incrementalThreshold *int64
	lastFullCompaction   *int64
}

// NewEarlyFullCompaction builds the trigger; nil arguments are unset. lastFullCompaction is the
// time (epoch milliseconds) of the last full compaction known when the writer starts, nil when
// none is known (then the interval triggers at the first pick).
func NewEarlyFullCompaction(intervalMillis, totalThreshold, incrementalThreshold, lastFullCompaction *int64) *EarlyFullCompaction {
	e := &EarlyFullCompaction{intervalMillis: intervalMillis, totalThreshold: totalThreshold, incrementalThreshold: incrementalThreshold}
	if lastFullCompaction != nil {
		v := *lastFullCompaction
		e.lastFullCompaction = &v
	}
	return e
}

// earlyFullCompactionOf is EarlyFullCompaction#create: nil when none of its options is set.
func earlyFullCompactionOf(o Options, lastFullCompaction *int64) *EarlyFullCompaction {
	if o.OptimizationIntervalMillis == nil && o.TotalSizeThreshold == nil && o.IncrementalSizeThreshold == nil {
		return nil
	}
	return NewEarlyFullCompaction(o.OptimizationIntervalMillis, o.TotalSizeThreshold, o.IncrementalSizeThreshold, lastFullCompaction)
}

// TryFullCompact is EarlyFullCompaction#tryFullCompact: a unit of every run to the max level, or
// nil. Never with a single run.
func (e *EarlyFullCompaction) TryFullCompact(c Clock, numLevels int32, runs []LevelSortedRun) *CompactUnit {
	if len(runs) == 1 {
		return nil
	}
	maxLevel := numLevels - 1
	if e.intervalMillis != nil {
		if e.lastFullCompaction == nil || c.UnixMilli-*e.lastFullCompaction > *e.intervalMillis {
			e.updateLastFullCompaction(c)
			return unitFromRuns(maxLevel, runs)
		}
	}
	if e.totalThreshold != nil {
		var total int64
		for _, r := range runs {
			total += r.Run.TotalSize
		}
		if total < *e.totalThreshold {
			e.updateLastFullCompaction(c)
			return unitFromRuns(maxLevel, runs)
		}
	}
	if e.incrementalThreshold != nil {
		var incremental int64
		for _, r := range runs {
			if r.Level != maxLevel {
				incremental += r.Run.TotalSize
			}
		}
		if incremental > *e.incrementalThreshold {
			e.updateLastFullCompaction(c)
			return unitFromRuns(maxLevel, runs)
		}
	}
	return nil
}

func (e *EarlyFullCompaction) updateLastFullCompaction(c Clock) {
	t := c.UnixMilli
	e.lastFullCompaction = &t
}

// OffPeakHours raise the size ratio during a span of hours (Java's OffPeakHours).
type OffPeakHours struct {
	startHour, endHour, ratio int32
}

// NewOffPeakHours is OffPeakHours#create: nil (no off-peak hours) when either hour is -1 or both
// are equal. The span is [start, end), wrapping past midnight when start > end.
func NewOffPeakHours(startHour, endHour, ratio int32) *OffPeakHours {
	if startHour == -1 || endHour == -1 || startHour == endHour {
		return nil
	}
	return &OffPeakHours{startHour: startHour, endHour: endHour, ratio: ratio}
}

// CurrentRatio is the extra size ratio at the hour: the off-peak ratio within the span, else 0.
func (o *OffPeakHours) CurrentRatio(hour int32) int32 {
	var off bool
	if o.startHour <= o.endHour {
		off = o.startHour <= hour && hour < o.endHour
	} else {
		off = hour < o.endHour || o.startHour <= hour
	}
	if off {
		return o.ratio
	}
	return 0
}

// Universal is Java's UniversalCompaction (RocksDB's universal compaction style): an early full
// compaction when its trigger says so, else all runs when the size amplification is too high,
// else the newest runs whose sizes are within the size ratio of each other, else, past the
// sorted-run trigger, enough of the newest runs to get back to it.
type Universal struct {
	maxSizeAmp              int32
	sizeRatio               int32
	numRunCompactionTrigger int32
	early                   *EarlyFullCompaction
	offPeak                 *OffPeakHours
}

// NewUniversal builds the strategy; early and offPeak may be nil.
func NewUniversal(maxSizeAmp, sizeRatio, numRunCompactionTrigger int32, early *EarlyFullCompaction, offPeak *OffPeakHours) *Universal {
	return &Universal{maxSizeAmp: maxSizeAmp, sizeRatio: sizeRatio, numRunCompactionTrigger: numRunCompactionTrigger, early: early, offPeak: offPeak}
}

// Pick is UniversalCompaction#pick.
func (u *Universal) Pick(c Clock, numLevels int32, runs []LevelSortedRun) (*CompactUnit, error) {
	maxLevel := numLevels - 1
	if u.early != nil {
		if unit := u.early.TryFullCompact(c, numLevels, runs); unit != nil {
			return unit, nil
		}
	}
	if unit, err := u.pickForSizeAmp(c, maxLevel, runs); unit != nil || err != nil {
		return unit, err
	}
	if unit, err := u.pickForSizeRatio(c, maxLevel, runs); unit != nil || err != nil {
		return unit, err
	}
	if int32(len(runs)) > u.numRunCompactionTrigger {
		// Java's int arithmetic, wrapping as it does.
		candidateCount := int32(len(runs)) - u.numRunCompactionTrigger + 1
		return u.pickForSizeRatioFrom(c, maxLevel, runs, candidateCount, false)
	}
	return nil, nil
}

// pickForSizeAmp compacts every run when the runs above the oldest add more than
// maxSizeAmp percent to its size.
func (u *Universal) pickForSizeAmp(c Clock, maxLevel int32, runs []LevelSortedRun) (*CompactUnit, error) {
	if int32(len(runs)) < u.numRunCompactionTrigger {
		return nil, nil
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("mergetree: size amplification of no sorted runs (sorted-run trigger %d)", u.numRunCompactionTrigger)
	}
	var candidate int64
	for _, r := range runs[:len(runs)-1] {
		candidate += r.Run.TotalSize
	}
	earliest := runs[len(runs)-1].Run.TotalSize
	if candidate*100 > int64(u.maxSizeAmp)*earliest {
		if u.early != nil {
			u.early.updateLastFullCompaction(c)
		}
		return unitFromRuns(maxLevel, runs), nil
	}
	return nil, nil
}

func (u *Universal) pickForSizeRatio(c Clock, maxLevel int32, runs []LevelSortedRun) (*CompactUnit, error) {
	if int32(len(runs)) < u.numRunCompactionTrigger {
		return nil, nil
	}
	return u.pickForSizeRatioFrom(c, maxLevel, runs, 1, false)
}

// pickForSizeRatioFrom starts from the newest candidateCount runs and adds the next run while
// it is no larger than the candidates' size grown by the size ratio (plus the off-peak ratio).
func (u *Universal) pickForSizeRatioFrom(c Clock, maxLevel int32, runs []LevelSortedRun, candidateCount int32, force bool) (*CompactUnit, error) {
	var candidate int64
	for i := int32(0); i < candidateCount; i++ {
		if int(i) >= len(runs) {
			return nil, fmt.Errorf("mergetree: %d candidate runs of %d", candidateCount, len(runs))
		}
		candidate += runs[i].Run.TotalSize
	}
	for i := candidateCount; int(i) < len(runs); i++ {
		if i < 0 {
			return nil, fmt.Errorf("mergetree: run index %d", i)
		}
		next := runs[i]
		ratio := 100.0 + float64(u.sizeRatio) + float64(u.ratioForOffPeak(c))
		if float64(candidate)*ratio/100.0 < float64(next.Run.TotalSize) {
			break
		}
		candidate += next.Run.TotalSize
		candidateCount++
	}
	if force || candidateCount > 1 {
		return u.createUnit(c, runs, maxLevel, candidateCount), nil
	}
	return nil, nil
}

func (u *Universal) ratioForOffPeak(c Clock) int32 {
	if u.offPeak == nil {
		return 0
	}
	return u.offPeak.CurrentRatio(c.Hour)
}

// createUnit compacts the newest runCount runs into the level below the next run, never into
// level 0 (taking further runs until one above level 0), and into the max level when it takes
// every run. runCount is within [0, len(runs)].
func (u *Universal) createUnit(c Clock, runs []LevelSortedRun, maxLevel, runCount int32) *CompactUnit {
	var outputLevel int32
	if int(runCount) == len(runs) {
		outputLevel = maxLevel
	} else {
		outputLevel = max(0, runs[runCount].Level-1)
	}
	if outputLevel == 0 {
		for i := runCount; int(i) < len(runs); i++ {
			next := runs[i]
			runCount++
			if next.Level != 0 {
				outputLevel = next.Level
				break
			}
		}
	}
	if int(runCount) == len(runs) {
		if u.early != nil {
			u.early.updateLastFullCompaction(c)
		}
		outputLevel = maxLevel
	}
	return unitFromRuns(outputLevel, runs[:runCount])
}

// ForcePickL0 is UniversalCompaction#forcePickL0: every level-0 run (with level 1 when it is
// the next run), widened by the size ratio, never to level 0; nil without level-0 runs.
func (u *Universal) ForcePickL0(c Clock, numLevels int32, runs []LevelSortedRun) (*CompactUnit, error) {
	var candidateCount int32
	for _, r := range runs {
		if r.Level > 0 {
			break
		}
		candidateCount++
	}
	if candidateCount == 0 {
		return nil, nil
	}
	if int(candidateCount) < len(runs) && runs[candidateCount].Level == 1 {
		candidateCount++
	}
	return u.pickForSizeRatioFrom(c, numLevels-1, runs, candidateCount, true)
}

// ForceUpLevel0 is Java's ForceUpLevel0Compaction: the universal pick, and when it picks
// nothing, level 0 forced up — at every pick, or with a max interval only at every
// maxInterval-th pick that reaches this point (lookup-compact = gentle).
type ForceUpLevel0 struct {
	universal   *Universal
	maxInterval *int32
	count       int32
}

// NewForceUpLevel0 builds the strategy; maxInterval nil forces level 0 up at every pick.
func NewForceUpLevel0(universal *Universal, maxInterval *int32) *ForceUpLevel0 {
	f := &ForceUpLevel0{universal: universal}
	if maxInterval != nil {
		v := *maxInterval
		f.maxInterval = &v
	}
	return f
}

// MaxInterval is the gentle max interval, nil when level 0 is forced up at every pick.
func (f *ForceUpLevel0) MaxInterval() *int32 {
	if f.maxInterval == nil {
		return nil
	}
	v := *f.maxInterval
	return &v
}

// Pick is ForceUpLevel0Compaction#pick.
func (f *ForceUpLevel0) Pick(c Clock, numLevels int32, runs []LevelSortedRun) (*CompactUnit, error) {
	unit, err := f.universal.Pick(c, numLevels, runs)
	if unit != nil || err != nil {
		return unit, err
	}
	if f.maxInterval == nil {
		return f.universal.ForcePickL0(c, numLevels, runs)
	}
	f.count++
	if f.count == *f.maxInterval {
		f.count = 0
		return f.universal.ForcePickL0(c, numLevels, runs)
	}
	return nil, nil
}

// PickFullCompaction is CompactStrategy#pickFullCompaction: every file to the max level; when
// the max level is the only run, only the files that must be rewritten (all of them with
// forceRewriteAllFiles, else those with expired records or a deletion vector), one by one; nil
// when nothing is to be done. expired (no record-level expiry) and hasDeletionVector (no
// deletion-vector maintainer) may be nil.
func PickFullCompaction(numLevels int32, runs []LevelSortedRun, expired func(*meta.DataFileMeta) bool, hasDeletionVector func(fileName string) bool, forceRewriteAllFiles bool) *CompactUnit {
	maxLevel := numLevels - 1
	if len(runs) == 0 {
		return nil
	}
	if len(runs) == 1 && runs[0].Level == maxLevel {
		var files []*meta.DataFileMeta
		for _, f := range runs[0].Run.Files {
			if forceRewriteAllFiles || (expired != nil && expired(f)) || (hasDeletionVector != nil && hasDeletionVector(f.FileName)) {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil
		}
		return &CompactUnit{OutputLevel: maxLevel, Files: files, FileRewrite: true}
	}
	return unitFromRuns(maxLevel, runs)
}

// NewStrategy is the strategy Java's writer uses for a bucket
// (MergeTreeCompactManagerFactory#createCompactStrategy): ForceUpLevel0 over Universal when the
// table needs lookup (gentle lookup-compact with its max interval, radical without), else
// Universal, forced up from level 0 with compaction.force-up-level-0. restored are the bucket's
// files when the writer starts: the newest creation time of a max-level file is taken as the
// last full compaction, its local wall-clock time read in loc (Java: the JVM's default zone;
// nil: time.Local).
// A write-only table (o.WriteOnly) has no strategy in Java; callers check it first.
func NewStrategy(o Options, restored []*meta.DataFileMeta, loc *time.Location) Strategy {
	last := estimateLastFullCompaction(restored, o.NumLevels, loc)
	universal := NewUniversal(o.MaxSizeAmplificationPercent, o.SizeRatio, o.NumSortedRunCompactionTrigger,
		earlyFullCompactionOf(o, last), NewOffPeakHours(o.OffPeakStartHour, o.OffPeakEndHour, o.OffPeakRatio))
	if o.NeedLookup {
		var interval *int32
		if o.LookupCompact == LookupCompactGentle {
			v := o.LookupCompactMaxInterval
			interval = &v
		}
		return NewForceUpLevel0(universal, interval)
	}
	if o.ForceUpLevel0 {
		return NewForceUpLevel0(universal, nil)
	}
	return universal
}

// estimateLastFullCompaction is MergeTreeCompactManagerFactory#estimateLastFullCompactionTime:
// the newest creation time (epoch milliseconds) of a file on the max level, nil without one.
// Files without a creation time are skipped.
func estimateLastFullCompaction(restored []*meta.DataFileMeta, numLevels int32, loc *time.Location) *int64 {
	maxLevel := numLevels - 1
	best := int64(-1)
	for _, f := range restored {
		if f.Level != maxLevel || f.CreationTime == nil {
			continue
		}
		best = max(best, CreationEpochMillis(*f.CreationTime, loc))
	}
	if best < 0 {
		return nil
	}
	return &best
}

// CreationEpochMillis is DataFileMeta#creationTimeEpochMillis: the stored creation time is a
// local wall-clock time (milliseconds read as UTC); its instant is that wall-clock time in loc.
// In a daylight-saving gap or overlap the instant follows Go's time.Date. A nil loc is
// time.Local.
func CreationEpochMillis(stored int64, loc *time.Location) int64 {
	if loc == nil {
		loc = time.Local
	}
	w := time.UnixMilli(stored).UTC()
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc).UnixMilli()
}

// TriggerCompaction is MergeTreeCompactManager#triggerCompaction's decision for a bucket's
// levels: with full, PickFullCompaction (rewriting max-level files with deletion vectors, or all
// of them with compaction.force-rewrite-all-files); else the strategy's pick, kept when
// KeepNormalUnit holds. It returns the unit to compact (nil: none) and whether the compaction
// may drop delete records (DropDelete; a chain table keeps them). hasDeletionVector is nil
// when the bucket has no deletion-vector maintainer; expired (nil without record-level expiry)
// is RecordLevelExpire#isExpireFile.
func TriggerCompaction(c Clock, s Strategy, l *Levels, full bool, o Options, hasDeletionVector func(fileName string) bool, expired func(*meta.DataFileMeta) bool) (*CompactUnit, bool, error) {
	runs := l.LevelSortedRuns()
	var unit *CompactUnit
	if full {
		unit = PickFullCompaction(l.NumberOfLevels(), runs, expired, hasDeletionVector, o.ForceRewriteAllFiles)
	} else {
		u, err := s.Pick(c, l.NumberOfLevels(), runs)
		if err != nil {
			return nil, false, err
		}
		if KeepNormalUnit(u) {
			unit = u
		}
	}
	if unit == nil {
		return nil, false, nil
	}
	return unit, DropDelete(unit, l.NonEmptyHighestLevel(), hasDeletionVector != nil, o.ChainTable), nil
}

// KeepNormalUnit is the filter MergeTreeCompactManager#triggerCompaction applies to a
// non-full pick: a unit with files that is more than one file staying on its level.
func KeepNormalUnit(u *CompactUnit) bool {
	return u != nil && len(u.Files) > 0 && (len(u.Files) > 1 || u.Files[0].Level != u.OutputLevel)
}

// DropDelete is whether the compaction of u may drop delete records
// (MergeTreeCompactManager#triggerCompaction): not with forceKeepDelete (chain tables) nor into
// level 0, and otherwise when no older data lies above the output level or deletion vectors
// (a maintainer) are in use.
func DropDelete(u *CompactUnit, nonEmptyHighestLevel int32, deletionVectors, forceKeepDelete bool) bool {
	return !forceKeepDelete && u.OutputLevel != 0 && (u.OutputLevel >= nonEmptyHighestLevel || deletionVectors)
}
