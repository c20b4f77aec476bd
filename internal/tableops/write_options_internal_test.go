package tableops

import (
	"errors"
	"testing"

	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// TestNumBuckets: only fixed bucket mode is written: a bucket count above 0, trimmed; 0, -1
// (dynamic), -2 (postpone) and an unset option are ErrUnsupportedTable.
func TestNumBuckets(t *testing.T) {
	for v, want := range map[string]int{"1": 1, " 4 ": 4} {
		if n, err := numBuckets(&schema.TableSchema{Options: map[string]string{schema.OptionBucket: v}}); err != nil || n != want {
			t.Errorf("bucket %q: %d, %v; want %d", v, n, err, want)
		}
	}
	for _, opts := range []map[string]string{{schema.OptionBucket: "0"}, {schema.OptionBucket: "-1"}, {schema.OptionBucket: "-2"}, {}} {
		if n, err := numBuckets(&schema.TableSchema{Options: opts}); !errors.Is(err, ErrUnsupportedTable) {
			t.Errorf("options %v: %d, %v; want %v", opts, n, err, ErrUnsupportedTable)
		}
	}
}

// TestCheckBucketCount: a bucket whose files recorded another bucket count than the table's is
// refused; one whose files recorded no count (0) is not checked.
func TestCheckBucketCount(t *testing.T) {
	for _, c := range []struct {
		recorded int32
		ok       bool
	}{{4, true}, {0, true}, {2, false}} {
		err := checkBucketCount(&table.Bucket{Bucket: 1, TotalBuckets: c.recorded}, 4)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrUnsupportedTable)) {
			t.Errorf("files recording %d buckets in a table of 4: %v", c.recorded, err)
		}
	}
}
