package manifest

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestBucketKeyJavaHashCode checks bucketKey.javaHashCode against Objects.hash(partition,
// bucket, indexType) as Paimon 2.0.0's BinaryRow on OpenJDK 17 printed it (the empty row, and a
// one-STRING row holding "eu").
func TestBucketKeyJavaHashCode(t *testing.T) {
	eu, err := binrow.Encode(types.Row(types.Field(0, "region", types.String())), []any{"eu"})
	if err != nil {
		t.Fatal(err)
	}
	euRow := binrow.BinaryRow{Arity: 1, Data: eu}.Serialize()
	cases := []struct {
		key  bucketKey
		want int32
	}{
		{bucketKey{string(meta.EmptyBinaryRow()), 0, meta.IndexTypeDeletionVectors}, -236377733},
		{bucketKey{string(meta.EmptyBinaryRow()), 3, meta.IndexTypeHash}, 561857255},
		{bucketKey{string(euRow), 1, meta.IndexTypeDeletionVectors}, -1724011622},
	}
	for _, c := range cases {
		if got := c.key.javaHashCode(); got != c.want {
			t.Errorf("%+v: hash %d, Java %d", c.key, got, c.want)
		}
	}
	if got := binrow.HashCode(eu); got != -1292584355 {
		t.Errorf("BinaryRow(\"eu\").hashCode = %d, Java -1292584355", got)
	}
}
