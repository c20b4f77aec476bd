package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// casesHoles registers the cases that close the holes compat/mutations/README.md names: rules of
// the maintainer only a case running Go through its runner (compat/go) on such a table can check.
// The family comes right after the table differential (a mutation run stops at its first
// failure); its JVM starts with the first of its rows that runs.
func casesHoles(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	forProducers(impls, []Role{Maintainer, Compactor}, groupFixture(), groupFixture, func(p string, gf *fixture[*maintainGroup]) {
		ct.add(caseRow{Name: "scenario/go-maintains-multi-file-level", Direction: as(p, "go->java"), Doc: docHolesMultiFileLevel,
			Sides: []caseSide{side(p, Maintainer, Consumer), side("java", Writer, Compactor, Consumer)},
			Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "search"), runnerOf(runners, p, "maintain", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return multiFileLevel(ctx, gf.in(ce), ce.runner(p))
			}})
		ct.add(caseRow{Name: "scenario/go-indexes-text-after-nul", Direction: as(p, "java->go->java"), Doc: docHolesTextAfterNUL,
			Sides: []caseSide{side(p, Compactor, Consumer), side("java", Writer, Consumer)},
			Uses:  []caseUse{serving(gf, "create-table", "write", "read", "dump", "search"), runnerOf(runners, p, "compact", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return textAfterNUL(ctx, gf.in(ce), ce.runner(p))
			}})
		ct.add(caseRow{Name: "scenario/go-maintains-beside-sorted-indexes", Direction: as(p, "go->java"), Doc: docHolesBesideSorted,
			Sides: []caseSide{side(p, Maintainer, Consumer), side("java", Writer, Compactor, Consumer)},
			Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "search", "predicate-read"), runnerOf(runners, p, "maintain", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return besideSortedIndexes(ctx, gf.in(ce), ce.runner(p))
			}})
		addArchiveHoles(ct, p, gf, runners)
		addSchemaHoles(ct, p, gf, runners)
		addExternalPathHoles(ct, p, gf, runners)
	})
}

const docHolesMultiFileLevel = "a case that closes a hole `make mutations` found (compat/runner/holes_test.go), running Go " +
	"through its runner: Java writes one bucket of 3,300 rows, each with a term of its own, and fully compacts it into " +
	"one level of several data files (the case fails unless a level holds two or more), the index option set after; " +
	"Go's runner maintains it, and Java's and Go's searches of terms of rows spread over every file hit exactly the " +
	"row holding each term (an archive's row ids are its sources' row positions concatenated in the order of its " +
	"source meta)."

const docHolesTextAfterNUL = "a case that closes a hole `make mutations` found: Java writes texts with NULs followed " +
	"by a term of the row's own (write-only), Go's runner fully compacts them, building the archives; Java reads the " +
	"texts whole and Java's and Go's searches of each term after a NUL hit exactly its row."

const docHolesBesideSorted = "a case that closes a hole `make mutations` found: Java writes and compacts a " +
	"partitioned table with pk-btree and pk-bitmap indexes, the full-text option set after; Go's runner maintains " +
	"it: the index files of every other type are those of before, bucket by bucket, every sorted definition and " +
	"archive is current by Java's state, and Java's predicate reads through the sorted indexes return the same rows " +
	"from the same files, narrowed the same way, as before."

// termSearch is one search the hole cases run and the one row key it must hit.
type termSearch struct {
	term string
	id   int
	// text is the row's text, when the case checks the hit's text.
	text *string
}

// searchTerms runs every search on Java's runner (ranked) and on Go's runner goP and checks
// each hits exactly the row of its term; it returns the data files Java's hits lie in.
func searchTerms(ctx context.Context, g *maintainGroup, goP *Process, path string, searches []termSearch) (map[string]bool, error) {
	files := map[string]bool{}
	for _, s := range searches {
		args := map[string]any{"path": path, "query": s.term, "limit": 10, "ranked": true}
		var j javaRankedResult
		if err := g.proc.Call(ctx, "search", args, &j); err != nil {
			return nil, fmt.Errorf("java search %q: %w", s.term, err)
		}
		var gr javaRankedResult
		if err := goP.Call(ctx, "search", args, &gr); err != nil {
			return nil, fmt.Errorf("go search %q: %w", s.term, err)
		}
		for _, side := range []struct {
			name string
			res  *javaRankedResult
		}{{"Java", &j}, {"Go's runner", &gr}} {
			var keys []any
			for _, h := range side.res.Results {
				keys = append(keys, h.Key["id"])
			}
			if len(side.res.Results) != 1 || !sameKeyValue(int64(s.id), side.res.Results[0].Key["id"]) {
				return nil, fmt.Errorf("%s's search of %q hits the keys %v, want exactly [%d], the one row holding the term", side.name, s.term, keys, s.id)
			}
			text, err := side.res.Results[0].TextString()
			if err != nil {
				return nil, fmt.Errorf("%s's search of %q: %w", side.name, s.term, err)
			}
			if s.text != nil && (text == nil || *text != *s.text) {
				return nil, fmt.Errorf("%s's search of %q hits row %d with text %+q, want %+q", side.name, s.term, s.id, deref(text), *s.text)
			}
		}
		files[j.Results[0].DataFile] = true
	}
	return files, nil
}

// multiFileLevel is scenario/go-maintains-multi-file-level (go->java): Java writes one bucket of
// rows, each with a term of its own, and fully compacts it into one level of several data files
// (a small target-file-size; Paimon's rolling writer checks the size every 1,000 rows); the index
// option comes after, so the level has no archive. Go's runner maintains the table, building the
// level's archive; Java's state shows it current over every file of the level; Java's and Go's
// searches of the terms of rows spread over every file hit exactly those rows.
func multiFileLevel(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 3300
	gen := corpus.Generate(3401, n)
	var rows []row
	var searches []termSearch
	for i := range n {
		r := row{"id": i, "content": nil}
		if i%13 != 5 { // some nulls: a null text takes its row position unindexed
			term := fmt.Sprintf("uq%dz", i)
			r["content"] = gen[i].Text + " " + term
			if i%23 == 0 || i == n-1 {
				searches = append(searches, termSearch{term: term, id: i})
			}
		}
		rows = append(rows, r)
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "multi-file-level"), "multi-file-level",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "target-file-size": "4 kb"},
		indexLater([]tableStep{{rows: rows}, {rows: rewritten(rows, 97), compact: true}}, "content", ""))
	if err != nil {
		return err
	}
	level, files, err := multiFileLevelOf(ctx, g, path)
	if err != nil {
		return err
	}
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		return fmt.Errorf("go maintain: %w", err)
	}
	if res.committed() == 0 || len(res.Built) == 0 {
		return fmt.Errorf("Go's maintenance built %v in snapshot %d: the level had no archive", res.Built, res.committed())
	}
	j, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state of Go's snapshot: %w", err)
	}
	var archive string
	for _, as := range currentArchives(j) {
		for _, a := range as {
			if a.level == level {
				archive = a.name
				if !slices.Equal(a.sources, files) {
					return fmt.Errorf("Go's archive %s of level %s covers %v, want the level's files %v", a.name, level, a.sources, files)
				}
			}
		}
	}
	if !slices.Contains(res.Built, archive) {
		return fmt.Errorf("the current archive %q of level %s is not one Go built (%v)", archive, level, res.Built)
	}
	hit, err := searchTerms(ctx, g, goP, path, searches)
	if err != nil {
		return err
	}
	for _, f := range files {
		if !hit[f] {
			return fmt.Errorf("no searched term lies in data file %s of level %s (hits in %v): the case no longer searches every file", f, level, slices.Sorted(maps.Keys(hit)))
		}
	}
	report.AddNote(fmt.Sprintf("scenario/go-maintains-multi-file-level: Go's runner built the archive of level %s over %d data files; %d terms searched, rows of every file among them, each hitting exactly its row",
		level, len(files), len(searches)))
	return nil
}

// multiFileLevelOf returns, by Java's dump, the level of the table's only bucket that holds two
// or more compacted data files (file source COMPACT above level 0: the files an archive covers),
// with their names sorted (as an archive's source meta lists them). Java's dump has no full-text
// state yet: the index option came after the last snapshot.
func multiFileLevelOf(ctx context.Context, g *maintainGroup, path string) (string, []string, error) {
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return "", nil, err
	}
	if len(d.Buckets) != 1 {
		return "", nil, fmt.Errorf("%d buckets, want 1", len(d.Buckets))
	}
	byLevel := map[int32][]string{}
	var files []string
	for _, f := range d.Buckets[0].DataFiles {
		files = append(files, fmt.Sprintf("%s (level %d, %d rows, %s)", f.FileName, f.Level, f.RowCount, f.FileSource))
		if f.Level > 0 && f.FileSource == "COMPACT" {
			byLevel[f.Level] = append(byLevel[f.Level], f.FileName)
		}
	}
	for lv, fs := range byLevel {
		if len(fs) >= 2 {
			return fmt.Sprint(lv), slices.Sorted(slices.Values(fs)), nil
		}
	}
	return "", nil, fmt.Errorf("no level holds two or more compacted files (data files %v): the case no longer exercises a level of several files", files)
}

// nulText is the text of scenario/go-indexes-text-after-nul's row i, made of words, and the
// row's own term, which follows a NUL (at the end, after leading NULs, between NULs, or
// surrounded by spaces).
func nulText(i int, words string) (string, string) {
	term := fmt.Sprintf("nul%dz", i)
	switch i % 4 {
	case 0:
		return words + "\x00" + term, term
	case 1:
		return "\x00\x00" + term + " " + words, term
	case 2:
		return "a\x00b\x00" + term + "\x00" + words, term
	default:
		return words + " \x00 " + term + " after\x00", term
	}
}

// textAfterNUL is scenario/go-indexes-text-after-nul (java->go->java): Java writes texts with
// NUL characters followed by a term of the row's own into level 0 (write-only), with other
// texts beside them; Go's runner fully compacts the table, building every archive; Java reads
// the texts back whole, its state shows Go's archives current, and Java's and Go's searches
// of each term after a NUL hit exactly its row (Java's JNI binding hands the engine the whole
// string, NULs included).
func textAfterNUL(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 120
	gen := corpus.Generate(3402, n)
	var rows []row
	var searches []termSearch
	texts := map[int]string{}
	for i := range n {
		r := row{"id": i, "content": nil}
		switch {
		case i%3 == 0:
			text, term := nulText(i, gen[i].Text)
			r["content"] = text
			texts[i] = text
			searches = append(searches, termSearch{term: term, id: i})
		case !gen[i].Null:
			r["content"] = gen[i].Text
		}
		rows = append(rows, r)
	}
	for i := range searches {
		t := texts[searches[i].id]
		searches[i].text = &t
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "text-after-nul"), "text-after-nul",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}, nil)
	if err != nil {
		return err
	}
	// Two write-only commits with overlapping keys: Go's full compaction merges them into
	// compacted files (a lone file would only move up a level, keeping its file source APPEND,
	// and feed no archive).
	for _, rs := range [][]row{rows, rewritten(rows, 7)} {
		if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": rs,
			"dynamicOptions": map[string]string{"write-only": "true"}}, nil); err != nil {
			return fmt.Errorf("java write: %w", err)
		}
	}
	before, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	existing := map[string]bool{}
	for _, b := range before.Buckets {
		for _, f := range b.IndexFiles {
			existing[f.FileName] = true
		}
	}
	if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
		return fmt.Errorf("go compact: %w", err)
	}
	j, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state of Go's compaction: %w", err)
	}
	archives := 0
	for _, as := range currentArchives(j) {
		for _, a := range as {
			if existing[a.name] {
				return fmt.Errorf("archive %s was there before Go's compaction: Go built nothing over the texts", a.name)
			}
			archives++
		}
	}
	if archives == 0 {
		return errors.New("no current archive after Go's compaction")
	}
	read, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return err
	}
	seen := 0
	for _, r := range read {
		id, _ := r["id"].(float64)
		want, ok := texts[int(id)]
		if !ok {
			continue
		}
		seen++
		if got, _ := r["content"].(string); got != want {
			return fmt.Errorf("row %v: Java reads %+q, wrote %+q", id, got, want)
		}
	}
	if seen != len(texts) {
		return fmt.Errorf("Java read %d of the %d rows with NULs", seen, len(texts))
	}
	_, err = searchTerms(ctx, g, goP, path, searches)
	return err
}

// besideSortedPredicates are the filters of scenario/go-maintains-beside-sorted-indexes' sorted
// reads: on the pk-btree column, the pk-bitmap column, and both.
var besideSortedPredicates = []string{
	"price = 7", "price >= 10 AND price < 20", "price IS NULL",
	"tag = 'red'", "tag IN ('blue', 'Blue')", "price > 30 OR tag = 'green'",
}

// besideSortedIndexes is scenario/go-maintains-beside-sorted-indexes (go->java): Java writes and
// compacts a partitioned table with pk-btree (price) and pk-bitmap (tag) indexes, which its
// compactions maintain; the full-text option comes after, so no level has an archive. Go's
// runner maintains the table (one index-only commit building every bucket's archives). The
// index files of every other type (pk-btree, pk-bitmap, deletion vectors) are those of
// before, bucket by bucket; Java's state shows the sorted definitions and the archives current;
// Java's predicate reads through the sorted indexes return the same rows from the same files,
// narrowed the same way, as before; Java's and Go's searches hit the rows of their terms.
func besideSortedIndexes(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 400
	var rows []row
	var searches []termSearch
	r := rand.New(rand.NewPCG(3403, 21))
	for i := range n {
		x := row{"region": []string{"eu", "us"}[i%2], "id": i, "content": nil}
		setSortedValues(x, r)
		if i%9 != 4 {
			term := fmt.Sprintf("bs%dz", i)
			x["content"] = "sorted and full text " + term
			if i%17 == 0 {
				searches = append(searches, termSearch{term: term, id: i})
			}
		}
		rows = append(rows, x)
	}
	// The second commit updates every third row and fully compacts: the compaction merges the
	// two commits' files into compacted ones, which the indexes cover.
	var updates []row
	for i := 0; i < n; i += 3 {
		x := maps.Clone(rows[i])
		setSortedValues(x, r)
		updates = append(updates, x)
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "beside-sorted"), "beside-sorted",
		sortedScenarioFields, []string{"region", "id"}, []string{"region"},
		map[string]string{"bucket": "2", "deletion-vectors.enabled": "true",
			"pk-btree.index.columns": "price", "pk-bitmap.index.columns": "tag"},
		indexLater([]tableStep{{rows: rows}, {rows: updates, compact: true}}, "content", ""))
	if err != nil {
		return err
	}
	before, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := allSortedCurrent(before, 2, true); err != nil {
		return fmt.Errorf("Java's state before Go's maintenance: %w", err)
	}
	others := otherIndexFiles(before)
	sortedTypes := map[string]bool{}
	for _, b := range before.Buckets {
		for _, s := range b.Sorted {
			sortedTypes[s.IndexType] = true
		}
	}
	payloads := 0
	for _, fs := range others {
		for _, f := range fs {
			if sortedTypes[f.IndexType] {
				payloads++
			}
		}
	}
	if len(sortedTypes) != 2 || payloads == 0 {
		return fmt.Errorf("sorted index types %v with %d payloads: the table no longer carries other families' payloads", slices.Sorted(maps.Keys(sortedTypes)), payloads)
	}
	readsBefore, err := sortedReads(ctx, g, path)
	if err != nil {
		return fmt.Errorf("before Go's maintenance: %w", err)
	}
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		return fmt.Errorf("go maintain: %w", err)
	}
	if res.committed() == 0 || len(res.Built) == 0 {
		return fmt.Errorf("Go's maintenance built %v in snapshot %d: the levels had no archive", res.Built, res.committed())
	}
	after, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if d := cmp.Diff(others, otherIndexFiles(after)); d != "" {
		return fmt.Errorf("Go's full-text maintenance changed the index files of other types (-before +after):\n%s", d)
	}
	if err := allSortedCurrent(after, 2, true); err != nil {
		return fmt.Errorf("Java's state of Go's snapshot: %w", err)
	}
	if err := allCurrent(after); err != nil {
		return fmt.Errorf("Java's full-text state of Go's snapshot: %w", err)
	}
	readsAfter, err := sortedReads(ctx, g, path)
	if err != nil {
		return fmt.Errorf("after Go's maintenance: %w", err)
	}
	if d := cmp.Diff(readsBefore, readsAfter); d != "" {
		return fmt.Errorf("Java's sorted reads changed across Go's full-text maintenance (-before +after):\n%s", d)
	}
	_, err = searchTerms(ctx, g, goP, path, searches)
	return err
}

// otherIndexFiles lists, by bucket, the index files of d that are not full-text archives,
// sorted by type and name.
func otherIndexFiles(d *inspect.Dump) map[string][]inspect.IndexFileDump {
	out := map[string][]inspect.IndexFileDump{}
	for _, b := range d.Buckets {
		key := bucketKeyOf(b)
		for _, f := range b.IndexFiles {
			if f.IndexType != pkfulltext.IndexType {
				out[key] = append(out[key], f)
			}
		}
		sort.Slice(out[key], func(i, j int) bool {
			return out[key][i].IndexType+"/"+out[key][i].FileName < out[key][j].IndexType+"/"+out[key][j].FileName
		})
	}
	return out
}

// rewritten is every k-th row of rows again (the same values), a commit whose keys overlap
// every file of the rows' commit.
func rewritten(rows []row, k int) []row {
	var out []row
	for i := 0; i < len(rows); i += k {
		out = append(out, maps.Clone(rows[i]))
	}
	return out
}

// sortedRead is one of Java's predicate reads: the filter, the rows (as JSON) and how each file
// was read, in a canonical order.
type sortedRead struct {
	Filter string
	Rows   []string
	Splits []string
}

// sortedReads runs Java's predicate reads of besideSortedPredicates on the table; some file must
// be narrowed by a sorted index.
func sortedReads(ctx context.Context, g *maintainGroup, path string) ([]sortedRead, error) {
	s, err := table.Open(fileio.NewLocal(), path).LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	var out []sortedRead
	narrowed := 0
	for _, expr := range besideSortedPredicates {
		pr, err := predicate.Parse(expr, s.Fields)
		if err != nil {
			return nil, err
		}
		var j javaPredicateRead
		if err := g.proc.Call(ctx, "predicate-read", map[string]any{"path": path, "predicate": predicateJSON(pr)}, &j); err != nil {
			return nil, fmt.Errorf("java predicate read %s: %w", expr, err)
		}
		sr := sortedRead{Filter: expr}
		for _, r := range j.Rows {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(r)) {
				parts = append(parts, k+"="+string(r[k]))
			}
			sr.Rows = append(sr.Rows, strings.Join(parts, ","))
		}
		for _, f := range j.Splits {
			sr.Splits = append(sr.Splits, fmt.Sprintf("%d/%s %s %v", f.Bucket, f.File, f.How, f.Ranges))
			if f.How == "narrowed" {
				narrowed++
			}
		}
		sort.Strings(sr.Rows)
		sort.Strings(sr.Splits)
		out = append(out, sr)
	}
	if narrowed == 0 {
		return nil, errors.New("no predicate read was narrowed by a sorted index: the case no longer reads through them")
	}
	return out, nil
}
