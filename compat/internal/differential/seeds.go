package differential

import (
	"context"
	"encoding/json"
	"fmt"
)

// Failure is a failing generated scenario: its seed, its script and what went wrong. Its
// message carries the script JSON, so a failure can be replayed without the generator.
type Failure struct {
	Seed   int64
	Script Script
	Err    error
}

func (f *Failure) Error() string {
	return fmt.Sprintf("seed %d: %v\nscript:\n%s", f.Seed, f.Err, f.Script.JSON())
}

func (f *Failure) Unwrap() error { return f.Err }

// CheckSeeds generates the scenarios of seeds first..first+n-1, runs each on the Go maintainer
// and checks the invariants on its trace and that a second run yields the same trace (the
// executor is deterministic). The first failing seed is returned as a *Failure.
func CheckSeeds(ctx context.Context, first int64, n int) error {
	return checkSeeds(ctx, first, n, Generate, Check)
}

// checkSeeds is CheckSeeds with the generator and invariants of a family.
func checkSeeds(ctx context.Context, first int64, n int, generate func(int64) Script, check func(Script, Trace) error) error {
	for seed := first; seed < first+int64(n); seed++ {
		s := generate(seed)
		tr, err := RunGo(ctx, s)
		if err != nil {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("run on Go: %w", err)}
		}
		if err := check(s, tr); err != nil {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("invariants of the Go trace:\n%w", err)}
		}
		again, err := RunGo(ctx, s)
		if err != nil {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("second run on Go: %w", err)}
		}
		if d := Diff(tr, again); d != "" {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("two Go runs differ (-first +second):\n%s", d)}
		}
	}
	return nil
}

// Differential generates the scenarios of seeds first..first+n-1 and runs each on the Go
// maintainer and on other (the Java runner's maintainer-scenario): the traces must be identical
// (Diff), and other's trace must satisfy the invariants too. The first failing seed is returned
// as a *Failure.
func Differential(ctx context.Context, first int64, n int, other func(context.Context, Script) (Trace, error)) error {
	return differential(ctx, first, n, Generate, Check, RunGo, other)
}

// DifferentialWith is Differential with the Go maintainer run by subject instead of RunGo: the
// conformance harness passes the Go runner's maintainer-scenario (compat/go, which runs RunGo
// behind the protocol), so Go's side goes through the runner protocol as any other
// implementation's would.
func DifferentialWith(ctx context.Context, first int64, n int, subject, other func(context.Context, Script) (Trace, error)) error {
	return differential(ctx, first, n, Generate, Check, subject, other)
}

// differential is Differential with the generator and invariants of a family and the run of
// the Go maintainer.
func differential(ctx context.Context, first int64, n int, generate func(int64) Script, check func(Script, Trace) error,
	subject, other func(context.Context, Script) (Trace, error)) error {
	for seed := first; seed < first+int64(n); seed++ {
		s := generate(seed)
		goTrace, err := subject(ctx, s)
		if err != nil {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("run on Go: %w", err)}
		}
		theirs, err := other(ctx, s)
		if err != nil {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("run on the reference: %w", err)}
		}
		if d := Diff(theirs, goTrace); d != "" {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("traces differ (-reference +go):\n%s\nreference trace:\n%s", d, traceJSON(theirs))}
		}
		if err := check(s, theirs); err != nil {
			return &Failure{Seed: seed, Script: s, Err: fmt.Errorf("invariants of the reference trace:\n%w", err)}
		}
	}
	return nil
}

func traceJSON(t Trace) string {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Sprintf("<unencodable trace: %v>", err)
	}
	return string(b)
}
