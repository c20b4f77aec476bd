package mergetree

import (
	"math"
	"strings"
	"testing"
)

func TestParseOptionsDefaults(t *testing.T) {
	o, err := ParseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Options{
		MaxSizeAmplificationPercent: 200, SizeRatio: 1, NumSortedRunCompactionTrigger: 5,
		NumSortedRunStopTrigger: 8, NumLevels: 6, OffPeakStartHour: -1, OffPeakEndHour: -1,
		LookupCompact: LookupCompactRadical, LookupCompactMaxInterval: 10,
	}
	if o != want {
		t.Errorf("defaults %+v, want %+v", o, want)
	}
}

func TestParseOptionsDerived(t *testing.T) {
	o, err := ParseOptions(map[string]string{
		OptNumSortedRunTrigger: "2147483647", OptDeletionVectorsEnabled: "TRUE", OptWriteOnlyFallback: "true",
		OptOptimizationInterval: "2 h", OptTotalSizeThreshold: "1 kb", OptIncrementalSizeThreshold: "3mb",
		OptLookupCompact: "Gentle",
	})
	if err != nil {
		t.Fatal(err)
	}
	// MathUtils' saturating arithmetic.
	if o.NumLevels != math.MaxInt32 || o.NumSortedRunStopTrigger != math.MaxInt32 || o.LookupCompactMaxInterval != math.MaxInt32 {
		t.Errorf("saturated values %+v", o)
	}
	if !o.NeedLookup || !o.WriteOnly || o.LookupCompact != LookupCompactGentle {
		t.Errorf("flags %+v", o)
	}
	if *o.OptimizationIntervalMillis != 7_200_000 || *o.TotalSizeThreshold != 1024 || *o.IncrementalSizeThreshold != 3<<20 {
		t.Errorf("interval and thresholds %+v", o)
	}
	o, _ = ParseOptions(map[string]string{OptNumSortedRunTrigger: "4", OptNumSortedRunStopTrigger: "2", OptNumLevels: "3"})
	if o.NumSortedRunStopTrigger != 4 || o.NumLevels != 3 {
		t.Errorf("stop trigger below the compaction trigger or explicit levels: %+v", o)
	}
	// write-only wins over its fallback key.
	if o, _ := ParseOptions(map[string]string{OptWriteOnly: "false", OptWriteOnlyFallback: "true"}); o.WriteOnly {
		t.Error("write.compaction-skip overrode write-only")
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for key, v := range map[string]string{
		OptSizeRatio:                "1.5",
		OptNumSortedRunTrigger:      " 5",
		OptNumLevels:                "2147483648",
		OptOptimizationInterval:     "1 fortnight",
		OptTotalSizeThreshold:       "lots",
		OptForceUpLevel0:            "yes",
		OptLookupCompact:            "eager",
		OptMergeEngine:              "last-row",
		OptChangelogProducer:        "always",
		OptLookupCompactMaxInterval: "x",
		OptIncrementalSizeThreshold: "99999999999 tb",
	} {
		_, err := ParseOptions(map[string]string{key: v})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%q: error %v, want one naming the option", key, v, err)
		}
	}
}

func TestParseDurationMillis(t *testing.T) {
	for in, want := range map[string]int64{
		"500": 500, "1 s": 1000, "2min": 120_000, "3 m": 180_000, "1 H": 3_600_000, "1d": 86_400_000,
		"2 days": 172_800_000, "1500 µs": 1, "999999 ns": 0, " 7 ms ": 7, "4 seconds": 4000,
	} {
		if got, err := ParseDurationMillis(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", "h", "-1 s", "1 week", "106751991167301 d", "99999999999999999999"} {
		if _, err := ParseDurationMillis(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
