package pkft_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
	"github.com/paimon-pkft/pkft/internal/types"
)

// goldenRead is the read another implementation recorded of the golden table writer/name
// (compat/golden/<writer>/<name>.json).
func goldenRead(t *testing.T, writer, name string) (golden struct {
	Rows []map[string]json.RawMessage `json:"rows"`
}) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("compat", "golden", writer, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	return golden
}

// TestScanGoldenTables scans every golden table (written by Java, by Go and by pypaimon) and
// checks that Go's rows equal the rows the other implementation recorded reading it
// (compat/golden/<writer>/<table>.json), value by value.
func TestScanGoldenTables(t *testing.T) {
	ctx := context.Background()
	for _, writer := range []string{"java", "go", "pypaimon"} {
		dirs, err := filepath.Glob(filepath.Join("testdata", "tables", writer, "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no %s golden tables: %v", writer, err)
		}
		for _, dir := range dirs {
			name := filepath.Base(dir)
			t.Run(writer+"/"+name, func(t *testing.T) {
				golden := goldenRead(t, writer, name)
				tbl, err := pkft.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				rr, err := tbl.Scan(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if name == "pk-partitioned" && writer == "pypaimon" {
					// pypaimon 2.0.0 names a DATE partition's directory by its formatted value
					// (day=2024-03-01); Java's path factory (partition.legacy-name=true, the
					// default) and Go's name it by its day number, so neither finds the files.
					for rr.Next() {
					}
					if err := rr.Err(); err == nil || !strings.Contains(err.Error(), "day=19783") {
						t.Fatalf("scan: %v, want the missing day=19783 directory reported", err)
					}
					rr.Release()
					return
				}
				defer rr.Release()
				var got []string
				for rr.Next() {
					got = append(got, canonicalRows(t, rr.RecordBatch())...)
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, r := range golden.Rows {
					want = append(want, canonicalGolden(t, rr.Schema(), r))
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("Go's scan has %d rows, the recorded read %d; first differences:\n%s", len(got), len(want), firstDiffs(got, want))
				}
			})
		}
	}
}

func firstDiffs(got, want []string) string {
	var sb strings.Builder
	n := 0
	for _, g := range got {
		if !slices.Contains(want, g) && n < 5 {
			fmt.Fprintf(&sb, "  only in Go:   %s\n", g)
			n++
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) && n < 10 {
			fmt.Fprintf(&sb, "  only in read: %s\n", w)
			n++
		}
	}
	return sb.String()
}

// canonicalRows is arrowrows.Canonical.
func canonicalRows(t *testing.T, rec arrow.RecordBatch) []string { return arrowrows.Canonical(rec) }

// canonicalGolden is arrowrows.CanonicalJSON.
func canonicalGolden(t *testing.T, sch *arrow.Schema, row map[string]json.RawMessage) string {
	s, err := arrowrows.CanonicalJSON(sch, row)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScanLevelZeroAndSnapshots checks the batch read's level-0 rule on a table with deletion
// vectors (rows written since the last compaction are not visible until compacted, as in Java)
// and without (they are merged), WithScanSnapshot, partition filters and projection, and the
// refusals.
func TestScanLevelZeroAndSnapshots(t *testing.T) {
	ctx := context.Background()
	ids := func(tbl *pkft.Table, opts ...pkft.ScanOption) []string {
		t.Helper()
		rr, err := tbl.Scan(ctx, append([]pkft.ScanOption{pkft.WithColumns("id")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var out []string
		for rr.Next() {
			out = append(out, arrowrows.Canonical(rr.RecordBatch())...)
		}
		slices.Sort(out)
		return out
	}
	write := func(tbl *pkft.Table, n, base int, opts ...pkft.WriteOption) int64 {
		t.Helper()
		rec, _ := arrowrows.AllTypesRecord(n, base, "")
		defer rec.Release()
		w, err := tbl.NewWriter(ctx, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord(ctx, rec); err != nil {
			t.Fatal(err)
		}
		res, err := w.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return res.SnapshotID
	}
	for _, dv := range []bool{true, false} {
		opts := map[string]string{"bucket": "2"}
		if dv {
			opts["deletion-vectors.enabled"] = "true"
		}
		def, err := pkft.ArrowDefinition(arrowrows.AllTypesSchema())
		if err != nil {
			t.Fatal(err)
		}
		def.PrimaryKeys, def.PartitionKeys, def.Options = []string{"id", "d"}, []string{"d"}, opts
		tbl, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "t"), def)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(tbl); len(got) != 0 {
			t.Fatalf("an empty table scans %v", got)
		}
		// A write-only write leaves level 0, which a deletion-vector read skips.
		first := write(tbl, 10, 0, pkft.WithWriteOnly())
		if got := ids(tbl); dv && len(got) != 0 || !dv && len(got) != 10 {
			t.Errorf("dv=%v: after a write (level 0 only) the scan has %d rows", dv, len(got))
		}
		if _, err := tbl.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		write(tbl, 5, 10, pkft.WithWriteOnly())
		if got := ids(tbl); dv && len(got) != 10 || !dv && len(got) != 15 {
			t.Errorf("dv=%v: after compaction and another write the scan has %d rows", dv, len(got))
		}
		// A write that compacts at commit (the default) is read at once. (Only the buckets a
		// write touches are compacted, as with Java's writer: the level-0 files of the
		// write-only writes above stay where this write does not reach.)
		fresh, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "t"), def)
		if err != nil {
			t.Fatal(err)
		}
		write(fresh, 10, 0)
		if got := ids(fresh); len(got) != 10 {
			t.Errorf("dv=%v: after a write compacting at commit the scan has %d rows, want 10", dv, len(got))
		}
		if got := ids(tbl, pkft.WithScanSnapshot(first)); dv && len(got) != 0 || !dv && len(got) != 10 {
			t.Errorf("dv=%v: snapshot %d scans %d rows", dv, first, len(got))
		}
		// Ids 0..9 have dates k%5; the partition of k%5 == 0 holds ids 0 and 5.
		day := time.Unix(0, 0).UTC().AddDate(0, 0, -100).Format("2006-01-02")
		if got := ids(tbl, pkft.WithPartition(map[string]string{"d": day}), pkft.WithScanSnapshot(first+1)); !slices.Equal(got, []string{"id=0", "id=5"}) {
			t.Errorf("dv=%v: partition d=%s scans %v", dv, day, got)
		}
	}
	for _, c := range []struct {
		options map[string]string
		want    string
	}{
		{map[string]string{"bucket": "1", "merge-engine": "partial-update", "fields.default-aggregate-function": "last_non_null_value"}, "not yet wired for partial-update"},
		{map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "deletion-vectors.merge-on-read": "true"}, "merge-on-read"},
	} {
		// Create refuses these options (the option registry), so the schema is written directly.
		dir := filepath.Join(t.TempDir(), "t")
		s := &schema.TableSchema{Version: schema.CurrentVersion, Fields: []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "v", types.Int())},
			PrimaryKeys: []string{"id"}, PartitionKeys: []string{}, Options: c.options}
		s.Fields[0].Type.NotNull = true
		if err := os.MkdirAll(filepath.Join(dir, "schema"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "schema", "schema-0"), s.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
		tbl, err := pkft.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Scan(ctx); !errors.Is(err, pkft.ErrUnsupportedRead) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("scan of %v: %v, want ErrUnsupportedRead naming %s", c.options, err, c.want)
		}
	}
	tbl, err := pkft.Open(ctx, filepath.Join("testdata", "tables", "java", "partitioned-dv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Scan(ctx, pkft.WithColumns("nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("scan of an unknown column: %v", err)
	}
}

// TestScanBatches checks WithBatchRows bounds every batch and no row is lost or repeated across
// batches and buckets.
func TestScanBatches(t *testing.T) {
	ctx := context.Background()
	tbl, err := pkft.Open(ctx, filepath.Join("testdata", "tables", "java", "ft-default-partitioned"))
	if err != nil {
		t.Fatal(err)
	}
	all := func(opts ...pkft.ScanOption) (rows []string, batches int) {
		rr, err := tbl.Scan(ctx, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		for rr.Next() {
			if n := rr.RecordBatch().NumRows(); n == 0 || n > 7 && len(opts) > 0 {
				t.Errorf("a batch of %d rows", n)
			}
			rows = append(rows, arrowrows.Canonical(rr.RecordBatch())...)
			batches++
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		return rows, batches
	}
	want, _ := all()
	got, batches := all(pkft.WithBatchRows(7))
	if !slices.Equal(got, want) || batches <= len(want)/7 {
		t.Errorf("7-row batches: %d rows in %d batches, want the %d rows of one scan", len(got), batches, len(want))
	}
	if _, err := tbl.Scan(ctx, pkft.WithBatchRows(0)); err == nil {
		t.Error("a zero batch size was accepted")
	}
}
