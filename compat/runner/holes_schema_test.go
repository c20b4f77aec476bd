package runner

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// addSchemaHoles registers the schema-evolution case of issue 44's holes for the maintainer p.
func addSchemaHoles(ct *caseTable, p string, gf *fixture[*maintainGroup], runners map[string]*implRunner) {
	ct.add(caseRow{Name: "scenario/go-maintains-evolved-schema", Direction: as(p, "go->java"), Doc: docHolesEvolvedSchema,
		Sides: []caseSide{side(p, Maintainer), side("java", Writer, Compactor, Maintainer, Consumer)},
		Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "search", "pk-full-text-index-file-build", "archive-search"), runnerOf(runners, p, "maintain")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return evolvedSchema(ctx, gf.in(ce), ce.runner(p))
		}})
}

const docHolesEvolvedSchema = "a case that closes a hole of the second mutation catalogue: the text column of each data " +
	"file is the field of the index's field id in the schema that file was written with (Paimon's " +
	"`KeyValueFileReaderFactory` reads a file through its own schema). Java writes one bucket in four phases, each " +
	"compacted onto the highest level beside the files of the phases before (`compaction.small-file-ratio` 0 keeps " +
	"them): the text column first `body` beside another text column `content`; then `content` renamed `extra` and " +
	"`body` renamed `content`; then a column added before it; then the text column moved last; the index option " +
	"on `content` set after. The case fails unless one level holds compacted files of four schemas. The maintainer " +
	"builds the level's archive; Java's ranked search of every row's own term hits exactly that row, a term of the " +
	"other column hits nothing, and Java's build of the same level has the same document count and answers Java's " +
	"`archive-search` of a word every text holds with the same row ids and scores."

// evolvedTerm and evolvedOther are row i's own terms in its text column and in the other column.
func evolvedTerm(i int) string  { return fmt.Sprintf("se%dz", i) }
func evolvedOther(i int) string { return fmt.Sprintf("ot%dz", i) }

// evolvedSchema is scenario/go-maintains-evolved-schema (go->java); see docHolesEvolvedSchema.
func evolvedSchema(ctx context.Context, g *maintainGroup, goP *Process) error {
	const perPhase = 150
	phases := []struct {
		text, other string         // the text column's and the other column's names when written
		extra       map[string]any // further columns of the phase's rows
		alter       []map[string]any
	}{
		{text: "body", other: "content"},
		{text: "content", other: "extra", alter: []map[string]any{
			{"renameColumns": map[string]string{"content": "extra"}},
			{"renameColumns": map[string]string{"body": "content"}},
		}},
		{text: "content", other: "extra", extra: map[string]any{"tag": "added"}, alter: []map[string]any{
			{"addColumns": []map[string]any{{"name": "tag", "type": "STRING", "before": "content"}}},
		}},
		{text: "content", other: "extra", extra: map[string]any{"tag": "moved"}, alter: []map[string]any{
			{"moveColumns": []map[string]any{{"name": "content", "last": true}}},
		}},
	}
	n := perPhase * len(phases)
	gen := corpus.Generate(3406, n)
	texts := make([]*string, n)
	var steps []tableStep
	for k, ph := range phases {
		for _, a := range ph.alter {
			steps = append(steps, tableStep{alter: a})
		}
		var rows []row
		for i := k * perPhase; i < (k+1)*perPhase; i++ {
			r := row{"id": i, ph.text: nil, ph.other: "other " + evolvedOther(i)}
			if i%17 != 4 {
				s := "evolve " + gen[i].Text + " " + evolvedTerm(i)
				texts[i], r[ph.text] = &s, s
			}
			maps.Copy(r, ph.extra)
			rows = append(rows, r)
		}
		// Two runs of the phase's keys: the full compaction rewrites them (in the schema of the
		// phase) onto the highest level; the earlier phases' files there are kept as they are.
		steps = append(steps, tableStep{rows: rows}, tableStep{rows: rewritten(rows, 7), compact: true})
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "holes", "evolved-schema"), "evolved-schema",
		[]field{{"id", "INT NOT NULL"}, {"body", "STRING"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "compaction.small-file-ratio": "0"},
		indexLater(steps, "content", ""))
	if err != nil {
		return err
	}
	level, schemas, err := evolvedLevel(ctx, path)
	if err != nil {
		return err
	}
	res, d, err := maintainAllCurrent(ctx, g, goP, path)
	if err != nil {
		return err
	}
	b := d.Buckets[0]
	name, ok := b.State.Current[strconv.Itoa(int(level))]
	if !ok || !slices.Contains(res.Built, name) {
		return fmt.Errorf("level %d's current archive %q is not one the maintainer built (%v)", level, name, res.Built)
	}
	// Every row, found by its own term through the maintainer's archive.
	for i, s := range texts {
		if s == nil {
			continue
		}
		hits, err := rankedHits(ctx, g.proc, path, evolvedTerm(i), 10)
		if err != nil {
			return fmt.Errorf("Java: %w", err)
		}
		if len(hits) != 1 || hits[0].id != int64(i) {
			return fmt.Errorf("Java's ranked search of %q (row %d, written in phase %d of the schema evolution) hits %+v, want exactly row %d (level %d holds files of schemas %v)",
				evolvedTerm(i), i, i/perPhase+1, hits, i, level, schemas)
		}
	}
	for k := range phases {
		i := k*perPhase + 1
		hits, err := rankedHits(ctx, g.proc, path, evolvedOther(i), 10)
		if err != nil {
			return fmt.Errorf("Java: %w", err)
		}
		if len(hits) != 0 {
			return fmt.Errorf("Java's ranked search of %q, a term of row %d's other column (phase %d), hits %+v: another column's text was indexed", evolvedOther(i), i, k+1, hits)
		}
	}
	// Java's own archive of the level, compared raw with the maintainer's.
	var j javaIndexFileBuild
	if err := g.proc.Call(ctx, "pk-full-text-index-file-build", map[string]any{"path": path, "partition": b.Partition,
		"bucket": b.Bucket, "level": level}, &j); err != nil {
		return fmt.Errorf("level %d: Java build: %w", level, err)
	}
	rel, err := findFile(path, name)
	if err != nil {
		return err
	}
	theirs, javas := filepath.Join(path, rel), strings.TrimPrefix(j.ArchivePath, "file:")
	if err := sameEnvelope(javas, theirs); err != nil {
		return fmt.Errorf("level %d: Java's archive and the maintainer's %s: %w", level, name, err)
	}
	java := RunnerSide{Label: "java", Proc: g.proc}
	for _, q := range []string{archiveMatch("evolve"), archiveMatch("other"), archiveMatch("evolve " + evolvedTerm(2))} {
		want, err := java.Search(ctx, javas, q, n+10)
		if err != nil {
			return fmt.Errorf("level %d: query %s on Java's archive: %w", level, q, err)
		}
		got, err := java.Search(ctx, theirs, q, n+10)
		if err != nil {
			return fmt.Errorf("level %d: query %s on the maintainer's archive %s: %w", level, q, name, err)
		}
		if err := sameScoredSet(got, want); err != nil {
			return fmt.Errorf("level %d: query %s: Java's archive-search of the maintainer's archive %s against Java's archive of the level: %w", level, q, name, err)
		}
	}
	report.AddNote(fmt.Sprintf("scenario/go-maintains-evolved-schema: %d rows of level %d (files of schemas %v) found by their own terms", n, level, schemas))
	return nil
}

// evolvedLevel returns the level of the table at path whose index source files were written
// with the most schemas, and those schema ids; it fails unless that is four or more.
func evolvedLevel(ctx context.Context, path string) (int32, []int64, error) {
	tb := table.Open(fileio.NewLocal(), path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return 0, nil, err
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return 0, nil, err
	}
	if len(contents.Buckets) != 1 {
		return 0, nil, fmt.Errorf("%d buckets, want 1", len(contents.Buckets))
	}
	bySchema := map[int32]map[int64]bool{}
	var files []string
	for _, f := range contents.Buckets[0].DataFiles {
		files = append(files, fmt.Sprintf("%s (level %d, schema %d)", f.FileName, f.Level, f.SchemaID))
		if !pkindex.ShouldReadDataFile(f) {
			continue
		}
		if bySchema[f.Level] == nil {
			bySchema[f.Level] = map[int64]bool{}
		}
		bySchema[f.Level][f.SchemaID] = true
	}
	best := int32(-1)
	for lv, s := range bySchema {
		if best < 0 || len(s) > len(bySchema[best]) {
			best = lv
		}
	}
	if best < 0 || len(bySchema[best]) < 4 {
		return 0, nil, fmt.Errorf("no level holds compacted files of four schemas (data files %v): the case no longer exercises schema evolution within a level", files)
	}
	return best, slices.Sorted(maps.Keys(bySchema[best])), nil
}
