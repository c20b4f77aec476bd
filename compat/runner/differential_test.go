package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/paimon-pkft/pkft/compat/differential"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// differentialSeeds is how many generated maintainer scenarios each run checks.
const differentialSeeds = 1000

// javaMaintainerScenarioMissing is why a Java runner without maintainer-scenario cannot take part.
// The case counts with the Java full-text cases (PKFT_REQUIRE_JAVA_FULLTEXT: a skip under make
// test, a failure under make compat) until the command exists.
const javaMaintainerScenarioMissing = "the Java runner has no maintainer-scenario command: the Java half of the " +
	"maintainer decision differential (compat/differential) is not built yet"

// seedFromEnv is the first seed of a generated case: the integer in the environment variable
// env, 1 when it is unset.
func seedFromEnv(t *testing.T, env string) int64 {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		return 1
	}
	seed, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", env, v, err)
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

// testDifferential runs the maintainer decision differential: the invariants of generated
// scenarios on the Go maintainer (go), and the same scenarios on Java's
// BucketedFullTextIndexMaintainer inside the Java runner, whose traces must equal Go's (go->java);
// then the same for the sorted family (GenerateSorted's scenarios, Go's pksorted maintainer and
// Paimon's BucketedSortedIndexMaintainer, runner command sorted-maintainer-scenario).
// PKFT_DIFFERENTIAL_SEED sets the first seed (default 1); a failure prints the seed and script.
func testDifferential(t *testing.T) {
	first := seedFromEnv(t, "PKFT_DIFFERENTIAL_SEED")
	_, runners := consumerRunners(t)
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

	runCase(t, "maintainer/invariants", "go", func(ctx context.Context) error {
		return withRotating(first, func(first int64, n int) error { return differential.CheckSeeds(ctx, first, n) })
	})
	runCase(t, "maintainer/differential", "go->java", func(ctx context.Context) error {
		p, err := StartJava(ctx)
		if err != nil {
			return unavailable{testenv.RequireJavaEnv, err}
		}
		defer p.Close()
		switch ok, err := HasCommands(ctx, p, "maintainer-scenario"); {
		case err != nil:
			return err
		case !ok:
			return unavailable{testenv.RequireJavaFullTextEnv, errors.New(javaMaintainerScenarioMissing)}
		}
		goP, err := goRunner(t, runners, "maintainer-scenario")
		if err != nil {
			return err
		}
		return withRotating(first, func(first int64, n int) error {
			return differential.DifferentialWith(ctx, first, n, scenario(goP, "maintainer-scenario"), scenario(p, "maintainer-scenario"))
		})
	})

	runCase(t, "maintainer/invariants-sorted", "go", func(ctx context.Context) error {
		return withRotating(first, func(first int64, n int) error { return differential.CheckSortedSeeds(ctx, first, n) })
	})
	runCase(t, "maintainer/differential-sorted", "go->java", func(ctx context.Context) error {
		p, err := StartJava(ctx)
		if err != nil {
			return unavailable{testenv.RequireJavaEnv, err}
		}
		defer p.Close()
		// Paimon's released jar holds the sorted maintainer itself (no stand-in), so a runner
		// without the command is stale, not a variant: the case fails.
		switch ok, err := HasCommands(ctx, p, "sorted-maintainer-scenario"); {
		case err != nil:
			return err
		case !ok:
			return errors.New("the Java runner lacks sorted-maintainer-scenario: rebuild it (make runner)")
		}
		goP, err := goRunner(t, runners, "sorted-maintainer-scenario")
		if err != nil {
			return err
		}
		return withRotating(first, func(first int64, n int) error {
			return differential.DifferentialSortedWith(ctx, first, n, scenario(goP, "sorted-maintainer-scenario"), scenario(p, "sorted-maintainer-scenario"))
		})
	})
}
