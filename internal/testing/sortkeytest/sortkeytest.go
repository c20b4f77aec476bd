// Package sortkeytest generates random keys of every type the sorted global index supports, for
// tests of the btree and bitmap formats and their conformance cases.
package sortkeytest

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Types returns one column type of each kind KeySerializer supports, with the parameter edges
// that change the encoding (compact and non-compact decimals and timestamps).
func Types() []types.DataType {
	return []types.DataType{
		types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(), types.Boolean(),
		types.Float(), types.Double(), types.Date(), types.Time(0), types.String(), types.Char(3),
		types.Decimal(10, 2), types.Decimal(18, 0), types.Decimal(38, 10),
		types.Timestamp(3), types.Timestamp(6), types.Timestamp(9), types.TimestampLTZ(3),
	}
}

// Key returns a random non-null key of t, drawn from a small domain so duplicates are frequent.
func Key(t types.DataType, r *rand.Rand) any {
	switch t.Root {
	case types.RootTinyInt:
		return int8(r.IntN(40) - 20)
	case types.RootSmallInt:
		return int16(r.IntN(200) - 100)
	case types.RootInt, types.RootDate, types.RootTime:
		if r.IntN(20) == 0 {
			return []int32{math.MinInt32, math.MaxInt32}[r.IntN(2)]
		}
		return int32(r.IntN(500) - 250)
	case types.RootBigInt:
		if r.IntN(20) == 0 {
			return []int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
		}
		return int64(r.IntN(500)-250) * 1_000_003
	case types.RootBoolean:
		return r.IntN(2) == 0
	case types.RootFloat:
		return []float32{float32(math.Inf(-1)), -1.5, -0.0, 0, 0.25, 3.75, float32(math.Inf(1)), float32(r.IntN(50)) / 4}[r.IntN(8)]
	case types.RootDouble:
		return []float64{math.Inf(-1), -2.5, math.Copysign(0, -1), 0, 1e-300, 7.125, math.Inf(1), float64(r.IntN(50)) / 8}[r.IntN(8)]
	case types.RootChar, types.RootVarChar:
		alphabet := []string{"a", "b", "é", "中", "😀", "\x00", "zz", "ÿ"}
		n := r.IntN(4)
		s := ""
		for range n {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	case types.RootDecimal:
		u := big.NewInt(int64(r.IntN(2000) - 1000))
		if t.Precision > 18 && r.IntN(3) == 0 {
			u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil))
		}
		return binrow.Decimal{Unscaled: u, Scale: t.Scale}
	case types.RootTimestamp, types.RootTimestampLTZ:
		ts := binrow.Timestamp{Millis: int64(r.IntN(400)-200) * 86_400_000}
		if t.Precision > 3 {
			ts.NanoOfMilli = int32(r.IntN(3) * 333_333)
		}
		return ts
	}
	panic("sortkeytest: unsupported type " + t.Root.String())
}

// Rows returns n random rows (nil is a null key, about one in nullEvery) sorted as a sorted index
// writer needs them: non-null keys in increasing order, each row with its row id. Row ids are
// assigned in order of the sorted sequence, starting at first.
func Rows(ser *sortkey.Serializer, r *rand.Rand, n, nullEvery int) []Row {
	keys := make([]any, n)
	for i := range keys {
		if nullEvery > 0 && r.IntN(nullEvery) == 0 {
			continue
		}
		keys[i] = Key(ser.Type(), r)
	}
	slices.SortStableFunc(keys, ser.CompareNullsFirst)
	rows := make([]Row, n)
	ids := r.Perm(n)
	for i, k := range keys {
		rows[i] = Row{Key: k, RowID: int64(ids[i])}
	}
	// Rows with equal keys keep ascending row ids, as a value-sorted source delivers them.
	for i := 0; i < n; {
		j := i + 1
		for j < n && sameKey(ser, rows[i].Key, rows[j].Key) {
			j++
		}
		slices.SortFunc(rows[i:j], func(a, b Row) int { return int(a.RowID - b.RowID) })
		i = j
	}
	return rows
}

func sameKey(ser *sortkey.Serializer, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return ser.Compare(a, b) == 0
}

// Row is one key (nil for null) at one row id.
type Row struct {
	Key   any
	RowID int64
}

// Predicates returns a random set of leaf predicates over t's keys (every operator, literals
// drawn from the same domain as the keys, plus null literals where a reader accepts them).
func Predicates(ser *sortkey.Serializer, r *rand.Rand, n int) []pred.Predicate {
	t := ser.Type()
	k := func() any { return Key(t, r) }
	out := []pred.Predicate{{Op: pred.IsNull}, {Op: pred.IsNotNull}}
	for range n {
		a, b := k(), k()
		if ser.Compare(a, b) > 0 {
			a, b = b, a
		}
		out = append(out,
			pred.Predicate{Op: pred.Equal, Literals: []any{a}},
			pred.Predicate{Op: pred.NotEqual, Literals: []any{a}},
			pred.Predicate{Op: pred.LessThan, Literals: []any{a}},
			pred.Predicate{Op: pred.LessOrEqual, Literals: []any{a}},
			pred.Predicate{Op: pred.GreaterThan, Literals: []any{a}},
			pred.Predicate{Op: pred.GreaterOrEqual, Literals: []any{a}},
			pred.Predicate{Op: pred.Between, Literals: []any{a, b}},
			pred.Predicate{Op: pred.In, Literals: []any{a, b, k()}},
			pred.Predicate{Op: pred.NotIn, Literals: []any{a, k()}},
		)
		if t.Root == types.RootVarChar || t.Root == types.RootChar {
			out = append(out, pred.Predicate{Op: pred.StartsWith, Literals: []any{a}})
		}
	}
	return out
}

// Expect evaluates p on rows exactly (the answer of an exact index); rows with a null key match
// only isNull.
func Expect(ser *sortkey.Serializer, rows []Row, p pred.Predicate) []int64 {
	var out []int64
	for _, row := range rows {
		if matches(ser, row.Key, p) {
			out = append(out, row.RowID)
		}
	}
	slices.Sort(out)
	return out
}

func matches(ser *sortkey.Serializer, k any, p pred.Predicate) bool {
	if p.Op == pred.IsNull {
		return k == nil
	}
	if k == nil {
		return false
	}
	c := func(i int) int { return ser.Compare(k, p.Literals[i]) }
	switch p.Op {
	case pred.IsNotNull:
		return true
	case pred.Equal:
		return c(0) == 0
	case pred.NotEqual:
		return c(0) != 0
	case pred.LessThan:
		return c(0) < 0
	case pred.LessOrEqual:
		return c(0) <= 0
	case pred.GreaterThan:
		return c(0) > 0
	case pred.GreaterOrEqual:
		return c(0) >= 0
	case pred.Between:
		return c(0) >= 0 && c(1) <= 0
	case pred.In, pred.NotIn:
		in := false
		for i := range p.Literals {
			in = in || c(i) == 0
		}
		return in == (p.Op == pred.In)
	case pred.StartsWith:
		s, ok1 := k.(string)
		pre, ok2 := p.Literals[0].(string)
		return ok1 && ok2 && len(s) >= len(pre) && s[:len(pre)] == pre
	}
	return false
}

// SameNonNullRows reports how got (every non-null key with its row ids, in file order) differs
// from the non-null rows of written, or "" when it does not.
func SameNonNullRows(ser *sortkey.Serializer, got, written []Row) string {
	var want []Row
	for _, row := range written {
		if row.Key != nil {
			want = append(want, row)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d non-null rows read, %d written", len(got), len(want))
	}
	for i := range got {
		if ser.Compare(got[i].Key, want[i].Key) != 0 || got[i].RowID != want[i].RowID {
			return fmt.Sprintf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
	return ""
}

// CheckPredicates evaluates every predicate of Predicates(ser, r, n) with eval and reports the
// first answer that differs from Expect on rows, or "" when all agree.
func CheckPredicates(ser *sortkey.Serializer, r *rand.Rand, n int, rows []Row, eval func(pred.Predicate) ([]uint64, error)) string {
	for _, p := range Predicates(ser, r, n) {
		ids, err := eval(p)
		if err != nil {
			return fmt.Sprintf("%s %v: %v", p.Op, p.Literals, err)
		}
		got := make([]int64, 0, len(ids))
		for _, id := range ids {
			got = append(got, int64(id))
		}
		if want := Expect(ser, rows, p); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			return fmt.Sprintf("%s %v: rows %v, want %v", p.Op, p.Literals, got, want)
		}
	}
	return ""
}
