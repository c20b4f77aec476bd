package pkft

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft/internal/convert"
)

// The columns [SearchResult.RecordBatch] adds after the key columns.
const (
	HitTextColumn        = "_text"
	HitScoreColumn       = "_score"
	HitBucketColumn      = "_bucket"
	HitDataFileColumn    = "_data_file"
	HitRowPositionColumn = "_row_position"
)

// RecordBatch returns the hits as one Arrow record batch, best first: a column per primary-key
// column (typed as [Table.Scan] types it), then the searched text, the score, the bucket, the
// data file and the row position ([HitTextColumn], [HitScoreColumn], ...). The caller releases
// it. Only a result returned by [Table.Search] can be converted.
func (r *SearchResult) RecordBatch() (arrow.RecordBatch, error) {
	if len(r.keyTypes) != len(r.KeyColumns) {
		return nil, errors.New("search result: not returned by Table.Search")
	}
	fields := make([]arrow.Field, 0, len(r.KeyColumns)+5)
	for i, c := range r.KeyColumns {
		f, err := convert.ArrowField(c, r.keyTypes[i])
		if err != nil {
			return nil, fmt.Errorf("key column %s: %w", c, err)
		}
		fields = append(fields, f)
	}
	fields = append(fields,
		arrow.Field{Name: HitTextColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: HitScoreColumn, Type: arrow.PrimitiveTypes.Float32},
		arrow.Field{Name: HitBucketColumn, Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: HitDataFileColumn, Type: arrow.BinaryTypes.String},
		arrow.Field{Name: HitRowPositionColumn, Type: arrow.PrimitiveTypes.Int64})
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	k := len(r.KeyColumns)
	for _, h := range r.Hits {
		if len(h.rawKey) != k {
			return nil, errors.New("search result: a hit not returned by Table.Search")
		}
		for i, v := range h.rawKey {
			if err := convert.AppendValue(b.Field(i), v); err != nil {
				return nil, fmt.Errorf("key column %s: %w", r.KeyColumns[i], err)
			}
		}
		if h.Text == nil {
			b.Field(k).AppendNull()
		} else {
			b.Field(k).(*array.StringBuilder).Append(*h.Text)
		}
		b.Field(k + 1).(*array.Float32Builder).Append(h.Score)
		b.Field(k + 2).(*array.Int32Builder).Append(h.Bucket)
		b.Field(k + 3).(*array.StringBuilder).Append(h.DataFile)
		b.Field(k + 4).(*array.Int64Builder).Append(h.RowPosition)
	}
	return b.NewRecordBatch(), nil
}
