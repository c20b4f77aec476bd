package datafile

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// BenchmarkReadIndexedColumn is the sorted build's hot read: every row of one INT column of a
// 100,000-row data file whose other columns (two strings of 40 and 200 bytes, a double, a
// bigint) the index does not need.
func BenchmarkReadIndexedColumn(b *testing.B) {
	ctx := context.Background()
	const rows = 100_000
	s := &schema.TableSchema{
		Version: 3, Fields: []types.DataField{
			{ID: 0, Name: "id", Type: types.Int().AsNotNull()},
			{ID: 1, Name: "price", Type: types.Int()},
			{ID: 2, Name: "name", Type: types.String()},
			{ID: 3, Name: "description", Type: types.String()},
			{ID: 4, Name: "score", Type: types.Double()},
			{ID: 5, Name: "stock", Type: types.BigInt()},
		},
		HighestFieldID: 5, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1"},
	}
	desc := strings.Repeat("lorem ipsum ", 17)[:200]
	dp, f, layout := writeDataFile(b, s, rows, func(i int) *kvfile.KeyValue {
		v := []any{int32(i), int32(i * 7919 % 1000), fmt.Sprintf("%040d", i), desc, float64(i) / 3, int64(i) * 11}
		return &kvfile.KeyValue{Key: []any{int32(i)}, Seq: int64(i), Kind: types.Insert, Value: v}
	})
	fio := fileio.NewLocal()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Open(ctx, fio, dp.ToPath(f.FileName, ""), f, layout, 1)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, ok, err := r.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			n++
		}
		r.Close()
		if n != rows {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}
