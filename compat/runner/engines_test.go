package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/paimon-pkft/pkft/impl/inspect"
	"github.com/paimon-pkft/pkft/impl/pkfulltext"
)

// testEngines runs the cases of the table options that change how Go's writer and compaction
// merge and rewrite records (issue 18): write/force-rewrite-all-files and write/first-row
// (go->java, java-after-go).
func testEngines(t *testing.T) {
	g := startGroup(t)
	var first engineTable
	runCase(t, "write/first-row", "go->java", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		return firstRowWrites(ctx, g, &first)
	})
	runCase(t, "write/first-row", "java-after-go", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		if first.path == "" {
			return errors.New("go->java did not pass: no Go-written table to continue")
		}
		more := append(updatesAndDeletes(first.model, 81, 20, 10), textRows(500, 540, 82)...)
		if err := g.proc.Call(ctx, "write", map[string]any{"path": first.path, "rows": more}, nil); err != nil {
			return err
		}
		applyFirstRow(first.model, more)
		if err := g.proc.Call(ctx, "compact", map[string]any{"path": first.path}, nil); err != nil {
			return err
		}
		if err := checkJavaView(ctx, g, first.path, first.model, first.fields, true); err != nil {
			return err
		}
		// Go writes once more after Java.
		again := append(updatesAndDeletes(first.model, 83, 20, 5), textRows(540, 560, 84)...)
		if err := goWrite(ctx, g, first.path, again); err != nil {
			return err
		}
		applyFirstRow(first.model, again)
		return checkJavaView(ctx, g, first.path, first.model, first.fields, true)
	})
	var force engineTable
	runCase(t, "write/force-rewrite-all-files", "go->java", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		return forceRewriteAllFiles(ctx, g, &force)
	})
	runCase(t, "write/force-rewrite-all-files", "java-after-go", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		if force.path == "" {
			return errors.New("go->java did not pass: no Go-written table to continue")
		}
		more := append(updatesAndDeletes(force.model, 71, 15, 10), textRows(400, 450, 72)...)
		if err := g.proc.Call(ctx, "write", map[string]any{"path": force.path, "rows": more}, nil); err != nil {
			return err
		}
		force.model.apply(more)
		if err := g.proc.Call(ctx, "compact", map[string]any{"path": force.path}, nil); err != nil {
			return err
		}
		return checkAllRewritten(ctx, g, force.path, force.model, force.fields)
	})
}

// engineTable is a Go-written table a java-after-go direction continues.
type engineTable struct {
	path   string
	fields []field
	model  *rowModel
}

// forceRewriteAllFiles is write/force-rewrite-all-files go->java: on a Java-created full-text
// table with deletion vectors, compaction.force-rewrite-all-files and every file large
// (compaction.small-file-ratio = 0, so without the option a file overlapping nothing would move
// up unchanged, keep file source APPEND and enter no archive), Go writes (the compaction at
// commit), writes updates, deletes and new rows, and compacts fully. After each step Java reads
// the model's rows, every data file above level 0 is a COMPACT file, Java's state shows every
// archive current and Java's search equals Go's.
func forceRewriteAllFiles(ctx context.Context, g *maintainGroup, out *engineTable) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"compaction.force-rewrite-all-files": "true", "compaction.small-file-ratio": "0.0"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "force-rewrite"), "force-rewrite", fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	steps := []struct {
		name    string
		rows    []row
		compact bool
	}{
		{"the first write", textRows(0, 150, 61), false},
		{"the second write", nil, false},
		{"the full compaction", textRows(150, 200, 63), true},
	}
	for i, s := range steps {
		rows := s.rows
		if i == 1 {
			rows = append(updatesAndDeletes(m, 62, 30, 20), textRows(200, 300, 64)...)
		}
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		m.apply(rows)
		if s.compact {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		if err := checkAllRewritten(ctx, g, path, m, fields); err != nil {
			return fmt.Errorf("after %s: %w", s.name, err)
		}
	}
	out.path, out.fields, out.model = path, fields, m
	return nil
}

// checkAllRewritten checks Java reads the model's rows, no data file above level 0 kept file
// source APPEND (each was rewritten, so each is in an archive), at least one such file exists,
// and the archives are current by Java's state with Java's searches equal to Go's.
func checkAllRewritten(ctx context.Context, g *maintainGroup, path string, m *rowModel, fields []field) error {
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := noAppendAboveLevel0(d); err != nil {
		return err
	}
	return checkJavaView(ctx, g, path, m, fields, true)
}

func noAppendAboveLevel0(d *inspect.Dump) error {
	compacted := 0
	for _, b := range d.Buckets {
		for _, f := range b.DataFiles {
			if f.Level == 0 {
				continue
			}
			if f.FileSource != "COMPACT" {
				return fmt.Errorf("bucket %d: %s at level %d has file source %s: it was moved up, not rewritten", b.Bucket, f.FileName, f.Level, f.FileSource)
			}
			compacted++
		}
	}
	if compacted == 0 {
		return errors.New("no data file above level 0: the case tests nothing")
	}
	return nil
}

// applyFirstRow applies rows to a first-row model with ignore-delete: retractions are dropped, and
// a key the model holds keeps its first row.
func applyFirstRow(m *rowModel, rows []row) {
	for _, r := range rows {
		if k := r["_rowKind"]; k == "-D" || k == "-U" {
			continue
		}
		k := m.key(r)
		if _, ok := m.rows[k]; ok {
			continue
		}
		c := row{}
		for f, v := range r {
			if f != "_rowKind" {
				c[f] = v
			}
		}
		m.rows[k] = c
	}
}

// firstRowWrites is write/first-row go->java: on a Java-created full-text table with
// merge-engine = first-row and ignore-delete (no deletion vectors, as Java requires for
// first-row), Go writes rows, then rows that re-insert and update existing keys (new text) with
// deletes, a batch holding one new key twice, and compacts fully. After each step Java's batch
// read (which skips level 0 on first-row tables) returns the first row of every key, every
// archive is current by Java's state and Java's searches equal Go's.
func firstRowWrites(ctx context.Context, g *maintainGroup, out *engineTable) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "merge-engine": "first-row", "ignore-delete": "true", pkfulltext.ColumnsOption: "content"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "first-row"), "first-row", fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	for i, name := range []string{"the first write", "the re-inserts", "the duplicated batch", "the full compaction"} {
		var rows []row
		switch i {
		case 0:
			rows = textRows(0, 150, 91)
		case 1:
			rows = append(updatesAndDeletes(m, 92, 40, 20), textRows(150, 200, 93)...)
		case 2:
			rows = append(textRows(200, 230, 94), textRows(200, 230, 95)...)
			rows = append(rows, updatesAndDeletes(m, 96, 10, 0)...)
		case 3:
			rows = textRows(230, 260, 97)
		}
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		applyFirstRow(m, rows)
		if i == 3 {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		// The first write's files move up unchanged (APPEND files feed no archive), as Java's do.
		if err := checkJavaViewOf(ctx, g, path, m, fields, true, i > 0); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	out.path, out.fields, out.model = path, fields, m
	return nil
}
