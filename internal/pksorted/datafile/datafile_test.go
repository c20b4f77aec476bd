package datafile

import (
	"context"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestReadsNullWithItsPhysicalPosition is PkSortedDataFileReaderTest#testReadsNullWithItsPhysicalPosition
// (a Parquet data file as Go writes them rather than Avro): values come with their positions,
// the null included, then the end; a declared row count other than the file's is an error.
func TestReadsNullWithItsPhysicalPosition(t *testing.T) {
	ctx := context.Background()
	s := &schema.TableSchema{
		Version: 3, Fields: []types.DataField{{ID: 0, Name: "id", Type: types.Int().AsNotNull()}, {ID: 1, Name: "payload", Type: types.String()}},
		HighestFieldID: 1, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1"},
	}
	values := []any{"a", nil, "c"}
	dp, f, layout := writeDataFile(t, s, len(values), func(i int) *kvfile.KeyValue {
		return &kvfile.KeyValue{Key: []any{int32(i + 1)}, Seq: int64(i), Kind: types.Insert, Value: []any{int32(i + 1), values[i]}}
	})
	fio := fileio.NewLocal()
	r, err := Open(ctx, fio, dp.ToPath(f.FileName, ""), f, layout, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, want := range values {
		e, ok, err := r.Next(ctx)
		if err != nil || !ok || e.Position != int64(i) || e.Value != want {
			t.Fatalf("row %d: %+v ok=%v err=%v, want %v", i, e, ok, err, want)
		}
	}
	if _, ok, err := r.Next(ctx); ok || err != nil {
		t.Fatalf("after the last row: ok=%v err=%v", ok, err)
	}

	for _, declared := range []int64{2, 4} {
		g := *f
		g.RowCount = declared
		r, err := Open(ctx, fio, dp.ToPath(f.FileName, ""), &g, layout, 1)
		if err != nil {
			t.Fatal(err)
		}
		var failed error
		for range 5 {
			_, ok, err := r.Next(ctx)
			if err != nil {
				failed = err
				break
			}
			if !ok {
				break
			}
		}
		r.Close()
		if failed == nil {
			t.Errorf("declared %d rows of 3: no error", declared)
		}
	}
}

// writeDataFile writes the n records record returns as one level-1 data file of schema s.
func writeDataFile(tb testing.TB, s *schema.TableSchema, n int, record func(int) *kvfile.KeyValue) (*paths.DataFilePathFactory, *meta.DataFileMeta, *kvfile.Layout) {
	tb.Helper()
	ctx := context.Background()
	pf, err := paths.NewTableFactory(tb.TempDir(), s.Options)
	if err != nil {
		tb.Fatal(err)
	}
	dp, err := pf.DataFilePathFactory(nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := kvfile.NewRollingWriter(fileio.NewLocal(), layout, dp, kvfile.WriterOptions{Level: 1, Source: meta.FileSourceCompact})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		if err := w.Write(ctx, record(i)); err != nil {
			tb.Fatal(err)
		}
	}
	files, err := w.Close(ctx)
	if err != nil || len(files) != 1 {
		tb.Fatalf("%d files (%v)", len(files), err)
	}
	return dp, files[0], layout
}
