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
