package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/crashpoint"
	"github.com/paimon-pkft/pkft/internal/testing/faultio"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// faultsSample is how many injection points per (kind of file operation, mode) the conformance
// case checks with Java (PKFT_FAULTS_JAVA_SAMPLE, default 1: the middle one of each kind and
// mode, which keeps the four operations near two minutes; 0: every point). The Go-only suite
// (make faults) covers more points.
func faultsSample() int {
	if v, err := strconv.Atoi(os.Getenv("PKFT_FAULTS_JAVA_SAMPLE")); err == nil {
		return v
	}
	return 1
}

// casesFaults registers faults/<operation> (go->java) — every table-writing operation of
// crashpoint.Operations is failed or crashed at a sample of its file operations; on each table
// it leaves, Java reads exactly the rows of the last committed snapshot (the table before the
// operation, or after it when the fault came after the publication), and Java's dump (files, full-text state and plan, from Paimon's own
// PkFullTextBucketIndexState and PrimaryKeyIndexLevels) equals Go's. The Go side checks (missing
// files, orphans, retry) run in the same harness.
func casesFaults(ct *caseTable) {
	root, rootErr := RepoRoot()
	// The operations with the engine, loaded when a case first runs; registration takes only
	// their names.
	envFx := newFixture(func(t *testing.T) *faultEnv {
		e := &faultEnv{rootErr: rootErr, ops: map[string]crashpoint.Operation{}}
		if rootErr != nil {
			return e
		}
		lib, err := native.Load(t.Context(), "")
		if err != nil {
			e.libErr = err
		}
		for _, op := range crashpoint.Operations(root, native.Engine{Lib: lib}) {
			e.ops[op.Name] = op
		}
		if e.libErr != nil {
			return e
		}
		if p, err := StartJava(context.Background()); err != nil {
			e.javaErr = unavailable{testenv.RequireJavaEnv, err}
		} else {
			t.Cleanup(func() { p.Close() })
			e.java = p
		}
		return e
	})
	for _, op := range crashpoint.Operations(root, nil) {
		ct.add(caseRow{Name: "faults/" + op.Name, Direction: "go->java", Doc: docFaultsOperation,
			Sides: []caseSide{side("go", Writer, Compactor, Maintainer), side("java", Consumer)},
			Uses:  []caseUse{serving(envFx)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				env := envFx.in(ce)
				return checkFaultsWithJava(ctx, ce.T, env.java, env.ops[op.Name])
			}})
	}
}

// faultEnv is what the faults cases share: the operations with the engine and a Java runner,
// made when a case first runs.
type faultEnv struct {
	rootErr error
	ops     map[string]crashpoint.Operation
	libErr  error
	java    *Process
	javaErr error
}

// need fails unless the repository, the engine and the Java runner are there; it checks no
// commands of the runner (the faults cases never did: they read and dump).
func (e *faultEnv) need(_ context.Context, cmds ...string) error {
	switch {
	case len(cmds) > 0:
		return fmt.Errorf("faultEnv checks no commands (asked for %v)", cmds)
	case e.rootErr != nil:
		return e.rootErr
	case e.libErr != nil:
		return unavailable{testenv.RequireNativeEnv, e.libErr}
	}
	return e.javaErr
}

func checkFaultsWithJava(ctx context.Context, t *testing.T, p *Process, op crashpoint.Operation) error {
	pristine, err := op.Setup(t.TempDir())
	if err != nil {
		return err
	}
	var want javaRows
	if err := p.Call(ctx, "read", map[string]any{"path": pristine}, &want); err != nil {
		return fmt.Errorf("java read of the table before %s: %w", op.Name, err)
	}
	if len(want.Rows) == 0 {
		return fmt.Errorf("%s: the table has no rows: nothing compared", op.Name)
	}
	// The rows after a fault-free run: a compaction makes level-0 rows visible, which a reader
	// of a table with deletion vectors does not see before.
	done, err := op.Setup(t.TempDir())
	if err != nil {
		return err
	}
	if err := op.Run(ctx, fileio.NewLocal(), done); err != nil {
		return fmt.Errorf("fault-free %s: %w", op.Name, err)
	}
	var wantAfter javaRows
	if err := p.Call(ctx, "read", map[string]any{"path": done}, &wantAfter); err != nil {
		return fmt.Errorf("java read of the table after %s: %w", op.Name, err)
	}
	h := &crashpoint.Harness{Op: op, TempDir: t.TempDir, KeepTables: true}
	var problems []string
	cases, committed := 0, 0
	choose := func(counts faultio.Counts) []faultio.Point {
		points := faultio.Points(counts, crashpoint.Modes, faultsSample())
		if faultsSample() > 0 {
			// The last publication (the LATEST hint) and the one before it (the snapshot), and
			// the last read: the faults after the commit, crashed or landed with an error.
			n := counts.Of(faultio.OpRename)
			for _, k := range []int{n - 1, n} {
				points = append(points, faultio.Point{Op: faultio.OpRename, K: k, Mode: faultio.Crash},
					faultio.Point{Op: faultio.OpRename, K: k, Mode: faultio.FailAfter})
			}
			points = append(points, faultio.Point{Op: faultio.OpRead, K: counts.Of(faultio.OpRead), Mode: faultio.Crash})
		}
		return points
	}
	sum, err := h.SweepPoints(ctx, choose, func(c *crashpoint.Case) {
		cases++
		if c.Committed {
			committed++
		}
		fail := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("%s: ", c.Point)+fmt.Sprintf(format, args...))
		}
		for _, pr := range c.Problems {
			fail("%s", pr)
		}
		var got javaRows
		if err := p.Call(ctx, "read", map[string]any{"path": c.Root}, &got); err != nil {
			fail("(a) Java cannot read the table: %v", err)
			return
		}
		// A compaction reorders the files, and with them the order Java reads rows in.
		expect := want.Rows
		if c.Committed {
			expect = wantAfter.Rows
		}
		if d := cmp.Diff(sortedRows(expect), sortedRows(got.Rows)); d != "" {
			fail("(a) Java reads other rows (-before +after):\n%s", d)
		}
		j, err := javaDump(ctx, p, c.Root)
		if err != nil {
			fail("(c) Java dump: %v", err)
			return
		}
		g, err := goDump(ctx, c.Root)
		if err != nil {
			fail("(c) %v", err)
			return
		}
		if d := diffDumps(j, g); d != "" {
			fail("(c) Java's dump and state differ from Go's (-java +go):\n%s", d)
		}
		// Only the table before the retry is needed; drop it now to keep the disk small.
		os.RemoveAll(c.Root)
	})
	if err != nil {
		return err
	}
	t.Logf("faults/%s: %d cases (%d after the publication), %d passing the Go checks", op.Name, sum.Cases, committed, sum.Passed)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	if cases == 0 {
		return fmt.Errorf("%s: no injection points", op.Name)
	}
	return nil
}

// sortedRows orders rows by their JSON form.
func sortedRows(rows []map[string]any) []map[string]any {
	type keyed struct {
		key string
		row map[string]any
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(r)
		ks[i] = keyed{string(b), r}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	out := make([]map[string]any, len(ks))
	for i := range ks {
		out[i] = ks[i].row
	}
	return out
}

// docFaultsOperation describes faults/<operation>.
const docFaultsOperation = "the metadata rewrite, maintenance, write, compaction, index backfill (`compact-uncovered`)" +
	" and orphan-file removal fail or crash at a sample of their file operations (see [Faults, " +
	"fuzzing and bad input](faults-and-testing.md)); on each table left behind Java reads the " +
	"rows of the last committed snapshot and Java's dump and full-text state equal Go's."
