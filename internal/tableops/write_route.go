package tableops

import (
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/bucketfunc"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// BucketOf returns the bucket Java assigns to a row of the table (FixedBucketRowKeyExtractor): the
// bucket function the table's bucket-function.type selects (internal/bucketfunc) applied to the
// bucket-key BinaryRow and the bucket count. row holds every table field.
func BucketOf(s *schema.TableSchema, row []any) (int, error) {
	b, err := NewBucketer(s)
	if err != nil {
		return 0, err
	}
	return b(row)
}

// NewBucketer returns BucketOf for the rows of one schema, which it resolves once: the bucket
// count, the bucket keys and the bucket function, refused as BucketOf refuses them. The function
// is used by one goroutine.
func NewBucketer(s *schema.TableSchema) (func(row []any) (int, error), error) {
	n, err := numBuckets(s)
	if err != nil {
		return nil, err
	}
	keys, err := s.BucketKeys()
	if err != nil {
		return nil, err
	}
	fn, err := bucketFunction(s, keys)
	if err != nil {
		return nil, err
	}
	return newBucketer(s, keys, fn, n).of, nil
}

// bucketFunction returns the table's bucket function for its bucket keys; a function Java could
// not create for the key types (mod of a STRING key, hive of a TIMESTAMP) is refused.
func bucketFunction(s *schema.TableSchema, keys []string) (bucketfunc.Func, error) {
	fn, err := bucketfunc.FromOptions(s.Options, s.ProjectedRowType(keys))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	return fn, nil
}

// bucketer assigns rows their bucket: the bucket keys' positions in a row and their row type,
// resolved once per writer. It is used by one goroutine.
type bucketer struct {
	idx  []int
	typ  types.DataType
	fn   bucketfunc.Func
	n    int
	vals []any // scratch: the key values of a row
}

func newBucketer(s *schema.TableSchema, keys []string, fn bucketfunc.Func, n int) *bucketer {
	b := &bucketer{typ: s.ProjectedRowType(keys), fn: fn, n: n}
	for _, k := range keys {
		b.idx = append(b.idx, slices.IndexFunc(s.Fields, func(f types.DataField) bool { return f.Name == k }))
	}
	return b
}

// of is the bucket of row (every table field).
func (b *bucketer) of(row []any) (int, error) {
	b.vals = b.vals[:0]
	for _, i := range b.idx {
		b.vals = append(b.vals, row[i])
	}
	data, err := binrow.Encode(b.typ, b.vals)
	if err != nil {
		return 0, fmt.Errorf("bucket key: %w", err)
	}
	return b.fn.Bucket(data, b.n)
}
