package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The differentials run fixed seeds (1-200, 1-1,000) so that a run reproduces, and beside them
// a share of rotating seeds no run chose before, so that every make compat explores scripts the
// fixed ones never reach. The first rotating seed is PKFT_ROTATE_SEED, or drawn at random; it is
// printed when the suite starts, so a failure on a rotating seed reproduces with
// PKFT_ROTATE_SEED set to it (and the failing seed goes into the differential's regression list).
const (
	// rotateSeedEnv names the variable that fixes the first rotating seed.
	rotateSeedEnv = "PKFT_ROTATE_SEED"
	// rotateSeedFloor keeps rotating seeds above every fixed seed and regression seed.
	rotateSeedFloor = 10_000_000
	// tableDiffRotating is how many table/differential scripts run from the rotating seed
	// (10% of its 200 fixed ones).
	tableDiffRotating = 20
	// differentialRotating is how many maintainer differential scenarios (each family) run
	// from the rotating seed (10% of the 1,000 fixed ones).
	differentialRotating = 100
)

// rotateSeed is the first rotating seed of this test binary's run, chosen once in TestMain.
var rotateSeed uint64

// chooseRotateSeed returns PKFT_ROTATE_SEED when it is set, else a random seed of at least
// rotateSeedFloor that fits an int64 (the maintainer differential's seeds are int64).
func chooseRotateSeed() (uint64, error) {
	if v := os.Getenv(rotateSeedEnv); v != "" {
		seed, err := strconv.ParseUint(v, 10, 63)
		if err != nil {
			return 0, fmt.Errorf("%s=%q: %w", rotateSeedEnv, v, err)
		}
		return seed, nil
	}
	return rotateSeedFloor + rand.Uint64N(1<<40), nil
}

// rotateSeedLine is the line TestMain prints about the rotating seeds.
func rotateSeedLine(seed uint64) string {
	return fmt.Sprintf("rotating seeds: %s=%d (table/differential: %d scripts from it; maintainer differentials: %d scenarios each, compaction/pick-differential: %d layouts, from it); set it to run them again",
		rotateSeedEnv, seed, tableDiffRotating, differentialRotating, pickSeeds)
}

// TestChooseRotateSeed: PKFT_ROTATE_SEED is taken as it is, a bad value is refused by name, and a
// drawn seed lies above every fixed and regression seed.
func TestChooseRotateSeed(t *testing.T) {
	t.Setenv(rotateSeedEnv, "123")
	if got, err := chooseRotateSeed(); err != nil || got != 123 {
		t.Errorf("with %s=123: %d, %v", rotateSeedEnv, got, err)
	}
	t.Setenv(rotateSeedEnv, "x")
	if _, err := chooseRotateSeed(); err == nil || !strings.Contains(err.Error(), rotateSeedEnv) {
		t.Errorf("with %s=x: %v, want an error naming it", rotateSeedEnv, err)
	}
	t.Setenv(rotateSeedEnv, "")
	for range 100 {
		got, err := chooseRotateSeed()
		if err != nil || got < rotateSeedFloor || got > math.MaxInt64 {
			t.Fatalf("drawn seed %d, %v: want at least %d and an int64", got, err, rotateSeedFloor)
		}
	}
	if line := rotateSeedLine(42); !strings.Contains(line, rotateSeedEnv+"=42") {
		t.Errorf("the printed line %q does not say how to run the seeds again", line)
	}
}
