package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

func writeSupports(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.supports")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadSupports: a supports file declares every consumer command exactly once and documents
// known-upstream bugs with their expected error, upstream file and reason; anything else is
// refused with the line.
func TestLoadSupports(t *testing.T) {
	good := "# c\ncommand read\ncommand search\nunsupported list-index no listing\n" +
		"known-upstream search java/t1 | Err: File *TABLE/index/* missing | up/x.py | reason\n"
	s, err := LoadSupports(writeSupports(t, good))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Commands["read"] || !s.Commands["search"] || s.Unsupported["list-index"] != "no listing" {
		t.Fatalf("%+v", s)
	}
	bug, ok := s.KnownBug("search", "java/t1", inspect.SchemaDump{})
	if !ok || bug.Source != "up/x.py" {
		t.Fatalf("known bug %+v %v", bug, ok)
	}
	if _, ok := s.KnownBug("read", "java/t1", inspect.SchemaDump{}); ok {
		t.Fatal("a bug of search reported for read")
	}
	if !bug.Matches(errors.New("py runner: search: Err: File /a/t1/index/index-1 missing")) {
		t.Fatal("the documented error does not match")
	}
	for _, other := range []string{"py runner: search: Err: File /a/t2/index/index-1 missing", "Err: File /a/t1/bucket-0/x missing", ""} {
		if bug.Matches(errors.New(other)) {
			t.Fatalf("%q matches the documented error", other)
		}
	}
	if bug.Matches(nil) {
		t.Fatal("no error matches")
	}
	// An option selector names every table setting the option to the value.
	s, err = LoadSupports(writeSupports(t, good+"known-upstream search option:a.b=true | Err: File *TABLE/index/* missing | up/y.py | reason\n"))
	if err != nil {
		t.Fatal(err)
	}
	if bug, ok := s.KnownBug("search", "go/t9", inspect.SchemaDump{Options: map[string]string{"a.b": "true"}}); !ok || bug.Source != "up/y.py" ||
		!bug.Matches(errors.New("Err: File /a/t9/index/index-1 missing")) || bug.Matches(errors.New("Err: File /a/t1/index/index-1 missing")) {
		t.Fatalf("option-selected bug %+v %v", bug, ok)
	}
	if _, ok := s.KnownBug("search", "go/t9", inspect.SchemaDump{Options: map[string]string{"a.b": "false"}}); ok {
		t.Fatal("a table without the option got the bug")
	}
	// A table two lines select may show either bug: both are returned, the table's own line first.
	s, err = LoadSupports(writeSupports(t, good+"known-upstream search option:a.b=true | Err: one | up/y.py | reason\n"+
		"known-upstream search option:c.d=x | Err: two | up/z.py | reason\n"+
		"known-upstream search go/t9 | Err: own | up/w.py | reason\n"))
	if err != nil {
		t.Fatal(err)
	}
	bugs := s.KnownBugs("search", "go/t9", inspect.SchemaDump{Options: map[string]string{"a.b": "true", "c.d": "x"}})
	if len(bugs) != 3 || bugs[0].Source != "up/w.py" || bugs[0].BySelector || bugs[1].Source != "up/y.py" || bugs[2].Source != "up/z.py" ||
		!bugs[2].BySelector || bugs[2].Table != "go/t9" || !bugs[2].Matches(errors.New("py: Err: two")) {
		t.Fatalf("bugs of a table two options select: %+v", bugs)
	}
	if bugs := s.KnownBugs("search", "go/t8", inspect.SchemaDump{Options: map[string]string{"c.d": "x"}}); len(bugs) != 1 || bugs[0].Source != "up/z.py" {
		t.Fatalf("bugs of a table one option selects: %+v", bugs)
	}
	if _, err := LoadSupports(writeSupports(t, good+"known-upstream search option:nokey | e | f | r\n")); err == nil {
		t.Fatal("an option selector without a value accepted")
	}
	// A key-type selector names every table with a primary-key field of the type (NOT NULL or
	// not); a value field of the type does not select the table.
	s, err = LoadSupports(writeSupports(t, good+"known-upstream search key-type:TIMESTAMP(9) | cut | up/k.py | reason\n"))
	if err != nil {
		t.Fatal(err)
	}
	ts9 := func(pk string) inspect.SchemaDump {
		return inspect.SchemaDump{Fields: []inspect.FieldDump{{Name: "k", Type: "TIMESTAMP(9) NOT NULL"}, {Name: "v", Type: "TIMESTAMP(9)"}, {Name: "i", Type: "INT NOT NULL"}},
			PrimaryKeys: []string{pk}}
	}
	if bug, ok := s.KnownBug("search", "go/t9", ts9("k")); !ok || bug.Source != "up/k.py" || !bug.BySelector || bug.Table != "go/t9" {
		t.Fatalf("key-type-selected bug %+v %v", bug, ok)
	}
	if _, ok := s.KnownBug("search", "go/t9", ts9("v")); !ok {
		t.Fatal("a nullable TIMESTAMP(9) key does not select the table")
	}
	if _, ok := s.KnownBug("search", "go/t9", ts9("i")); ok {
		t.Fatal("a table whose key is no TIMESTAMP(9) got the bug")
	}
	if _, ok := s.KnownBug("read", "go/t9", ts9("k")); ok {
		t.Fatal("a bug of search reported for read")
	}
	for _, bad := range []string{"key-type:", "key-type:TIMESTAMP(9) NOT NULL"} {
		if _, err := LoadSupports(writeSupports(t, good+"known-upstream search "+bad+" | e | f | r\n")); err == nil {
			t.Fatalf("the selector %q accepted", bad)
		}
	}
	s, err = LoadSupports(writeSupports(t, good+"unsupported search-positions not exposed\n"))
	if err != nil || s.Unsupported["search-positions"] != "not exposed" {
		t.Fatalf("search-positions declared unsupported: %+v, %v", s, err)
	}
	s, err = LoadSupports(writeSupports(t, good+"role consumer\nrole writer\ncommand create-table\nunsupported write not yet\n"))
	if err != nil || !slices.Equal(s.Roles, []string{"consumer", "writer"}) {
		t.Fatalf("roles declared: %+v, %v", s, err)
	}
	for _, bad := range []string{good + "role reader\n", good + "role writer\nrole writer\n", good + "role\n"} {
		if _, err := LoadSupports(writeSupports(t, bad)); err == nil {
			t.Fatalf("accepted %q", bad)
		}
	}
	for _, bad := range []string{
		"command read\ncommand search\n",                                                                // list-index undeclared
		"command read\ncommand search\ncommand list-index\nunsupported read x\n",                        // declared twice
		"command read\ncommand search\nunsupported list-index\n",                                        // no reason
		"command read\ncommand search\nunsupported list-index x\nsupport y\n",                           // unknown kind
		"command read\ncommand search\nunsupported list-index x\nknown-upstream search t | a | b | c\n", // no producer
		"command read\ncommand search\nunsupported list-index x\nknown-upstream search go/t | a | b\n",  // no reason
		"command read\ncommand search\nunsupported list-index x\nunsupported search-position y\n",       // no such feature
	} {
		if _, err := LoadSupports(writeSupports(t, bad)); err == nil {
			t.Fatalf("accepted %q", bad)
		}
	}
}

// defaultImpls returns the repository root and the implementations with no PKFT_IMPL_ variable.
func defaultImpls(t *testing.T) (string, []Impl) {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	impls, err := Impls(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return root, impls
}

// TestImpls: pypaimon21, rust and go are there by default with their checked-in supports files and
// the variables that require them; PKFT_IMPL_<NAME> replaces a default or adds an implementation
// with the supports file of PKFT_IMPL_<NAME>_SUPPORTS, and a bad declaration is refused.
func TestImpls(t *testing.T) {
	root, impls := defaultImpls(t)
	if len(impls) != 3 {
		t.Fatalf("default implementations %+v", impls)
	}
	for i, want := range []struct{ name, command, supports, env string }{
		{Pypaimon21Name, Pypaimon21Command, Pypaimon21Supports, testenv.RequirePypaimonEnv},
		{RustName, RustCommand, RustSupports, testenv.RequireRustEnv},
		{GoName, GoCommand, GoSupports, testenv.RequireGoEnv},
	} {
		got := impls[i]
		if got.Name != want.name || got.Builtin == nil || got.Builtin.RequireEnv != want.env ||
			strings.Join(got.Argv, " ") != want.command || got.Supports.Path != filepath.Join(root, want.supports) {
			t.Fatalf("default implementation %d: %+v", i, got)
		}
	}
	sup := writeSupports(t, "command read\nunsupported search x\nunsupported list-index y\n")
	impls, err := Impls(root, []string{"PKFT_IMPL_CPP=bin/cpp-runner --serve", "PKFT_IMPL_CPP_SUPPORTS=" + sup, "PKFT_IMPL_PYPAIMON21=py r.py", "HOME=/x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(impls) != 4 || impls[0].Name != Pypaimon21Name || impls[0].Builtin != nil || impls[0].Argv[0] != "py" ||
		impls[1].Name != RustName || impls[1].Builtin == nil || impls[2].Name != GoName || impls[2].Builtin == nil ||
		impls[3].Name != "cpp" || strings.Join(impls[3].Argv, " ") != "bin/cpp-runner --serve" || impls[3].Builtin != nil {
		t.Fatalf("implementations %+v", impls)
	}
	for _, env := range [][]string{
		{"PKFT_IMPL_CPP=x"},                                  // no supports file
		{"PKFT_IMPL_CPP_SUPPORTS=" + sup},                    // no command
		{"PKFT_IMPL_CPP=", "PKFT_IMPL_CPP_SUPPORTS=" + sup},  // empty command
		{"PKFT_IMPL_cpp=x", "PKFT_IMPL_cpp_SUPPORTS=" + sup}, // not upper case
		{"PKFT_IMPL_CPP=x", "PKFT_IMPL_CPP_SUPPORTS=/nonexistent"},
	} {
		if _, err := Impls(root, env); err == nil {
			t.Fatalf("accepted %q", env)
		}
	}
}

// TestImplStartMissing: a runner whose program does not exist is unavailable (the consumer cases
// skip a default one, or fail it under its PKFT_REQUIRE_ variable), naming the make target.
func TestImplStartMissing(t *testing.T) {
	root := t.TempDir()
	for _, b := range Builtins {
		i := Impl{Name: b.Name, Argv: []string{".cache/none/bin/" + b.Name, "serve"}, Builtin: &b}
		_, err := i.Start(context.Background(), root)
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), b.MakeTarget) {
			t.Fatalf("%s: got %v", b.Name, err)
		}
	}
	i := Impl{Name: "x", Argv: []string{"pkft-no-such-runner-program"}}
	if _, err := i.Start(context.Background(), root); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v", err)
	}
}

// TestConsumerOutcomesFromSupports runs the pypaimon 2.1.0 runner with supports declarations
// that do not hold: a known-upstream bug documented for a case that passes, and one whose error
// is not the documented one, are failures (a fix upstream is noticed); an unsupported command is
// not run at all; the checked-in declaration of a bug that reproduces is known-upstream.
func TestConsumerOutcomesFromSupports(t *testing.T) {
	root, impls := defaultImpls(t)
	tables, err := consumerTables(root)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*consumerTable{}
	for _, tb := range tables {
		byID[tb.id()] = tb
	}
	passing, buggy := byID["java/ft-default-partitioned"], byID["java/ft-ngram-two-levels"]
	if passing == nil || buggy == nil {
		t.Fatal("the corpus lacks java/ft-default-partitioned or java/ft-ngram-two-levels")
	}
	impl := impls[0]
	r := &implRunner{impl: impl, root: root}
	if _, err := r.get(t); err != nil {
		testenv.Missing(t, testenv.RequirePypaimonEnv, err.Error())
	}
	ctx := context.Background()
	// The checked-in file: the documented bug reproduces.
	var o outcome
	if err := consumerCase(ctx, t, r, "search", buggy, root); !errors.As(err, &o) || o.status != KnownUpstream {
		t.Fatalf("search of %s: %v, want known-upstream", buggy.id(), err)
	}
	if err := consumerCase(ctx, t, r, "list-index", buggy, root); !errors.As(err, &o) || o.status != Unsupported {
		t.Fatalf("list-index: %v, want unsupported", err)
	}
	sup := *impl.Supports
	sup.Known = []KnownBug{
		{Command: "read", Table: passing.id(), Expect: "Error", Source: "x.py", Reason: "documented but absent"},
		{Command: "search", Table: buggy.id(), Expect: "KeyError", Source: "x.py", Reason: "another error"},
	}
	r.impl.Supports = &sup
	err = consumerCase(ctx, t, r, "read", passing, root)
	if err == nil || errors.As(err, &o) || !strings.Contains(err.Error(), "now passes") {
		t.Fatalf("a documented bug that no longer shows: %v, want a failure", err)
	}
	err = consumerCase(ctx, t, r, "search", buggy, root)
	if err == nil || errors.As(err, &o) || !strings.Contains(err.Error(), "fails otherwise") {
		t.Fatalf("a bug other than documented: %v, want a failure", err)
	}
	// Two lines for the table, the documented error in the second: the case is that bug.
	real, ok := impl.Supports.KnownBug("search", buggy.id(), buggy.dump.Schema)
	if !ok {
		t.Fatalf("%s documents no search bug of %s", impl.Supports.Path, buggy.id())
	}
	sup.Known = []KnownBug{{Command: "search", Table: buggy.id(), Expect: "KeyError", Source: "x.py", Reason: "another error"}, real}
	if err := consumerCase(ctx, t, r, "search", buggy, root); !errors.As(err, &o) || o.status != KnownUpstream || !strings.Contains(o.detail, real.Source) {
		t.Fatalf("search of %s with the documented bug second: %v, want known-upstream", buggy.id(), err)
	}
}

// TestSameConsumerHitsTies: in a ranked answer, hits of equal score may come in another order
// across partitions (pypaimon ranks partitions by another byte form), never within one; scores
// are compared within 1e-5 relative.
func TestSameConsumerHitsTies(t *testing.T) {
	hit := func(id int, file string, row int64, score float64) consumerHit {
		b := int64(0)
		return consumerHit{Key: map[string]any{"id": float64(id)}, Text: []byte(`"t"`), Score: score, Bucket: &b, DataFile: file, RowPosition: &row}
	}
	parts := map[string]string{"a1": `{"p":"a"}`, "a2": `{"p":"a"}`, "b1": `{"p":"b"}`}
	want := consumerSearchResult{SnapshotID: 3, Results: []consumerHit{hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(3, "b1", 1, 2), hit(4, "b1", 2, 1)}}
	res := func(h ...consumerHit) consumerSearchResult { return consumerSearchResult{SnapshotID: 3, Results: h} }
	if err := sameConsumerHits(res(want.Results...), want, true, parts); err != nil {
		t.Fatal(err)
	}
	across := res(hit(3, "b1", 1, 2), hit(1, "a1", 0, 2), hit(2, "a2", 5, 2.00001), hit(4, "b1", 2, 1))
	if err := sameConsumerHits(across, want, true, parts); err != nil {
		t.Fatalf("a tie across partitions in another order: %v", err)
	}
	for name, got := range map[string]consumerSearchResult{
		"within a partition": res(hit(2, "a2", 5, 2), hit(1, "a1", 0, 2), hit(3, "b1", 1, 2), hit(4, "b1", 2, 1)),
		"across scores":      res(hit(4, "b1", 2, 1), hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(3, "b1", 1, 2)),
		"a score":            res(hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(3, "b1", 1, 2), hit(4, "b1", 2, 1.001)),
		"a position":         res(hit(1, "a1", 0, 2), hit(2, "a2", 6, 2), hit(3, "b1", 1, 2), hit(4, "b1", 2, 1)),
		"a hit":              res(hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(3, "b1", 1, 2)),
	} {
		if err := sameConsumerHits(got, want, true, parts); err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
	if err := sameConsumerHits(res(hit(2, "a2", 5, 2), hit(1, "a1", 0, 2)), res(hit(1, "a1", 0, 2), hit(2, "a2", 5, 2)), false, parts); err == nil {
		t.Fatal("unranked answers in another order accepted")
	}
	// An unranked answer's ties are a set; a run the limit cuts may hold other members.
	tie := res(hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(3, "b1", 1, 1))
	if err := sameUnrankedHits(res(hit(2, "a2", 5, 2), hit(1, "a1", 0, 2), hit(3, "b1", 1, 1)), tie, 10); err != nil {
		t.Fatalf("a tie in another order: %v", err)
	}
	for name, got := range map[string]consumerSearchResult{
		"another hit in a tie": res(hit(1, "a1", 0, 2), hit(4, "a2", 5, 2), hit(3, "b1", 1, 1)),
		"across scores":        res(hit(3, "b1", 1, 2), hit(2, "a2", 5, 2), hit(1, "a1", 0, 1)),
		"a score":              res(hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(3, "b1", 1, 1.5)),
	} {
		if err := sameUnrankedHits(got, tie, 10); err == nil {
			t.Fatalf("unranked %s: accepted", name)
		}
	}
	if err := sameUnrankedHits(res(hit(1, "a1", 0, 2), hit(2, "a2", 5, 2), hit(9, "b1", 1, 1)), tie, 3); err != nil {
		t.Fatalf("a tie cut by the limit: %v", err)
	}
}

// TestSameRankedHitsWithoutPositions: a ranked answer of a consumer without search positions must
// carry none and come in Java's ranked order hit for hit, ties across partitions included.
func TestSameRankedHitsWithoutPositions(t *testing.T) {
	bucket, row := int64(0), int64(3)
	hit := func(id int, score float64) consumerHit {
		return consumerHit{Key: map[string]any{"id": float64(id)}, Text: []byte(`"t"`), Score: score}
	}
	res := func(h ...consumerHit) consumerSearchResult { return consumerSearchResult{SnapshotID: 2, Results: h} }
	want := res(hit(1, 2), hit(2, 2), hit(3, 1))
	for i := range want.Results {
		want.Results[i].Bucket, want.Results[i].DataFile, want.Results[i].RowPosition = &bucket, "f", &row
	}
	if err := sameRankedHitsWithoutPositions(res(hit(1, 2), hit(2, 2.00001), hit(3, 1)), want); err != nil {
		t.Fatal(err)
	}
	positioned := res(hit(1, 2), hit(2, 2), hit(3, 1))
	positioned.Results[1].DataFile = "f"
	for name, got := range map[string]consumerSearchResult{
		"a tie in another order": res(hit(2, 2), hit(1, 2), hit(3, 1)),
		"a score":                res(hit(1, 2), hit(2, 2), hit(3, 1.01)),
		"a hit":                  res(hit(1, 2), hit(2, 2)),
		"a position":             positioned,
		"the snapshot":           {SnapshotID: 1, Results: res(hit(1, 2), hit(2, 2), hit(3, 1)).Results},
	} {
		if err := sameRankedHitsWithoutPositions(got, want); err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
}

// TestKeysCutToMicros: Java's TIMESTAMP(7-9) key values cut to microseconds (as a reader that
// floors nanoseconds to microseconds returns them) are told apart from other differences.
func TestKeysCutToMicros(t *testing.T) {
	for in, want := range map[string]string{
		"1969-02-27T21:23:54.236709209": "1969-02-27T21:23:54.236709",
		"1969-02-27T21:23:54.2367092":   "1969-02-27T21:23:54.236709",
		"2001-07-23T19:03:59.000000123": "2001-07-23T19:03:59",
		"2001-07-23T19:03:59.100000009": "2001-07-23T19:03:59.1",
		"2001-07-23T19:03:59.123456":    "2001-07-23T19:03:59.123456",
		"2001-07-23T19:03:59":           "2001-07-23T19:03:59",
		"a.b.1234567890":                "a.b.1234567890",
	} {
		if got := cutToMicros(in); got != want {
			t.Errorf("cutToMicros(%q) = %q, want %q", in, got, want)
		}
	}
	hit := func(k string, id int, score float64) consumerHit {
		return consumerHit{Key: map[string]any{"k": k, "id": float64(id)}, Text: []byte(`"t"`), Score: score}
	}
	res := func(h ...consumerHit) consumerSearchResult { return consumerSearchResult{SnapshotID: 2, Results: h} }
	java := res(hit("1969-02-27T21:23:54.236709709", 1, 2), hit("2001-07-23T19:03:59.5", 2, 1))
	nanos := map[string]bool{"k": true}
	cut, ok := keysCutToMicros(java, nanos)
	if !ok || java.Results[0].Key["k"] != "1969-02-27T21:23:54.236709709" {
		t.Fatalf("cut %v %v; Java's answer changed: %v", cut, ok, java)
	}
	truncated := res(hit("1969-02-27T21:23:54.236709", 1, 2), hit("2001-07-23T19:03:59.5", 2, 1))
	if sameUnrankedHits(truncated, java, 10) == nil || sameUnrankedHits(truncated, cut, 10) != nil {
		t.Fatal("the truncated answer is not told apart")
	}
	for name, got := range map[string]consumerSearchResult{
		"rounded":       res(hit("1969-02-27T21:23:54.23671", 1, 2), hit("2001-07-23T19:03:59.5", 2, 1)),
		"another value": res(hit("1969-02-27T21:23:54.236709", 9, 2), hit("2001-07-23T19:03:59.5", 2, 1)),
		"another score": res(hit("1969-02-27T21:23:54.236709", 1, 3), hit("2001-07-23T19:03:59.5", 2, 1)),
	} {
		if sameUnrankedHits(got, cut, 10) == nil {
			t.Errorf("%s: agrees with Java's answer cut to microseconds", name)
		}
	}
	if _, ok := keysCutToMicros(java, map[string]bool{"id": true}); ok {
		t.Fatal("values of other fields cut")
	}
	if _, ok := keysCutToMicros(res(hit("2001-07-23T19:03:59.5", 2, 1)), nanos); ok {
		t.Fatal("a value without nanoseconds cut")
	}
	if got := nanoFields(inspect.Dump{Schema: inspect.SchemaDump{Fields: []inspect.FieldDump{
		{Name: "a", Type: "TIMESTAMP(9) NOT NULL"}, {Name: "b", Type: "TIMESTAMP(7)"}, {Name: "c", Type: "TIMESTAMP(6)"}, {Name: "d", Type: "STRING"}}}}); len(got) != 2 || !got["a"] || !got["b"] {
		t.Fatalf("nanoFields: %v", got)
	}
}

// TestLoadSupportsRoles: a supports file declares its roles (role NAME) and every command of each
// declared role, served or unsupported; a file without role lines is a consumer; an unknown or
// repeated role, an undeclared command of a declared role and a command declared twice are
// refused, naming the role and the command.
func TestLoadSupportsRoles(t *testing.T) {
	consumer := "command read\ncommand search\nunsupported list-index no listing\n"
	s, err := LoadSupports(writeSupports(t, consumer))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Roles, ",") != RoleConsumer {
		t.Fatalf("roles of a file without role lines: %v", s.Roles)
	}
	all := consumer + "role consumer\nrole writer\nrole compactor\nrole maintainer\n"
	for _, r := range []string{RoleWriter, RoleCompactor, RoleMaintainer} {
		for i, c := range RoleCommands(r) {
			if i%2 == 0 {
				all += "command " + c + "\n"
			} else {
				all += "unsupported " + c + " not yet\n"
			}
		}
	}
	s, err = LoadSupports(writeSupports(t, all))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Roles, ",") != strings.Join(Roles, ",") {
		t.Fatalf("roles %v, want %v", s.Roles, Roles)
	}
	if !s.Commands["compact"] || s.Unsupported["minor-compact"] != "not yet" || !s.Commands["maintain"] {
		t.Fatalf("declarations %+v", s)
	}
	for _, c := range []struct{ text, want string }{
		{consumer + "role reader\n", "role NAME"},
		{consumer + "role writer\nrole writer\ncommand create-table\ncommand write\n", "declared twice"},
		{consumer + "role writer\ncommand create-table\n", "role writer: command write"},
		{consumer + "role compactor\ncommand compact\n", "role compactor: command minor-compact"},
		{consumer + "role maintainer\ncommand maintain\n", "role maintainer: command pk-full-text-index-file-build"},
		{consumer + "role writer\ncommand create-table\ncommand write\nunsupported write twice\n", "role writer: command write"},
		{consumer + "unsupported frobnicate why\n", "command of a role"},
		{consumer + "feature frobnicate\n", "want: feature NAME"},
		{consumer + "feature index-new-rows\nfeature index-new-rows\n", "feature index-new-rows is declared twice"},
	} {
		_, err := LoadSupports(writeSupports(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
	// A feature line declares an optional feature; without it the feature is not served.
	if s.Features[FeatureIndexNewRows] {
		t.Fatalf("features of a file without feature lines: %v", s.Features)
	}
	s, err = LoadSupports(writeSupports(t, consumer+"feature index-new-rows\n"))
	if err != nil || !s.Features[FeatureIndexNewRows] {
		t.Fatalf("feature index-new-rows: %+v, %v", s, err)
	}
	// Without the role, its commands need no declaration: a writer's commands may be listed
	// alone (pypaimon 2.1.0 did before roles).
	if _, err := LoadSupports(writeSupports(t, consumer+"command create-table\n")); err != nil {
		t.Fatal(err)
	}
}
