package search

import (
	"fmt"
	"strconv"

	"github.com/paimon-pkft/pkft/impl/binrow"
	"github.com/paimon-pkft/pkft/impl/paths"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/types"
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
// key -> value; keys not in spec match anything). A value is compared with the partition's
// directory name for that key, in both the legacy and the non-legacy rendering, so a DATE
// matches as its day number and as yyyy-mm-dd; a null value matches the table's default
// partition name.
func MatchPartition(s *schema.TableSchema, spec map[string]string) (PartitionFilter, error) {
	for k := range spec {
		if !contains(s.PartitionKeys, k) {
			return nil, fmt.Errorf("%s is not a partition key of the table (partition keys: %v)", k, s.PartitionKeys)
		}
	}
	defaultName := s.Options[paths.OptionPartitionDefaultName]
	if defaultName == "" {
		defaultName = paths.DefaultPartitionName
	}
	return func(partition []byte) (bool, error) {
		values, err := decodePartition(s, partition)
		if err != nil {
			return false, err
		}
		for _, legacy := range []bool{true, false} {
			kvs, err := partitionSpec(s, values, legacy)
			if err != nil {
				return false, err
			}
			ok := true
			for _, kv := range kvs {
				if want, has := spec[kv.Key]; has && paths.PartitionValue(kv.Value, defaultName) != want {
					ok = false
					break
				}
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	}, nil
}

// partitionSpec formats partition values into the key=value pairs of the partition directory,
// as InternalRowPartitionComputer#generatePartValues does: with partition.legacy-name (the
// default) the internal value's toString, otherwise its cast to STRING. Null values become the
// default partition name later (paths.PartitionValue). Types whose directory names pkft does
// not reproduce are an error rather than a guess.
func partitionSpec(s *schema.TableSchema, values []any, legacy bool) ([]paths.PartitionKV, error) {
	pt := s.PartitionType()
	spec := make([]paths.PartitionKV, len(s.PartitionKeys))
	for i, key := range s.PartitionKeys {
		t := pt.Fields[i].Type
		var v string
		switch x := values[i].(type) {
		case nil:
			v = ""
		case string:
			v = x
		case bool:
			v = strconv.FormatBool(x)
		case int8:
			v = strconv.Itoa(int(x))
		case int16:
			v = strconv.Itoa(int(x))
		case int32:
			switch t.Root {
			case types.RootDate:
				v = paths.FormatDate(x, legacy)
			case types.RootInt:
				v = strconv.Itoa(int(x))
			default:
				return nil, fmt.Errorf("partition key %s: type %s is not supported in partition paths", key, t.Root)
			}
		case int64:
			v = strconv.FormatInt(x, 10)
		case binrow.Decimal:
			v = x.String()
		default:
			return nil, fmt.Errorf("partition key %s: type %s is not supported in partition paths", key, t.Root)
		}
		spec[i] = paths.PartitionKV{Key: key, Value: v}
	}
	return spec, nil
}
