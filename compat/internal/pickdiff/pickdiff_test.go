package pickdiff

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestGenerateIsDeterministic(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	for seed := int64(1); seed <= 50; seed++ {
		if a, b := Generate(seed, now), Generate(seed, now); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: two layouts", seed)
		}
	}
}

// Go's own outcome compares equal to itself, and a changed unit, failure or strategy does not.
func TestCompareDetectsDivergence(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	checked := 0
	for seed := int64(1); seed <= 200 && checked < 20; seed++ {
		l := Generate(seed, now)
		clock := LayoutResult{}
		for range l.Steps {
			clock.Steps = append(clock.Steps, StepResult{Millis: now.UnixMilli(), Hour: 12})
		}
		g := Go(l, clock, time.UTC)
		var st Stats
		if err := Compare(l, g, Go(l, clock, time.UTC), &st); err != nil {
			t.Fatalf("seed %d: Go against itself: %v", seed, err)
		}
		if g.Error != "" || len(g.Steps) == 0 || g.Steps[0].Unit == nil {
			continue
		}
		checked++
		changed := Go(l, clock, time.UTC)
		changed.Steps[0].Unit.OutputLevel++
		if err := Compare(l, changed, g, &st); err == nil || !strings.Contains(err.Error(), "step 0") {
			t.Errorf("seed %d: changed output level: %v", seed, err)
		}
		changed = Go(l, clock, time.UTC)
		changed.Steps[0].Unit, changed.Steps[0].Error = nil, "IndexOutOfBoundsException"
		if err := Compare(l, changed, g, &st); err == nil {
			t.Errorf("seed %d: Java failure against a Go unit: no error", seed)
		}
		changed = Go(l, clock, time.UTC)
		changed.Strategy = "Other"
		if err := Compare(l, changed, g, &st); err == nil {
			t.Errorf("seed %d: other strategy: no error", seed)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d layouts with a first-step unit", checked)
	}
}
