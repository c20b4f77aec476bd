package binrow

import (
	"fmt"

	"github.com/paimon-pkft/pkft/internal/types"
)

// SimpleStats are the column statistics Paimon keeps per data file (paimon-core
// org.apache.paimon.stats.SimpleStats): a row of minimum values, a row of maximum values and one
// null count per column. In manifests the two rows are stored in their serialized form (see
// BinaryRow.Serialize) and the null counts as an array of nullable longs.
type SimpleStats struct {
	MinValues BinaryRow
	MaxValues BinaryRow
	// NullCounts has one entry per column; nil entries are unknown counts.
	NullCounts []*int64
}

// EmptyStats returns Java's SimpleStats.EMPTY_STATS: empty min and max rows, no null counts.
func EmptyStats() SimpleStats {
	return SimpleStats{MinValues: EmptyRow(), MaxValues: EmptyRow(), NullCounts: []*int64{}}
}

// SimpleStatsFromSerialized builds stats from the manifest representation (SimpleStats#fromRow):
// serialized min and max rows and the null counts.
func SimpleStatsFromSerialized(minValues, maxValues []byte, nullCounts []*int64) (SimpleStats, error) {
	lo, err := DeserializeBinaryRow(minValues)
	if err != nil {
		return SimpleStats{}, fmt.Errorf("stats min values: %w", err)
	}
	hi, err := DeserializeBinaryRow(maxValues)
	if err != nil {
		return SimpleStats{}, fmt.Errorf("stats max values: %w", err)
	}
	if nullCounts == nil {
		nullCounts = []*int64{}
	}
	return SimpleStats{MinValues: lo, MaxValues: hi, NullCounts: nullCounts}, nil
}

// IsEmpty reports whether the stats carry no columns, like EMPTY_STATS.
func (s SimpleStats) IsEmpty() bool {
	return s.MinValues.Arity == 0 && s.MaxValues.Arity == 0 && len(s.NullCounts) == 0
}

// SerializedMin returns the manifest form of the min values row.
func (s SimpleStats) SerializedMin() []byte { return s.MinValues.Serialize() }

// SerializedMax returns the manifest form of the max values row.
func (s SimpleStats) SerializedMax() []byte { return s.MaxValues.Serialize() }

// DecodeMin decodes the min values for statsType, the row type of the columns the stats cover.
func (s SimpleStats) DecodeMin(statsType types.DataType) ([]any, error) {
	v, err := s.MinValues.Decode(statsType)
	if err != nil {
		return nil, fmt.Errorf("stats min values: %w", err)
	}
	return v, nil
}

// DecodeMax decodes the max values for statsType, the row type of the columns the stats cover.
func (s SimpleStats) DecodeMax(statsType types.DataType) ([]any, error) {
	v, err := s.MaxValues.Decode(statsType)
	if err != nil {
		return nil, fmt.Errorf("stats max values: %w", err)
	}
	return v, nil
}
