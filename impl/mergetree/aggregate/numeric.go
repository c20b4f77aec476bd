package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/paimon-pkft/pkft/impl/binrow"
	"github.com/paimon-pkft/pkft/impl/types"
)

// ErrArithmetic reports an overflow or an undefined division (Java's ArithmeticException).
var ErrArithmetic = errors.New("arithmetic error")

// maxCompactPrecision is Decimal.MAX_COMPACT_PRECISION: decimals of at most 18 digits are held
// as an unscaled long.
const maxCompactPrecision = 18

// sum is FieldSumAgg: nulls are skipped, integers overflow with Java's error, a retraction
// subtracts (from null: the negated input).
type sum struct{ base }

func (a sum) Agg(acc, in any) (any, error) {
	if acc == nil || in == nil {
		if acc == nil {
			return in, nil
		}
		return acc, nil
	}
	return a.arith(acc, in, '+')
}

func (a sum) Retract(acc, in any) (any, error) {
	if acc == nil || in == nil {
		if acc == nil {
			return a.negate(in)
		}
		return acc, nil
	}
	return a.arith(acc, in, '-')
}

func (a sum) negate(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int8:
		if x == math.MinInt8 {
			return nil, fmt.Errorf("%w: byte overflow: -%d = %d", ErrArithmetic, x, -int(x))
		}
		return -x, nil
	case int16:
		if x == math.MinInt16 {
			return nil, fmt.Errorf("%w: short overflow: -%d = %d", ErrArithmetic, x, -int(x))
		}
		return -x, nil
	case int32:
		if x == math.MinInt32 {
			return nil, fmt.Errorf("%w: int overflow: -%d", ErrArithmetic, x)
		}
		return -x, nil
	case int64:
		if x == math.MinInt64 {
			return nil, fmt.Errorf("%w: long overflow: -%d", ErrArithmetic, x)
		}
		return -x, nil
	case float32:
		return -x, nil
	case float64:
		return -x, nil
	case binrow.Decimal:
		// Decimal.fromBigDecimal of the negation: same digits, so always within precision.
		return binrow.Decimal{Unscaled: new(big.Int).Neg(x.Unscaled), Scale: x.Scale}, nil
	}
	return nil, valueErr(a.base, v)
}

// arith is FieldSumAgg's addition or subtraction of two non-null values.
func (a sum) arith(x, y any, op byte) (any, error) {
	opName := string(op)
	switch u := x.(type) {
	case int8:
		v, ok := y.(int8)
		if !ok {
			return nil, valueErr(a.base, x, y)
		}
		r := int(u) + int(v)
		if op == '-' {
			r = int(u) - int(v)
		}
		if r > math.MaxInt8 || r < math.MinInt8 {
			return nil, fmt.Errorf("%w: byte overflow: %d %s %d = %d", ErrArithmetic, u, opName, v, r)
		}
		return int8(r), nil
	case int16:
		v, ok := y.(int16)
		if !ok {
			return nil, valueErr(a.base, x, y)
		}
		r := int(u) + int(v)
		if op == '-' {
			r = int(u) - int(v)
		}
		if r > math.MaxInt16 || r < math.MinInt16 {
			return nil, fmt.Errorf("%w: short overflow: %d %s %d = %d", ErrArithmetic, u, opName, v, r)
		}
		return int16(r), nil
	case int32:
		v, ok := y.(int32)
		if !ok {
			return nil, valueErr(a.base, x, y)
		}
		r := int64(u) + int64(v)
		if op == '-' {
			r = int64(u) - int64(v)
		}
		if r > math.MaxInt32 || r < math.MinInt32 {
			return nil, fmt.Errorf("%w: int overflow: %d %s %d", ErrArithmetic, u, opName, v)
		}
		return int32(r), nil
	case int64:
		v, ok := y.(int64)
		if !ok {
			return nil, valueErr(a.base, x, y)
		}
		r := new(big.Int).SetInt64(u)
		if op == '-' {
			r.Sub(r, big.NewInt(v))
		} else {
			r.Add(r, big.NewInt(v))
		}
		if !r.IsInt64() {
			return nil, fmt.Errorf("%w: long overflow: %d %s %d", ErrArithmetic, u, opName, v)
		}
		return r.Int64(), nil
	case float32:
		v, ok := y.(float32)
		if !ok {
			return nil, valueErr(a.base, x, y)
		}
		if op == '-' {
			return float32(u - v), nil
		}
		return float32(u + v), nil
	case float64:
		v, ok := y.(float64)
		if !ok {
			return nil, valueErr(a.base, x, y)
		}
		if op == '-' {
			return float64(u - v), nil
		}
		return float64(u + v), nil
	case binrow.Decimal:
		v, ok := y.(binrow.Decimal)
		if !ok || v.Scale != u.Scale {
			return nil, valueErr(a.base, x, y)
		}
		r := new(big.Int)
		if op == '-' {
			r.Sub(u.Unscaled, v.Unscaled)
		} else {
			r.Add(u.Unscaled, v.Unscaled)
		}
		return a.decimalResult(r, u.Scale)
	}
	return nil, valueErr(a.base, x, y)
}

// decimalResult is DecimalUtils#add/#subtract's result of an exact unscaled sum: for a compact
// precision a sum that fits a long is kept as it is, even past the precision (Java's
// Decimal.fromUnscaledLong checks no digits), which pkft refuses rather than write a value
// Parquet and Java read differently; otherwise Decimal.fromBigDecimal: null past the precision.
func (a sum) decimalResult(r *big.Int, scale int) (any, error) {
	p := a.t.Precision
	if digits(r) <= p {
		return binrow.Decimal{Unscaled: r, Scale: scale}, nil
	}
	if p <= maxCompactPrecision && r.IsInt64() {
		return nil, fmt.Errorf("%w: sum over %s: the result %s has %d digits, more than the precision; Java keeps such a compact decimal unchecked, pkft does not write it",
			ErrArithmetic, a.t, binrow.Decimal{Unscaled: r, Scale: scale}, digits(r))
	}
	return nil, nil
}

// digits is BigDecimal#precision of an unscaled value (0 has one digit).
func digits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}

// product is FieldProductAgg: nulls are skipped, integers overflow with Java's error, decimals
// round HALF_UP to the scale (null past the precision); a retraction divides (a null
// accumulator or input keeps the accumulator).
type product struct{ base }

func (a product) Agg(acc, in any) (any, error) {
	if acc == nil || in == nil {
		if acc == nil {
			return in, nil
		}
		return acc, nil
	}
	switch u := acc.(type) {
	case int8:
		v, ok := in.(int8)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		r := int(u) * int(v)
		if r > math.MaxInt8 || r < math.MinInt8 {
			return nil, fmt.Errorf("%w: byte overflow: %d * %d = %d", ErrArithmetic, u, v, r)
		}
		return int8(r), nil
	case int16:
		v, ok := in.(int16)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		r := int(u) * int(v)
		if r > math.MaxInt16 || r < math.MinInt16 {
			return nil, fmt.Errorf("%w: short overflow: %d * %d = %d", ErrArithmetic, u, v, r)
		}
		return int16(r), nil
	case int32:
		v, ok := in.(int32)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		r := int64(u) * int64(v)
		if r > math.MaxInt32 || r < math.MinInt32 {
			return nil, fmt.Errorf("%w: int overflow: %d * %d", ErrArithmetic, u, v)
		}
		return int32(r), nil
	case int64:
		v, ok := in.(int64)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		r := new(big.Int).Mul(big.NewInt(u), big.NewInt(v))
		if !r.IsInt64() {
			return nil, fmt.Errorf("%w: long overflow: %d * %d", ErrArithmetic, u, v)
		}
		return r.Int64(), nil
	case float32:
		v, ok := in.(float32)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		return float32(u * v), nil
	case float64:
		v, ok := in.(float64)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		return float64(u * v), nil
	case binrow.Decimal:
		v, ok := in.(binrow.Decimal)
		if !ok || v.Scale != u.Scale {
			return nil, valueErr(a.base, acc, in)
		}
		// The exact product has scale 2s; Decimal.fromBigDecimal rounds it HALF_UP to s.
		num := new(big.Int).Mul(u.Unscaled, v.Unscaled)
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(u.Scale)), nil)
		return a.decimalOf(roundHalfUp(num, den), u.Scale), nil
	}
	return nil, valueErr(a.base, acc, in)
}

func (a product) Retract(acc, in any) (any, error) {
	if acc == nil || in == nil {
		return acc, nil
	}
	switch u := acc.(type) {
	case int8:
		v, ok := in.(int8)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		if v == 0 {
			return nil, fmt.Errorf("%w: / by zero", ErrArithmetic)
		}
		r := int(u) / int(v)
		if r > math.MaxInt8 || r < math.MinInt8 {
			return nil, fmt.Errorf("%w: byte overflow: %d / %d = %d", ErrArithmetic, u, v, r)
		}
		return int8(r), nil
	case int16:
		v, ok := in.(int16)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		if v == 0 {
			return nil, fmt.Errorf("%w: / by zero", ErrArithmetic)
		}
		r := int(u) / int(v)
		if r > math.MaxInt16 || r < math.MinInt16 {
			return nil, fmt.Errorf("%w: short overflow: %d / %d = %d", ErrArithmetic, u, v, r)
		}
		return int16(r), nil
	case int32:
		v, ok := in.(int32)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		if v == 0 {
			return nil, fmt.Errorf("%w: / by zero", ErrArithmetic)
		}
		if u == math.MinInt32 && v == -1 {
			return nil, fmt.Errorf("%w: int overflow: %d / %d", ErrArithmetic, u, v)
		}
		return u / v, nil
	case int64:
		v, ok := in.(int64)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		if v == 0 {
			return nil, fmt.Errorf("%w: / by zero", ErrArithmetic)
		}
		if u == math.MinInt64 && v == -1 {
			return nil, fmt.Errorf("%w: long overflow: %d / %d", ErrArithmetic, u, v)
		}
		return u / v, nil
	case float32:
		v, ok := in.(float32)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		return float32(u / v), nil
	case float64:
		v, ok := in.(float64)
		if !ok {
			return nil, valueErr(a.base, acc, in)
		}
		return float64(u / v), nil
	case binrow.Decimal:
		v, ok := in.(binrow.Decimal)
		if !ok || v.Scale != u.Scale {
			return nil, valueErr(a.base, acc, in)
		}
		// BigDecimal#divide: the exact quotient, an error when it does not terminate; then
		// Decimal.fromBigDecimal rounds it HALF_UP to the scale. The scales are equal, so the
		// quotient is u.Unscaled / v.Unscaled.
		if v.Unscaled.Sign() == 0 {
			if u.Unscaled.Sign() == 0 {
				return nil, fmt.Errorf("%w: Division undefined", ErrArithmetic)
			}
			return nil, fmt.Errorf("%w: Division by zero", ErrArithmetic)
		}
		if !terminates(u.Unscaled, v.Unscaled) {
			return nil, fmt.Errorf("%w: Non-terminating decimal expansion; no exact representable decimal result.", ErrArithmetic)
		}
		num := new(big.Int).Mul(u.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(u.Scale)), nil))
		return a.decimalOf(roundHalfUp(num, v.Unscaled), u.Scale), nil
	}
	return nil, valueErr(a.base, acc, in)
}

// decimalOf is Decimal.fromBigDecimal of an unscaled value already at the scale: null past the
// precision.
func (a product) decimalOf(u *big.Int, scale int) any {
	if digits(u) > a.t.Precision {
		return nil
	}
	return binrow.Decimal{Unscaled: u, Scale: scale}
}

// roundHalfUp is num/den rounded to the nearest integer, ties away from zero
// (RoundingMode.HALF_UP).
func roundHalfUp(num, den *big.Int) *big.Int {
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if d.Sign() < 0 {
		n.Neg(n)
		d.Neg(d)
	}
	neg := n.Sign() < 0
	n.Abs(n)
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if new(big.Int).Lsh(r, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q
}

// terminates reports whether num/den has a finite decimal expansion: the reduced denominator
// has no prime factor but 2 and 5.
func terminates(num, den *big.Int) bool {
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(num), new(big.Int).Abs(den))
	d := new(big.Int).Quo(new(big.Int).Abs(den), g)
	two, five, zero := big.NewInt(2), big.NewInt(5), new(big.Int)
	m := new(big.Int)
	for _, p := range []*big.Int{two, five} {
		for {
			q, r := new(big.Int).QuoRem(d, p, m)
			if r.Cmp(zero) != 0 {
				break
			}
			d = q
		}
	}
	return d.Cmp(big.NewInt(1)) == 0
}

// minMax is FieldMinAgg / FieldMaxAgg: nulls are skipped, values ordered as
// InternalRowUtils#compare orders the type (others are Java's "Incomparable type" error); no
// retraction.
type minMax struct {
	base
	max bool
}

func (a minMax) Agg(acc, in any) (any, error) {
	if acc == nil || in == nil {
		if acc == nil {
			return in, nil
		}
		return acc, nil
	}
	if !ordered(a.t.Root) {
		return nil, fmt.Errorf("Incomparable type: %s", a.t.Root)
	}
	if !sameKind(acc, in) {
		return nil, valueErr(a.base, acc, in)
	}
	c := binrow.CompareValues(acc, in)
	if a.max {
		if c < 0 {
			return in, nil
		}
		return acc, nil
	}
	if c < 0 {
		return acc, nil
	}
	return in, nil
}

func ordered(r types.Root) bool {
	switch r {
	case types.RootDecimal, types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootDate, types.RootTime,
		types.RootBigInt, types.RootFloat, types.RootDouble, types.RootTimestamp, types.RootTimestampLTZ,
		types.RootBinary, types.RootVarBinary, types.RootVarChar, types.RootChar:
		return true
	}
	return false
}

func sameKind(x, y any) bool { return reflect.TypeOf(x) == reflect.TypeOf(y) }
