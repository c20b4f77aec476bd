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
