package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// producerImpls are the implementations of impls whose supports files declare every role of
// roles, in the order of impls: a writer, compactor or maintainer case registers one row for
// each of them (compat/PROTOCOL.md, "Roles"). Implementation go (compat/go, PKFT_IMPL_GO) is one
// of them; a runner added with PKFT_IMPL_<NAME> and a supports file declaring the roles gets the
// same rows, in direction <name>-><checker>.
func producerImpls(impls []Impl, roles ...Role) []string {
	var out []string
	for _, impl := range impls {
		if impl.Supports == nil {
			continue
		}
		if !slices.ContainsFunc(roles, func(r Role) bool { return !slices.Contains(impl.Supports.Roles, string(r)) }) {
			out = append(out, impl.Name)
		}
	}
	return out
}

// as is s (a direction, a case's name or a row it needs) for implementation impl in the place of
// go: every "go" between non-letters becomes impl ("go->java" is "rust->java" for rust,
// "java-after-go" is "java-after-rust"). For go it is s.
func as(impl, s string) string {
	if impl == GoName {
		return s
	}
	letter := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], GoName) && (i == 0 || !letter(s[i-1])) &&
			(i+len(GoName) == len(s) || !letter(s[i+len(GoName)])) {
			b.WriteString(impl)
			i += len(GoName)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// producerRunner returns the runner of implementation impl, through which a writer, compactor or
// maintainer case runs it as it runs any other implementation's runner. A command of cmds its
// supports file declares unsupported makes the case's outcome unsupported, and so does one it
// does not declare, beyond its roles' commands (expire-snapshots, for instance), for any
// implementation but go, whose supports file must declare every command its cases use. A
// missing built-in runner is unavailable: a skip, or a failure under its PKFT_REQUIRE_<NAME>=1.
func producerRunner(t *testing.T, runners map[string]*implRunner, impl string, cmds ...string) (*Process, error) {
	r := runners[impl]
	if r == nil {
		return nil, fmt.Errorf("no implementation %s among the implementations (Builtins in impls.go, PKFT_IMPL_<NAME>)", impl)
	}
	rel, err := filepath.Rel(r.root, r.impl.Supports.Path)
	if err != nil {
		rel = r.impl.Supports.Path
	}
	for _, c := range cmds {
		if reason, ok := r.impl.Supports.Unsupported[c]; ok {
			return nil, outcome{Unsupported, fmt.Sprintf("%s declares %s unsupported: %s", rel, c, reason)}
		}
		if !r.impl.Supports.Commands[c] {
			if impl != GoName {
				return nil, outcome{Unsupported, fmt.Sprintf("%s does not declare command %s", rel, c)}
			}
			return nil, fmt.Errorf("%s does not declare command %s", rel, c)
		}
	}
	return r.get(t)
}

// declaresFeature is nil when implementation impl's supports file declares the optional feature
// (OptionalFeatures), and otherwise the case's unsupported outcome, or for go, whose supports file
// must declare every feature its cases use, an error.
func declaresFeature(runners map[string]*implRunner, impl, feature string) error {
	r := runners[impl]
	if r == nil {
		return fmt.Errorf("no implementation %s among the implementations (Builtins in impls.go, PKFT_IMPL_<NAME>)", impl)
	}
	if r.impl.Supports.Features[feature] {
		return nil
	}
	rel, err := filepath.Rel(r.root, r.impl.Supports.Path)
	if err != nil {
		rel = r.impl.Supports.Path
	}
	msg := fmt.Sprintf("%s does not declare feature %s, %s", rel, feature, OptionalFeatures[feature])
	if impl == GoName {
		return errors.New(msg)
	}
	return outcome{Unsupported, msg}
}

// goRunner is producerRunner for implementation go, for the cases that run Go alone (Go's own
// commands beside in-process checks of Go itself).
func goRunner(t *testing.T, runners map[string]*implRunner, cmds ...string) (*Process, error) {
	return producerRunner(t, runners, GoName, cmds...)
}

// forProducers calls register once for every implementation of impls taking every role of roles
// (producerImpls), with the fixture its rows run on: go's is gf, any other implementation's is a
// fresh one from newGroup (tables and runners of its own, so that two producers' rows never
// share a table).
func forProducers[G any](impls []Impl, roles []Role, gf *fixture[G], newGroup func() *fixture[G], register func(p string, gf *fixture[G])) {
	for _, p := range producerImpls(impls, roles...) {
		if p == GoName {
			register(p, gf)
		} else {
			register(p, newGroup())
		}
	}
}

// goOnlyProducerRows are the rows in which go takes a writer, compactor or maintainer role that
// no other implementation gets: each injects a hook or a fault into Go itself, runs the pkft
// program rather than the runner, or calls Go's own functions (docs/adding-an-implementation.md
// says why, row by row).
var goOnlyProducerRows = []string{
	"faults/",
	"maintain/flink-tables/", "maintainer/invariants/", "maintainer/invariants-sorted/",
	"s3/commit-race/", "s3/range-reads/", "scale/shards/", "state/corrupt/",
	"table/concurrent-commit/compact/", "table/concurrent-commit/compact-replans/",
	"table/concurrent-commit/real-processes/", "table/concurrent-commit/write/",
	"table/concurrent-commit/write-no-retry/", "table/go-created/", "sidecar/follows-writers/",
	"search/", "engine/", "options/registry/",
}

// TestProducerRowsByRole checks that roles, not names, choose the writer, compactor and
// maintainer rows: a second implementation declaring go's supports file (go2, the same runner)
// gets, for every row in which go takes one of those roles, the same row in direction go2 with
// the same roles, except the rows of goOnlyProducerRows; and an implementation declaring the
// consumer role alone gets none of them.
func TestProducerRowsByRole(t *testing.T) {
	base := catalogueEnviron()
	env := append(slices.Clone(base), ImplEnvPrefix+"GO2="+GoCommand, ImplEnvPrefix+"GO2"+supportsSuffix+"="+GoSupports)
	ct := conformanceCases(env)
	if err := errors.Join(ct.errs...); err != nil {
		t.Fatal(err)
	}
	rows := map[string]*caseRow{}
	for _, c := range ct.rows {
		rows[c.Name+"/"+c.Direction] = c
	}
	producer := func(c *caseRow, impl string) []Role {
		for _, s := range c.Sides {
			if s.Impl == impl && slices.ContainsFunc(s.Roles, func(r Role) bool { return r != Consumer }) {
				return s.Roles
			}
		}
		return nil
	}
	twins, goOnly := 0, 0
	used := map[string]bool{}
	for _, c := range ct.rows {
		roles := producer(c, GoName)
		if roles == nil || strings.Contains(c.Direction, "go2") {
			continue
		}
		id := c.Name + "/" + c.Direction
		if i := slices.IndexFunc(goOnlyProducerRows, func(p string) bool { return strings.HasPrefix(id, p) }); i >= 0 {
			used[goOnlyProducerRows[i]] = true
			goOnly++
			continue
		}
		if c.Name == "producer/go" {
			continue // go as the writer of producer/<impl>: go2 gets producer/go2
		}
		name := c.Name
		if rest, ok := strings.CutPrefix(name, "producer/go/"); ok {
			name = "producer/go2/" + rest // go as the writer of producer/<impl>/<case>: go2 writes its own
		}
		twin := rows[name+"/"+as("go2", c.Direction)]
		if twin == nil {
			t.Errorf("%s: no row %s/%s for go2, which declares the same roles", id, name, as("go2", c.Direction))
			continue
		}
		if got := producer(twin, "go2"); !slices.Equal(got, roles) {
			t.Errorf("%s: go2 takes roles %v, go %v", c.Name+"/"+twin.Direction, got, roles)
		}
		twins++
	}
	for _, p := range goOnlyProducerRows {
		if !used[p] {
			t.Errorf("goOnlyProducerRows names %s, but no row in which go is a producer starts with it", p)
		}
	}
	if twins < 40 || goOnly == 0 {
		t.Errorf("%d rows with a go2 twin, %d go-only: the table changed shape", twins, goOnly)
	}
	for _, p := range []string{"producer/go2/go2->go->java", "producer/pypaimon21/pypaimon21->go2->java", "table/differential/go2<->java"} {
		if rows[p] == nil {
			t.Errorf("no row %s", p)
		}
	}
	// An implementation declaring the consumer and writer roles alone (pypaimon 2.1.0) takes the
	// writer role, beyond its producer/<impl> rows, exactly in the rows in which go takes the
	// writer role alone (bucket/hash), and no other producer role.
	writerOnly := 0
	for _, c := range ct.rows {
		id := c.Name + "/" + c.Direction
		if !slices.Equal(producer(c, GoName), []Role{Writer}) || strings.Contains(c.Direction, "go2") || c.Name == "producer/go" ||
			slices.ContainsFunc(goOnlyProducerRows, func(p string) bool { return strings.HasPrefix(id, p) }) {
			continue
		}
		writerOnly++
		if twin := rows[c.Name+"/"+as(Pypaimon21Name, c.Direction)]; twin == nil || !slices.Equal(producer(twin, Pypaimon21Name), []Role{Writer}) {
			t.Errorf("%s: pypaimon21, which declares the writer role, has no row %s/%s taking it", id, c.Name, as(Pypaimon21Name, c.Direction))
		}
	}
	if writerOnly == 0 {
		t.Error("no row in which go takes the writer role alone (bucket/hash): the table changed shape")
	}
	for _, c := range ct.rows {
		if roles := producer(c, Pypaimon21Name); roles != nil && !strings.HasPrefix(c.Name, "producer/") {
			writerOnly--
			if !slices.Equal(roles, []Role{Writer}) {
				t.Errorf("%s/%s: pypaimon21 takes %v", c.Name, c.Direction, roles)
			}
		}
	}
	if writerOnly != 0 {
		t.Errorf("pypaimon21 takes the writer role in %d rows more than go takes it alone in", -writerOnly)
	}
}

// TestAs checks the directions and names as makes for another implementation: every "go"
// between non-letters, and only those.
func TestAs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go->java", "rust->java"},
		{"java-after-go", "java-after-rust"},
		{"java->go->java", "java->rust->java"},
		{"go<->java->pypaimon21", "rust<->java->pypaimon21"},
		{"sorted-read-go", "sorted-read-rust"},
		{"java+go", "java+rust"},
		{"google->java", "google->java"},
		{"cargo", "cargo"},
	} {
		if got := as("rust", c.in); got != c.want {
			t.Errorf("as(rust, %q) = %q, want %q", c.in, got, c.want)
		}
		if got := as(GoName, c.in); got != c.in {
			t.Errorf("as(go, %q) = %q", c.in, got)
		}
	}
}

// TestUnsupportedRolesGiveUnsupported runs, for an implementation that declares the writer,
// compactor and maintainer roles with every compactor and maintainer command unsupported (gow:
// pkft's own runner under another name, its supports file written here), every row in which it
// takes the compactor or maintainer role, with the rows they need and the rows continuing them:
// none fails; each is unsupported, a pass where the row needs the writer's commands alone (gow
// writes), or a skip where a built-in runner the row needs is missing.
// A row continuing an unsupported row (java-after-gow) is unsupported too, and
// write/index-new-rows, whose indexNewRows only pkft's runner declares (feature index-new-rows),
// is unsupported for gow.
func TestUnsupportedRolesGiveUnsupported(t *testing.T) {
	if testing.Short() {
		t.Skip("runs rows of the conformance table")
	}
	var sup strings.Builder
	sup.WriteString("role consumer\nrole writer\nrole compactor\nrole maintainer\n")
	sup.WriteString("command read\ncommand search\nunsupported list-index not listed\ncommand create-table\ncommand write\n")
	for _, r := range []string{RoleCompactor, RoleMaintainer} {
		for _, c := range RoleCommands(r) {
			fmt.Fprintf(&sup, "unsupported %s gow does not %s\n", c, c)
		}
	}
	path := filepath.Join(t.TempDir(), "gow.supports")
	if err := os.WriteFile(path, []byte(sup.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(catalogueEnviron(), ImplEnvPrefix+"GOW="+GoCommand, ImplEnvPrefix+"GOW"+supportsSuffix+"="+path)
	ct := conformanceCases(env)
	ct.report = &Report{} // gow's rows stay out of the suite's report
	var ran []string
	t.Run("rows", func(t *testing.T) {
		ct.run(t, caseFilter{impl: "gow", roles: []Role{Compactor, Maintainer}})
	})
	statuses := map[Status]int{}
	for _, r := range ct.report.Results() { // with the rows gow's need: pick gow's
		if !strings.Contains(r.Direction, "gow") {
			continue
		}
		id := r.Case + "/" + r.Direction
		ran = append(ran, id)
		statuses[r.Status]++
		if r.Status == Fail {
			t.Errorf("%s: %s (%s)", id, r.Status, r.Detail)
		}
		if (id == "write/index-new-rows/gow->java" || id == "table/maintain/partitioned/java-after-gow") && r.Status != Unsupported {
			t.Errorf("%s: %s (%s), want unsupported", id, r.Status, r.Detail)
		}
	}
	if statuses[Unsupported] == 0 {
		t.Fatalf("no row of gow is unsupported: %v", ran)
	}
	for _, id := range []string{"write/index-new-rows/gow->java", "table/maintain/partitioned/java-after-gow"} {
		if !slices.Contains(ran, id) {
			t.Errorf("%s did not run; ran %v", id, ran)
		}
	}
	t.Logf("gow: %d unsupported, %d passed (rows of writes alone: gow is pkft's runner), %d skipped, of %d rows",
		statuses[Unsupported], statuses[Pass], statuses[Skip], len(ran))
}

// TestUnsupportedNeedsPropagate: a row continuing an unsupported row is unsupported without
// running, and so is a row continuing that one in turn (a consumer row reading what a java-after
// row left, where the implementation's own row before it is unsupported).
func TestUnsupportedNeedsPropagate(t *testing.T) {
	ct := &caseTable{family: "needs", report: &Report{}}
	a := caseRow{Name: "needs/x", Direction: "needsx->java", Sides: []caseSide{side("needsx", Maintainer)},
		Run: func(context.Context, *caseEnv) error { return outcome{Unsupported, "needsx does not maintain"} }}
	ran := func(context.Context, *caseEnv) error {
		return errors.New("ran although a row it continues is unsupported")
	}
	b := caseRow{Name: "needs/x", Direction: "java-after-needsx", Sides: []caseSide{side("needsx", Consumer)}, Needs: []string{a.id()}, Run: ran}
	c := caseRow{Name: "needs/x/read", Direction: "needsx+java->needsx", Sides: []caseSide{side("needsx", Consumer)}, Needs: []string{b.id()}, Run: ran}
	for _, r := range []caseRow{a, b, c} {
		ct.add(r)
	}
	t.Run("rows", func(t *testing.T) { ct.run(t, caseFilter{}) })
	var got []Result
	for _, r := range ct.report.Results() {
		if strings.HasPrefix(r.Case, "needs/") {
			got = append(got, r)
		}
	}
	if len(got) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(got), got)
	}
	for _, r := range got {
		if r.Status != Unsupported || !strings.Contains(r.Detail, "needsx does not maintain") {
			t.Errorf("%s/%s: %s (%s), want unsupported with the first row's reason", r.Case, r.Direction, r.Status, r.Detail)
		}
	}
}
