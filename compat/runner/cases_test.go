package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// Role is a set of protocol commands an implementation takes (compat/PROTOCOL.md, "Roles").
type Role string

// The roles of compat/PROTOCOL.md.
const (
	Consumer   Role = "consumer"
	Writer     Role = "writer"
	Compactor  Role = "compactor"
	Maintainer Role = "maintainer"
)

// allRoles lists the roles in the order the roles grid prints them.
var allRoles = []Role{Consumer, Writer, Compactor, Maintainer}

// caseSide is one implementation a case runs and the roles the case exercises it in.
type caseSide struct {
	Impl  string
	Roles []Role
}

// side is a caseSide: implementation impl in roles.
func side(impl string, roles ...Role) caseSide { return caseSide{Impl: impl, Roles: roles} }

// caseRow is one conformance case in one direction: a row of the case table.
type caseRow struct {
	// Family is the family that registered the row (set by the table).
	Family string
	// Name and Direction make the subtest name NAME/DIRECTION, the result's case and direction.
	Name, Direction string
	// Sides are the implementations the case runs, each with the roles it needs of them.
	Sides []caseSide
	// Doc describes the case for the catalogue (docs/conformance.md); rows of one case (its
	// directions, its variants) share it.
	Doc string
	// Uses are what the case needs set up before Run, in order: fixtures, with the commands
	// their runners must serve (serving, made), and implementations' runners, with the commands
	// and features their supports files must declare (runnerOf, featureOf). The harness sets
	// each up; the first that cannot be ends the row with its outcome (unavailable, unsupported
	// or an error), and Run does not run.
	Uses []caseUse
	// Run is the case's check, given what Uses set up (ce). ce.T is TestConformance's test:
	// what the check leaves there (temp dirs, cleanups) lasts until the suite ends, as the
	// fixtures do.
	Run func(ctx context.Context, ce *caseEnv) error
	// Background, when set, runs the row beside the rows after it (see runBackground): Start
	// runs first in the row's own subtest and returns the work, which gets Background as its
	// timeout. Done, when set, receives the channel that closes when the work has returned.
	Background time.Duration
	Start      func(t *testing.T) func(ctx context.Context) error
	Done       *<-chan struct{}
	// Needs are the rows (NAME/DIRECTION, registered earlier) whose outcome this row reads, for
	// instance the case that writes the table it checks: a filter that keeps the row keeps them.
	Needs []string
	// Before, when set, runs in TestConformance's goroutine just before the row's subtest,
	// outside the case's time (for instance waiting for a background row the case reads).
	Before func()
}

// Producers are the implementations of the row that produce what others check: those with the
// writer, compactor or maintainer role.
func (c *caseRow) Producers() []string {
	var out []string
	for _, s := range c.Sides {
		if slices.ContainsFunc(s.Roles, func(r Role) bool { return r != Consumer }) {
			out = append(out, s.Impl)
		}
	}
	return out
}

// Consumers are the implementations of the row that read or check: those with the consumer role.
func (c *caseRow) Consumers() []string {
	var out []string
	for _, s := range c.Sides {
		if slices.Contains(s.Roles, Consumer) {
			out = append(out, s.Impl)
		}
	}
	return out
}

// roles maps each implementation of the row to its roles' names (the result's roles).
func (c *caseRow) roles() map[string][]string {
	out := map[string][]string{}
	for _, s := range c.Sides {
		for _, r := range s.Roles {
			if !slices.Contains(out[s.Impl], string(r)) {
				out[s.Impl] = append(out[s.Impl], string(r))
			}
		}
	}
	return out
}

// caseTable is the table of conformance cases: families add rows to it, in the order the suite
// runs them. Registering starts nothing (no runner, no engine, no temp dir): what rows share is a
// fixture, made on first use.
type caseTable struct {
	// environ is the environment the families read (the implementations of Impls).
	environ []string
	// report receives the rows' outcomes; nil: the suite's report. The harness's own tests of
	// the table give theirs, so that their made-up implementations stay out of the suite's.
	report *Report
	family string
	rows   []*caseRow
	errs   []error
}

// results is where the rows' outcomes go.
func (ct *caseTable) results() *Report {
	if ct.report != nil {
		return ct.report
	}
	return &report
}

// add registers one row under the current family.
func (ct *caseTable) add(row caseRow) {
	row.Family = ct.family
	ct.rows = append(ct.rows, &row)
}

// errorf records a registration error: the suite fails before running anything.
func (ct *caseTable) errorf(format string, args ...any) {
	ct.errs = append(ct.errs, fmt.Errorf(ct.family+": "+format, args...))
}

// caseFamily is one family of cases: it registers its rows.
type caseFamily struct {
	name     string
	register func(ct *caseTable)
}

// caseFamilies are the families of TestConformance in the order they run. The table
// differential's scripts run in the background beside every other family; its consumer cases,
// last, read what they left.
func caseFamilies() []caseFamily {
	var td []*tableDiffRun // one per implementation taking Go's steps
	return []caseFamily{
		{"table-differential", func(ct *caseTable) { casesTableDifferential(ct, &td) }},
		{"holes", casesHoles},
		{"differential", casesDifferential},
		{"engine", casesEngine},
		{"tables", casesTables},
		{"pypaimon", casesPypaimon},
		{"consumers", casesConsumers},
		{"producers", casesProducers},
		{"rewrite", casesRewrite},
		{"carry", casesCarry},
		{"orphan", casesOrphan},
		{"expire", casesExpire},
		{"java-tables", casesJavaTables},
		{"maintain", casesMaintain},
		{"write", casesWrite},
		{"at-commit", casesAtCommit},
		{"backfill", casesBackfill},
		{"engines", casesEngines},
		{"library", casesLibrary},
		{"pick", casesPick},
		{"faults", casesFaults},
		{"malformed-text", casesMalformedText},
		{"hostile-queries", casesHostileQueries},
		{"options", casesOptions},
		{"sorted-index", casesSortedIndex},
		{"s3", casesS3},
		{"table-differential-consumers", func(ct *caseTable) { casesTableDifferentialConsumers(ct, td) }},
	}
}

// conformanceCases registers every family's rows (starting nothing) for the implementations
// environ declares (Impls).
func conformanceCases(environ []string) *caseTable {
	ct := &caseTable{environ: environ}
	for _, f := range caseFamilies() {
		ct.family = f.name
		f.register(ct)
	}
	ct.family = ""
	return ct
}

// The environment variables that select rows by implementation and role (make compat IMPL=...
// ROLES=...): with PKFT_CASE_IMPL set, only the rows with a side of that implementation run, and
// with PKFT_CASE_ROLES (comma-separated) too, only those where that side takes one of the roles.
// Rows filtered out are not run and not reported.
const (
	caseImplEnv  = "PKFT_CASE_IMPL"
	caseRolesEnv = "PKFT_CASE_ROLES"
)

// caseFilter selects rows by implementation and roles; the zero filter selects every row.
type caseFilter struct {
	impl  string
	roles []Role
}

// caseFilterFromEnv reads PKFT_CASE_IMPL and PKFT_CASE_ROLES; an unknown role, or roles without
// an implementation, is an error.
func caseFilterFromEnv(getenv func(string) string) (caseFilter, error) {
	f := caseFilter{impl: strings.TrimSpace(getenv(caseImplEnv))}
	rs := strings.TrimSpace(getenv(caseRolesEnv))
	if rs == "" {
		return f, nil
	}
	if f.impl == "" {
		return caseFilter{}, fmt.Errorf("%s=%q needs %s (the implementation whose roles these are)", caseRolesEnv, rs, caseImplEnv)
	}
	for _, r := range strings.Split(rs, ",") {
		role := Role(strings.TrimSpace(r))
		if !slices.Contains(allRoles, role) {
			return caseFilter{}, fmt.Errorf("%s: unknown role %q (want one of %v)", caseRolesEnv, r, allRoles)
		}
		f.roles = append(f.roles, role)
	}
	return f, nil
}

// selects reports whether the filter keeps row c.
func (f caseFilter) selects(c *caseRow) bool {
	if f.impl == "" {
		return true
	}
	for _, s := range c.Sides {
		if s.Impl != f.impl {
			continue
		}
		if len(f.roles) == 0 || slices.ContainsFunc(s.Roles, func(r Role) bool { return slices.Contains(f.roles, r) }) {
			return true
		}
	}
	return false
}

// id is the row's subtest name, NAME/DIRECTION.
func (c *caseRow) id() string { return c.Name + "/" + c.Direction }

// selected returns the ids of the rows filter f keeps, with the rows they need.
func (ct *caseTable) selected(f caseFilter) map[string]bool {
	keep := map[string]bool{}
	var mark func(id string)
	byID := map[string]*caseRow{}
	for _, c := range ct.rows {
		byID[c.id()] = c
	}
	mark = func(id string) {
		if keep[id] {
			return
		}
		keep[id] = true
		if c := byID[id]; c != nil {
			for _, n := range c.Needs {
				mark(n)
			}
		}
	}
	for _, c := range ct.rows {
		if f.selects(c) {
			mark(c.id())
		}
	}
	return keep
}

// implRoles lists each implementation the rows run with the roles they take of it.
func (ct *caseTable) implRoles() string {
	var impls []string
	roles := map[string][]Role{}
	for _, c := range ct.rows {
		for _, s := range c.Sides {
			if _, ok := roles[s.Impl]; !ok {
				impls = append(impls, s.Impl)
			}
			for _, r := range s.Roles {
				if !slices.Contains(roles[s.Impl], r) {
					roles[s.Impl] = append(roles[s.Impl], r)
				}
			}
		}
	}
	slices.Sort(impls)
	var out []string
	for _, impl := range impls {
		out = append(out, impl+" ("+roleNames(roles[impl])+")")
	}
	return strings.Join(out, ", ")
}

// roleNames joins roles with commas.
func roleNames(roles []Role) string {
	var s []string
	for _, r := range roles {
		s = append(s, string(r))
	}
	return strings.Join(s, ",")
}

// run runs the table's rows under t (TestConformance) in their order, as subtests NAME/DIRECTION,
// each recorded in the report with its roles.
func (ct *caseTable) run(t *testing.T, f caseFilter) {
	t.Helper()
	if err := errors.Join(ct.errs...); err != nil {
		t.Fatal(err)
	}
	keep := ct.selected(f)
	if f.impl != "" {
		if len(keep) == 0 {
			what := "no case runs " + f.impl
			if len(f.roles) > 0 {
				what = fmt.Sprintf("no case takes %s as %s", f.impl, roleNames(f.roles))
			}
			t.Fatalf("%s=%s %s=%s: %s; the cases run %s", caseImplEnv, f.impl, caseRolesEnv, roleNames(f.roles), what, ct.implRoles())
		}
		ct.results().AddNote(fmt.Sprintf("cases: %d of the %d rows (%s=%s %s=%s, with the rows they need)",
			len(keep), len(ct.rows), caseImplEnv, f.impl, caseRolesEnv, roleNames(f.roles)))
	}
	var outcomes needOutcomes
	for _, c := range ct.rows {
		if !keep[c.id()] {
			continue
		}
		if c.Before != nil {
			c.Before()
		}
		if c.Background > 0 {
			start := func(t *testing.T) func(ctx context.Context) error {
				if err := outcomes.unsupportedNeed(c); err != nil {
					return func(context.Context) error { return outcomes.record(c, err) }
				}
				work := c.Start(t)
				return func(ctx context.Context) error { return outcomes.record(c, work(ctx)) }
			}
			done := runBackground(t, ct.results(), c.Name, c.Direction, c.roles(), c.Background, start)
			if c.Done != nil {
				*c.Done = done
			}
			continue
		}
		runRow(t, ct.results(), c.Name, c.Direction, c.roles(), func(ctx context.Context) error {
			if err := outcomes.unsupportedNeed(c); err != nil {
				return outcomes.record(c, err) // and so for the rows that continue it in turn
			}
			ce, err := c.setUp(ctx, t)
			defer ce.close()
			if err != nil {
				return outcomes.record(c, err)
			}
			return outcomes.record(c, c.Run(ctx, ce))
		})
	}
}

// needOutcomes remembers which rows ended unsupported, for the rows that need them: a row
// continuing what an unsupported row would have made (the table an implementation's write
// leaves, its maintained table) is unsupported too, for the same reason, and does not run.
type needOutcomes struct {
	mu          sync.Mutex
	unsupported map[string]string
}

// record notes err, the outcome of row c, and returns it.
func (n *needOutcomes) record(c *caseRow, err error) error {
	var o outcome
	if errors.As(err, &o) && o.status == Unsupported {
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.unsupported == nil {
			n.unsupported = map[string]string{}
		}
		n.unsupported[c.id()] = o.detail
	}
	return err
}

// unsupportedNeed is the unsupported outcome of row c when a row it needs ended unsupported,
// nil otherwise.
func (n *needOutcomes) unsupportedNeed(c *caseRow) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, need := range c.Needs {
		if detail, ok := n.unsupported[need]; ok {
			return outcome{Unsupported, fmt.Sprintf("it continues %s, which is unsupported: %s", need, detail)}
		}
	}
	return nil
}

// runRow runs one matrix cell as a subtest and records its outcome in rep.
func runRow(t *testing.T, rep *Report, name, direction string, roles map[string][]string, f func(ctx context.Context) error) {
	t.Helper()
	t.Run(name+"/"+direction, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		err := f(ctx)
		endCase(t, rep, name, direction, roles, time.Since(start), err)
	})
}

// runBackground runs one matrix cell beside the cells run after it: a parallel subtest whose
// setup (start, given the subtest) runs now and returns the case's work, which then runs in the
// background, bounded by timeout, while the subtest pauses; the subtest resumes to record the
// outcome once the parent's sequential cases are done. The returned channel closes when the work
// has returned (nil when -run does not select the case). The case's time is its work's own. For
// cases that share no runner with any other. The outcome is recorded in rep.
func runBackground(t *testing.T, rep *Report, name, direction string, roles map[string][]string, timeout time.Duration, start func(t *testing.T) func(ctx context.Context) error) <-chan struct{} {
	t.Helper()
	var done chan struct{}
	t.Run(name+"/"+direction, func(t *testing.T) {
		done = make(chan struct{})
		work := start(t)
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var elapsed time.Duration
		var err error
		go func() {
			defer close(done)
			begin := time.Now()
			err = work(ctx)
			elapsed = time.Since(begin)
		}()
		t.Parallel()
		<-done
		endCase(t, rep, name, direction, roles, elapsed, err)
	})
	return done
}

// fixture is a value rows share (a started runner, a built table), made on first use by make
// with TestConformance's test, so that its cleanups run when the suite ends.
type fixture[T any] struct {
	once sync.Once
	make func(t *testing.T) T
	v    T
}

// newFixture returns the fixture make creates.
func newFixture[T any](make func(t *testing.T) T) *fixture[T] {
	return &fixture[T]{make: make}
}

// get returns the fixture's value, making it on the first call.
func (f *fixture[T]) get(t *testing.T) T {
	f.once.Do(func() { f.v = f.make(t) })
	return f.v
}

// caseEnv is what the harness hands a row's Run: TestConformance's test, and what the row's
// Uses set up.
type caseEnv struct {
	T *testing.T
	// row is the row's subtest name, for the messages of a use it did not declare.
	row      string
	fixtures map[any]bool
	runners  map[string]*Process
	// lib is the native engine, loaded when the row's Uses declare it (engine).
	lib *native.Library
	// closers close what the uses started for the row alone, when Run has returned.
	closers []func() error
}

// close closes what the uses started for the row alone (ownJava).
func (ce *caseEnv) close() {
	for _, c := range slices.Backward(ce.closers) {
		c()
	}
}

// runner is the runner of implementation impl the row's Uses started (runnerOf).
func (ce *caseEnv) runner(impl string) *Process {
	p, ok := ce.runners[impl]
	if !ok {
		panic(fmt.Sprintf("%s: Run uses the runner of %s, which its Uses do not declare (runnerOf)", ce.row, impl))
	}
	return p
}

// in is the fixture's value for a row whose Uses declare it (serving, made): the harness made it
// before Run.
func (f *fixture[T]) in(ce *caseEnv) T {
	if !ce.fixtures[f] {
		panic(fmt.Sprintf("%s: Run uses a fixture its Uses do not declare (serving, made)", ce.row))
	}
	return f.v
}

// caseUse is one thing a row's Uses declare: setUp makes it ready in ce, or returns the row's
// outcome (unavailable, unsupported, an error) when it cannot be.
type caseUse interface {
	setUp(ctx context.Context, ce *caseEnv) error
}

// setUp sets up the row's Uses in order, stopping at the first that cannot be. The caller
// closes the environment (close) once the row is done, set up or not.
func (c *caseRow) setUp(ctx context.Context, t *testing.T) (*caseEnv, error) {
	ce := &caseEnv{T: t, row: c.id(), fixtures: map[any]bool{}, runners: map[string]*Process{}}
	for _, u := range c.Uses {
		if err := u.setUp(ctx, ce); err != nil {
			return ce, err
		}
	}
	return ce, nil
}

// commandServer is a fixture whose need fails unless its runners started (and its engine
// loaded) and serve cmds: the outcome, unavailable or an error, of a row that cannot run.
type commandServer interface {
	need(ctx context.Context, cmds ...string) error
}

// fixtureUse is a fixture a row uses, with the commands its runner must serve.
type fixtureUse[T any] struct {
	f    *fixture[T]
	need func(ctx context.Context, v T) error
}

func (u fixtureUse[T]) setUp(ctx context.Context, ce *caseEnv) error {
	v := u.f.get(ce.T)
	if u.need != nil {
		if err := u.need(ctx, v); err != nil {
			return err
		}
	}
	ce.fixtures[u.f] = true
	return nil
}

// serving declares fixture f, whose runner must serve cmds (its need).
func serving[T commandServer](f *fixture[T], cmds ...string) caseUse {
	return fixtureUse[T]{f: f, need: func(ctx context.Context, v T) error { return v.need(ctx, cmds...) }}
}

// made declares fixture f, made before Run and nothing more asked of it.
func made[T any](f *fixture[T]) caseUse { return fixtureUse[T]{f: f} }

// madeReady declares fixture f, made before Run and ready for the row when ready returns nil
// (otherwise its error is the row's outcome): for a row that needs of its fixture something
// other than a runner serving commands.
func madeReady[T any](f *fixture[T], ready func(ctx context.Context, v T) error) caseUse {
	return fixtureUse[T]{f: f, need: ready}
}

// engineUse is the native engine, which the row's check reads archives with (ce.lib).
type engineUse struct{}

func (engineUse) setUp(ctx context.Context, ce *caseEnv) error {
	lib, err := native.Load(ctx, "")
	if err != nil {
		return unavailable{testenv.RequireNativeEnv, err}
	}
	ce.lib = lib
	return nil
}

// engine declares the native engine: loaded before Run (ce.lib), the row unavailable without it.
func engine() caseUse { return engineUse{} }

// runnerUse is the runner of an implementation a row runs as a producer (producerRunner).
type runnerUse struct {
	runners map[string]*implRunner
	impl    string
	cmds    []string
}

func (u runnerUse) setUp(_ context.Context, ce *caseEnv) error {
	p, err := producerRunner(ce.T, u.runners, u.impl, u.cmds...)
	if err != nil {
		return err
	}
	ce.runners[u.impl] = p
	return nil
}

// runnerOf declares the runner of implementation impl among runners, whose supports file must
// declare cmds (producerRunner): Run gets it from ce.runner(impl).
func runnerOf(runners map[string]*implRunner, impl string, cmds ...string) caseUse {
	return runnerUse{runners, impl, cmds}
}

// featureUse is an optional feature an implementation's supports file must declare.
type featureUse struct {
	runners       map[string]*implRunner
	impl, feature string
}

func (u featureUse) setUp(context.Context, *caseEnv) error {
	return declaresFeature(u.runners, u.impl, u.feature)
}

// featureOf declares that implementation impl's supports file must declare feature
// (declaresFeature).
func featureOf(runners map[string]*implRunner, impl, feature string) caseUse {
	return featureUse{runners, impl, feature}
}

// ownJavaUse is a Java runner a row starts for itself.
type ownJavaUse struct {
	missing error
	cmds    []string
}

func (u ownJavaUse) setUp(ctx context.Context, ce *caseEnv) error {
	p, err := StartJava(ctx)
	if err != nil {
		return unavailable{testenv.RequireJavaEnv, err}
	}
	ce.closers = append(ce.closers, p.Close)
	if len(u.cmds) > 0 {
		switch ok, err := HasCommands(ctx, p, u.cmds...); {
		case err != nil:
			return err
		case !ok:
			return u.missing
		}
	}
	ce.runners["java"] = p
	return nil
}

// ownJava declares a Java runner of the row's own (started for it, closed when it is done: its
// scenarios share the JVM with no other case) serving cmds; missing is the row's outcome when
// it does not (without cmds, nothing is asked of it: missing is nil). Run gets it from
// ce.runner("java").
func ownJava(missing error, cmds ...string) caseUse { return ownJavaUse{missing, cmds} }

// precondition is a condition a row checks at its place among its uses, before the uses after it
// are set up: the table the row continues exists, for instance.
type precondition func() error

func (f precondition) setUp(context.Context, *caseEnv) error { return f() }

// continuing declares that the row continues what another row left, which exists when left
// returns nil (otherwise its error is the row's).
func continuing(left func() error) caseUse { return precondition(left) }

// groupFixture is a started maintain group (startGroup), made on first use.
func groupFixture() *fixture[*maintainGroup] {
	return newFixture(startGroup)
}

// TestCaseTableInvariants checks the table's invariants without running a case:
// every row has a name, a direction, sides with roles, a description and a run; the runners its
// Uses declare are its sides'; no two rows share a subtest name; and registering twice gives the
// same rows in the same order.
func TestCaseTableInvariants(t *testing.T) {
	a, b := conformanceCases(os.Environ()), conformanceCases(os.Environ())
	if err := errors.Join(a.errs...); err != nil {
		t.Fatal(err)
	}
	if len(a.rows) == 0 || len(a.rows) != len(b.rows) {
		t.Fatalf("%d rows, then %d", len(a.rows), len(b.rows))
	}
	seen := map[string]bool{}
	for i, c := range a.rows {
		id := c.Name + "/" + c.Direction
		if other := b.rows[i].Name + "/" + b.rows[i].Direction; other != id {
			t.Errorf("row %d: %s, then %s", i, id, other)
		}
		if seen[id] {
			t.Errorf("%s: registered twice", id)
		}
		seen[id] = true
		if c.Name == "" || c.Direction == "" || c.Family == "" {
			t.Errorf("row %d (%s): no name, direction or family", i, id)
		}
		if strings.TrimSpace(c.Doc) == "" {
			t.Errorf("%s: no description", id)
		}
		if (c.Run == nil) == (c.Start == nil) || (c.Start != nil) != (c.Background > 0) {
			t.Errorf("%s: want a Run, or a Start with a Background timeout", id)
		}
		if len(c.Sides) == 0 {
			t.Errorf("%s: no sides", id)
		}
		for _, n := range c.Needs {
			if !seen[n] || n == id {
				t.Errorf("%s needs %s, which is not a row registered before it", id, n)
			}
		}
		for _, u := range c.Uses {
			impl := ""
			switch u := u.(type) {
			case runnerUse:
				impl = u.impl
			case featureUse:
				impl = u.impl
			case ownJavaUse:
				impl = "java"
			}
			if impl != "" && !slices.ContainsFunc(c.Sides, func(s caseSide) bool { return s.Impl == impl }) {
				t.Errorf("%s uses a runner of %s, which is not among its sides", id, impl)
			}
		}
		for _, s := range c.Sides {
			if s.Impl == "" || len(s.Roles) == 0 {
				t.Errorf("%s: side %+v has no implementation or no role", id, s)
			}
			for _, r := range s.Roles {
				if !slices.Contains(allRoles, r) {
					t.Errorf("%s: side %s: unknown role %q", id, s.Impl, r)
				}
			}
		}
	}
}

// TestCaseFilter checks PKFT_CASE_IMPL / PKFT_CASE_ROLES: rows are kept by implementation and
// role, and a role without an implementation or an unknown role is refused by name.
func TestCaseFilter(t *testing.T) {
	env := func(impl, roles string) func(string) string {
		return func(k string) string {
			switch k {
			case caseImplEnv:
				return impl
			case caseRolesEnv:
				return roles
			}
			return ""
		}
	}
	row := &caseRow{Sides: []caseSide{side("go", Writer, Compactor), side("java", Consumer)}}
	for _, c := range []struct {
		impl, roles string
		want        bool
	}{
		{"", "", true},
		{"go", "", true},
		{"go", "writer", true},
		{"go", "consumer,compactor", true},
		{"go", "consumer", false},
		{"java", "consumer", true},
		{"java", "writer", false},
		{"pypaimon21", "", false},
	} {
		f, err := caseFilterFromEnv(env(c.impl, c.roles))
		if err != nil {
			t.Fatalf("%q %q: %v", c.impl, c.roles, err)
		}
		if got := f.selects(row); got != c.want {
			t.Errorf("IMPL=%q ROLES=%q: selects %v, want %v", c.impl, c.roles, got, c.want)
		}
	}
	// Over the real table: a consumer row keeps the row that writes its table.
	ct := conformanceCases(catalogueEnviron())
	f, err := caseFilterFromEnv(env("pypaimon21", "consumer"))
	if err != nil {
		t.Fatal(err)
	}
	keep := ct.selected(f)
	for _, id := range []string{"scenario/alternating/read/go+java->pypaimon21", "scenario/alternating/go+java", "consumer/read/ft-default-partitioned/java->pypaimon21"} {
		if !keep[id] {
			t.Errorf("IMPL=pypaimon21 ROLES=consumer leaves out %s", id)
		}
	}
	for _, id := range []string{"maintainer/differential/go->java", "scenario/alternating/read/go+java->rust"} {
		if keep[id] {
			t.Errorf("IMPL=pypaimon21 ROLES=consumer keeps %s", id)
		}
	}
	if _, err := caseFilterFromEnv(env("", "writer")); err == nil || !strings.Contains(err.Error(), caseImplEnv) {
		t.Errorf("roles without an implementation: %v", err)
	}
	if _, err := caseFilterFromEnv(env("go", "writer,reader")); err == nil || !strings.Contains(err.Error(), `"reader"`) {
		t.Errorf("unknown role: %v", err)
	}
}

// docScenarioConsumers describes the consumer rows that read the table an earlier case left.
const docScenarioConsumers = "every consumer implementation (pypaimon 2.1.0, paimon-rust 0.4.0) reads and searches the " +
	"final table of each of these scenarios (every full-text variant) as Java does (the " +
	"consumer cases' checks, on Java's answers recorded when the scenario ends); " +
	"`table/differential/{read,search}` does the same for every full-text copy of every " +
	"differential script (go reads each copy there; its searches are compared by the differential " +
	"itself). pypaimon 2.1.0 refuses to read aggregation tables with retraction " +
	"options or Java's `primary-key` function, and partial-update tables with sequence groups, " +
	"ignore-delete or `remove-record-on-*` options (`pypaimon/read/merge_engine_support.py`): " +
	"those tables are `known-upstream` by option in `pypaimon21.supports` (a table pypaimon " +
	"does read passes). pypaimon 2.1.0 reads a search's hits through its merge read " +
	"(`raw_convertible=False` splits), whose Python rows (`RecordBatchReader.tuple_iterator`: " +
	"polars `iter_rows`, `datetime.datetime`) floor a TIMESTAMP(7-9) value to microseconds: the" +
	" searches of tables with a TIMESTAMP(9) key are `known-upstream` by key type " +
	"(`key-type:TIMESTAMP(9)`) when cutting Java's key values to microseconds makes the hits " +
	"agree (found by `table/differential` seed 7340062, on its Go, Java and alternating copies " +
	"alike: Go and Java both write TIMESTAMP(9) as INT96)."

// usesFixture is a fixture value for TestUsesSetUpBefore: its need fails with err.
type usesFixture struct {
	err   error
	asked []string
}

func (f *usesFixture) need(_ context.Context, cmds ...string) error {
	f.asked = append(f.asked, cmds...)
	return f.err
}

// TestUsesSetUpBeforeRun checks the harness's part of a row: the row's Uses are set up in order
// before Run, the first that cannot be ends the row with its outcome (unavailable, unsupported
// with the supports file's reason) without running Run, and Run gets the fixtures and runners
// set up.
func TestUsesSetUpBeforeRun(t *testing.T) {
	const requireEnv = "PKFT_REQUIRE_USESX_TEST"
	t.Setenv(requireEnv, "")
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	supports := &Supports{Path: filepath.Join(root, "usesx.supports"), Roles: []string{"writer"},
		Commands:    map[string]bool{"write": true},
		Unsupported: map[string]string{"maintain": "usesx does not maintain"}}
	runners := map[string]*implRunner{"usesx": {impl: Impl{Name: "usesx", Supports: supports}, root: root}}
	ok := newFixture(func(*testing.T) *usesFixture { return &usesFixture{} })
	missing := newFixture(func(*testing.T) *usesFixture {
		return &usesFixture{err: unavailable{requireEnv, errors.New("usesx fixture missing")}}
	})
	notRun := func(context.Context, *caseEnv) error { return errors.New("Run ran although a use could not be set up") }
	sides := []caseSide{side("usesx", Writer)}
	ct := &caseTable{family: "uses", report: &Report{}}
	var got *usesFixture
	for _, r := range []caseRow{
		{Name: "uses/fixture-unavailable", Uses: []caseUse{serving(missing, "read"), runnerOf(runners, "usesx", "maintain")}, Run: notRun},
		{Name: "uses/command-unsupported", Uses: []caseUse{serving(ok, "read"), runnerOf(runners, "usesx", "write", "maintain")}, Run: notRun},
		{Name: "uses/command-undeclared", Uses: []caseUse{runnerOf(runners, "usesx", "compact")}, Run: notRun},
		{Name: "uses/feature-undeclared", Uses: []caseUse{featureOf(runners, "usesx", FeatureIndexNewRows)}, Run: notRun},
		{Name: "uses/continuing-first", Uses: []caseUse{continuing(func() error {
			return unavailable{requireEnv, errors.New("nothing to continue")}
		}), runnerOf(runners, "usesx", "maintain")}, Run: notRun},
		{Name: "uses/ready", Uses: []caseUse{serving(ok, "read", "dump"), made(missing)},
			Run: func(_ context.Context, ce *caseEnv) error {
				got = ok.in(ce)
				if missing.in(ce) == nil {
					return errors.New("made(missing) did not make the fixture")
				}
				return nil
			}},
	} {
		r.Direction, r.Sides, r.Doc = "usesx", sides, "a row of TestUsesSetUpBeforeRun"
		ct.add(r)
	}
	t.Run("rows", func(t *testing.T) { ct.run(t, caseFilter{}) })
	want := map[string]struct {
		status Status
		detail string
	}{
		"uses/fixture-unavailable": {Skip, "usesx fixture missing"},
		"uses/command-unsupported": {Unsupported, "declares maintain unsupported: usesx does not maintain"},
		"uses/command-undeclared":  {Unsupported, "does not declare command compact"},
		"uses/feature-undeclared":  {Unsupported, "does not declare feature " + FeatureIndexNewRows},
		"uses/continuing-first":    {Skip, "nothing to continue"},
		"uses/ready":               {Pass, ""},
	}
	seen := 0
	for _, r := range ct.results().Results() {
		w, ok := want[r.Case]
		if !ok || r.Direction != "usesx" {
			continue
		}
		seen++
		if r.Status != w.status || !strings.Contains(r.Detail, w.detail) {
			t.Errorf("%s: %s (%s), want %s with %q", r.Case, r.Status, r.Detail, w.status, w.detail)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d rows reported", seen, len(want))
	}
	for _, r := range report.Results() {
		if r.Direction == "usesx" {
			t.Errorf("the suite's report (results.json, junit.xml) holds this test's row %s/%s", r.Case, r.Direction)
		}
	}
	if got == nil || !slices.Equal(got.asked, []string{"read", "read", "dump"}) {
		t.Errorf("the ready row's fixture was asked for %v, want read (command-unsupported), then read, dump", got)
	}
}
