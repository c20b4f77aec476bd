package search

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// decodePartition decodes a serialized partition row into its values in partition-key order.
func decodePartition(s *schema.TableSchema, serialized []byte) ([]any, error) {
	if len(s.PartitionKeys) == 0 {
		return nil, nil
	}
	row, err := binrow.DeserializeBinaryRow(serialized)
	if err != nil {
		return nil, fmt.Errorf("decode partition: %w", err)
	}
	values, err := row.Decode(s.PartitionType())
	if err != nil {
		return nil, fmt.Errorf("decode partition: %w", err)
	}
	return values, nil
}

// MatchPartition returns a filter selecting the partitions whose values equal spec (partition
// key -> value as text; keys not in spec match anything). Values are read as their type's text
// the way Paimon's partition arguments are: strings as they are, integers and booleans in
// decimal and true/false, DECIMAL in plain notation, DATE as yyyy-mm-dd or as its day number
// (the directory name with partition.legacy-name); the table's default partition name matches
// null.
func MatchPartition(s *schema.TableSchema, spec map[string]string) (PartitionFilter, error) {
	pt := s.PartitionType()
	defaultName := s.Options[paths.OptionPartitionDefaultName]
	if defaultName == "" {
		defaultName = paths.DefaultPartitionName
	}
	type check struct {
		index int
		match func(v any) bool
	}
	var checks []check
	for k, text := range spec {
		i := -1
		for j, pk := range s.PartitionKeys {
			if pk == k {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("%s is not a partition key of the table (partition keys: %v)", k, s.PartitionKeys)
		}
		if text == defaultName {
			checks = append(checks, check{i, func(v any) bool { return v == nil }})
			continue
		}
		match, err := partitionValueMatcher(pt.Fields[i].Type, text)
		if err != nil {
			return nil, fmt.Errorf("partition %s=%s: %w", k, text, err)
		}
		checks = append(checks, check{i, match})
	}
	return func(partition []byte) (bool, error) {
		values, err := decodePartition(s, partition)
		if err != nil {
			return false, err
		}
		for _, c := range checks {
			if !c.match(values[c.index]) {
				return false, nil
			}
		}
		return true, nil
	}, nil
}

// partitionValueMatcher parses text as a value of t and returns a test against decoded values.
func partitionValueMatcher(t types.DataType, text string) (func(any) bool, error) {
	switch t.Root {
	case types.RootChar, types.RootVarChar:
		return func(v any) bool { return v == text }, nil
	case types.RootBoolean:
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(text)))
		if err != nil {
			return nil, err
		}
		return func(v any) bool { return v == b }, nil
	case types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootBigInt:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, err
		}
		return func(v any) bool { x, ok := integer(v); return ok && x == n }, nil
	case types.RootDate:
		days, err := strconv.ParseInt(strings.TrimSpace(text), 10, 32)
		if err != nil {
			d, perr := time.Parse("2006-01-02", strings.TrimSpace(text))
			if perr != nil {
				return nil, fmt.Errorf("not a date (yyyy-mm-dd or a day number): %w", perr)
			}
			days = d.Unix() / 86400
		}
		return func(v any) bool { x, ok := v.(int32); return ok && int64(x) == days }, nil
	case types.RootDecimal:
		d, err := binrow.ParseDecimal(strings.TrimSpace(text), t.Scale)
		if err != nil {
			return nil, err
		}
		return func(v any) bool {
			x, ok := v.(binrow.Decimal)
			return ok && x.Unscaled != nil && x.Unscaled.Cmp(d.Unscaled) == 0
		}, nil
	}
	return nil, fmt.Errorf("partition type %s is not supported in partition filters", t.SQLString())
}

// integer widens a decoded integer value.
func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}
