package search

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestMatchPartition checks MatchPartition value by value, one partition key of each type it
// reads: the value itself matches, another value, a value of another type and null do not, and
// the table's default partition name matches null only.
func TestMatchPartition(t *testing.T) {
	s := &schema.TableSchema{
		Fields: []types.DataField{
			types.Field(0, "s", types.String()), types.Field(1, "b", types.Boolean()),
			types.Field(2, "n", types.BigInt()), types.Field(3, "t", types.TinyInt()),
			types.Field(4, "d", types.Date()), types.Field(5, "m", types.Decimal(10, 2)),
			types.Field(6, "id", types.Int()),
		},
		PartitionKeys: []string{"s", "b", "n", "t", "d", "m"},
		PrimaryKeys:   []string{"s", "b", "n", "t", "d", "m", "id"},
		Options:       map[string]string{},
	}
	pt := s.PartitionType()
	// base is the partition every case changes one value of.
	base := []any{"eu", true, int64(42), int8(-3), int32(19753), binrow.DecimalFromInt64(1250, 2)}
	encode := func(values []any) []byte {
		row, err := binrow.NewBinaryRow(pt, values)
		if err != nil {
			t.Fatal(err)
		}
		return row.Serialize()
	}
	with := func(i int, v any) []byte {
		values := append([]any(nil), base...)
		values[i] = v
		return encode(values)
	}
	for _, c := range []struct {
		key, text string
		i         int
		other     any // a value of the key's type that the text does not match
	}{
		{"s", "eu", 0, "us"},
		{"b", "TRUE", 1, false},
		{"n", " 42", 2, int64(43)},
		{"t", "-3", 3, int8(3)},
		{"d", "2024-01-31", 4, int32(19754)},
		{"d", "19753", 4, int32(19752)},
		{"m", "12.50", 5, binrow.DecimalFromInt64(1251, 2)},
	} {
		match, err := MatchPartition(s, map[string]string{c.key: c.text})
		if err != nil {
			t.Fatalf("%s=%s: %v", c.key, c.text, err)
		}
		for _, p := range []struct {
			what string
			row  []byte
			want bool
		}{{"its value", encode(base), true}, {"another value", with(c.i, c.other), false}, {"null", with(c.i, nil), false}} {
			got, err := match(p.row)
			if err != nil || got != p.want {
				t.Errorf("%s=%s on %s: %v, %v; want %v", c.key, c.text, p.what, got, err, p.want)
			}
		}
	}
	// The default partition name stands for null: it matches null and not a value.
	for _, opts := range []map[string]string{{}, {paths.OptionPartitionDefaultName: "__none__"}} {
		s.Options = opts
		name := opts[paths.OptionPartitionDefaultName]
		if name == "" {
			name = paths.DefaultPartitionName
		}
		match, err := MatchPartition(s, map[string]string{"n": name})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := match(with(2, nil)); err != nil || !got {
			t.Errorf("n=%s on null: %v, %v; want a match", name, got, err)
		}
		if got, err := match(encode(base)); err != nil || got {
			t.Errorf("n=%s on 42: %v, %v; want none", name, got, err)
		}
	}
	s.Options = map[string]string{}
	// Every key of the spec must match.
	match, err := MatchPartition(s, map[string]string{"s": "eu", "n": "41"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := match(encode(base)); got {
		t.Error("s=eu,n=41 matched a partition of n=42")
	}
	for _, bad := range []map[string]string{{"b": "yes please"}, {"n": "4x"}, {"d": "31.01.2024"}, {"m": "1.2.3"}, {"id": "1"}} {
		if _, err := MatchPartition(s, bad); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}
