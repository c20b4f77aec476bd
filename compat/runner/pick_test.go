package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/paimon-pkft/pkft/compat/internal/pickdiff"
)

// pickSeeds is how many generated level layouts compaction/pick-differential checks.
const pickSeeds = 1000

// pickBatch is how many layouts go to each runner in one request.
const pickBatch = 250

// casesPick registers compaction/pick-differential (go->java) for every implementation taking the
// compactor role: 1,000 seeded level layouts picked by Paimon's own strategies in the Java runner
// (command pick) and by the implementation's runner (command pick; Go's serves internal/mergetree
// on its own clock); every step must give the same unit or none, and the same compaction
// started by the bucket's compact manager (Java's MergeTreeCompactManager, Go's
// TriggerCompaction). PKFT_PICK_DIFF_SEED sets the first seed (default 1); a divergence prints
// the seed and the layout.
func casesPick(ct *caseTable) {
	first := seedFromEnv(ct, "PKFT_PICK_DIFF_SEED")
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Compactor) {
		ct.add(caseRow{Name: "compaction/pick-differential", Direction: as(impl, "go->java"), Doc: docCompactionPickDifferential,
			Sides: []caseSide{side(impl, Compactor), side("java", Compactor)},
			Uses:  []caseUse{ownJava(errors.New("the Java runner has no pick command: rebuild it with make runner"), "pick"), runnerOf(runners, impl, "pick")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				p, picker := ce.runner("java"), ce.runner(impl)
				if err := pickDifferential(ctx, p, picker, first, pickSeeds); err != nil || os.Getenv("PKFT_PICK_DIFF_SEED") != "" {
					return err
				}
				// The rotating share (rotate_test.go): as many layouts as the fixed ones, which the
				// differential's coverage checks are calibrated for (a few seconds).
				if err := pickDifferential(ctx, p, picker, int64(rotateSeed), pickSeeds); err != nil {
					return fmt.Errorf("rotating seeds (%s=%d): %w", rotateSeedEnv, rotateSeed, err)
				}
				return nil
			}})
	}
}

// pickDifferential checks seeds [first, first+n) of the pick differential: java is the Java
// runner, picker the runner under test.
func pickDifferential(ctx context.Context, java, picker *Process, first int64, n int) error {
	var st pickdiff.Stats
	for lo := first; lo < first+int64(n); lo += pickBatch {
		hi := min(lo+pickBatch, first+int64(n))
		if err := pickBatchOnce(ctx, java, picker, lo, hi, &st); err != nil {
			return err
		}
	}
	// The generator must keep exercising every branch; a corpus that stopped doing so proves
	// nothing.
	for what, c := range map[string][2]int{
		"picked units":                 {st.Units, n / 2},
		"steps picking nothing":        {st.None, n / 10},
		"file rewrites":                {st.FileRewrites, 10},
		"failing steps":                {st.StepErrors, 5},
		"refused options":              {st.OptionErrors, 5},
		"ForceUpLevel0 strategies":     {st.ForceUp, n / 5},
		"gentle max intervals":         {st.Gentle, n / 20},
		"compactions started":          {st.Tasks, n / 2},
		"compactions dropping deletes": {st.DropDeletes, n / 5},
		"compactions keeping deletes":  {st.Tasks - st.DropDeletes, n / 20},
		"level updates":                {st.Updates, n / 2},
		"picks the manager drops":      {st.Filtered, 10},
	} {
		if c[0] < c[1] {
			return fmt.Errorf("seeds %d..%d exercised only %d %s (want at least %d): %+v", first, first+int64(n)-1, c[0], what, c[1], st)
		}
	}
	return nil
}

// pickBatchOnce checks seeds [lo, hi) in one request to each runner, both at once. Each picks on
// its own clock; when the hour turned during a pick of either (its off-peak ratio may then have
// changed within the pick) or the two saw different hours at one step, the batch runs again.
// Hours that differ again mean the runners' zones differ: a failure naming both.
func pickBatchOnce(ctx context.Context, java, picker *Process, lo, hi int64, st *pickdiff.Stats) error {
	for attempt := 0; ; attempt++ {
		now := time.Now()
		layouts := make([]pickdiff.Layout, 0, hi-lo)
		for seed := lo; seed < hi; seed++ {
			layouts = append(layouts, pickdiff.Generate(seed, now))
		}
		// Encoded once for both runners.
		raw, err := json.Marshal(layouts)
		if err != nil {
			return err
		}
		args := struct {
			Layouts json.RawMessage `json:"layouts"`
		}{raw}
		var jres, gres pickdiff.Result
		done := make(chan error, 1)
		go func() { done <- picker.Call(ctx, "pick", args, &gres) }()
		jerr := java.Call(ctx, "pick", args, &jres)
		gerr := <-done
		if jerr != nil {
			return fmt.Errorf("pick (seeds %d..%d): %w", lo, hi-1, jerr)
		}
		if gerr != nil {
			return fmt.Errorf("%s pick (seeds %d..%d): %w", picker.Name(), lo, hi-1, gerr)
		}
		for who, res := range map[string]pickdiff.Result{"Java": jres, picker.Name(): gres} {
			if len(res.Layouts) != len(layouts) {
				return fmt.Errorf("%s pick: %d layouts answered for %d", who, len(res.Layouts), len(layouts))
			}
		}
		changed, apart := false, ""
		for i, l := range jres.Layouts {
			g := gres.Layouts[i]
			for j, s := range l.Steps {
				changed = changed || s.HourChanged
				if j < len(g.Steps) && s.Hour != g.Steps[j].Hour && apart == "" {
					apart = fmt.Sprintf("seed %d, step %d: Java picked at hour %d (zone %s), %s at hour %d (zone %s)",
						layouts[i].Seed, j, s.Hour, jres.Zone, picker.Name(), g.Steps[j].Hour, gres.Zone)
				}
			}
			for _, s := range g.Steps {
				changed = changed || s.HourChanged
			}
		}
		if (changed || apart != "") && attempt == 0 {
			continue
		}
		if apart != "" {
			return fmt.Errorf("the runners' clocks disagree on the hour twice: %s", apart)
		}
		batch := *st
		for i, l := range layouts {
			if err := pickdiff.Compare(l, jres.Layouts[i], gres.Layouts[i], &batch); err != nil {
				return fmt.Errorf("seed %d (PKFT_PICK_DIFF_SEED=%d reproduces it first): %w\nlayout: %s", l.Seed, l.Seed, err, pickdiff.Describe(l))
			}
		}
		*st = batch
		return nil
	}
}

// docCompactionPickDifferential describes compaction/pick-differential.
const docCompactionPickDifferential = "1,000 seeded level layouts (table options varied over the size amplification, size ratio, " +
	"sorted-run trigger, levels, optimization interval, total and incremental size thresholds, " +
	"off-peak hours, forced level-0 compaction, deletion vectors / lookup changelog / " +
	"`force-lookup` / `first-row`, `lookup-compact` modes and max interval; restored files; " +
	"then up to 32 picks on one strategy, and for a quarter of the layouts one set of levels " +
	"kept across the picks and updated between them as compactions and flushes do, " +
	"`Levels#update`) picked by Paimon's own `Levels`, " +
	"`MergeTreeCompactManagerFactory#createCompactStrategy`, `UniversalCompaction` / " +
	"`ForceUpLevel0Compaction` and `CompactStrategy#pickFullCompaction` in the Java runner " +
	"(command `pick`) and by the Go runner's `pick` (Go's `internal/mergetree`, on the runner's " +
	"own clock; a batch whose picks saw different hours runs again): the " +
	"same strategy, the same resolved options and at every step the same unit (output level, " +
	"files in order, rewrite flag), none, or a failure on both sides; and the same compaction " +
	"started by the bucket's compact manager (Paimon's " +
	"`MergeTreeCompactManager#triggerCompaction` over the same pick, its submitted task read " +
	"back: which files, to which level, rewrite or merge, dropping deletes or not). A " +
	"divergence prints the seed and the layout (`compat/internal/pickdiff`; `PKFT_PICK_DIFF_SEED` moves " +
	"the first seed)."
