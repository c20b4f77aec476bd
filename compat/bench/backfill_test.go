package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// The backfill measurement (issue 35): on a full-text deletion-vector table where about 10% of
// the rows are in files no archive can cover (moved up unchanged by the compaction at commit),
// the index backfill of pkft compact --strategy uncovered against a full compaction with
// compaction.force-rewrite-all-files, on two copies of the table: the data and index bytes each
// writes and its time. PKFT_BENCH_BACKFILL_ROWS sets the table's rows (default: the size's).

// backfillBuckets is the measured table's bucket count.
const backfillBuckets = 4

// backfillRows is the table size: PKFT_BENCH_BACKFILL_ROWS when set, else def.
func backfillRows(def int) (int, error) {
	v := os.Getenv("PKFT_BENCH_BACKFILL_ROWS")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 {
		return 0, fmt.Errorf("PKFT_BENCH_BACKFILL_ROWS=%q: want a row count of at least 100", v)
	}
	return n, nil
}

// measureBackfill builds the table in dir (90% of the rows written with WithIndexNewRows, then
// 10% new rows written plainly, moved up unchanged), copies it, and times each compaction.
func measureBackfill(t *testing.T, ctx context.Context, dir string, rows int) *BackfillResult {
	t.Helper()
	base := filepath.Join(dir, "base")
	tbl, err := pkft.Create(ctx, base, pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "INT NOT NULL"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		// No file counts as small, so that the plain write's files are moved up rather than
		// merged with the covered files beside them.
		Options: map[string]string{"bucket": strconv.Itoa(backfillBuckets), "deletion-vectors.enabled": "true",
			pkfulltext.ColumnsOption: "content", "compaction.small-file-ratio": "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	covered := rows * 9 / 10
	docs := corpus.Generate(35, rows)
	write := func(lo, hi int, opts ...pkft.WriteOption) {
		w, err := tbl.NewWriter(ctx, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i := lo; i < hi; i++ {
			var text any
			if !docs[i].Null {
				text = docs[i].Text
			}
			if err := w.Write(ctx, pkft.Insert, []any{int32(i), text}); err != nil {
				t.Fatal(errors.Join(err, w.Abort(ctx)))
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(0, covered, pkft.WithIndexNewRows())
	write(covered, rows)
	st, err := tbl.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := &BackfillResult{Rows: rows, Buckets: backfillBuckets, UncoveredRows: st.Coverage.UncoveredRows}
	if st.Coverage.UncoveredRows == 0 {
		t.Fatal("backfill: the plain write left nothing uncovered")
	}
	before, err := filesUnder(base)
	if err != nil {
		t.Fatal(err)
	}
	if res.TableBytes, res.UncoveredBytes, err = liveDataBytes(ctx, base); err != nil {
		t.Fatal(err)
	}

	run := func(name string, compact func(*pkft.Table) error) (data, index int64, seconds float64, uncoveredAfter int) {
		path := filepath.Join(dir, name)
		if err := os.CopyFS(path, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		tb, err := pkft.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		settle()
		start := time.Now()
		if err := compact(tb); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seconds = time.Since(start).Seconds()
		after, err := filesUnder(path)
		if err != nil {
			t.Fatal(err)
		}
		for f, size := range after {
			if _, ok := before[f]; ok {
				continue
			}
			switch {
			case strings.HasPrefix(f, "index/"):
				index += size
			case strings.Contains(f, "bucket-"):
				data += size
			}
		}
		st, err := tb.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return data, index, seconds, int(st.Coverage.UncoveredRows)
	}
	res.UncoveredData, res.UncoveredIndex, res.UncoveredTime, res.UncoveredSearch = run("uncovered", func(tb *pkft.Table) error {
		_, err := tb.Compact(ctx, pkft.WithUncoveredCompaction())
		return err
	})
	res.FullData, res.FullIndex, res.FullTime, res.FullSearch = run("force-rewrite", func(tb *pkft.Table) error {
		if err := setOption(ctx, tb.Path(), "compaction.force-rewrite-all-files", "true"); err != nil {
			return err
		}
		tb, err := pkft.Open(ctx, tb.Path())
		if err != nil {
			return err
		}
		_, err = tb.Compact(ctx)
		return err
	})
	if res.UncoveredSearch != 0 || res.FullSearch != 0 {
		t.Fatalf("backfill: rows still uncovered after the compactions: %d (uncovered strategy), %d (full rewrite)", res.UncoveredSearch, res.FullSearch)
	}
	return res
}

// filesUnder maps every file under dir (relative path) to its size.
func filesUnder(dir string) (map[string]int64, error) {
	out := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = info.Size()
		return nil
	})
	return out, err
}

// liveDataBytes sums the sizes of the table's live data files, and of those above level 0 with
// file source APPEND (the moved-up files no archive can cover).
func liveDataBytes(ctx context.Context, dir string) (live, movedUp int64, err error) {
	contents, err := commit.LatestContents(ctx, table.Open(fileio.NewLocal(), dir))
	if err != nil {
		return 0, 0, err
	}
	for _, b := range contents.Buckets {
		for _, f := range b.DataFiles {
			live += f.FileSize
			if f.Level > 0 && !pkindex.ShouldReadDataFile(f) {
				movedUp += f.FileSize
			}
		}
	}
	return live, movedUp, nil
}

// setOption commits a new schema setting key to value (as Java's SchemaManager commits an
// option change).
func setOption(ctx context.Context, dir, key, value string) error {
	s, err := table.Open(fileio.NewLocal(), dir).LatestSchema(ctx)
	if err != nil {
		return err
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = maps.Clone(s.Options)
	if _, ok := next.Options[key]; !ok {
		next.OptionOrder = append(slices.Clone(s.OptionOrder), key)
	}
	next.Options[key] = value
	return os.WriteFile(filepath.Join(dir, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644)
}
