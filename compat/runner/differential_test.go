package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/paimon-pkft/pkft/compat/internal/differential"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// differentialSeeds is how many generated maintainer scenarios each run checks.
const differentialSeeds = 1000

// javaMaintainerScenarioMissing is why a Java runner without maintainer-scenario cannot take part.
// The case counts with the Java full-text cases (PKFT_REQUIRE_JAVA_FULLTEXT: a skip under make
// test, a failure under make compat) until the command exists.
const javaMaintainerScenarioMissing = "the Java runner has no maintainer-scenario command: the Java half of the " +
	"maintainer decision differential (compat/internal/differential) is not built yet"

// seedFromEnv is the first seed of a generated case: the integer in the environment variable
// env, 1 when it is unset.
func seedFromEnv(ct *caseTable, env string) int64 {
	v := os.Getenv(env)
	if v == "" {
		return 1
	}
	seed, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		ct.errorf("%s=%q: %v", env, v, err)
	}
	return seed
}

// withRotating runs check over the differentialSeeds fixed seeds from first, then, unless
// PKFT_DIFFERENTIAL_SEED chose the first seed, over the rotating share (rotate_test.go).
func withRotating(first int64, check func(first int64, n int) error) error {
	if err := check(first, differentialSeeds); err != nil {
		return err
	}
	if os.Getenv("PKFT_DIFFERENTIAL_SEED") != "" {
		return nil
	}
	if err := check(int64(rotateSeed), differentialRotating); err != nil {
		return fmt.Errorf("rotating seeds (%s=%d): %w", rotateSeedEnv, rotateSeed, err)
	}
	return nil
}

// casesDifferential registers the maintainer decision differential: the invariants of generated
// scenarios on the Go maintainer (go), and the same scenarios on Java's
// BucketedFullTextIndexMaintainer inside the Java runner, whose traces must equal Go's (go->java);
// then the same for the sorted family (GenerateSorted's scenarios, Go's pksorted maintainer and
// Paimon's BucketedSortedIndexMaintainer, runner command sorted-maintainer-scenario).
// PKFT_DIFFERENTIAL_SEED sets the first seed (default 1); a failure prints the seed and script.
func casesDifferential(ct *caseTable) {
	first := seedFromEnv(ct, "PKFT_DIFFERENTIAL_SEED")
	impls, runners := consumerRunners(ct)
	// scenario returns the run of a decision-differential script through runner p's command cmd.
	scenario := func(p *Process, cmd string) func(context.Context, differential.Script) (differential.Trace, error) {
		return func(ctx context.Context, s differential.Script) (differential.Trace, error) {
			var tr differential.Trace
			if err := p.Call(ctx, cmd, s, &tr); err != nil {
				return differential.Trace{}, fmt.Errorf("%s: %w", cmd, err)
			}
			return tr, nil
		}
	}

	ct.add(caseRow{Name: "maintainer/invariants", Direction: "go", Doc: docMaintainerInvariants,
		Sides: []caseSide{side("go", Maintainer)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return withRotating(first, func(first int64, n int) error { return differential.CheckSeeds(ctx, first, n) })
		}})
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "maintainer/differential", Direction: as(impl, "go->java"), Doc: docMaintainerDifferential,
			Sides: []caseSide{side(impl, Maintainer), side("java", Maintainer)},
			Uses: []caseUse{ownJava(unavailable{testenv.RequireJavaFullTextEnv, errors.New(javaMaintainerScenarioMissing)}, "maintainer-scenario"),
				runnerOf(runners, impl, "maintainer-scenario")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return withRotating(first, func(first int64, n int) error {
					return differential.DifferentialWith(ctx, first, n, scenario(ce.runner(impl), "maintainer-scenario"), scenario(ce.runner("java"), "maintainer-scenario"))
				})
			}})
	}

	ct.add(caseRow{Name: "maintainer/invariants-sorted", Direction: "go", Doc: docMaintainerInvariantsSorted,
		Sides: []caseSide{side("go", Maintainer)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return withRotating(first, func(first int64, n int) error { return differential.CheckSortedSeeds(ctx, first, n) })
		}})
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "maintainer/differential-sorted", Direction: as(impl, "go->java"), Doc: docMaintainerDifferentialSorted,
			Sides: []caseSide{side(impl, Maintainer), side("java", Maintainer)},
			// Paimon's released jar holds the sorted maintainer itself (no stand-in), so a runner
			// without the command is stale, not a variant: the case fails.
			Uses: []caseUse{ownJava(errors.New("the Java runner lacks sorted-maintainer-scenario: rebuild it (make runner)"), "sorted-maintainer-scenario"),
				runnerOf(runners, impl, "sorted-maintainer-scenario")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return withRotating(first, func(first int64, n int) error {
					return differential.DifferentialSortedWith(ctx, first, n, scenario(ce.runner(impl), "sorted-maintainer-scenario"), scenario(ce.runner("java"), "sorted-maintainer-scenario"))
				})
			}})
	}
}

// docMaintainerInvariants describes maintainer/invariants.
const docMaintainerInvariants = "the same 1,000 scripts checked against invariants any correct maintainer keeps (current " +
	"payloads classify as current once nothing is pending, every generated archive is published" +
	" or deleted exactly once, routing, abort restores the state)."

// docMaintainerDifferential describes maintainer/differential.
const docMaintainerDifferential = "1,000 seeded scripts (restores with stale and corrupt payloads, data files of every file " +
	"source (APPEND, COMPACT, none) on level 0 and above, appends, compactions, " +
	"failed and late builds, aborts) run by Paimon's own `BucketedFullTextIndexMaintainer` in " +
	"the Java runner and by Go's maintainer with the same deterministic builder: increments, " +
	"routing, error classes, deletions and state after every step are identical. A divergence " +
	"prints the seed and the script (`compat/internal/differential`; `PKFT_DIFFERENTIAL_SEED` moves the " +
	"first seed)."

// docMaintainerInvariantsSorted describes maintainer/invariants-sorted.
const docMaintainerInvariantsSorted = "the same sorted scripts checked against invariants any correct sorted maintainer keeps " +
	"(active files follow the transitions, one payload per level, routing, a waiting call " +
	"leaves no maintenance pending, failures and aborts restore the state)."

// docMaintainerDifferentialSorted describes maintainer/differential-sorted.
const docMaintainerDifferentialSorted = "the sorted family's decision differential: the same 1,000 seeds turned into scripts of a " +
	"pk-btree (odd seeds) or pk-bitmap (even seeds) definition (`differential.GenerateSorted`: " +
	"payloads of the other sorted type, calls that may not start a build, builds that fail " +
	"every attempt, fail once and are retried, or record another level) run by Paimon's own " +
	"`BucketedSortedIndexMaintainer` in the Java runner (command `sorted-maintainer-scenario`) " +
	"and by Go's `internal/pksorted/maintainer`: increments, routing, error classes, every " +
	"build attempt, deletions, groups, pending deletions, active files and " +
	"`hasPendingMaintenance` after every step are identical. A divergence prints the seed and " +
	"the script."
