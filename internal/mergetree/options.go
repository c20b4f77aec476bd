package mergetree

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/schema"
)

// The table options compaction picking reads (CoreOptions at release-2.0.0).
const (
	OptMaxSizeAmplificationPercent = "compaction.max-size-amplification-percent"
	OptSizeRatio                   = "compaction.size-ratio"
	OptNumSortedRunTrigger         = "num-sorted-run.compaction-trigger"
	OptNumSortedRunStopTrigger     = "num-sorted-run.stop-trigger"
	OptNumLevels                   = "num-levels"
	OptOptimizationInterval        = "compaction.optimization-interval"
	OptTotalSizeThreshold          = "compaction.total-size-threshold"
	OptIncrementalSizeThreshold    = "compaction.incremental-size-threshold"
	OptOffPeakStartHour            = "compaction.offpeak.start.hour"
	OptOffPeakEndHour              = "compaction.offpeak.end.hour"
	OptOffPeakRatio                = "compaction.offpeak-ratio"
	OptForceUpLevel0               = "compaction.force-up-level-0"
	OptForceRewriteAllFiles        = "compaction.force-rewrite-all-files"
	OptLookupCompact               = "lookup-compact"
	OptLookupCompactMaxInterval    = "lookup-compact.max-interval"
	OptDeletionVectorsEnabled      = "deletion-vectors.enabled"
	OptChangelogProducer           = "changelog-producer"
	OptForceLookup                 = "force-lookup"
	OptMergeEngine                 = "merge-engine"
	OptWriteOnly                   = "write-only"
	OptChainTable                  = "chain-table.enabled"
	// OptWriteOnlyFallback is the fallback key of write-only.
	OptWriteOnlyFallback = "write.compaction-skip"
	// OptRecordLevelExpireTime makes compaction drop expired records and rewrite the files
	// holding them (RecordExpire).
	OptRecordLevelExpireTime = "record-level.expire-time"
)

// LookupCompactMode is the lookup-compact option (CoreOptions.LookupCompactMode).
type LookupCompactMode int

const (
	// LookupCompactRadical compacts level 0 at every pick (the default).
	LookupCompactRadical LookupCompactMode = iota
	// LookupCompactGentle forces level 0 up only every lookup-compact.max-interval picks.
	LookupCompactGentle
)

// String is the option value Java prints.
func (m LookupCompactMode) String() string {
	if m == LookupCompactGentle {
		return "GENTLE"
	}
	return "RADICAL"
}

// Options are the compaction-picking options of a table, resolved as CoreOptions resolves them
// (defaults, fallback keys, derived defaults).
type Options struct {
	// MaxSizeAmplificationPercent is compaction.max-size-amplification-percent (200).
	MaxSizeAmplificationPercent int32
	// SizeRatio is compaction.size-ratio (1).
	SizeRatio int32
	// NumSortedRunCompactionTrigger is num-sorted-run.compaction-trigger (5).
	NumSortedRunCompactionTrigger int32
	// NumSortedRunStopTrigger is CoreOptions#numSortedRunStopTrigger: num-sorted-run.stop-trigger
	// (default trigger + 3), at least the compaction trigger.
	NumSortedRunStopTrigger int32
	// NumLevels is CoreOptions#numLevels: num-levels, default compaction trigger + 1.
	NumLevels int32
	// OptimizationIntervalMillis is compaction.optimization-interval in milliseconds; nil when
	// unset.
	OptimizationIntervalMillis *int64
	// TotalSizeThreshold is compaction.total-size-threshold in bytes; nil when unset.
	TotalSizeThreshold *int64
	// IncrementalSizeThreshold is compaction.incremental-size-threshold in bytes; nil when unset.
	IncrementalSizeThreshold *int64
	// OffPeakStartHour, OffPeakEndHour and OffPeakRatio are compaction.offpeak.start.hour (-1),
	// compaction.offpeak.end.hour (-1) and compaction.offpeak-ratio (0).
	OffPeakStartHour, OffPeakEndHour, OffPeakRatio int32
	// ForceUpLevel0 is compaction.force-up-level-0 (false).
	ForceUpLevel0 bool
	// ForceRewriteAllFiles is compaction.force-rewrite-all-files (false).
	ForceRewriteAllFiles bool
	// LookupCompact is lookup-compact (radical).
	LookupCompact LookupCompactMode
	// LookupCompactMaxInterval is CoreOptions#lookupCompactMaxInterval: lookup-compact.max-interval
	// (default twice the compaction trigger), at least the compaction trigger.
	LookupCompactMaxInterval int32
	// NeedLookup is CoreOptions#needLookup: deletion vectors, changelog-producer = lookup,
	// force-lookup or merge-engine = first-row.
	NeedLookup bool
	// FirstRow is merge-engine = first-row.
	FirstRow bool
	// ProduceChangelog is LookupStrategy#produceChangelog: changelog-producer = lookup.
	ProduceChangelog bool
	// DeletionVectors is deletion-vectors.enabled (false).
	DeletionVectors bool
	// ChainTable is chain-table.enabled (false): its compactions keep delete records.
	ChainTable bool
	// WriteOnly is write-only (fallback write.compaction-skip; false): Java's writer then has no
	// compaction manager at all.
	WriteOnly bool
}

// ParseOptions reads the compaction-picking options from a table's options map with Java's
// defaults. A value Java could not parse is an error naming the option.
func ParseOptions(opts map[string]string) (Options, error) {
	var o Options
	var err error
	ints := []struct {
		key string
		def int32
		dst *int32
	}{
		{OptMaxSizeAmplificationPercent, 200, &o.MaxSizeAmplificationPercent},
		{OptSizeRatio, 1, &o.SizeRatio},
		{OptNumSortedRunTrigger, 5, &o.NumSortedRunCompactionTrigger},
		{OptOffPeakStartHour, -1, &o.OffPeakStartHour},
		{OptOffPeakEndHour, -1, &o.OffPeakEndHour},
		{OptOffPeakRatio, 0, &o.OffPeakRatio},
	}
	for _, f := range ints {
		if *f.dst, err = intOption(opts, f.key, f.def); err != nil {
			return Options{}, err
		}
	}
	// Options whose default derives from the compaction trigger; some are raised to it.
	trigger := o.NumSortedRunCompactionTrigger
	derived := []struct {
		key            string
		def            int32
		atLeastTrigger bool
		dst            *int32
	}{
		{OptNumSortedRunStopTrigger, addSafely(trigger, 3), true, &o.NumSortedRunStopTrigger},
		{OptNumLevels, incrementSafely(trigger), false, &o.NumLevels},
		{OptLookupCompactMaxInterval, multiplySafely(trigger, 2), true, &o.LookupCompactMaxInterval},
	}
	for _, f := range derived {
		if *f.dst, err = intOption(opts, f.key, f.def); err != nil {
			return Options{}, err
		}
		if f.atLeastTrigger {
			*f.dst = max(trigger, *f.dst)
		}
	}

	if v, ok := opts[OptOptimizationInterval]; ok {
		ms, err := ParseDurationMillis(v)
		if err != nil {
			return Options{}, fmt.Errorf("option %s: %w", OptOptimizationInterval, err)
		}
		o.OptimizationIntervalMillis = &ms
	}
	for _, f := range []struct {
		key string
		dst **int64
	}{{OptTotalSizeThreshold, &o.TotalSizeThreshold}, {OptIncrementalSizeThreshold, &o.IncrementalSizeThreshold}} {
		if v, ok := opts[f.key]; ok {
			n, err := schema.ParseMemorySize(v)
			if err != nil {
				return Options{}, fmt.Errorf("option %s: %w", f.key, err)
			}
			*f.dst = &n
		}
	}

	bools := []struct {
		keys []string
		dst  *bool
	}{
		{[]string{OptForceUpLevel0}, &o.ForceUpLevel0},
		{[]string{OptForceRewriteAllFiles}, &o.ForceRewriteAllFiles},
		{[]string{OptDeletionVectorsEnabled}, &o.DeletionVectors},
		{[]string{OptWriteOnly, OptWriteOnlyFallback}, &o.WriteOnly},
		{[]string{OptChainTable}, &o.ChainTable},
	}
	for _, f := range bools {
		if *f.dst, err = boolOption(opts, f.keys...); err != nil {
			return Options{}, err
		}
	}
	forceLookup, err := boolOption(opts, OptForceLookup)
	if err != nil {
		return Options{}, err
	}

	mode, err := enumOption(opts, OptLookupCompact, "RADICAL", "RADICAL", "GENTLE")
	if err != nil {
		return Options{}, err
	}
	if mode == "GENTLE" {
		o.LookupCompact = LookupCompactGentle
	}
	producer, err := enumOption(opts, OptChangelogProducer, "none", "none", "input", "full-compaction", "lookup")
	if err != nil {
		return Options{}, err
	}
	engine, err := enumOption(opts, OptMergeEngine, "deduplicate", "deduplicate", "partial-update", "aggregation", "first-row")
	if err != nil {
		return Options{}, err
	}
	o.FirstRow = engine == "first-row"
	o.ProduceChangelog = producer == "lookup"
	// LookupStrategy#needLookup.
	o.NeedLookup = producer == "lookup" || o.DeletionVectors || o.FirstRow || forceLookup
	return o, nil
}

// intOption reads an int option as Java's Integer.parseInt does (an optional sign, decimal
// digits, 32 bits, no spaces); def when it is absent.
func intOption(opts map[string]string, key string, def int32) (int32, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("option %s: %q is not a 32-bit integer", key, v)
	}
	return int32(n), nil
}

// boolOption reads a boolean option under its key or, when absent, its fallback keys, as Java's
// OptionsUtils#convertToBoolean does ("true" or "false" in any case, nothing else).
func boolOption(opts map[string]string, keys ...string) (bool, error) {
	for _, key := range keys {
		v, ok := opts[key]
		if !ok {
			continue
		}
		switch strings.ToUpper(v) {
		case "TRUE":
			return true, nil
		case "FALSE":
			return false, nil
		}
		return false, fmt.Errorf("option %s: %q is neither true nor false", key, v)
	}
	return false, nil
}

// enumOption reads an enum option, matched case-insensitively against the values Java's enum
// prints (OptionsUtils#convertToEnum); it returns the matching value of values.
func enumOption(opts map[string]string, key, def string, values ...string) (string, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	for _, c := range values {
		if strings.ToUpper(c) == strings.ToUpper(v) {
			return c, nil
		}
	}
	return "", fmt.Errorf("option %s: %q is not one of %s", key, v, strings.Join(values, ", "))
}

// durationUnits are the unit labels of Paimon's TimeUtils#parseDuration, in milliseconds per
// unit as a fraction num/den.
var durationUnits = map[string][2]int64{
	"d": {86_400_000, 1}, "day": {86_400_000, 1}, "days": {86_400_000, 1},
	"h": {3_600_000, 1}, "hour": {3_600_000, 1}, "hours": {3_600_000, 1},
	"min": {60_000, 1}, "m": {60_000, 1}, "minute": {60_000, 1}, "minutes": {60_000, 1},
	"s": {1000, 1}, "sec": {1000, 1}, "secs": {1000, 1}, "second": {1000, 1}, "seconds": {1000, 1},
	"ms": {1, 1}, "milli": {1, 1}, "millis": {1, 1}, "millisecond": {1, 1}, "milliseconds": {1, 1},
	"µs": {1, 1000}, "micro": {1, 1000}, "micros": {1, 1000}, "microsecond": {1, 1000}, "microseconds": {1, 1000},
	"ns": {1, 1_000_000}, "nano": {1, 1_000_000}, "nanos": {1, 1_000_000}, "nanosecond": {1, 1_000_000},
	"nanoseconds": {1, 1_000_000},
}

// ParseDurationMillis reads a Paimon duration option value ("1 h", "30min", "500", "2 d") as
// Duration#toMillis of TimeUtils#parseDuration: a number, then an optional unit label (no label
// means milliseconds); a value whose milliseconds overflow 64 bits is an error.
func ParseDurationMillis(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("duration %q is empty", s)
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("duration %q does not start with a number", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: the number overflows 64 bits", s)
	}
	label := strings.ToLower(strings.TrimSpace(t[i:]))
	if label == "" {
		return n, nil
	}
	u, ok := durationUnits[label]
	if !ok {
		return 0, fmt.Errorf("duration %q has an unknown unit %q", s, label)
	}
	if u[0] > 1 && n > math.MaxInt64/u[0] {
		return 0, fmt.Errorf("duration %q overflows", s)
	}
	return n * u[0] / u[1], nil
}

// addSafely, incrementSafely and multiplySafely are Paimon's MathUtils helpers: int arithmetic
// that saturates at Integer.MAX_VALUE on overflow (in either direction, as Java's do).
func addSafely(a, b int32) int32 {
	s := int64(a) + int64(b)
	if s > math.MaxInt32 || s < math.MinInt32 {
		return math.MaxInt32
	}
	return int32(s)
}

func incrementSafely(a int32) int32 {
	if a == math.MaxInt32 {
		return a
	}
	return a + 1
}

func multiplySafely(a, b int32) int32 {
	p := int64(a) * int64(b)
	if p > math.MaxInt32 || p < math.MinInt32 {
		return math.MaxInt32
	}
	return int32(p)
}
