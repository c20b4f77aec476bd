package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// The cases of this file close the holes of issue 44's second mutation catalogue
// (compat/mutations/README.md): rules a maintainer (or a searcher) could break while every
// DV-filtered comparison still passes. They are registered per maintainer by casesHoles.

// addArchiveHoles registers the rows of this file for the maintainer p on the group fixture gf.
func addArchiveHoles(ct *caseTable, p string, gf *fixture[*maintainGroup], runners map[string]*implRunner) {
	ct.add(caseRow{Name: "scenario/go-archives-deleted-rows", Direction: as(p, "go<->java"), Doc: docHolesDeletedRows,
		Sides: []caseSide{side(p, Maintainer), side("java", Writer, Compactor, Maintainer)},
		Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "pk-full-text-index-file-build", "archive-search"), runnerOf(runners, p, "maintain")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return archivesOverDeletedRows(ctx, gf.in(ce), ce.runner(p))
		}})
	ct.add(caseRow{Name: "scenario/go-hits-at-file-boundaries", Direction: as(p, "go->java"), Doc: docHolesFileBoundaries,
		Sides: []caseSide{side(p, Maintainer, Consumer), side("java", Writer, Compactor, Consumer)},
		Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "search"), runnerOf(runners, p, "maintain", "search")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return hitsAtFileBoundaries(ctx, gf.in(ce), ce.runner(p))
		}})
	ct.add(caseRow{Name: "scenario/go-indexmeta-order", Direction: as(p, "go<->java"), Doc: docHolesIndexMetaOrder,
		Sides: []caseSide{side(p, Maintainer), side("java", Writer, Compactor, Maintainer)},
		Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "pk-full-text-index-file-build", "archive-search"), runnerOf(runners, p, "maintain")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return indexMetaOrder(ctx, gf.in(ce), ce.runner(p))
		}})
}

const docHolesDeletedRows = "a case that closes a hole of the second mutation catalogue: Java writes one bucket, fully " +
	"compacts it, then updates and deletes rows, so that deletion vectors delete rows of the compacted levels; the " +
	"index option comes after. The maintainer builds the levels' archives (`maintain`) and Java builds the same " +
	"levels (`pk-full-text-index-file-build`); the two archives of each level are compared raw, without deletion " +
	"vectors: the engine's document count, and Java's `archive-search` on each archive of the terms of the deleted " +
	"rows and of a word every row holds: the same row ids with the same scores (Java indexes one text per physical " +
	"row, deleted or not)."

const docHolesFileBoundaries = "a case that closes a hole of the second mutation catalogue: Java writes one bucket of " +
	"rows, each with a term of its own, and fully compacts it into one level of several data files, the index " +
	"option set after; the maintainer builds the level's archive; Java's ranked search of a word every row holds " +
	"gives every row's (data file, position); then Java's and the implementation's ranked searches of the terms of " +
	"the first and the last row of every file of the level hit exactly that row at the same (data file, position)."

// archiveMatch is the engine query of words on an archive's text field.
func archiveMatch(words string) string {
	return fmt.Sprintf(`{"match":{"query":%q,"column":"text"}}`, words)
}

// deletedRowsTerm is the term of row i's first text in scenario/go-archives-deleted-rows.
func deletedRowsTerm(i int) string { return fmt.Sprintf("dv%dz", i) }

// archivesOverDeletedRows is scenario/go-archives-deleted-rows (go<->java): one bucket with
// deletion vectors; the rows of the first two commits are compacted into a level, then a write
// updates and deletes some of them (Paimon's lookup compaction of that write marks their old
// positions deleted in the compacted files). With the index option set after, no level has an
// archive. The maintainer builds them; for every level Java builds its own archive of the same
// files, and the two are compared without deletion vectors.
func archivesOverDeletedRows(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 240
	gen := corpus.Generate(3404, n)
	var rows []row
	for i := range n {
		r := row{"id": i, "content": nil}
		if i%11 != 3 {
			r["content"] = "everyone " + gen[i].Text + " " + deletedRowsTerm(i)
		}
		rows = append(rows, r)
	}
	// Updates (a new text without the old term) and deletes of rows of the compacted level.
	var changes []row
	changed := map[int]bool{}
	for i := 0; i < n; i++ {
		switch {
		case i%5 == 1:
			changes = append(changes, row{"id": i, "content": fmt.Sprintf("everyone updated up%dz", i)})
			changed[i] = true
		case i%7 == 2:
			changes = append(changes, row{"id": i, "content": nil, "_rowKind": "-D"})
			changed[i] = true
		}
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "deleted-rows"), "deleted-rows",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"},
		indexLater([]tableStep{{rows: rows}, {rows: rewritten(rows, 3), compact: true}, {rows: changes}}, "content", ""))
	if err != nil {
		return err
	}
	before, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	deletedIn, err := eligibleDeletions(before)
	if err != nil {
		return err
	}
	res, after, err := maintainAllCurrent(ctx, g, goP, path)
	if err != nil {
		return err
	}
	var queries []string
	for _, i := range slices.Sorted(maps.Keys(changed)) {
		if rows[i]["content"] != nil {
			queries = append(queries, archiveMatch(deletedRowsTerm(i)))
		}
	}
	queries = append(queries, archiveMatch("everyone"), archiveMatch("everyone "+deletedRowsTerm(1)))
	java := RunnerSide{Label: "java", Proc: g.proc}
	b := after.Buckets[0]
	levels, deletedHits := 0, 0
	for _, lv := range slices.Sorted(maps.Keys(b.State.Current)) {
		name := b.State.Current[lv]
		if !slices.Contains(res.Built, name) {
			return fmt.Errorf("the current archive %s of level %s is not one the maintainer built (%v)", name, lv, res.Built)
		}
		rel, err := findFile(path, name)
		if err != nil {
			return err
		}
		theirs := filepath.Join(path, rel)
		level, err := strconv.Atoi(lv)
		if err != nil {
			return fmt.Errorf("level %q: %w", lv, err)
		}
		var j javaIndexFileBuild
		if err := g.proc.Call(ctx, "pk-full-text-index-file-build", map[string]any{"path": path, "partition": b.Partition,
			"bucket": b.Bucket, "level": level}, &j); err != nil {
			return fmt.Errorf("level %s: Java build: %w", lv, err)
		}
		javas := strings.TrimPrefix(j.ArchivePath, "file:")
		if err := sameEnvelope(javas, theirs); err != nil {
			return fmt.Errorf("level %s: Java's archive and the maintainer's %s (no deletion vectors applied): %w", lv, name, err)
		}
		for _, q := range queries {
			want, err := java.Search(ctx, javas, q, n)
			if err != nil {
				return fmt.Errorf("level %s: query %s on Java's archive: %w", lv, q, err)
			}
			got, err := java.Search(ctx, theirs, q, n)
			if err != nil {
				return fmt.Errorf("level %s: query %s on the maintainer's archive %s: %w", lv, q, name, err)
			}
			if err := sameScoredSet(got, want); err != nil {
				return fmt.Errorf("level %s: query %s: Java's archive-search of the maintainer's archive %s (no deletion vectors), against Java's archive of the level: %w", lv, q, name, err)
			}
			if strings.Contains(q, `"dv`) && deletedIn[lv] {
				deletedHits += len(want)
			}
		}
		levels++
	}
	if levels == 0 || deletedHits == 0 {
		return fmt.Errorf("%d levels compared, %d hits of deleted rows' terms: the case no longer compares archives over deleted rows", levels, deletedHits)
	}
	report.AddNote(fmt.Sprintf("scenario/go-archives-deleted-rows: %d levels compared raw; %d hits of deleted rows' terms in Java's archives", levels, deletedHits))
	return nil
}

// eligibleDeletions returns, by level, whether a deletion vector of d's only bucket deletes rows
// of an eligible file (file source COMPACT above level 0) of the level; it fails unless one does.
func eligibleDeletions(d *inspect.Dump) (map[string]bool, error) {
	if len(d.Buckets) != 1 {
		return nil, fmt.Errorf("%d buckets, want 1", len(d.Buckets))
	}
	b := d.Buckets[0]
	deleted := map[string]bool{}
	for _, f := range b.IndexFiles {
		if f.IndexType != meta.IndexTypeDeletionVectors {
			continue
		}
		for _, r := range f.DeletionVectors {
			if r.Cardinality == nil || *r.Cardinality > 0 {
				deleted[r.DataFile] = true
			}
		}
	}
	out := map[string]bool{}
	var files []string
	for _, f := range b.DataFiles {
		files = append(files, fmt.Sprintf("%s (level %d, %s)", f.FileName, f.Level, f.FileSource))
		if f.Level > 0 && f.FileSource == "COMPACT" && deleted[f.FileName] {
			out[fmt.Sprint(f.Level)] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no deletion vector deletes rows of a compacted file (data files %v, deleted in %v): the case no longer exercises deleted rows", files, slices.Sorted(maps.Keys(deleted)))
	}
	return out, nil
}

// boundaryHit is one hit of a ranked search, by key, data file and position.
type boundaryHit struct {
	id       int64
	dataFile string
	pos      int64
}

// hitsAtFileBoundaries is scenario/go-hits-at-file-boundaries (go->java): the table of
// scenario/go-maintains-multi-file-level (one level of several compacted files, each row with a
// term of its own, the index option set after), maintained by the maintainer; Java's ranked
// search of a word every row holds locates every row; the terms of the first and the last row
// of every file of the level are searched, ranked, by Java and by the implementation, and each
// must hit exactly its row at the (data file, position) Java's search found it.
func hitsAtFileBoundaries(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 3300
	gen := corpus.Generate(3405, n)
	var rows []row
	for i := range n {
		// No nulls: every row holds the common word, so one search locates them all.
		rows = append(rows, row{"id": i, "content": "boundary " + gen[i].Text + fmt.Sprintf(" fb%dz", i)})
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "file-boundaries"), "file-boundaries",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "target-file-size": "4 kb"},
		indexLater([]tableStep{{rows: rows}, {rows: rewritten(rows, 89), compact: true}}, "content", ""))
	if err != nil {
		return err
	}
	level, files, err := multiFileLevelOf(ctx, g, path)
	if err != nil {
		return err
	}
	_, d, err := maintainAllCurrent(ctx, g, goP, path)
	if err != nil {
		return err
	}
	rowCounts := map[string]int64{}
	for _, f := range d.Buckets[0].DataFiles {
		rowCounts[f.FileName] = f.RowCount
	}
	all, err := rankedHits(ctx, g.proc, path, "boundary", n+10)
	if err != nil {
		return fmt.Errorf("Java: %w", err)
	}
	if len(all) != n {
		return fmt.Errorf("Java's search of the common word hits %d rows, want %d", len(all), n)
	}
	at := map[string]map[int64]boundaryHit{}
	for _, h := range all {
		if at[h.dataFile] == nil {
			at[h.dataFile] = map[int64]boundaryHit{}
		}
		at[h.dataFile][h.pos] = h
	}
	searched := 0
	for _, f := range files {
		last := rowCounts[f] - 1
		for _, pos := range []int64{0, last} {
			want, ok := at[f][pos]
			if !ok {
				return fmt.Errorf("Java's search of the common word has no hit at position %d of data file %s of level %s", pos, f, level)
			}
			term := fmt.Sprintf("fb%dz", want.id)
			for _, s := range []struct {
				name string
				proc *Process
			}{{"Java", g.proc}, {"the implementation", goP}} {
				got, err := rankedHits(ctx, s.proc, path, term, 10)
				if err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
				if len(got) != 1 || got[0] != want {
					return fmt.Errorf("%s's ranked search of %q hits %+v, want exactly row %d at position %d of data file %s (the %s row of the file, level %s)",
						s.name, term, got, want.id, pos, f, map[bool]string{true: "first", false: "last"}[pos == 0], level)
				}
			}
			searched++
		}
	}
	report.AddNote(fmt.Sprintf("scenario/go-hits-at-file-boundaries: %d boundary rows of the %d files of level %s found at Java's (file, position)", searched, len(files), level))
	return nil
}

// rankedHits runs a ranked search of words on the table at path through the runner p.
func rankedHits(ctx context.Context, p *Process, path, words string, limit int) ([]boundaryHit, error) {
	var r javaRankedResult
	if err := p.Call(ctx, "search", map[string]any{"path": path, "query": words, "limit": limit, "ranked": true}, &r); err != nil {
		return nil, fmt.Errorf("search %q: %w", words, err)
	}
	var out []boundaryHit
	for _, h := range r.Results {
		id, ok := h.Key["id"].(float64)
		if !ok {
			return nil, fmt.Errorf("search %q: hit key %v has no numeric id", words, h.Key)
		}
		if h.DataFile == "" {
			return nil, fmt.Errorf("search %q: a ranked hit without its data file", words)
		}
		_, pos := rankedPosition(h)
		out = append(out, boundaryHit{id: int64(id), dataFile: h.DataFile, pos: pos})
	}
	return out, nil
}

// indexMetaOrderOptions are the analyzer options of scenario/go-indexmeta-order: a set whose
// keys Java's HashMap orders differently from both the written and the sorted order.
const indexMetaOrderOptions = `{"tokenizer":"default","stem":"false","lower-case":"true"}`

const docHolesIndexMetaOrder = "a case that states what of an archive's `indexMeta` another implementation must match: " +
	"its meaning, not Java's bytes. Paimon 2.0.0 writes the analyzer options as the flat JSON of a map in Java " +
	"`HashMap` order (`NativeFullTextIndexOptions#serialize` over `Options#removePrefix`), and never reads them back " +
	"for a primary-key archive: `PkFullTextBucketIndexState` classifies archives by type, field and source meta, " +
	"`PrimaryKeyFullTextRead` hands the bytes to `NativeFullTextGlobalIndexReader`, which opens the file only, and " +
	"the engine takes the analyzer from the archive's own (normalized) configuration. Java writes a table whose " +
	"column options have three keys that Java orders unlike both the written and the sorted order, the option set " +
	"after the data; the maintainer builds the level's archive and Java builds the same level: the two `indexMeta` " +
	"are JSON objects of the same keys and values (in any order), the archives' engine configurations and " +
	"document counts are equal, Java's state shows the maintainer's archive current, and Java's `archive-search` " +
	"answers the same on both archives for queries whose hits depend on the options (stemming off)."

// jsonStringMap reads a flat JSON object of strings, returning its keys in order and its members.
func jsonStringMap(b []byte) ([]string, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("%q is not a JSON object", b)
	}
	var keys []string
	m := map[string]string{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("%q: member %v: %w", b, k, err)
		}
		keys = append(keys, k.(string))
		m[k.(string)] = v
	}
	return keys, m, nil
}

// indexMetaOrder is scenario/go-indexmeta-order (go<->java); see docHolesIndexMetaOrder.
func indexMetaOrder(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 120
	var rows []row
	for i := range n {
		rows = append(rows, row{"id": i, "content": fmt.Sprintf("Running runners %s io%dz", []string{"run", "RUNNING", "ran"}[i%3], i)})
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "indexmeta-order"), "indexmeta-order",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"},
		indexLater([]tableStep{{rows: rows}, {rows: rewritten(rows, 3), compact: true}}, "content", indexMetaOrderOptions))
	if err != nil {
		return err
	}
	_, d, err := maintainAllCurrent(ctx, g, goP, path)
	if err != nil {
		return err
	}
	tb := table.Open(fileio.NewLocal(), path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return err
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return err
	}
	theirMeta := map[string][]byte{}
	for _, b := range contents.Buckets {
		for _, f := range b.IndexFiles {
			if f.GlobalIndex != nil {
				theirMeta[f.FileName] = f.GlobalIndex.IndexMeta
			}
		}
	}
	java := RunnerSide{Label: "java", Proc: g.proc}
	b := d.Buckets[0]
	same := 0
	for _, lv := range slices.Sorted(maps.Keys(b.State.Current)) {
		name := b.State.Current[lv]
		level, err := strconv.Atoi(lv)
		if err != nil {
			return fmt.Errorf("level %q: %w", lv, err)
		}
		var j javaIndexFileBuild
		if err := g.proc.Call(ctx, "pk-full-text-index-file-build", map[string]any{"path": path, "partition": b.Partition,
			"bucket": b.Bucket, "level": level}, &j); err != nil {
			return fmt.Errorf("level %s: Java build: %w", lv, err)
		}
		if j.IndexFile.GlobalIndex.IndexMeta == nil {
			return fmt.Errorf("level %s: Java's archive has no index meta", lv)
		}
		javaMeta, err := base64.StdEncoding.DecodeString(*j.IndexFile.GlobalIndex.IndexMeta)
		if err != nil {
			return err
		}
		javaKeys, javaMembers, err := jsonStringMap(javaMeta)
		if err != nil {
			return fmt.Errorf("level %s: Java's index meta: %w", lv, err)
		}
		if len(javaKeys) < 3 || slices.IsSorted(javaKeys) || slices.Equal(javaKeys, []string{"tokenizer", "stem", "lower-case"}) {
			return fmt.Errorf("level %s: Java records the options in the order %v: the case no longer has an order of Java's own", lv, javaKeys)
		}
		_, theirMembers, err := jsonStringMap(theirMeta[name])
		if err != nil {
			return fmt.Errorf("level %s: the maintainer's index meta of %s: %w", lv, name, err)
		}
		if !maps.Equal(theirMembers, javaMembers) {
			return fmt.Errorf("level %s: the maintainer's archive %s records the options %q, Java's build of the level %q: not the same options", lv, name, theirMeta[name], javaMeta)
		}
		if string(theirMeta[name]) == string(javaMeta) {
			same++
		}
		rel, err := findFile(path, name)
		if err != nil {
			return err
		}
		theirs, javas := filepath.Join(path, rel), strings.TrimPrefix(j.ArchivePath, "file:")
		if err := sameEnvelope(javas, theirs); err != nil {
			return fmt.Errorf("level %s: %w", lv, err)
		}
		for _, q := range []string{archiveMatch("run"), archiveMatch("running"), archiveMatch("ran runners"), archiveMatch("io7z")} {
			want, err := java.Search(ctx, javas, q, n)
			if err != nil {
				return err
			}
			got, err := java.Search(ctx, theirs, q, n)
			if err != nil {
				return err
			}
			if err := sameScoredSet(got, want); err != nil {
				return fmt.Errorf("level %s: query %s: Java's archive-search of the maintainer's archive %s against Java's archive: %w", lv, q, name, err)
			}
		}
	}
	report.AddNote(fmt.Sprintf("scenario/go-indexmeta-order: %d of %d levels' index meta byte for byte Java's (not required: the meaning is)", same, len(b.State.Current)))
	return nil
}

// maintainAllCurrent has the maintainer's runner maintain the table at path, checks that it built
// and committed archives, and returns what it built with Java's dump of the maintained snapshot,
// in which every archive must be current.
func maintainAllCurrent(ctx context.Context, g *maintainGroup, goP *Process, path string) (maintained, *inspect.Dump, error) {
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		return res, nil, fmt.Errorf("maintain: %w", err)
	}
	if res.committed() == 0 || len(res.Built) == 0 {
		return res, nil, fmt.Errorf("the maintenance built %v in snapshot %d: no level had an archive to build", res.Built, res.committed())
	}
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return res, nil, err
	}
	if err := allCurrent(d); err != nil {
		return res, nil, fmt.Errorf("Java's state of the maintained snapshot: %w", err)
	}
	return res, d, nil
}
