package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// seedsPerRun is how many generated scenarios one go test run checks.
const seedsPerRun = 1000

// firstSeed is the first generated seed: PKFT_DIFFERENTIAL_SEED, or 1.
func firstSeed(t *testing.T) int64 {
	t.Helper()
	v := os.Getenv("PKFT_DIFFERENTIAL_SEED")
	if v == "" {
		return 1
	}
	seed, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("PKFT_DIFFERENTIAL_SEED=%q: %v", v, err)
	}
	return seed
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestInvariantsHoldOnGeneratedScenarios(t *testing.T) {
	first := firstSeed(t)
	t.Logf("seeds %d..%d (PKFT_DIFFERENTIAL_SEED moves them)", first, first+seedsPerRun-1)
	if err := CheckSeeds(testCtx(t), first, seedsPerRun); err != nil {
		t.Fatal(err)
	}
}

func TestGenerateIsDeterministicValidAndVaried(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(1); seed <= seedsPerRun; seed++ {
		s := Generate(seed)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: invalid script: %v\n%s", seed, err, s.JSON())
		}
		if seed <= 50 && s.JSON() != Generate(seed).JSON() {
			t.Fatalf("seed %d: two generations differ", seed)
		}
		for _, p := range s.Restore.Payloads {
			for _, c := range p.Corrupt {
				seen["corrupt:"+string(c)]++
			}
			if p.Level <= 0 {
				seen["payload level <= 0"]++
			}
		}
		for _, f := range s.Restore.DataFiles {
			seen["restore source:"+string(f.Source)]++
		}
		for i, st := range s.Steps {
			seen["op:"+string(st.Op)]++
			for _, o := range st.Builds {
				seen["outcome:"+string(o)]++
			}
			if st.HasCompactTransition() && len(st.Append) > 0 {
				seen["append and compact"]++
			}
			if st.HasCompactTransition() && len(st.CompactAfter) == 0 {
				seen["files disappear"]++
			}
			for _, f := range st.CompactAfter {
				if slices.Contains(st.CompactBefore, f.Name) {
					seen["re-levelled"]++
				}
			}
			for _, f := range st.Append {
				if eligible(f) {
					seen["eligible append"]++
				}
			}
			if st.Wait {
				seen["wait"]++
			}
			if st.Op == OpAbort && i > 0 {
				seen["abort"]++
			}
		}
	}
	want := []string{"abort", "append and compact", "files disappear", "re-levelled", "eligible append", "wait",
		"payload level <= 0", "restore source:APPEND", "restore source:COMPACT", "restore source:"}
	for _, c := range corruptions {
		want = append(want, "corrupt:"+string(c))
	}
	for _, o := range outcomes {
		want = append(want, "outcome:"+string(o))
	}
	for _, w := range want {
		if seen[w] < 3 {
			t.Errorf("%d seeds produce %q only %d times", seedsPerRun, w, seen[w])
		}
	}
}

// TestGenerateCoversEverySourceAndLevel counts, over the seeds a run checks, the data files of
// each combination of file source and level that Java's PrimaryKeyIndexSourcePolicy separates
// (APPEND, COMPACT or no source; level 0 or above): every one must occur among the restored
// files and in the steps' increments, so that a maintainer deciding any of them differently from
// Java (a COMPACT file on level 0 taken for an index source, say) meets it.
func TestGenerateCoversEverySourceAndLevel(t *testing.T) {
	type combo struct {
		source Source
		above0 bool
	}
	restored, stepped := map[combo]int{}, map[combo]int{}
	for seed := int64(1); seed <= seedsPerRun; seed++ {
		s := Generate(seed)
		for _, f := range s.Restore.DataFiles {
			restored[combo{f.Source, f.Level > 0}]++
		}
		for _, st := range s.Steps {
			for _, f := range slices.Concat(st.Append, st.CompactAfter) {
				stepped[combo{f.Source, f.Level > 0}]++
			}
		}
	}
	for _, src := range []Source{SourceAppend, SourceCompact, SourceNone} {
		for _, above0 := range []bool{false, true} {
			c := combo{src, above0}
			name := fmt.Sprintf("source %q on level %s", src, map[bool]string{false: "0", true: "> 0"}[above0])
			t.Logf("%s: %d restored, %d in increments", name, restored[c], stepped[c])
			if restored[c] < 10 || stepped[c] < 10 {
				t.Errorf("%d seeds generate %s %d times among restored files and %d times in increments, want 10 or more of each",
					seedsPerRun, name, restored[c], stepped[c])
			}
		}
	}
}

func TestValidateRejectsScriptsTheRunnersCannotAgreeOn(t *testing.T) {
	ok := Script{FieldID: 7, Steps: []Step{{Op: OpPrepareCommit, Wait: true}}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid script rejected: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(*Script)
		want   string
	}{
		{"later outcome in a waiting step", func(s *Script) { s.Steps[0].Builds = []Outcome{FinishLater} }, "in a waiting step"},
		{"unknown outcome", func(s *Script) { s.Steps[0].Builds = []Outcome{"maybe"} }, "unknown build outcome"},
		{"unknown op", func(s *Script) { s.Steps[0].Op = "flush" }, "unknown op"},
		{"abort with arguments", func(s *Script) { s.Steps = append(s.Steps, Step{Op: OpAbort, Wait: true}) }, "abort takes no arguments"},
		{"builder prefix", func(s *Script) { s.Restore.Payloads = []Payload{{Name: "ft-L1-x-1", Level: 1}} }, "builder's prefix"},
		{"repeated payload name", func(s *Script) {
			s.Restore.Payloads = []Payload{{Name: "p", Level: 1}, {Name: "p", Level: 2}}
		}, "repeated"},
		{"unknown corruption", func(s *Script) {
			s.Restore.Payloads = []Payload{{Name: "p", Level: 1, Corrupt: []Corruption{"bitrot"}}}
		}, "unknown corruption"},
		{"unknown source", func(s *Script) {
			s.Restore.DataFiles = []DataFile{{Name: "f", Level: 1, Rows: 1, Source: "FLUSH"}}
		}, "unknown source"},
		{"negative rows", func(s *Script) { s.Steps[0].CompactAfter = []DataFile{{Name: "f", Level: 1, Rows: -1}} }, "negative rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			s.Steps = slices.Clone(ok.Steps)
			tt.mutate(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
			if _, err := RunGo(testCtx(t), s); err == nil {
				t.Fatal("RunGo accepted an invalid script")
			}
		})
	}
}

func TestBuildKeyIsTheDocumentedVector(t *testing.T) {
	// sha1("f1:3\nf2:4\n") = 101e90a9..., the vector the Java runner's builder must reproduce.
	if got := buildKey([]SourceFile{{"f1", 3}, {"f2", 4}}, 2); got != "ft-L2-101e90a9" {
		t.Fatalf("key = %s", got)
	}
}

// Helpers for hand-written scripts.
func compactFile(name string, level int32, rows int64) DataFile {
	return DataFile{Name: name, Level: level, Rows: rows, Source: SourceCompact}
}

func archive(level int32, attempt int, files ...DataFile) string {
	return buildKey(sources(files), level) + "-" + strconv.Itoa(attempt)
}

func record(outcome Outcome, attempt int, files ...DataFile) BuildRecord {
	r := BuildRecord{Key: buildKey(sources(files), files[0].Level), Level: files[0].Level, Files: sources(files), Outcome: outcome}
	if outcome.generates() {
		r.Name = archive(files[0].Level, attempt, files...)
	}
	return r
}

func TestRunGoTracesWhatTheMaintainerDecides(t *testing.T) {
	old, fresh, data := compactFile("old", 1, 1), compactFile("new", 1, 1), compactFile("data", 1, 1)
	restoredOld := Restore{DataFiles: []DataFile{old}, Payloads: []Payload{{Name: "restored-1", Level: 1, Files: sources([]DataFile{old})}}}
	onlyData := Restore{DataFiles: []DataFile{data}}
	idle := func(active ...DataFile) State {
		return State{Current: []PayloadRef{}, Retired: []string{}, Active: append([]DataFile{}, active...)}
	}
	current := func(name string, active ...DataFile) State {
		s := idle(active...)
		s.Current = []PayloadRef{{Name: name, Level: 1}}
		return s
	}
	pending := func(s State) State { s.BuildPending = true; return s }

	tests := []struct {
		name   string
		script Script
		want   Trace
	}{{
		name: "compaction replaces the archive in the compact increment",
		script: Script{Restore: restoredOld, Steps: []Step{
			{Op: OpPrepareCommit, CompactBefore: []string{"old"}, CompactAfter: []DataFile{fresh}, Wait: true},
		}},
		want: Trace{
			Restored: current("restored-1", old),
			Steps: []StepTrace{{
				Op:      OpPrepareCommit,
				Compact: &Increment{New: []string{archive(1, 1, fresh)}, Deleted: []string{"restored-1"}},
				Builds:  []BuildRecord{record(Succeed, 1, fresh)},
				State:   current(archive(1, 1, fresh), fresh),
			}},
		},
	}, {
		name: "a build left for later is published by the next call's append increment",
		script: Script{Steps: []Step{
			{Op: OpPrepareCommit, CompactAfter: []DataFile{data}, Builds: []Outcome{FinishLater}},
			{Op: OpPrepareCommit, Wait: true},
		}},
		want: Trace{
			Restored: idle(),
			Steps: []StepTrace{{
				Op:    OpPrepareCommit,
				State: pending(idle(data)),
			}, {
				Op:     OpPrepareCommit,
				Append: &Increment{New: []string{archive(1, 1, data)}, Deleted: []string{}},
				Builds: []BuildRecord{record(FinishLater, 1, data)},
				State:  current(archive(1, 1, data), data),
			}},
		},
	}, {
		name: "abort restores the state and deletes the generated archive",
		script: Script{Steps: []Step{
			{Op: OpPrepareCommit, CompactAfter: []DataFile{data}, Wait: true},
			{Op: OpAbort},
			{Op: OpAbort},
		}},
		want: Trace{
			Restored: idle(),
			Steps: []StepTrace{{
				Op:      OpPrepareCommit,
				Compact: &Increment{New: []string{archive(1, 1, data)}, Deleted: []string{}},
				Builds:  []BuildRecord{record(Succeed, 1, data)},
				State:   current(archive(1, 1, data), data),
			}, {
				Op:      OpAbort,
				Deleted: []string{archive(1, 1, data)},
				State:   idle(),
			}, {
				Op:      OpAbort,
				Skipped: true,
				State:   idle(),
			}},
		},
	}, {
		name: "a failed build fails the call and is planned again by the next",
		script: Script{Restore: onlyData, Steps: []Step{
			{Op: OpPrepareCommit, Wait: true, Builds: []Outcome{Fail}},
			{Op: OpPrepareCommit, Wait: true},
		}},
		want: Trace{
			Restored: idle(data),
			Steps: []StepTrace{{
				Op:     OpPrepareCommit,
				Error:  ErrClassBuildFailed,
				Builds: []BuildRecord{record(Fail, 0, data)},
				State:  idle(data),
			}, {
				Op:     OpPrepareCommit,
				Append: &Increment{New: []string{archive(1, 1, data)}, Deleted: []string{}},
				Builds: []BuildRecord{record(Succeed, 1, data)},
				State:  current(archive(1, 1, data), data),
			}},
		},
	}, {
		name: "a rejected output is deleted and rebuilt while the call waits",
		script: Script{Restore: onlyData, Steps: []Step{
			{Op: OpPrepareCommit, Wait: true, Builds: []Outcome{WrongField, WrongRows}},
		}},
		want: Trace{
			Restored: idle(data),
			Steps: []StepTrace{{
				Op:      OpPrepareCommit,
				Append:  &Increment{New: []string{archive(1, 3, data)}, Deleted: []string{}},
				Builds:  []BuildRecord{record(WrongField, 1, data), record(WrongRows, 2, data), record(Succeed, 3, data)},
				Deleted: []string{archive(1, 1, data), archive(1, 2, data)},
				State:   current(archive(1, 3, data), data),
			}},
		},
	}, {
		name: "an index source in the append increment is rejected before anything changes",
		script: Script{Restore: onlyData, Steps: []Step{
			{Op: OpPrepareCommit, Append: []DataFile{compactFile("sneaky", 2, 1)}, Wait: true},
		}},
		want: Trace{
			Restored: idle(data),
			Steps:    []StepTrace{{Op: OpPrepareCommit, Error: ErrClassInvalidAppend, State: idle(data)}},
		},
	}, {
		name: "close deletes the output of the pending build",
		script: Script{Restore: onlyData, Steps: []Step{
			{Op: OpPrepareCommit, Builds: []Outcome{FinishLater}},
		}},
		want: Trace{
			Restored: idle(data),
			Steps:    []StepTrace{{Op: OpPrepareCommit, State: pending(idle(data))}},
			Close:    CloseTrace{Builds: []BuildRecord{record(FinishLater, 1, data)}, Deleted: []string{archive(1, 1, data)}},
		},
	}, {
		name: "stale restored payloads leave with the first commit",
		script: Script{
			FieldID: 7,
			Restore: Restore{DataFiles: []DataFile{old}, Payloads: []Payload{
				{Name: "restored-1", Level: 1, Files: sources([]DataFile{old})},
				{Name: "restored-2", Level: 1, Files: sources([]DataFile{old}), Corrupt: []Corruption{CorruptRowCount}},
				{Name: "restored-3", Level: 2, Files: sources([]DataFile{old}), Corrupt: []Corruption{CorruptDuplicate}},
				{Name: "restored-4", Level: 1, Files: sources([]DataFile{old}), Corrupt: []Corruption{CorruptNoGlobalMeta}},
				// Once the source meta is null, trailingBytes leaves it null: ignored, not stale.
				{Name: "restored-5", Level: 1, Files: sources([]DataFile{old}),
					Corrupt: []Corruption{CorruptOtherFieldNoMeta, CorruptTrailingBytes}},
				{Name: "restored-6", Level: 1, Files: sources([]DataFile{old}),
					Corrupt: []Corruption{CorruptTrailingBytes, CorruptOtherField}},
			}},
			Steps: []Step{{Op: OpPrepareCommit}},
		},
		want: Trace{
			Restored: func() State {
				s := current("restored-1", old)
				s.Retired = []string{"restored-2", "restored-3", "restored-3", "restored-6"}
				return s
			}(),
			Steps: []StepTrace{{
				Op:     OpPrepareCommit,
				Append: &Increment{New: []string{}, Deleted: []string{"restored-2", "restored-3", "restored-3", "restored-6"}},
				State:  current("restored-1", old),
			}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.script.FieldID == 0 {
				tt.script.FieldID = 7
			}
			got, err := RunGo(testCtx(t), tt.script)
			if err != nil {
				t.Fatal(err)
			}
			if d := Diff(tt.want, got); d != "" {
				t.Fatalf("trace (-want +got):\n%s", d)
			}
			if err := Check(tt.script, got); err != nil {
				t.Fatalf("invariants: %v", err)
			}
		})
	}
}

func TestTraceJSONKeepsAbsentAndEmptyIncrementsApart(t *testing.T) {
	s := Generate(7)
	tr, err := RunGo(testCtx(t), s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back Trace
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tr, back); d != "" {
		t.Fatalf("JSON round trip (-before +after):\n%s", d)
	}
	var withEmpty, withNull Trace
	if err := json.Unmarshal([]byte(`{"steps":[{"op":"prepareCommit","append":{"new":[],"deleted":[]},"compact":null}]}`), &withEmpty); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"steps":[{"op":"prepareCommit","append":null,"compact":null}]}`), &withNull); err != nil {
		t.Fatal(err)
	}
	if Diff(withEmpty, withNull) == "" {
		t.Fatal("an empty increment compares equal to an absent one")
	}
	withNull.Steps[0].Message = "java.lang.RuntimeException: whatever"
	var bare Trace
	_ = json.Unmarshal([]byte(`{"steps":[{"op":"prepareCommit"}]}`), &bare)
	if d := Diff(bare, withNull); d != "" {
		t.Fatalf("messages or empty lists compared: %s", d)
	}
}

// findStep returns a generated scenario, its Go trace and the index of the first step pred
// accepts.
func findStep(t *testing.T, what string, pred func(Script, Trace, int) bool) (Script, Trace, int) {
	t.Helper()
	for seed := int64(1); seed <= seedsPerRun; seed++ {
		s := Generate(seed)
		tr, err := RunGo(testCtx(t), s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tr.Steps {
			if pred(s, tr, i) {
				return s, tr, i
			}
		}
	}
	t.Fatalf("no generated scenario has %s", what)
	return Script{}, Trace{}, 0
}

func TestCheckCatchesBrokenTraces(t *testing.T) {
	ok := func(tr Trace, i int) bool { return tr.Steps[i].Error == "" && !tr.Steps[i].Skipped }
	tests := []struct {
		name    string
		find    func(Script, Trace, int) bool
		breakIt func(*Trace, int)
		want    string
	}{{
		name: "compact changes routed to append",
		find: func(s Script, tr Trace, i int) bool { return ok(tr, i) && tr.Steps[i].Compact != nil },
		breakIt: func(tr *Trace, i int) {
			tr.Steps[i].Append, tr.Steps[i].Compact = tr.Steps[i].Compact, nil
		},
		want: "append increment",
	}, {
		name: "empty increment present",
		find: func(s Script, tr Trace, i int) bool {
			return ok(tr, i) && s.Steps[i].Op == OpPrepareCommit && !s.Steps[i].HasCompactTransition() && tr.Steps[i].Append == nil
		},
		breakIt: func(tr *Trace, i int) { tr.Steps[i].Append = &Increment{} },
		want:    "empty append increment present",
	}, {
		name:    "generated archive never deleted",
		find:    func(s Script, tr Trace, i int) bool { return len(tr.Steps[i].Deleted) > 0 },
		breakIt: func(tr *Trace, i int) { tr.Steps[i].Deleted = tr.Steps[i].Deleted[1:] },
		want:    "neither deleted nor handed out",
	}, {
		name:    "generated archive deleted twice",
		find:    func(s Script, tr Trace, i int) bool { return len(tr.Steps[i].Deleted) > 0 },
		breakIt: func(tr *Trace, i int) { tr.Steps[i].Deleted = append(tr.Steps[i].Deleted, tr.Steps[i].Deleted[0]) },
		want:    "2 times",
	}, {
		name: "abort that does not restore",
		find: func(s Script, tr Trace, i int) bool { return s.Steps[i].Op == OpAbort && !tr.Steps[i].Skipped },
		breakIt: func(tr *Trace, i int) {
			tr.Steps[i].State.Retired = append(tr.Steps[i].State.Retired, "restored-99")
		},
		want: "want the state before the aborted call",
	}, {
		name: "nothing pending while a level is stale",
		find: func(s Script, tr Trace, i int) bool {
			return ok(tr, i) && s.Steps[i].Op == OpPrepareCommit && tr.Steps[i].State.BuildPending
		},
		breakIt: func(tr *Trace, i int) { tr.Steps[i].State.BuildPending = false },
		want:    "needs work",
	}, {
		name: "two payloads on one level",
		find: func(s Script, tr Trace, i int) bool { return len(tr.Steps[i].State.Current) > 0 },
		breakIt: func(tr *Trace, i int) {
			tr.Steps[i].State.Current = append(tr.Steps[i].State.Current, tr.Steps[i].State.Current[0])
		},
		want: "two current payloads on level",
	}, {
		name: "active files that ignore the compaction",
		find: func(s Script, tr Trace, i int) bool {
			return ok(tr, i) && len(s.Steps[i].CompactAfter) > 0 && len(tr.Steps[i].State.Active) > 0
		},
		breakIt: func(tr *Trace, i int) {
			tr.Steps[i].State.Active = tr.Steps[i].State.Active[1:]
		},
		want: "active files",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, tr, i := findStep(t, tt.name, tt.find)
			if err := Check(s, tr); err != nil {
				t.Fatalf("seed %d: the unbroken trace fails: %v", s.Seed, err)
			}
			tt.breakIt(&tr, i)
			err := Check(s, tr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("seed %d step %d: Check = %v, want an error containing %q", s.Seed, i, err, tt.want)
			}
		})
	}
	t.Run("pending output left behind by close", func(t *testing.T) {
		s, tr, _ := findStep(t, "a close that deletes", func(s Script, tr Trace, i int) bool {
			return i == len(tr.Steps)-1 && len(tr.Close.Deleted) > 0
		})
		tr.Close.Deleted = nil
		if err := Check(s, tr); err == nil || !strings.Contains(err.Error(), "after close") {
			t.Fatalf("seed %d: Check = %v", s.Seed, err)
		}
	})
}

func TestDifferentialReportsTheSeedAndScriptOfADivergence(t *testing.T) {
	ctx := testCtx(t)
	if err := Differential(ctx, 1, 20, RunGo); err != nil {
		t.Fatalf("Go against itself: %v", err)
	}
	lying := func(ctx context.Context, s Script) (Trace, error) {
		tr, err := RunGo(ctx, s)
		for i := range tr.Steps {
			if tr.Steps[i].Compact != nil {
				tr.Steps[i].Append, tr.Steps[i].Compact = tr.Steps[i].Compact, nil
			}
		}
		return tr, err
	}
	err := Differential(ctx, 1, seedsPerRun, lying)
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Differential = %v, want a *Failure", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "seed "+strconv.FormatInt(f.Seed, 10)) ||
		!strings.Contains(msg, `"steps"`) || !strings.Contains(msg, "traces differ") {
		t.Fatalf("failure message lacks the seed, the script or the diff:\n%s", msg)
	}
}
