package pickdiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// Unit is a picked compaction unit in the runner's JSON form.
type Unit struct {
	OutputLevel int32    `json:"outputLevel"`
	Files       []string `json:"files"`
	FileRewrite bool     `json:"fileRewrite"`
}

// Task is the compaction the bucket's compact manager starts from a pick: a file rewrite or a
// merge, its output level, whether it drops deletes, and its files by name, sorted.
type Task struct {
	FileRewrite bool     `json:"fileRewrite"`
	OutputLevel int32    `json:"outputLevel"`
	DropDelete  bool     `json:"dropDelete"`
	Files       []string `json:"files"`
}

// StepResult is one pick: the clock it saw, the unit picked (nil: none) and the task the
// manager started (nil: none), or the failure.
type StepResult struct {
	Millis      int64 `json:"millis"`
	Hour        int32 `json:"hour"`
	HourChanged bool  `json:"hourChanged"`
	Unit        *Unit `json:"unit"`
	Task        *Task `json:"task"`
	// Runs are the levels after an update step.
	Runs  []RunNames `json:"runs"`
	Error string     `json:"error"`
}

// LayoutResult is one layout's outcome: the strategy chosen and the options it resolved, and
// every step's pick, or the failure that stopped it before the first pick.
type LayoutResult struct {
	Error              string       `json:"error"`
	Strategy           string       `json:"strategy"`
	MaxCompactInterval *int32       `json:"maxCompactInterval"`
	NumLevels          int32        `json:"numLevels"`
	NeedLookup         bool         `json:"needLookup"`
	WriteOnly          bool         `json:"writeOnly"`
	ForceRewrite       bool         `json:"forceRewriteAllFiles"`
	StopTrigger        int32        `json:"stopTrigger"`
	Steps              []StepResult `json:"steps"`
}

// Result is the runner's pick result for a batch of layouts.
type Result struct {
	Zone    string         `json:"zone"`
	Layouts []LayoutResult `json:"layouts"`
}

// Stats count what a batch exercised, so that a generator gone blind shows.
type Stats struct {
	Layouts, OptionErrors, Steps, StepErrors, Units, None, FileRewrites, ForceUp, Gentle, Tasks, DropDeletes, Filtered, Updates int
}

// Go runs a layout on Go's mergetree with the clocks and zone Java's picks saw, in the runner's
// result form.
func Go(l Layout, java LayoutResult, loc *time.Location) LayoutResult {
	return Run(l, loc, func(step int) mergetree.Clock {
		if step < len(java.Steps) {
			return mergetree.Clock{UnixMilli: java.Steps[step].Millis, Hour: java.Steps[step].Hour}
		}
		return mergetree.Clock{}
	})
}

// Run runs a layout on Go's mergetree, in the runner's result form, as the Go runner's pick
// command does: creation times are wall clocks of loc, and clock gives the clock of step i, read
// once just before its pick and once after it (a different hour then sets HourChanged).
func Run(l Layout, loc *time.Location, clock func(step int) mergetree.Clock) LayoutResult {
	var res LayoutResult
	o, err := mergetree.ParseOptions(l.Options)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.NumLevels, res.NeedLookup, res.WriteOnly = o.NumLevels, o.NeedLookup, o.WriteOnly
	res.ForceRewrite, res.StopTrigger = o.ForceRewriteAllFiles, o.NumSortedRunStopTrigger
	strategy := mergetree.NewStrategy(o, metas(l.Restored), loc)
	switch s := strategy.(type) {
	case *mergetree.Universal:
		res.Strategy = "UniversalCompaction"
	case *mergetree.ForceUpLevel0:
		res.Strategy = "ForceUpLevel0Compaction"
		res.MaxCompactInterval = s.MaxInterval()
	}
	var kept *mergetree.Levels
	for i, step := range l.Steps {
		c := clock(i)
		sr := StepResult{Millis: c.UnixMilli, Hour: c.Hour}
		runStep(&sr, l, step, o, strategy, &kept, c)
		sr.HourChanged = clock(i).Hour != c.Hour
		res.Steps = append(res.Steps, sr)
	}
	return res
}

// runStep makes one step of l into sr: an update of the kept levels, or a pick from the step's
// levels (the kept ones of a persistent layout after its first step).
func runStep(sr *StepResult, l Layout, step Step, o mergetree.Options, strategy mergetree.Strategy, kept **mergetree.Levels, c mergetree.Clock) {
	if step.Mode == "update" {
		if err := update(*kept, step); err != nil {
			sr.Error = err.Error()
		} else {
			sr.Runs = runNames(*kept)
		}
		return
	}
	levels := *kept
	if !l.Persistent || levels == nil {
		var err error
		if levels, err = mergetree.NewLevels(bytes.Compare, metas(step.Files), o.NumLevels); err != nil {
			sr.Error = err.Error()
			return
		}
	}
	if l.Persistent {
		*kept = levels
	}
	unit, task, err := pickStep(o, strategy, levels, step, c)
	if err != nil {
		sr.Error = err.Error()
		return
	}
	sr.Unit, sr.Task = unit, task
}

func update(l *mergetree.Levels, step Step) error {
	if l == nil {
		return errors.New("no levels to update")
	}
	return l.Update(metas(step.Before), metas(step.After))
}

// RunNames is one sorted run by its level and file names.
type RunNames struct {
	Level int32    `json:"level"`
	Files []string `json:"files"`
}

func runNames(l *mergetree.Levels) []RunNames {
	out := []RunNames{}
	for _, r := range l.LevelSortedRuns() {
		out = append(out, RunNames{Level: r.Level, Files: names(r.Run.Files)})
	}
	return out
}

// recording is a strategy that keeps what the strategy under it picked.
type recording struct {
	s      mergetree.Strategy
	picked []*mergetree.CompactUnit
}

func (r *recording) Pick(c mergetree.Clock, numLevels int32, runs []mergetree.LevelSortedRun) (*mergetree.CompactUnit, error) {
	u, err := r.s.Pick(c, numLevels, runs)
	r.picked = append(r.picked, u)
	return u, err
}

// pickStep is one step as the runner makes it: the unit the strategy (or the full pick)
// chose, then the decision of the bucket's compact manager over the same pick.
func pickStep(o mergetree.Options, s mergetree.Strategy, levels *mergetree.Levels, step Step, c mergetree.Clock) (*Unit, *Task, error) {
	var hasDV func(string) bool
	if step.DeletionVectors != nil {
		hasDV = func(name string) bool { return slices.Contains(step.DeletionVectors, name) }
	}
	full := step.Mode == "full"
	var picked *mergetree.CompactUnit
	if full {
		picked = mergetree.PickFullCompaction(levels.NumberOfLevels(), levels.LevelSortedRuns(), nil, hasDV, o.ForceRewriteAllFiles)
	}
	rec := &recording{s: s}
	decided, dropDelete, err := mergetree.TriggerCompaction(c, rec, levels, full, o, hasDV, nil)
	if err != nil {
		return nil, nil, err
	}
	if !full && len(rec.picked) > 0 {
		picked = rec.picked[0]
	}
	var unit *Unit
	if picked != nil {
		unit = &Unit{OutputLevel: picked.OutputLevel, Files: names(picked.Files), FileRewrite: picked.FileRewrite}
	}
	var task *Task
	if decided != nil {
		task = &Task{FileRewrite: decided.FileRewrite, OutputLevel: decided.OutputLevel, DropDelete: dropDelete, Files: names(decided.Files)}
		slices.Sort(task.Files)
	}
	return unit, task, nil
}

func names(files []*meta.DataFileMeta) []string {
	out := []string{}
	for _, f := range files {
		out = append(out, f.FileName)
	}
	return out
}

func metas(files []File) []*meta.DataFileMeta {
	out := make([]*meta.DataFileMeta, len(files))
	for i, f := range files {
		creation := f.Creation
		out[i] = &meta.DataFileMeta{FileName: f.Name, FileSize: f.Size, RowCount: 1, Level: f.Level,
			MinSequenceNumber: f.MinSeq, MaxSequenceNumber: f.MaxSeq, CreationTime: &creation,
			MinKey: EncodeKey(f.MinKey), MaxKey: EncodeKey(f.MaxKey)}
	}
	return out
}

// Compare checks Go's outcome of a layout against Java's: the same failure or none before the
// first pick, the same strategy and resolved options, and at every step the same unit (output
// level, files in order, rewrite flag), the same "none", or both failing. Failure messages are
// not compared (Java's are exception texts).
func Compare(l Layout, java, goRes LayoutResult, st *Stats) error {
	st.Layouts++
	if (java.Error != "") != (goRes.Error != "") {
		return fmt.Errorf("options: Java error %q, Go error %q", java.Error, goRes.Error)
	}
	if java.Error != "" {
		st.OptionErrors++
		return nil
	}
	type resolved struct {
		Strategy           string
		MaxCompactInterval *int32
		NumLevels          int32
		NeedLookup         bool
		WriteOnly          bool
		ForceRewrite       bool
		StopTrigger        int32
	}
	jr := resolved{java.Strategy, java.MaxCompactInterval, java.NumLevels, java.NeedLookup, java.WriteOnly, java.ForceRewrite, java.StopTrigger}
	gr := resolved{goRes.Strategy, goRes.MaxCompactInterval, goRes.NumLevels, goRes.NeedLookup, goRes.WriteOnly, goRes.ForceRewrite, goRes.StopTrigger}
	if jr.Strategy != gr.Strategy || !eqPtr(jr.MaxCompactInterval, gr.MaxCompactInterval) || jr.NumLevels != gr.NumLevels ||
		jr.NeedLookup != gr.NeedLookup || jr.WriteOnly != gr.WriteOnly || jr.ForceRewrite != gr.ForceRewrite || jr.StopTrigger != gr.StopTrigger {
		return fmt.Errorf("strategy and options: Java %s, Go %s", show(jr), show(gr))
	}
	if jr.Strategy == "ForceUpLevel0Compaction" {
		st.ForceUp++
		if jr.MaxCompactInterval != nil {
			st.Gentle++
		}
	}
	if len(java.Steps) != len(l.Steps) || len(goRes.Steps) != len(l.Steps) {
		return fmt.Errorf("%d steps, Java answered %d, Go %d", len(l.Steps), len(java.Steps), len(goRes.Steps))
	}
	for i := range l.Steps {
		j, g := java.Steps[i], goRes.Steps[i]
		st.Steps++
		if (j.Error != "") != (g.Error != "") {
			return fmt.Errorf("step %d (%s): Java error %q, Go error %q, Go unit %s", i, l.Steps[i].Mode, j.Error, g.Error, show(g.Unit))
		}
		if j.Error != "" {
			st.StepErrors++
			continue
		}
		if !eqUnit(j.Unit, g.Unit) {
			return fmt.Errorf("step %d (%s, clock %d ms, hour %d): Java unit %s, Go unit %s", i, l.Steps[i].Mode, j.Millis, j.Hour, show(j.Unit), show(g.Unit))
		}
		if l.Steps[i].Mode == "update" {
			st.Updates++
			if !slices.EqualFunc(j.Runs, g.Runs, func(a, b RunNames) bool { return a.Level == b.Level && slices.Equal(a.Files, b.Files) }) {
				return fmt.Errorf("step %d (update): Java's levels %s, Go's %s", i, show(j.Runs), show(g.Runs))
			}
			continue
		}
		if !eqTask(j.Task, g.Task) {
			return fmt.Errorf("step %d (%s): Java's compact manager started %s, Go's decision %s (unit %s)", i, l.Steps[i].Mode, show(j.Task), show(g.Task), show(j.Unit))
		}
		if j.Unit != nil && j.Task == nil {
			st.Filtered++
		}
		if j.Task != nil {
			st.Tasks++
			if j.Task.DropDelete {
				st.DropDeletes++
			}
		}
		switch {
		case j.Unit == nil:
			st.None++
		case j.Unit.FileRewrite:
			st.FileRewrites++
			st.Units++
		default:
			st.Units++
		}
	}
	return nil
}

func eqTask(a, b *Task) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.FileRewrite == b.FileRewrite && a.OutputLevel == b.OutputLevel && a.DropDelete == b.DropDelete && slices.Equal(a.Files, b.Files)
}

func eqPtr(a, b *int32) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func eqUnit(a, b *Unit) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.OutputLevel == b.OutputLevel && a.FileRewrite == b.FileRewrite && slices.Equal(a.Files, b.Files)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Describe prints a layout for a divergence report.
func Describe(l Layout) string {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Sprint(l)
	}
	return string(b)
}
