package runner

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

var reportDir = flag.String("report", "", "directory for results.json and junit.xml (the matrix is always printed)")

// report collects the matrix of one test binary run; TestMain prints it.
var report Report

func TestMain(m *testing.M) {
	flag.Parse()
	seed, err := chooseRotateSeed()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rotateSeed = seed
	fmt.Println(rotateSeedLine(rotateSeed))
	start := time.Now()
	code := m.Run()
	report.SetWallTime(time.Since(start))
	if len(report.Results()) > 0 {
		fmt.Println()
		report.PrintMatrix(os.Stdout)
		if *reportDir != "" {
			dir := *reportDir
			if root, err := RepoRoot(); err == nil && !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
			if err := report.WriteFiles(dir); err != nil {
				fmt.Fprintln(os.Stderr, "write conformance report:", err)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// unavailable wraps a runner that could not start: the case is skipped, or failed when the
// runner is required.
type unavailable struct {
	env string
	err error
}

func (u unavailable) Error() string { return u.err.Error() }

// outcome ends a case with an outcome other than pass, fail or skip: Unsupported (from the
// implementation's supports file) or KnownUpstream (a documented upstream bug, reproduced exactly).
type outcome struct {
	status Status
	detail string
}

func (o outcome) Error() string { return string(o.status) + ": " + o.detail }

// runCase runs one matrix cell outside the case table, as a subtest, and records its outcome
// (without roles). Every family of TestConformance registers rows instead (cases_test.go); this
// stays for a family not converted yet.
func runCase(t *testing.T, name, direction string, f func(ctx context.Context) error) {
	t.Helper()
	runRow(t, &report, name, direction, nil, f)
}

// endCase records in rep the outcome err of the case name/direction, which took d and ran its
// implementations in roles, and ends its subtest t accordingly (skipped, failed or passed).
func endCase(t *testing.T, rep *Report, name, direction string, roles map[string][]string, d time.Duration, err error) {
	t.Helper()
	res := Result{Case: name, Direction: direction, Status: Pass, Duration: d, Roles: roles}
	var u unavailable
	var o outcome
	switch {
	case errors.As(err, &o):
		res.Status, res.Detail = o.status, o.detail
		rep.Add(res)
		t.Skipf("%s: %s", o.status, o.detail)
	case errors.As(err, &u) && !testenv.Required(u.env):
		res.Status, res.Detail = Skip, u.Error()
		rep.Add(res)
		t.Skipf("skipped: %v (set %s=1 to make this a failure)", u, u.env)
	case err != nil:
		res.Status, res.Detail = Fail, err.Error()
		rep.Add(res)
		t.Fatal(err)
	default:
		rep.Add(res)
	}
}

// sides starts the runners the engine cases compare against. A runner that cannot start is
// returned as an unavailable error in place of its side.
func sides(t *testing.T) (java, python EngineSide, javaErr, pythonErr error) {
	ctx := context.Background()
	if p, err := StartJava(ctx); err != nil {
		javaErr = unavailable{testenv.RequireJavaEnv, err}
	} else {
		t.Cleanup(func() { p.Close() })
		switch ok, err := HasCommands(ctx, p, "archive-build", "archive-search"); {
		case err != nil:
			javaErr = fmt.Errorf("java runner: %w", err)
		case !ok:
			javaErr = unavailable{testenv.RequireJavaFullTextEnv, errors.New(JavaFullTextMissing)}
		default:
			java = RunnerSide{Label: "java", Proc: p}
			noteJavaFullText(ctx, p)
		}
	}
	if p, err := StartPython(ctx); err != nil {
		pythonErr = unavailable{testenv.RequireNativeEnv, err}
	} else {
		t.Cleanup(func() { p.Close() })
		python = RunnerSide{Label: "python", Proc: p}
	}
	return
}

// engineQueries are the queries every engine case runs: single terms in each script, multi-term
// matches with both operators, phrases and boolean combinations.
func engineQueries() []string {
	en, zh, acc, emo := corpus.Vocabulary()
	match := func(q string) string { return fmt.Sprintf(`{"match":{"query":%q,"column":"text"}}`, q) }
	var qs []string
	for _, w := range en[:8] {
		qs = append(qs, match(w))
	}
	for _, w := range zh[:4] {
		qs = append(qs, match(w))
	}
	for _, w := range acc[:3] {
		qs = append(qs, match(w))
	}
	qs = append(qs,
		match(emo[0]),
		match(en[0]+" "+zh[0]),
		fmt.Sprintf(`{"match":{"query":%q,"column":"text","operator":"and"}}`, en[1]+" "+en[2]),
		fmt.Sprintf(`{"match_phrase":{"query":%q,"column":"text"}}`, en[3]+" "+en[4]),
		fmt.Sprintf(`{"match_phrase":{"query":%q,"column":"text","slop":2}}`, en[0]+" "+en[1]),
		fmt.Sprintf(`{"boolean":{"must":[%s],"must_not":[%s]}}`, match(en[0]), match(en[1])),
		fmt.Sprintf(`{"boolean":{"should":[%s,%s]}}`, match(zh[2]), match(acc[4])),
		fmt.Sprintf(`{"boolean":{"must":[%s,%s]}}`, match(en[5]), match(zh[5])),
	)
	return qs
}

// sameHits compares two result lists: the same row ids in the same order, scores equal within
// 1e-5 relative.
func sameHits(got, want []fulltext.Hit) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].RowID != want[i].RowID {
			return fmt.Errorf("hit %d: row %d, want row %d", i, got[i].RowID, want[i].RowID)
		}
		a, b := float64(got[i].Score), float64(want[i].Score)
		if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
			return fmt.Errorf("hit %d (row %d): score %v, want %v", i, got[i].RowID, a, b)
		}
	}
	return nil
}

func compareSearches(ctx context.Context, queries []string, got, want func(q string) ([]fulltext.Hit, error)) error {
	nonEmpty := 0
	for _, q := range queries {
		g, err := got(q)
		if err != nil {
			return fmt.Errorf("query %s: %w", q, err)
		}
		w, err := want(q)
		if err != nil {
			return fmt.Errorf("query %s (reference): %w", q, err)
		}
		if err := sameHits(g, w); err != nil {
			return fmt.Errorf("query %s: %w", q, err)
		}
		if len(w) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < len(queries)/2 {
		return fmt.Errorf("only %d of %d queries hit anything: the corpus no longer exercises the analyzer", nonEmpty, len(queries))
	}
	return nil
}

// sameEnvelope checks two archives record the same analyzer configuration and document count.
func sameEnvelope(a, b string) error {
	read := func(path string) (*fulltext.Envelope, error) {
		f, size, err := openSized(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return fulltext.ReadEnvelope(f, size)
	}
	ea, err := read(a)
	if err != nil {
		return err
	}
	eb, err := read(b)
	if err != nil {
		return err
	}
	if string(ea.Metadata.Config) != string(eb.Metadata.Config) || ea.Metadata.DocumentCount != eb.Metadata.DocumentCount ||
		ea.Metadata.TantivyVersion != eb.Metadata.TantivyVersion {
		return fmt.Errorf("archive envelopes differ:\n%s (%d docs, tantivy %s)\n%s (%d docs, tantivy %s)",
			ea.Metadata.Config, ea.Metadata.DocumentCount, ea.Metadata.TantivyVersion,
			eb.Metadata.Config, eb.Metadata.DocumentCount, eb.Metadata.TantivyVersion)
	}
	return nil
}

var analyzers = []struct {
	name    string
	options []fulltext.Option
}{
	{"default", nil},
	{"ngram", []fulltext.Option{{Key: "tokenizer", Value: "ngram"}, {Key: "ngram.min-gram", Value: "2"}, {Key: "ngram.max-gram", Value: "2"}}},
	{"jieba", []fulltext.Option{{Key: "tokenizer", Value: "jieba"}}},
}

// TestConformance runs the conformance matrix: every row of the case table (cases_test.go), in
// the order the families register them, less the rows PKFT_CASE_IMPL / PKFT_CASE_ROLES leave out.
func TestConformance(t *testing.T) {
	f, err := caseFilterFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	conformanceCases(os.Environ()).run(t, f)
}

// engineSides are the runners the engine cases compare against, started on first use.
type engineSides struct {
	java, python       EngineSide
	javaErr, pythonErr error
	goSide             GoSide
}

func casesEngine(ct *caseTable) {
	sidesFx := newFixture(func(t *testing.T) *engineSides {
		// A missing engine makes every engine row unavailable rather than stopping the matrix.
		lib, err := native.Load(t.Context(), "")
		s := &engineSides{goSide: GoSide{Lib: lib}}
		s.java, s.python, s.javaErr, s.pythonErr = sides(t)
		if err != nil {
			s.javaErr = unavailable{testenv.RequireNativeEnv, err}
			s.pythonErr = s.javaErr
		}
		return s
	})
	rows := corpus.Generate(2026, 1200)
	texts := make([]*string, len(rows))
	for i := range rows {
		if !rows[i].Null {
			texts[i] = &rows[i].Text
		}
	}
	queries := engineQueries()
	const limit = 50

	for _, a := range analyzers {
		for _, name := range []string{"java", "python"} {
			caseName := "engine/" + a.name
			// other returns the other side of the pair, or why it is unavailable.
			other := func(t *testing.T) (EngineSide, GoSide, error) {
				s := sidesFx.get(t)
				if name == "java" {
					return s.java, s.goSide, s.javaErr
				}
				return s.python, s.goSide, s.pythonErr
			}
			var dir string
			var goArchive, theirArchive BuiltArchive
			build := func(ctx context.Context, t *testing.T) error {
				if goArchive.Path != "" {
					return nil
				}
				them, goSide, err := other(t)
				if err != nil {
					return err
				}
				if dir == "" {
					dir = t.TempDir()
				}
				if goArchive, err = goSide.Build(ctx, dir, texts, a.options); err != nil {
					return fmt.Errorf("go build: %w", err)
				}
				if theirArchive, err = them.Build(ctx, dir, texts, a.options); err != nil {
					return fmt.Errorf("%s build: %w", name, err)
				}
				if theirArchive.RowCount != int64(len(texts)) {
					return fmt.Errorf("%s build reported %d rows, want %d", name, theirArchive.RowCount, len(texts))
				}
				return sameEnvelope(goArchive.Path, theirArchive.Path)
			}
			// Go builds, the other side searches: its hits on the Go archive equal its hits on
			// its own archive of the same rows.
			ct.add(caseRow{Name: caseName, Direction: "go->" + name, Doc: docEngineDefaultNgramJieba,
				Sides: []caseSide{side("go", Maintainer), side(name, Consumer)},
				Run: func(ctx context.Context, ce *caseEnv) error {
					them, _, err := other(ce.T)
					if err != nil {
						return err
					}
					if err := build(ctx, ce.T); err != nil {
						return err
					}
					return compareSearches(ctx, queries,
						func(q string) ([]fulltext.Hit, error) { return them.Search(ctx, goArchive.Path, q, limit) },
						func(q string) ([]fulltext.Hit, error) { return them.Search(ctx, theirArchive.Path, q, limit) })
				}})
			// The other side builds, Go searches: Go's hits equal the other side's on that archive.
			ct.add(caseRow{Name: caseName, Direction: name + "->go", Doc: docEngineDefaultNgramJieba,
				Sides: []caseSide{side(name, Maintainer), side("go", Consumer)},
				Run: func(ctx context.Context, ce *caseEnv) error {
					them, goSide, err := other(ce.T)
					if err != nil {
						return err
					}
					if err := build(ctx, ce.T); err != nil {
						return err
					}
					return compareSearches(ctx, queries,
						func(q string) ([]fulltext.Hit, error) { return goSide.Search(ctx, theirArchive.Path, q, limit) },
						func(q string) ([]fulltext.Hit, error) { return them.Search(ctx, theirArchive.Path, q, limit) })
				}})
		}
	}
}

// casesTables registers the table cases, which need the Java runner on the Paimon jars.
func casesTables(ct *caseTable) {
	ct.add(caseRow{Name: "table/java-pk-full-text", Direction: "java->java", Doc: docTableJavaPkFullText,
		Sides: []caseSide{side("java", Writer, Compactor, Consumer)},
		Uses:  []caseUse{ownJava(unavailable{testenv.RequireJavaFullTextEnv, errors.New(JavaFullTextMissing)}, "search")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			p := ce.runner("java")
			noteJavaFullText(ctx, p)
			return javaPKFullText(ctx, p, ce.T.TempDir())
		}})
}

// noteJavaFullText puts into the matrix header which Java classes the full-text results come from.
func noteJavaFullText(ctx context.Context, p *Process) {
	if factory, err := JavaFullTextIndexer(ctx, p); err == nil {
		report.AddNote(JavaFullTextNote(factory))
	}
}

// pkTextRows are rows lo..hi-1 of the primary-key full-text table, their texts from the
// multilingual corpus generator (nulls included).
func pkTextRows(seed uint64, lo, hi int) []row {
	gen := corpus.Generate(seed, hi)
	var rows []row
	for i := lo; i < hi; i++ {
		r := row{"id": i, "content": nil}
		if !gen[i].Null {
			r["content"] = gen[i].Text
		}
		rows = append(rows, r)
	}
	return rows
}

// javaPKFullText is the table/java-pk-full-text case: Java creates a primary-key table with
// pk-full-text.index.columns and deletion vectors, writes multilingual rows with nulls, updates
// some, compacts, then updates and deletes after the compaction; Paimon's own writer and
// compaction maintain the archives. Java's dump must show every live data file covered by a
// current archive, and Java's search (Paimon's full-text read path) must return exactly the
// keys an in-memory model of the table predicts for term queries.
func javaPKFullText(ctx context.Context, p *Process, dir string) error {
	const rowCount = 160
	steps := []tableStep{
		{rows: pkTextRows(11, 0, 120)},
		{rows: pkTextRows(12, 80, rowCount)},
		{},
		{rows: append(pkTextRows(13, 0, 16), deletes(pkTextRows(14, 20, 32))...)},
	}
	// The model: the latest text of every live key.
	model := map[int]*string{}
	for _, s := range steps {
		for _, r := range s.rows {
			id := r["id"].(int)
			if r["_rowKind"] == "-D" {
				delete(model, id)
				continue
			}
			var text *string
			if v, ok := r["content"].(string); ok {
				text = &v
			}
			model[id] = text
		}
	}
	path, err := createJavaTable(ctx, p, dir, "pk-full-text",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"},
		steps)
	if err != nil {
		return err
	}
	d, err := javaDump(ctx, p, path)
	if err != nil {
		return err
	}
	if err := hasDVRanges(path, d); err != nil {
		return err
	}
	if err := everyArchiveCurrent(d); err != nil {
		return err
	}

	// Term queries: the keys whose latest text has the word (the default analyzer lower-cases;
	// the corpus separates words by spaces, and no two vocabulary words share a stem).
	has := func(text *string, term string) bool {
		if text == nil {
			return false
		}
		for _, w := range strings.Fields(*text) {
			if strings.ToLower(w) == term {
				return true
			}
		}
		return false
	}
	search := func(query string, limit int) (*protocol.SearchResponse, error) {
		var res protocol.SearchResponse
		err := p.Call(ctx, "search", protocol.SearchRequest{Path: path, Query: query, Limit: int64(limit)}, &res)
		return &res, err
	}
	check := func(query string, want func(text *string) bool) (*protocol.SearchResponse, error) {
		res, err := search(query, 1000)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", query, err)
		}
		if res.SnapshotID != d.SnapshotID {
			return nil, fmt.Errorf("search %s: snapshot %d, want the latest %d", query, res.SnapshotID, d.SnapshotID)
		}
		var wantIDs, gotIDs []int
		for id, text := range model {
			if want(text) {
				wantIDs = append(wantIDs, id)
			}
		}
		for i, r := range res.Results {
			id := int(r.Key["id"].(float64))
			gotIDs = append(gotIDs, id)
			got, err := r.TextString()
			if err != nil {
				return nil, fmt.Errorf("search %s: key %d: %w", query, id, err)
			}
			if text := model[id]; text == nil || got == nil || *got != *text {
				return nil, fmt.Errorf("search %s: key %d came back with text %v, the model has %v", query, id, deref(got), deref(text))
			}
			if !(r.Score > 0) {
				return nil, fmt.Errorf("search %s: key %d scored %v", query, id, r.Score)
			}
			if i > 0 && r.Score > res.Results[i-1].Score {
				return nil, fmt.Errorf("search %s: results are not ordered by score", query)
			}
		}
		sort.Ints(wantIDs)
		sort.Ints(gotIDs)
		if !slices.Equal(gotIDs, wantIDs) {
			return nil, fmt.Errorf("search %s: keys %v, the model predicts %v", query, gotIDs, wantIDs)
		}
		return res, nil
	}
	hitTerms := 0
	for _, term := range []string{"paimon", "fox", "river", "snapshot", "mountain", "bucket"} {
		res, err := check(term, func(text *string) bool { return has(text, term) })
		if err != nil {
			return err
		}
		if len(res.Results) > 0 {
			hitTerms++
		}
	}
	if hitTerms < 5 {
		return fmt.Errorf("only %d of 6 terms hit anything: the table no longer exercises the search", hitTerms)
	}
	// A structured query, passed to the engine as it is.
	if _, err := check(`{"boolean":{"must":[{"match":{"query":"paimon"}}],"must_not":[{"match":{"query":"lake"}}]}}`,
		func(text *string) bool { return has(text, "paimon") && !has(text, "lake") }); err != nil {
		return err
	}
	// The limit keeps the best hits across buckets.
	all, err := search("paimon", 1000)
	if err != nil {
		return err
	}
	top, err := search("paimon", 5)
	if err != nil {
		return err
	}
	if len(all.Results) < 6 || len(top.Results) != 5 {
		return fmt.Errorf("paimon: %d hits with limit 5 out of %d", len(top.Results), len(all.Results))
	}
	for i, r := range top.Results {
		if r.Score != all.Results[i].Score {
			return fmt.Errorf("paimon limit 5: hit %d scored %v, the %d-th best score is %v", i, r.Score, i, all.Results[i].Score)
		}
	}
	return nil
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// everyArchiveCurrent checks Java's dump: every bucket's live data files are eligible archive
// sources (compacted, above level 0), each eligible level has a current archive whose sources
// are exactly that level's files, nothing is stale, and no build is planned.
func everyArchiveCurrent(d *inspect.Dump) error {
	for _, b := range d.Buckets {
		where := fmt.Sprintf("bucket %d", b.Bucket)
		if b.State == nil || b.State.Error != "" {
			return fmt.Errorf("%s: no full-text state in Java's dump", where)
		}
		if len(b.State.Stale) > 0 || b.Plan != nil {
			return fmt.Errorf("%s: stale archives %v, plan %+v", where, b.State.Stale, b.Plan)
		}
		archives := map[string]inspect.IndexFileDump{}
		for _, f := range b.IndexFiles {
			archives[f.FileName] = f
		}
		levels := map[string][]string{}
		for _, f := range b.DataFiles {
			if f.Level == 0 || f.FileSource != "COMPACT" {
				return fmt.Errorf("%s: data file %s (level %d, %s) is no archive source", where, f.FileName, f.Level, f.FileSource)
			}
			l := strconv.Itoa(int(f.Level))
			levels[l] = append(levels[l], f.FileName)
		}
		for l, files := range levels {
			name, ok := b.State.Current[l]
			if !ok {
				return fmt.Errorf("%s: level %s has no current archive", where, l)
			}
			a := archives[name]
			if a.GlobalIndex == nil || a.GlobalIndex.SourceMeta == nil {
				return fmt.Errorf("%s: archive %s has no source meta", where, name)
			}
			var sources []string
			for _, s := range a.GlobalIndex.SourceMeta.Files {
				sources = append(sources, s.FileName)
			}
			sort.Strings(sources)
			sort.Strings(files)
			if !slices.Equal(sources, files) {
				return fmt.Errorf("%s: archive %s covers %v, level %s holds %v", where, name, sources, l, files)
			}
		}
		if len(b.State.Current) != len(levels) {
			return fmt.Errorf("%s: current archives %v for levels %v", where, b.State.Current, levels)
		}
	}
	return nil
}

// docEngineDefaultNgramJieba describes engine/{default,ngram,jieba}.
const docEngineDefaultNgramJieba = "the same 1,200-row multilingual corpus (English, Chinese, accented Latin, emoji, nulls) " +
	"built into an archive by each side with the same analyzer options; 24 queries (match, " +
	"phrase, boolean) must return the same row ids in the same order with scores equal within " +
	"1e-5 relative, and the archives must record the same analyzer configuration and document " +
	"count. Directions: `go->python`, `python->go` (the engine's own official Python API from " +
	"the same wheel, `compat/python/engine_runner.py`), and `go->java`, `java->go` (Paimon's " +
	"`full-text` indexer in the Java runner, see [the Java runner](java-runner.md))."

// docTableJavaPkFullText describes table/java-pk-full-text.
const docTableJavaPkFullText = "Java creates a two-bucket primary-key table with `pk-full-text.index.columns` and deletion" +
	" vectors, writes multilingual rows with nulls, updates, compacts, then updates and deletes" +
	" again; Paimon's writer and compaction maintain the archives. Java's dump must show every " +
	"live data file covered by a current archive, and Java's `search` (Paimon's full-text read " +
	"path) must return exactly the keys an in-memory model of the table predicts for term and " +
	"boolean queries, best first, with the limit applied across buckets."
