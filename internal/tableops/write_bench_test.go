package tableops_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/types"
)

const benchRows = 100_000

// emptyTable creates a table with only its schema: (id INT NOT NULL primary key, content
// STRING), four buckets.
func emptyTable(b *testing.B) *table.Table {
	b.Helper()
	root := b.TempDir()
	sch := &schema.TableSchema{Version: 3, HighestFieldID: 1, PrimaryKeys: []string{"id"},
		Fields:  []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "content", types.String())},
		Options: map[string]string{"bucket": "4"}}
	if err := os.MkdirAll(filepath.Join(root, "schema"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "schema", "schema-0"), sch.Marshal(), 0o644); err != nil {
		b.Fatal(err)
	}
	return table.Open(fileio.NewLocal(), root)
}

func benchWrite(b *testing.B, tbl *table.Table, rows []corpus.Row, every int) {
	ctx := context.Background()
	w, err := tableops.OpenWriter(ctx, tbl, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(rows); i += every {
		var text any
		if !rows[i].Null {
			text = rows[i].Text
		}
		if err := w.Write(ctx, types.Insert, []any{int32(i), text}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWrite writes 100,000 rows into four buckets and commits them (rows/s reported).
func BenchmarkWrite(b *testing.B) {
	rows := corpus.Generate(5, benchRows)
	for b.Loop() {
		b.StopTimer()
		tbl := emptyTable(b)
		b.StartTimer()
		benchWrite(b, tbl, rows, 1)
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCompact fully compacts 100,000 rows plus 50,000 updates in two overlapping runs per
// bucket (records read per second reported).
func BenchmarkCompact(b *testing.B) {
	rows := corpus.Generate(5, benchRows)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		tbl := emptyTable(b)
		benchWrite(b, tbl, rows, 1)
		benchWrite(b, tbl, rows, 2)
		b.StartTimer()
		if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((benchRows+benchRows/2)*b.N)/b.Elapsed().Seconds(), "records/s")
}

// lookupBenchRows is the size of BenchmarkWriteLookup's table; its batches are 2% of it.
const lookupBenchRows = 60_000

// lookupBenchTable builds a much-written deletion-vector table: (id INT NOT NULL primary key,
// content STRING) in two buckets, 30,000 rows written and fully compacted, then ten commits each
// adding 3,000 new ids, updating a thirtieth of the stored ids and deleting a tenth of the
// previous commit's new ids, so that the compaction at each commit leaves runs on several levels.
// It returns the table's directory.
func lookupBenchTable(b *testing.B, rows []corpus.Row) string {
	b.Helper()
	ctx := context.Background()
	root := b.TempDir()
	sch := &schema.TableSchema{Version: 3, HighestFieldID: 1, PrimaryKeys: []string{"id"},
		Fields:  []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "content", types.String())},
		Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}}
	if err := os.MkdirAll(filepath.Join(root, "schema"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "schema", "schema-0"), sch.Marshal(), 0o644); err != nil {
		b.Fatal(err)
	}
	tbl := table.Open(fileio.NewLocal(), root)
	text := func(i int) any {
		r := rows[i%len(rows)]
		if r.Null {
			return nil
		}
		return r.Text
	}
	commit := func(write func(w *tableops.Writer) error) {
		w, err := tableops.OpenWriter(ctx, tbl, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := write(w); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	next := 0
	commit(func(w *tableops.Writer) error {
		for ; next < lookupBenchRows/2; next++ {
			if err := w.Write(ctx, types.Insert, []any{int32(next), text(next)}); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := tableops.Compact(ctx, tbl, nil); err != nil {
		b.Fatal(err)
	}
	for round := 1; round <= 10; round++ {
		prev := next
		commit(func(w *tableops.Writer) error {
			for i := range 3000 {
				id := next + i
				if err := w.Write(ctx, types.Insert, []any{int32(id), text(id)}); err != nil {
					return err
				}
			}
			for id := round; id < prev; id += 30 {
				if err := w.Write(ctx, types.Insert, []any{int32(id), text(id + round)}); err != nil {
					return err
				}
			}
			for id := prev - 3000; round > 1 && id < prev; id += 10 {
				if err := w.Write(ctx, types.Delete, []any{int32(id), text(id)}); err != nil {
					return err
				}
			}
			return nil
		})
		next += 3000
	}
	return root
}

// copyTree copies the directory tree src into dst.
func copyTree(b *testing.B, src, dst string) {
	b.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriteLookup writes a 2% batch (400 new ids, 400 updates, 400 deletes of stored ids)
// into a copy of lookupBenchTable's table and commits it: the compaction at commit looks every
// key of the batch up in the levels above its output level (LookupLevels), the hot path of small
// writes into big tables.
func BenchmarkWriteLookup(b *testing.B) {
	rows := corpus.Generate(5, 5000)
	base := lookupBenchTable(b, rows)
	ctx := context.Background()
	batch := lookupBenchRows / 50
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "t")
		copyTree(b, base, dir)
		tbl := table.Open(fileio.NewLocal(), dir)
		b.StartTimer()
		w, err := tableops.OpenWriter(ctx, tbl, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := range batch / 3 {
			if err := w.Write(ctx, types.Insert, []any{int32(lookupBenchRows + i), rows[i].Text}); err != nil {
				b.Fatal(err)
			}
			if err := w.Write(ctx, types.Insert, []any{int32(7 + 97*i), rows[i+1].Text}); err != nil {
				b.Fatal(err)
			}
			if err := w.Write(ctx, types.Delete, []any{int32(11 + 97*i), nil}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "rows/s")
}
