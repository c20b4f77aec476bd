package differential

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
)

// maxLevel is the highest LSM level the generator uses.
const maxLevel = 4

// Generate returns the scenario of seed: a bucket restored from data files on levels 0..4
// (eligible compaction output, level-0 appends, upgraded appends, files without a source, and
// compaction output or files without a source on level 0) and
// from payloads that are current, stale, contested or corrupt; then appends, compactions moving
// files up (new files, re-levelled files, files that disappear, files re-added with other row
// counts, unknown names), waiting and non-waiting calls, builds that fail, complete with output
// the maintainer must reject, or finish only at the next step, and aborts. The same seed always
// yields the same script.
func Generate(seed int64) Script {
	g := &generator{
		r:     rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)),
		files: map[string]DataFile{},
	}
	g.next = 1 + g.r.IntN(12) // names cross a digit boundary (f9 < f10 is false in Java order)
	s := Script{Seed: seed, FieldID: 7}
	s.Restore = g.restore()
	n := 2 + g.r.IntN(13)
	var history []map[string]DataFile // model before each step, for aborts
	for i := range n {
		before := maps.Clone(g.files)
		if i > 0 && s.Steps[i-1].Op == OpPrepareCommit && g.chance(12) {
			s.Steps = append(s.Steps, Step{Op: OpAbort})
			g.files = maps.Clone(history[i-1]) // the aborted commit never happened
		} else {
			s.Steps = append(s.Steps, g.prepareCommit())
		}
		history = append(history, before)
	}
	return s
}

// generator holds the model of the bucket's live data files while a script is generated.
type generator struct {
	r     *rand.Rand
	next  int
	files map[string]DataFile
}

func (g *generator) chance(percent int) bool { return g.r.IntN(100) < percent }

func (g *generator) name() string {
	n := fmt.Sprintf("f%d", g.next)
	g.next++
	return n
}

func (g *generator) rows() int64 {
	if g.chance(10) {
		return 100 + g.r.Int64N(900)
	}
	return 1 + g.r.Int64N(5)
}

// newFile returns a new file on level: level 0 is mostly append output, higher levels are
// mostly compaction output; every file source occurs on both (Java's PrimaryKeyIndexSourcePolicy
// separates the six combinations: only COMPACT above level 0 is an index source).
func (g *generator) newFile(level int32) DataFile {
	f := DataFile{Name: g.name(), Level: level, Rows: g.rows(), Source: SourceCompact}
	switch {
	case level == 0:
		switch k := g.r.IntN(100); {
		case k < 10:
			// Compaction output on level 0: not an index source either.
		case k < 15:
			f.Source = SourceNone
		default:
			f.Source = SourceAppend
		}
	case g.chance(8):
		f.Source = SourceAppend // an upgraded append file: not an index source
	case g.chance(3):
		f.Source = SourceNone
	}
	return f
}

// eligible returns the model's index source files of level, in Java name order.
func (g *generator) eligible(level int32) []DataFile {
	var out []DataFile
	for _, f := range g.files {
		if f.Level == level && f.Level > 0 && f.Source == SourceCompact {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b DataFile) int { return javaio.CompareJava(a.Name, b.Name) })
	return out
}

func (g *generator) names() []string {
	names := slices.Collect(maps.Keys(g.files))
	slices.Sort(names)
	return names
}

func sources(files []DataFile) []SourceFile {
	out := make([]SourceFile, len(files))
	for i, f := range files {
		out[i] = SourceFile{Name: f.Name, Rows: f.Rows}
	}
	return out
}

func (g *generator) restore() Restore {
	var r Restore
	for range g.r.IntN(11) {
		level := int32(0)
		if !g.chance(30) {
			level = 1 + g.r.Int32N(maxLevel)
		}
		f := g.newFile(level)
		r.DataFiles = append(r.DataFiles, f)
		g.files[f.Name] = f
	}
	if len(r.DataFiles) > 0 && g.chance(3) {
		// The same name twice: the later entry wins on both sides.
		f := r.DataFiles[g.r.IntN(len(r.DataFiles))]
		f.Level = 1 + g.r.Int32N(maxLevel)
		f.Source = SourceCompact
		r.DataFiles = append(r.DataFiles, f)
		g.files[f.Name] = f
	}

	payloadName := func() string { return fmt.Sprintf("restored-%d", len(r.Payloads)+1) }
	for level := int32(1); level <= maxLevel; level++ {
		files := sources(g.eligible(level))
		if len(files) == 0 {
			if g.chance(10) {
				// A payload for a level that has no sources any more.
				r.Payloads = append(r.Payloads, Payload{Name: payloadName(), Level: level,
					Files: []SourceFile{{Name: g.name(), Rows: g.rows()}}})
			}
			continue
		}
		switch p := g.r.IntN(100); {
		case p < 55:
			r.Payloads = append(r.Payloads, Payload{Name: payloadName(), Level: level, Files: files})
		case p < 70:
			r.Payloads = append(r.Payloads, Payload{Name: payloadName(), Level: level, Files: g.staleFiles(files)})
		case p < 80:
			// Two candidates for one level: both stale.
			r.Payloads = append(r.Payloads, Payload{Name: payloadName(), Level: level, Files: files})
			r.Payloads = append(r.Payloads, Payload{Name: payloadName(), Level: level, Files: files})
		}
	}
	for range g.r.IntN(3) {
		if !g.chance(40) {
			continue
		}
		level := 1 + g.r.Int32N(maxLevel)
		files := sources(g.eligible(level))
		if len(files) == 0 {
			files = []SourceFile{{Name: g.name(), Rows: g.rows()}}
		}
		p := Payload{Name: payloadName(), Level: level, Files: files}
		switch {
		case g.chance(10):
			p.Level = -g.r.Int32N(2) // level 0 or -1: rejected on decode
		case g.chance(5):
			p.Files = nil // no files: rejected on decode
		default:
			p.Corrupt = append(p.Corrupt, corruptions[g.r.IntN(len(corruptions))])
			if g.chance(20) {
				p.Corrupt = append(p.Corrupt, corruptions[g.r.IntN(len(corruptions))])
			}
		}
		r.Payloads = append(r.Payloads, p)
	}
	g.r.Shuffle(len(r.Payloads), func(i, j int) { r.Payloads[i], r.Payloads[j] = r.Payloads[j], r.Payloads[i] })
	return r
}

// staleFiles returns a source list that no longer matches files: one missing, one extra, a
// changed row count, or the right files out of order.
func (g *generator) staleFiles(files []SourceFile) []SourceFile {
	out := slices.Clone(files)
	switch g.r.IntN(4) {
	case 0:
		if len(out) > 1 {
			i := g.r.IntN(len(out))
			return append(out[:i], out[i+1:]...)
		}
		fallthrough
	case 1:
		return append(out, SourceFile{Name: g.name(), Rows: g.rows()})
	case 2:
		out[g.r.IntN(len(out))].Rows++
		return out
	default:
		if len(out) < 2 {
			out[0].Rows += 2
			return out
		}
		slices.Reverse(out)
		return out
	}
}

func (g *generator) prepareCommit() Step {
	st := Step{Op: OpPrepareCommit, Wait: g.chance(50)}
	switch k := g.r.IntN(100); {
	case k < 28:
		g.appendFiles(&st)
	case k < 73:
		g.compact(&st)
	case k < 85:
		// Nothing changes: the call only keeps builds going.
	default:
		g.appendFiles(&st)
		g.compact(&st)
	}
	st.Builds = g.outcomes(st.Wait)
	return st
}

func (g *generator) appendFiles(st *Step) {
	for range 1 + g.r.IntN(3) {
		f := g.newFile(0)
		st.Append = append(st.Append, f)
		g.files[f.Name] = f
	}
	if g.chance(4) {
		// An index source in an append increment: rejected before anything changes.
		st.Append = append(st.Append, DataFile{Name: g.name(), Level: 1 + g.r.Int32N(maxLevel), Rows: g.rows(), Source: SourceCompact})
	}
}

// compact moves files up to a target level: it takes level-0 files and some files of levels up
// to the target, and writes new files there, re-levels some of the inputs, or writes nothing.
func (g *generator) compact(st *Step) {
	target := 1 + g.r.Int32N(maxLevel)
	var inputs []DataFile
	for _, name := range g.names() {
		f := g.files[name]
		if f.Level <= target && (f.Level == 0 || g.chance(45)) {
			inputs = append(inputs, f)
		}
	}
	for _, f := range inputs {
		st.CompactBefore = append(st.CompactBefore, f.Name)
	}
	switch k := g.r.IntN(100); {
	case k < 65:
		for range 1 + g.r.IntN(3) {
			st.CompactAfter = append(st.CompactAfter, g.newFile(target))
		}
	case k < 75:
		// Inputs disappear without output (e.g. everything was deleted).
	default:
		// Metadata-only upgrade: inputs keep their names on the target level; append files stay
		// append files (never index sources).
		for _, f := range inputs {
			if g.chance(60) {
				f.Level = target
				st.CompactAfter = append(st.CompactAfter, f)
			}
		}
		if g.chance(30) {
			st.CompactAfter = append(st.CompactAfter, g.newFile(target))
		}
	}
	if g.chance(8) {
		// A live file re-added with another row count.
		if names := g.names(); len(names) > 0 {
			f := g.files[names[g.r.IntN(len(names))]]
			f.Rows++
			st.CompactAfter = append(st.CompactAfter, f)
		}
	}
	if g.chance(4) {
		st.CompactBefore = append(st.CompactBefore, "ghost-"+g.name())
	}
	if g.chance(4) {
		st.CompactAfter = append(st.CompactAfter, g.newFile(0))
	}

	for _, name := range st.CompactBefore {
		delete(g.files, name)
	}
	for _, f := range st.CompactAfter {
		g.files[f.Name] = f
	}
}

// outcomes picks the build outcomes of a step; builds beyond the list succeed.
func (g *generator) outcomes(wait bool) []Outcome {
	if g.chance(40) {
		return nil
	}
	pick := func(weights map[Outcome]int) Outcome {
		total := 0
		for _, w := range weights {
			total += w
		}
		n := g.r.IntN(total)
		for _, o := range outcomes { // fixed order keeps the choice deterministic
			if n < weights[o] {
				return o
			}
			n -= weights[o]
		}
		return Succeed
	}
	if !wait {
		return []Outcome{pick(map[Outcome]int{Succeed: 35, Fail: 10, WrongField: 8, WrongRows: 7, FinishLater: 25, FailLater: 15})}
	}
	list := make([]Outcome, 1+g.r.IntN(3))
	for i := range list {
		list[i] = pick(map[Outcome]int{Succeed: 55, Fail: 20, WrongField: 12, WrongRows: 13})
	}
	return list
}
