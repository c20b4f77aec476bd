package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
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
	if r, done := skipNull(acc, in); done {
		return r, nil
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
	if r, ok, err := a.numbers(x, y, op); ok {
		return r, err
	}
	u, ok1 := x.(binrow.Decimal)
	v, ok2 := y.(binrow.Decimal)
	if !ok1 || !ok2 || v.Scale != u.Scale {
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

// integer are the Go forms of TINYINT, SMALLINT, INT and BIGINT.
type integer interface{ int8 | int16 | int32 | int64 }

// numbers applies op ('+', '-', '*' or '/') to two integers (exactly, with Java's overflow
// errors: Math.addExact and its kin, the byte and short checks of the Field*Agg classes) or two
// floats (IEEE arithmetic, as Java's); ok is false when x is neither.
func (b base) numbers(x, y any, op byte) (r any, ok bool, err error) {
	switch u := x.(type) {
	case int8:
		return intOp(b, u, y, op)
	case int16:
		return intOp(b, u, y, op)
	case int32:
		return intOp(b, u, y, op)
	case int64:
		return intOp(b, u, y, op)
	case float32:
		return floatOp(b, u, y, op)
	case float64:
		return floatOp(b, u, y, op)
	}
	return nil, false, nil
}

func intOp[T integer](b base, x T, y any, op byte) (any, bool, error) {
	v, ok := y.(T)
	if !ok {
		return nil, true, valueErr(b, x, y)
	}
	if op == '/' && v == 0 {
		return nil, true, fmt.Errorf("%w: / by zero", ErrArithmetic)
	}
	p, q := big.NewInt(int64(x)), big.NewInt(int64(v))
	r := new(big.Int)
	switch op {
	case '+':
		r.Add(p, q)
	case '-':
		r.Sub(p, q)
	case '*':
		r.Mul(p, q)
	default:
		r.Quo(p, q) // truncated, as Java's integer division
	}
	var name string
	var lo, hi int64
	switch any(x).(type) {
	case int8:
		name, lo, hi = "byte", math.MinInt8, math.MaxInt8
	case int16:
		name, lo, hi = "short", math.MinInt16, math.MaxInt16
	case int32:
		name, lo, hi = "int", math.MinInt32, math.MaxInt32
	default:
		name, lo, hi = "long", math.MinInt64, math.MaxInt64
	}
	if !r.IsInt64() || r.Int64() < lo || r.Int64() > hi {
		if name == "byte" || name == "short" {
			// Java computes these in int and prints the result.
			return nil, true, fmt.Errorf("%w: %s overflow: %d %c %d = %s", ErrArithmetic, name, x, op, v, r)
		}
		return nil, true, fmt.Errorf("%w: %s overflow: %d %c %d", ErrArithmetic, name, x, op, v)
	}
	return T(r.Int64()), true, nil
}

func floatOp[T float32 | float64](b base, x T, y any, op byte) (any, bool, error) {
	v, ok := y.(T)
	if !ok {
		return nil, true, valueErr(b, x, y)
	}
	switch op {
	case '+':
		return x + v, true, nil
	case '-':
		return x - v, true, nil
	case '*':
		return x * v, true, nil
	}
	return x / v, true, nil
}

// skipNull is the null handling of sum, product, min, max, bool_and and bool_or: with a null
// accumulator or input the result is the other (done is true).
func skipNull(acc, in any) (r any, done bool) {
	if acc == nil {
		return in, true
	}
	if in == nil {
		return acc, true
	}
	return nil, false
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
	if r, done := skipNull(acc, in); done {
		return r, nil
	}
	if r, ok, err := a.numbers(acc, in, '*'); ok {
		return r, err
	}
	u, ok1 := acc.(binrow.Decimal)
	v, ok2 := in.(binrow.Decimal)
	if !ok1 || !ok2 || v.Scale != u.Scale {
		return nil, valueErr(a.base, acc, in)
	}
	// The exact product has scale 2s; Decimal.fromBigDecimal rounds it HALF_UP to s.
	num := new(big.Int).Mul(u.Unscaled, v.Unscaled)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(u.Scale)), nil)
	return a.decimalOf(roundHalfUp(num, den), u.Scale), nil
}

func (a product) Retract(acc, in any) (any, error) {
	if acc == nil || in == nil {
		return acc, nil
	}
	if r, ok, err := a.numbers(acc, in, '/'); ok {
		return r, err
	}
	u, ok1 := acc.(binrow.Decimal)
	v, ok2 := in.(binrow.Decimal)
	if !ok1 || !ok2 || v.Scale != u.Scale {
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
	if r, done := skipNull(acc, in); done {
		return r, nil
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
