package bucketfunc

import (
	"math/big"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

func row(t *testing.T, rowType types.DataType, vals ...any) []byte {
	t.Helper()
	b, err := binrow.Encode(rowType, vals)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMod(t *testing.T) {
	intKey := types.Row(types.DataField{Name: "k", Type: types.DataType{Root: types.RootInt, NotNull: true}})
	longKey := types.Row(types.DataField{Name: "k", Type: types.DataType{Root: types.RootBigInt, NotNull: true}})
	f, err := New("MOD", intKey)
	if err != nil {
		t.Fatal(err)
	}
	// ModBucketFunction's documented examples (5 buckets): floorMod, never negative.
	for in, want := range map[int32]int{17: 2, -3: 2, 5: 0, -2147483648: 2} {
		if got, err := f.Bucket(row(t, intKey, in), 5); err != nil || got != want {
			t.Errorf("mod(%d, 5) = %d, %v; want %d", in, got, err, want)
		}
	}
	g, err := New("mod", longKey)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := g.Bucket(row(t, longKey, int64(-9223372036854775808)), 7); err != nil || got != 6 {
		t.Errorf("mod(MinInt64, 7) = %d, %v; want 6", got, err)
	}
	for _, kt := range []types.DataType{
		types.Row(types.DataField{Name: "k", Type: types.DataType{Root: types.RootSmallInt}}),
		types.Row(types.DataField{Name: "k", Type: types.DataType{Root: types.RootDate}}),
		types.Row(types.DataField{Name: "a", Type: types.DataType{Root: types.RootInt}}, types.DataField{Name: "b", Type: types.DataType{Root: types.RootInt}}),
	} {
		if _, err := New("mod", kt); err == nil || !strings.Contains(err.Error(), Option) {
			t.Errorf("mod of %s: %v", kt.SQLString(), err)
		}
	}
}

func TestHive(t *testing.T) {
	kt := types.Row(
		types.DataField{Name: "i", Type: types.DataType{Root: types.RootInt}},
		types.DataField{Name: "s", Type: types.DataType{Root: types.RootVarChar, Length: 100}},
		types.DataField{Name: "b", Type: types.DataType{Root: types.RootVarBinary, Length: 10}},
		types.DataField{Name: "d", Type: types.DataType{Root: types.RootDecimal, Precision: 10, Scale: 4}},
	)
	f, err := New("hive", kt)
	if err != nil {
		t.Fatal(err)
	}
	// 7, "hello" (String#hashCode 99162322 for ASCII), {1,2,3} (1026), 12.3400 normalized to
	// 12.34 (31*1234 + 2).
	var h int32 = 7
	h = 31*h + 99162322
	h = 31*h + 1026
	h = 31*h + 31*1234 + 2
	want := int(h&0x7fffffff) % 8
	got, err := f.Bucket(row(t, kt, int32(7), "hello", []byte{1, 2, 3}, binrow.Decimal{Unscaled: big.NewInt(123400), Scale: 4}), 8)
	if err != nil || got != want {
		t.Errorf("hive bucket %d, %v; want %d", got, err, want)
	}
	if got, err := f.Bucket(row(t, kt, nil, nil, nil, nil), 4); err != nil || got != 0 {
		t.Errorf("hive bucket of nulls %d, %v", got, err)
	}
	ts := types.Row(types.DataField{Name: "t", Type: types.DataType{Root: types.RootTimestamp, Precision: 3}})
	if _, err := New("hive", ts); err == nil {
		t.Error("hive of a TIMESTAMP key accepted")
	}
	if _, err := New("range", kt); err == nil {
		t.Error("an unknown bucket function accepted")
	}
}

func TestDecimalHash(t *testing.T) {
	for _, c := range []struct {
		unscaled string
		scale    int
		want     int32
	}{
		{"0", 5, 0},          // BigDecimal.ZERO
		{"1200", 2, 31 * 12}, // 12.00 -> 12
		{"-1234", 2, 31*-1234 + 2},
		{"1000", 0, 31*1000 + 0},   // 1E+3 -> scale set back to 0
		{"4294967296", 0, 31 * 31}, // 2^32: magnitude words {1, 0}
	} {
		u, _ := new(big.Int).SetString(c.unscaled, 10)
		if got := decimalHash(binrow.Decimal{Unscaled: u, Scale: c.scale}); got != c.want {
			t.Errorf("hash(%se-%d) = %d, want %d", c.unscaled, c.scale, got, c.want)
		}
	}
}
