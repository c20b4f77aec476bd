package writebuffer

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestKeyComparatorFollowsKeyOrder: on random keys of several key types (nullable fields, Java's
// float ordering with NaN and signed zeros, decimals of both storage forms, timestamps, multilingual
// strings), the comparator over encoded keys orders every pair as binrow.CompareKeys orders the
// decoded keys, so a sort of encoded keys is the merge tree's key order.
func TestKeyComparatorFollowsKeyOrder(t *testing.T) {
	strs := []string{"", "a", "ab", "b", "中", "中文", "é", "\x00", "zzzzzzzzz", "abcdefgh"}
	doubles := []float64{math.NaN(), math.Inf(-1), -1.5, math.Copysign(0, -1), 0, 2.25, math.Inf(1)}
	gens := []struct {
		typ types.DataType
		gen func(r *rand.Rand) any
	}{
		{types.Int(), func(r *rand.Rand) any { return int32(r.IntN(21) - 10) }},
		{types.BigInt(), func(r *rand.Rand) any {
			return r.Int64N(7) - 3 + []int64{0, math.MinInt64 + 3, math.MaxInt64 - 3}[r.IntN(3)]
		}},
		{types.String(), func(r *rand.Rand) any { return strs[r.IntN(len(strs))] }},
		{types.Date(), func(r *rand.Rand) any { return int32(19000 + r.IntN(5)) }},
		{types.Double(), func(r *rand.Rand) any { return doubles[r.IntN(len(doubles))] }},
		{types.Boolean(), func(r *rand.Rand) any { return r.IntN(2) == 0 }},
		{types.Float(), func(r *rand.Rand) any { return float32(doubles[r.IntN(len(doubles))]) }},
		{types.SmallInt(), func(r *rand.Rand) any { return int16(r.IntN(9) - 4) }},
		{types.TinyInt(), func(r *rand.Rand) any { return int8(r.IntN(9) - 4) }},
		{types.Bytes(), func(r *rand.Rand) any { return []byte(strs[r.IntN(len(strs))]) }},
		{types.Decimal(10, 2), func(r *rand.Rand) any { return binrow.DecimalFromInt64(r.Int64N(2001)-1000, 2) }},
		{types.Decimal(30, 4), func(r *rand.Rand) any { return binrow.DecimalFromInt64(r.Int64N(2001)-1000, 4) }},
		{types.Timestamp(3), func(r *rand.Rand) any { return binrow.Timestamp{Millis: r.Int64N(5) - 2} }},
		{types.Timestamp(9), func(r *rand.Rand) any {
			return binrow.Timestamp{Millis: r.Int64N(3), NanoOfMilli: int32(r.IntN(3)) * 1000}
		}},
	}
	r := rand.New(rand.NewPCG(21, 17))
	inPlace := 0
	for round := range 80 {
		// A key of one to three fields; a nullable field is null now and then.
		var fields []types.DataField
		var pick []int
		for i := range 1 + r.IntN(3) {
			g := r.IntN(len(gens))
			typ := gens[g].typ
			if i == 0 && round%2 == 0 {
				typ = typ.AsNotNull()
			}
			fields = append(fields, types.Field(i, "k"+string(rune('a'+i)), typ))
			pick = append(pick, g)
		}
		c, err := NewKeyComparator(types.Row(fields...))
		if err != nil {
			t.Fatal(err)
		}
		if c.inPlace {
			inPlace++
		}
		var keys [][]any
		var enc [][]byte
		for range 60 {
			k := make([]any, len(fields))
			for i, g := range pick {
				if fields[i].Type.Nullable() && r.IntN(6) == 0 {
					continue
				}
				k[i] = gens[g].gen(r)
			}
			b, err := c.Encode(k)
			if err != nil {
				t.Fatalf("encode %v: %v", k, err)
			}
			keys, enc = append(keys, k), append(enc, b)
		}
		for i := range keys {
			for j := range keys {
				if got, want := cmp.Compare(c.Compare(enc[i], enc[j]), 0), cmp.Compare(binrow.CompareKeys(keys[i], keys[j]), 0); got != want {
					t.Fatalf("%v: Compare(%v, %v) = %d, CompareKeys %d", types.Row(fields...), keys[i], keys[j], got, want)
				}
			}
		}
		order := slices.Clone(enc)
		slices.SortStableFunc(order, c.Compare)
		for i := 1; i < len(order); i++ {
			a, _ := c.Decode(order[i-1])
			b, _ := c.Decode(order[i])
			if binrow.CompareKeys(a, b) > 0 {
				t.Fatalf("sorted keys out of order: %v before %v", a, b)
			}
		}
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
	}
	if inPlace == 0 || inPlace == 80 {
		t.Fatalf("%d of 80 key types compared in place: both paths must be checked", inPlace)
	}
}

// TestKeyComparatorReportsBadKeys: bytes that are no key of the type sort by their bytes and are
// reported, never a panic; a key type that is not a ROW is refused.
func TestKeyComparatorReportsBadKeys(t *testing.T) {
	c, err := NewKeyComparator(types.Row(types.Field(0, "id", types.String())))
	if err != nil {
		t.Fatal(err)
	}
	good, err := c.Encode([]any{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Compare(good, []byte{1, 2}) == 0 || c.Err() == nil {
		t.Fatalf("a truncated key compared without an error (%v)", c.Err())
	}
	if _, err := NewKeyComparator(types.Int()); err == nil {
		t.Fatal("an INT key type is accepted")
	}
}
