package runner

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// addExternalPathHoles registers the global-index.external-path case of issue 44's holes for
// the maintainer p.
func addExternalPathHoles(ct *caseTable, p string, gf *fixture[*maintainGroup], runners map[string]*implRunner) {
	ct.add(caseRow{Name: "scenario/go-maintains-external-index-path", Direction: as(p, "go->java"), Doc: docHolesExternalIndexPath,
		Sides: []caseSide{side(p, Maintainer), side("java", Writer, Compactor, Maintainer, Consumer)},
		Uses:  []caseUse{serving(gf, "create-table", "write", "alter-table", "dump", "search", "pk-full-text-index-file-build", "archive-search"), runnerOf(runners, p, "maintain")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return externalIndexPath(ctx, gf.in(ce), ce.runner(p))
		}})
}

const docHolesExternalIndexPath = "a case that closes a hole of the second mutation catalogue: with " +
	"`global-index.external-path` an index file lives under that root and its `IndexFileMeta` records the full " +
	"path (Paimon's `IndexPathFactory#isExternalPath`; readers resolve a recorded external path, else the table's " +
	"own index directory). Java writes one bucket with the option and fully compacts it, the index option set " +
	"after; the maintainer builds the level's archive; Java's state shows it current, its meta (Java's dump) " +
	"records an external path under the root where the file is (and the table's index directory does not hold " +
	"it), Java's ranked search of rows' own terms hits each row, and Java's build of the level " +
	"(`pk-full-text-index-file-build`) records its external path under the same root and answers Java's " +
	"`archive-search` as the maintainer's archive does."

// externalTerm is row i's own term in scenario/go-maintains-external-index-path.
func externalTerm(i int) string { return fmt.Sprintf("xp%dz", i) }

// localPath turns a Paimon file URI (file:/a, file:///a) or a plain path into a local path.
func localPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "file:"); ok {
		p = "/" + strings.TrimLeft(rest, "/")
	}
	return filepath.Clean(p)
}

// externalIndexPath is scenario/go-maintains-external-index-path (go->java); see
// docHolesExternalIndexPath.
func externalIndexPath(ctx context.Context, g *maintainGroup, goP *Process) error {
	const n = 400
	dir := filepath.Join(g.dir, "holes", "external-index-path")
	root := filepath.Join(dir, "external-index")
	gen := corpus.Generate(3407, n)
	var rows []row
	for i := range n {
		r := row{"id": i, "content": nil}
		if i%13 != 6 {
			r["content"] = "outside " + gen[i].Text + " " + externalTerm(i)
		}
		rows = append(rows, r)
	}
	path, err := createJavaTable(ctx, g.proc, dir, "external-index-path",
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "global-index.external-path": "file://" + root},
		indexLater([]tableStep{{rows: rows}, {rows: rewritten(rows, 3), compact: true}}, "content", ""))
	if err != nil {
		return err
	}
	res, d, err := maintainAllCurrent(ctx, g, goP, path)
	if err != nil {
		return err
	}
	b := d.Buckets[0]
	if len(b.State.Current) == 0 {
		return fmt.Errorf("no level has a current archive")
	}
	recorded := map[string]string{}
	for _, f := range b.IndexFiles {
		if f.ExternalPath != nil {
			recorded[f.FileName] = *f.ExternalPath
		}
	}
	java := RunnerSide{Label: "java", Proc: g.proc}
	for _, lv := range slices.Sorted(maps.Keys(b.State.Current)) {
		name := b.State.Current[lv]
		if !slices.Contains(res.Built, name) {
			return fmt.Errorf("level %s's current archive %s is not one the maintainer built (%v)", lv, name, res.Built)
		}
		ext, ok := recorded[name]
		if !ok {
			return fmt.Errorf("level %s: the maintainer's archive %s records no external path (the table sets global-index.external-path %s)", lv, name, root)
		}
		theirs := localPath(ext)
		if filepath.Dir(theirs) != root || filepath.Base(theirs) != name {
			return fmt.Errorf("level %s: the maintainer's archive %s records the external path %s, want %s under %s", lv, name, ext, name, root)
		}
		if _, err := os.Stat(theirs); err != nil {
			return fmt.Errorf("level %s: the archive at its recorded external path: %w", lv, err)
		}
		if _, err := os.Stat(filepath.Join(path, "index", name)); err == nil {
			return fmt.Errorf("level %s: the archive %s is in the table's own index directory too", lv, name)
		}
		level, err := strconv.Atoi(lv)
		if err != nil {
			return fmt.Errorf("level %q: %w", lv, err)
		}
		var j javaIndexFileBuild
		if err := g.proc.Call(ctx, "pk-full-text-index-file-build", map[string]any{"path": path, "partition": b.Partition,
			"bucket": b.Bucket, "level": level}, &j); err != nil {
			return fmt.Errorf("level %s: Java build: %w", lv, err)
		}
		if j.IndexFile.ExternalPath == nil || filepath.Dir(localPath(*j.IndexFile.ExternalPath)) != root {
			return fmt.Errorf("level %s: Java's build of the level records the external path %v, want one under %s: the case no longer checks what Java records", lv, j.IndexFile.ExternalPath, root)
		}
		javas := localPath(j.ArchivePath)
		if err := sameEnvelope(javas, theirs); err != nil {
			return fmt.Errorf("level %s: Java's archive and the maintainer's %s: %w", lv, name, err)
		}
		for _, q := range []string{archiveMatch("outside"), archiveMatch("outside " + externalTerm(3))} {
			want, err := java.Search(ctx, javas, q, n+10)
			if err != nil {
				return fmt.Errorf("level %s: query %s on Java's archive: %w", lv, q, err)
			}
			got, err := java.Search(ctx, theirs, q, n+10)
			if err != nil {
				return fmt.Errorf("level %s: query %s on the maintainer's archive %s: %w", lv, q, name, err)
			}
			if err := sameScoredSet(got, want); err != nil {
				return fmt.Errorf("level %s: query %s: Java's archive-search of the maintainer's archive %s against Java's archive of the level: %w", lv, q, name, err)
			}
		}
	}
	searched := 0
	for i := 0; i < n; i += 7 {
		if rows[i]["content"] == nil {
			continue
		}
		hits, err := rankedHits(ctx, g.proc, path, externalTerm(i), 10)
		if err != nil {
			return fmt.Errorf("Java: %w", err)
		}
		if len(hits) != 1 || hits[0].id != int64(i) {
			return fmt.Errorf("Java's ranked search of %q hits %+v, want exactly row %d", externalTerm(i), hits, i)
		}
		searched++
	}
	report.AddNote(fmt.Sprintf("scenario/go-maintains-external-index-path: %d levels' archives under the external root, %d rows found by their own terms", len(b.State.Current), searched))
	return nil
}
