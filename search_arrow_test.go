package pkft_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-pkft/pkft"
)

// TestSearchRecordBatch checks the hits of a search as a record batch: one row per hit in the
// hits' order, typed key columns equal to the hits' keys, and the hit columns.
func TestSearchRecordBatch(t *testing.T) {
	ctx := context.Background()
	tbl, _ := openExample(t, "partitioned-dv")
	if _, err := tbl.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := tbl.Search(ctx, "first", pkft.WithLimit(50))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := res.RecordBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if int(rec.NumRows()) != len(res.Hits) || len(res.Hits) == 0 {
		t.Fatalf("%d rows for %d hits", rec.NumRows(), len(res.Hits))
	}
	want := []string{"region", "dt", "id", pkft.HitTextColumn, pkft.HitScoreColumn, pkft.HitBucketColumn, pkft.HitDataFileColumn, pkft.HitRowPositionColumn}
	for i, n := range want {
		if rec.ColumnName(i) != n {
			t.Fatalf("column %d is %s, want %s", i, rec.ColumnName(i), n)
		}
	}
	if rec.Schema().Field(1).Type.ID() != arrow.DATE32 {
		t.Errorf("dt is %s, want date32", rec.Schema().Field(1).Type)
	}
	for i, h := range res.Hits {
		dt := time.Time(rec.Column(1).(*array.Date32).Value(i).ToTime())
		if got := fmt.Sprint(rec.Column(0).(*array.String).Value(i), dt.Format("2006-01-02"), rec.Column(2).(*array.Int32).Value(i)); got !=
			fmt.Sprint(h.Key[0], h.Key[1].(time.Time).Format("2006-01-02"), h.Key[2]) {
			t.Errorf("row %d key %s, hit key %v", i, got, h.Key)
		}
		if rec.Column(3).(*array.String).Value(i) != *h.Text || rec.Column(4).(*array.Float32).Value(i) != h.Score ||
			rec.Column(5).(*array.Int32).Value(i) != h.Bucket || rec.Column(6).(*array.String).Value(i) != h.DataFile ||
			rec.Column(7).(*array.Int64).Value(i) != h.RowPosition {
			t.Errorf("row %d differs from hit %+v", i, h)
		}
	}
	if _, err := (&pkft.SearchResult{KeyColumns: []string{"x"}}).RecordBatch(); err == nil {
		t.Error("a hand-made result converted")
	}
}
