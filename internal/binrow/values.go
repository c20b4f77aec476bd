package binrow

import (
	"fmt"
	"math/big"
	"strings"
)

// Decimal is a DECIMAL value: Unscaled * 10^-Scale. Encode requires Scale to equal the column's
// scale and the unscaled value to have at most the column's precision in digits, as Java's
// Decimal does.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// DecimalFromInt64 returns the decimal unscaled * 10^-scale.
func DecimalFromInt64(unscaled int64, scale int) Decimal {
	return Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

// ParseDecimal parses plain decimal notation ("-12.340") into a Decimal with the given scale;
// the text may have fewer fraction digits than scale but not more.
func ParseDecimal(s string, scale int) (Decimal, error) {
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	intPart, frac, _ := strings.Cut(digits, ".")
	if intPart == "" && frac == "" {
		return Decimal{}, fmt.Errorf("parse decimal %q: no digits", s)
	}
	if len(frac) > scale {
		return Decimal{}, fmt.Errorf("parse decimal %q: more than %d fraction digits", s, scale)
	}
	frac += strings.Repeat("0", scale-len(frac))
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok || strings.ContainsAny(intPart+frac, "+-") || intPart+frac == "" {
		return Decimal{}, fmt.Errorf("parse decimal %q: not a plain decimal number", s)
	}
	if neg {
		u.Neg(u)
	}
	return Decimal{Unscaled: u, Scale: scale}, nil
}

// String returns plain decimal notation with exactly Scale fraction digits (Java's
// BigDecimal#toPlainString), e.g. "5.55000" or "-0.05".
func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "<nil>"
	}
	abs := new(big.Int).Abs(d.Unscaled).String()
	sign := ""
	if d.Unscaled.Sign() < 0 {
		sign = "-"
	}
	if d.Scale <= 0 {
		return sign + abs + strings.Repeat("0", -d.Scale)
	}
	if len(abs) <= d.Scale {
		abs = strings.Repeat("0", d.Scale-len(abs)+1) + abs
	}
	return sign + abs[:len(abs)-d.Scale] + "." + abs[len(abs)-d.Scale:]
}

// Equal reports whether two decimals have the same unscaled value and scale.
func (d Decimal) Equal(o Decimal) bool {
	if d.Unscaled == nil || o.Unscaled == nil {
		return d.Unscaled == o.Unscaled && d.Scale == o.Scale
	}
	return d.Scale == o.Scale && d.Unscaled.Cmp(o.Unscaled) == 0
}

// digits returns the number of decimal digits of |u|, with 0 counting as one digit (Java's
// BigDecimal#precision).
func digits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}

// Timestamp is a TIMESTAMP or TIMESTAMP_LTZ value: milliseconds since the epoch plus the
// nanoseconds within that millisecond (0..999999), as Java's org.apache.paimon.data.Timestamp.
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32
}

// twosComplement returns Java's BigInteger#toByteArray: minimal big-endian two's complement, at least
// one byte.
func twosComplement(u *big.Int) []byte {
	if u.Sign() >= 0 {
		b := u.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// For negative u, the bytes of -u-1 inverted are the two's complement of u.
	m := new(big.Int).Neg(u)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// fromTwosComplement is the inverse of twosComplement (Java's new BigInteger(byte[])).
func fromTwosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// UnscaledBytes returns the unscaled value of d as Java's Decimal#toUnscaledBytes does
// (BigInteger#toByteArray: minimal big-endian two's complement).
func (d Decimal) UnscaledBytes() []byte { return twosComplement(d.Unscaled) }

// DecimalFromUnscaledBytes is Java's Decimal.fromUnscaledBytes: the decimal whose unscaled value
// is the two's-complement big-endian b, at the given scale.
func DecimalFromUnscaledBytes(b []byte, scale int) Decimal {
	return Decimal{Unscaled: fromTwosComplement(b), Scale: scale}
}
