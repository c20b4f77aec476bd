package datafile

import (
	"context"
	"testing"

	"github.com/paimon-pkft/pkft/impl/fileio"
	"github.com/paimon-pkft/pkft/impl/kvfile"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/paths"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/types"
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
	pf, err := paths.NewTableFactory(t.TempDir(), s.Options)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := pf.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	fio := fileio.NewLocal()
	w, err := kvfile.NewRollingWriter(fio, layout, dp, kvfile.WriterOptions{Level: 1, Source: meta.FileSourceCompact})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []any{"a", nil, "c"} {
		if err := w.Write(ctx, &kvfile.KeyValue{Key: []any{int32(i + 1)}, Seq: int64(i), Kind: types.Insert, Value: []any{int32(i + 1), v}}); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("%d files (%v)", len(files), err)
	}
	f := files[0]
	r, err := Open(ctx, fio, dp.ToPath(f.FileName, ""), f, layout, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, want := range []any{"a", nil, "c"} {
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
