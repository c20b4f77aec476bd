package differential

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSortedInvariantsHoldOnGeneratedScenarios(t *testing.T) {
	first := firstSeed(t)
	if err := CheckSortedSeeds(testCtx(t), first, seedsPerRun); err != nil {
		t.Fatal(err)
	}
}

// TestGenerateSortedIsDeterministicValidAndVaried: the same seed gives the same valid script,
// both sorted types occur, and the generated scripts reach the sorted family's decisions: a
// build failing every attempt, a build retried after one failure, an output rejected for its
// level, a call without build start, a payload of the other sorted type left alone, and a build
// whose output forms no group.
func TestGenerateSortedIsDeterministicValidAndVaried(t *testing.T) {
	ctx := testCtx(t)
	seen := map[string]int{}
	for seed := int64(1); seed <= 300; seed++ {
		s := GenerateSorted(seed)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(s, GenerateSorted(seed)) {
			t.Fatalf("seed %d: two scripts differ", seed)
		}
		seen["family "+s.Family]++
		for _, p := range s.Restore.Payloads {
			if slices.Contains(p.Corrupt, CorruptOtherType) {
				seen["otherType"]++
			}
		}
		for _, st := range s.Steps {
			if st.NoBuildStart {
				seen["noBuildStart"]++
			}
		}
		tr, err := RunGo(ctx, s)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, st := range tr.Steps {
			seen["error "+st.Error]++
			for _, b := range st.Builds {
				switch {
				case b.Attempt == 3 && b.Outcome == Fail:
					seen["three failed attempts"]++
				case b.Attempt == 2 && b.Outcome == FailOnce && b.Name != "":
					seen["retried after one failure"]++
				case b.Outcome == WrongLevel:
					seen["wrong level"]++
				}
			}
			if st.Error == ErrClassOther && strings.Contains(st.Message, "incomplete group") {
				seen["incomplete group"]++
			}
		}
	}
	for _, want := range []string{"family btree", "family bitmap", "otherType", "noBuildStart", "error buildFailed",
		"error invalidAppend", "three failed attempts", "retried after one failure", "wrong level", "incomplete group"} {
		if seen[want] == 0 {
			t.Errorf("300 sorted scripts never reach %q (%v)", want, seen)
		}
	}
}

// TestRunGoSortedTracesWhatTheMaintainerDecides runs one hand-written sorted script and checks
// the decisions Paimon's BucketedSortedIndexMaintainer makes: other definitions' payloads are
// ignored, rejected restored payloads are deleted with the next commit, a build is tried three
// times, a failed call and an abort restore the state, a call without build start only deletes,
// an output recording another level is deleted quietly and the level rebuilt, an output of
// another field fails the call.
func TestRunGoSortedTracesWhatTheMaintainerDecides(t *testing.T) {
	f1, f2, f3 := compactFile("f1", 1, 3), compactFile("f2", 2, 2), compactFile("f3", 2, 4)
	s := Script{Family: FamilyBTree, FieldID: 7,
		Restore: Restore{
			DataFiles: []DataFile{f1, f2},
			Payloads: []Payload{
				{Name: "pa", Level: 1, Files: sources([]DataFile{f1})},
				{Name: "pb", Level: 2, Files: sources([]DataFile{f2}), Corrupt: []Corruption{CorruptRowCount}},
				{Name: "po", Level: 1, Files: sources([]DataFile{f1}), Corrupt: []Corruption{CorruptOtherType}},
			},
		},
		Steps: []Step{
			{Op: OpPrepareCommit, Wait: true, Builds: []Outcome{Fail}},
			{Op: OpPrepareCommit, Wait: true, Builds: []Outcome{FailOnce}},
			{Op: OpAbort},
			{Op: OpPrepareCommit, NoBuildStart: true},
			{Op: OpPrepareCommit, Wait: true, Builds: []Outcome{WrongLevel, Succeed}},
			{Op: OpPrepareCommit, Wait: true, CompactBefore: []string{"f2"}, CompactAfter: []DataFile{f3}, Builds: []Outcome{WrongField}},
		}}
	tr, err := RunGo(testCtx(t), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSorted(s, tr); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	restored := State{Current: []PayloadRef{{Name: "pa", Level: 1}}, Retired: []string{"pb"}, Active: []DataFile{f1, f2}, PendingMaintenance: &yes}
	if !reflect.DeepEqual(tr.Restored, restored) {
		t.Fatalf("restored %+v, want %+v", tr.Restored, restored)
	}
	key := buildKey(sources([]DataFile{f2}), 2)
	attempts := func(st StepTrace) []string {
		var out []string
		for _, b := range st.Builds {
			out = append(out, string(b.Outcome)+"#"+strconv.Itoa(b.Attempt)+":"+b.Name)
		}
		return out
	}
	steps := tr.Steps
	if steps[0].Error != ErrClassBuildFailed || !reflect.DeepEqual(steps[0].State, restored) ||
		!slices.Equal(attempts(steps[0]), []string{"fail#1:", "fail#2:", "fail#3:"}) {
		t.Fatalf("step 0: %+v", steps[0])
	}
	built := key + "-1"
	if steps[1].Error != "" || !reflect.DeepEqual(steps[1].Append, &Increment{New: []string{built}, Deleted: []string{"pb"}}) ||
		!slices.Equal(attempts(steps[1]), []string{"failOnce#1:", "failOnce#2:" + built}) {
		t.Fatalf("step 1: %+v", steps[1])
	}
	if !slices.Equal(steps[2].Deleted, []string{built}) || !reflect.DeepEqual(steps[2].State, restored) {
		t.Fatalf("step 2 (abort): %+v", steps[2])
	}
	if !reflect.DeepEqual(steps[3].Append, &Increment{New: []string{}, Deleted: []string{"pb"}}) || steps[3].State.BuildPending ||
		!reflect.DeepEqual(steps[3].State.PendingMaintenance, &yes) || len(steps[3].Builds) != 0 {
		t.Fatalf("step 3 (no build start): %+v", steps[3])
	}
	wrong, good := key+"-2", key+"-3"
	if !reflect.DeepEqual(steps[4].Append, &Increment{New: []string{good}, Deleted: []string{}}) ||
		!slices.Equal(steps[4].Deleted, []string{wrong}) || !reflect.DeepEqual(steps[4].State.PendingMaintenance, &no) {
		t.Fatalf("step 4: %+v", steps[4])
	}
	if steps[5].Error != ErrClassOther || !strings.Contains(steps[5].Message, "incomplete group") || len(steps[5].Deleted) != 1 ||
		!reflect.DeepEqual(steps[5].State.Current, steps[4].State.Current) || !slices.Equal(steps[5].State.Active, steps[4].State.Active) {
		t.Fatalf("step 5: %+v", steps[5])
	}
}

func TestValidateKeepsSortedOnlyFieldsOutOfFullTextScripts(t *testing.T) {
	for name, s := range map[string]Script{
		"noBuildStart": {Steps: []Step{{Op: OpPrepareCommit, NoBuildStart: true}}},
		"failOnce":     {Steps: []Step{{Op: OpPrepareCommit, Builds: []Outcome{FailOnce}}}},
		"wrongLevel":   {Steps: []Step{{Op: OpPrepareCommit, Builds: []Outcome{WrongLevel}}}},
		"family":       {Family: "lumina"},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	sorted := Script{Family: FamilyBitmap, Steps: []Step{{Op: OpPrepareCommit, NoBuildStart: true, Builds: []Outcome{FailOnce, WrongLevel}}}}
	if err := sorted.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDifferentialSortedReportsTheSeedOfADivergence(t *testing.T) {
	ctx := testCtx(t)
	if err := DifferentialSorted(ctx, 1, 20, RunGo); err != nil {
		t.Fatalf("Go against itself: %v", err)
	}
	// A reference that retries nothing: its build records lose every attempt after the first.
	once := func(ctx context.Context, s Script) (Trace, error) {
		tr, err := RunGo(ctx, s)
		for i := range tr.Steps {
			tr.Steps[i].Builds = slices.DeleteFunc(tr.Steps[i].Builds, func(b BuildRecord) bool { return b.Attempt > 1 })
		}
		return tr, err
	}
	err := DifferentialSorted(ctx, 1, seedsPerRun, once)
	var f *Failure
	if !errors.As(err, &f) || !strings.Contains(err.Error(), "seed "+strconv.FormatInt(f.Seed, 10)) || f.Script.Family == "" {
		t.Fatalf("DifferentialSorted = %v, want a *Failure naming a sorted seed", err)
	}
}
