package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/impl/fulltext/native"
	"github.com/paimon-pkft/pkft/impl/pkfulltext"
)

// TestWriteCompactPerf times Go's writer and full compaction next to Java's on the same rows in
// one run (PKFT_WRITE_PERF=1; PKFT_WRITE_PERF_ROWS rows, default 200,000): for a plain table and
// a full-text table with deletion vectors, Java writes (runner write: rows arrive as JSON) and
// fully compacts one copy, Go writes and compacts another, and Go writes a third copy from one
// Arrow record batch of the same rows (pkft's Writer.WriteRecord); it prints rows/s and the
// Go/Java ratios. It is not part of the conformance matrix.
func TestWriteCompactPerf(t *testing.T) {
	if os.Getenv("PKFT_WRITE_PERF") != "1" {
		t.Skip("skipped: times Go's write and compaction against Java's on 200,000 rows; run with PKFT_WRITE_PERF=1")
	}
	n := 200_000
	if v := os.Getenv("PKFT_WRITE_PERF_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	p, err := StartJava(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	lib, err := native.Load()
	if err != nil {
		t.Fatal(err)
	}
	g := &maintainGroup{proc: p, engine: native.Engine{Lib: lib}, dir: t.TempDir()}
	rows := pkTextRows(77, 0, n)
	// A second write updates every other key, so that the compaction merges two overlapping
	// runs per bucket (a bucket of one file would only be moved up).
	var updates []row
	for i, r := range pkTextRows(78, 0, n) {
		if i%2 == 0 {
			updates = append(updates, r)
		}
	}
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	for _, v := range []struct {
		name string
		opts map[string]string
	}{
		{"plain", map[string]string{"bucket": "4"}},
		{"full-text-dv", map[string]string{"bucket": "4", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}},
	} {
		timed := func(f func() error) time.Duration {
			start := time.Now()
			if err := f(); err != nil {
				t.Fatal(err)
			}
			return time.Since(start)
		}
		jp, err := createJavaTable(ctx, p, filepath.Join(g.dir, "java-"+v.name), "perf-java", fields, []string{"id"}, nil, v.opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		gp, err := createJavaTable(ctx, p, filepath.Join(g.dir, "go-"+v.name), "perf-go", fields, []string{"id"}, nil, v.opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Warm the JVM up on the Java table's first write of a few rows.
		if err := p.Call(ctx, "write", map[string]any{"path": jp, "rows": rows[:1000]}, nil); err != nil {
			t.Fatal(err)
		}
		if err := goWrite(ctx, g, gp, rows[:1000]); err != nil {
			t.Fatal(err)
		}
		ap, err := createJavaTable(ctx, p, filepath.Join(g.dir, "arrow-"+v.name), "perf-arrow", fields, []string{"id"}, nil, v.opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := textRecord(rows)
		jw := timed(func() error { return p.Call(ctx, "write", map[string]any{"path": jp, "rows": rows}, nil) })
		gw := timed(func() error { return goWrite(ctx, g, gp, rows) })
		aw := timed(func() error { return arrowWrite(ctx, ap, rec) })
		rec.Release()
		t.Logf("%s, %d rows: write arrow %s (%v), arrow/java time %.2f, arrow/go time %.2f", v.name, n,
			fmt.Sprintf("%.0f rows/s", float64(n)/aw.Seconds()), aw.Round(time.Millisecond), aw.Seconds()/jw.Seconds(), aw.Seconds()/gw.Seconds())
		if err := p.Call(ctx, "write", map[string]any{"path": jp, "rows": updates}, nil); err != nil {
			t.Fatal(err)
		}
		if err := goWrite(ctx, g, gp, updates); err != nil {
			t.Fatal(err)
		}
		jc := timed(func() error { return p.Call(ctx, "compact", map[string]any{"path": jp}, nil) })
		gc := timed(func() error { _, err := goCompact(ctx, g, gp); return err })
		rate := func(d time.Duration) string { return fmt.Sprintf("%.0f rows/s", float64(n)/d.Seconds()) }
		compacted := n + len(updates) // records read by the merge
		crate := func(d time.Duration) string { return fmt.Sprintf("%.0f records/s", float64(compacted)/d.Seconds()) }
		t.Logf("%s, %d rows: write go %s (%v), java %s (%v), go/java time %.2f; compact (%d records) go %s (%v), java %s (%v), go/java time %.2f",
			v.name, n, rate(gw), gw.Round(time.Millisecond), rate(jw), jw.Round(time.Millisecond), gw.Seconds()/jw.Seconds(),
			compacted, crate(gc), gc.Round(time.Millisecond), crate(jc), jc.Round(time.Millisecond), gc.Seconds()/jc.Seconds())
	}
}

// textRecord is rows ({id, content}) as one Arrow record batch.
func textRecord(rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "content", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil))
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int32Builder).Append(int32(r["id"].(int)))
		if s, ok := r["content"].(string); ok {
			b.Field(1).(*array.StringBuilder).Append(s)
		} else {
			b.Field(1).AppendNull()
		}
	}
	return b.NewRecordBatch()
}

// arrowWrite writes rec into the table at path through pkft's WriteRecord and commits it.
func arrowWrite(ctx context.Context, path string, rec arrow.RecordBatch) error {
	tbl, err := pkft.Open(ctx, path)
	if err != nil {
		return err
	}
	w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("pkft-conformance"))
	if err != nil {
		return err
	}
	if err := w.WriteRecord(ctx, rec); err != nil {
		return errors.Join(err, w.Abort(ctx))
	}
	_, err = w.Commit(ctx)
	return err
}
