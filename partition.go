package pkft

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// PartitionValue is one partition column of a bucket and its value, in the form Java Paimon's
// dump prints it (and every JSON output of pkft): CHAR and VARCHAR a string; integers a number
// (int8 to int64); BOOLEAN a bool; FLOAT and DOUBLE a number; DATE a "yyyy-mm-dd" string;
// DECIMAL a string in plain notation; TIMESTAMP and TIMESTAMP_LTZ an ISO local date-time string
// ("2024-01-31T08:30:00.5", no fraction when it is zero, as Java's LocalDateTime prints without
// trailing zeros); BINARY and VARBINARY a string of hex digits; null nil.
type PartitionValue struct {
	Key   string
	Value any
}

// Partition is a bucket's partition, in partition-key order; empty for unpartitioned tables.
// It marshals to JSON as an object (partition key -> value), keys in partition-key order.
type Partition []PartitionValue

// String formats the partition as key=value pairs joined by "/" ("region=eu/dt=2024-01-31");
// "" when the table is unpartitioned.
func (p Partition) String() string {
	parts := make([]string, len(p))
	for i, kv := range p {
		parts[i] = fmt.Sprintf("%s=%v", kv.Key, kv.Value)
	}
	return strings.Join(parts, "/")
}

// MarshalJSON writes the partition as a JSON object, {} when unpartitioned.
func (p Partition) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("partition %s: %w", kv.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object [Partition.MarshalJSON] writes, keeping the keys in the
// object's order, so every JSON output of pkft decodes back into its result types. Values come
// back in their JSON forms: a string, a bool, nil, an int64 for an integral number and a float64
// for any other number.
func (p *Partition) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	if tok == nil {
		*p = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("partition: want a JSON object, got %v", tok)
	}
	out := Partition{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("partition: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("partition: want a key, got %v", tok)
		}
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("partition %s: %w", key, err)
		}
		switch v := raw.(type) {
		case json.Number:
			if i, err := v.Int64(); err == nil {
				raw = i
			} else if f, err := v.Float64(); err == nil {
				raw = f
			} else {
				return fmt.Errorf("partition %s: %w", key, err)
			}
		case string, bool, nil:
		default:
			return fmt.Errorf("partition %s: want a string, number, bool or null, got %T", key, raw)
		}
		out = append(out, PartitionValue{Key: key, Value: raw})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	*p = out
	return nil
}

// partitions decodes serialized partition rows of one table.
type partitions struct {
	keys []string
	typ  types.DataType
}

func partitionsOf(s *schema.TableSchema) partitions {
	return partitions{keys: s.PartitionKeys, typ: s.PartitionType()}
}

// of decodes a serialized partition row.
func (p partitions) of(serialized []byte) (Partition, error) {
	if len(p.keys) == 0 {
		return Partition{}, nil
	}
	row, err := binrow.DeserializeBinaryRow(serialized)
	if err != nil {
		return nil, fmt.Errorf("decode partition: %w", err)
	}
	values, err := row.Decode(p.typ)
	if err != nil {
		return nil, fmt.Errorf("decode partition: %w", err)
	}
	return p.values(values), nil
}

// values renders decoded partition values (internal/binrow's forms, in partition-key order).
func (p partitions) values(values []any) Partition {
	out := make(Partition, len(p.keys))
	for i, k := range p.keys {
		var v any
		if i < len(values) {
			v = inspect.PartitionValue(p.typ.Fields[i].Type, values[i])
		}
		out[i] = PartitionValue{Key: k, Value: v}
	}
	return out
}
