// Package bucketfunc holds Paimon's bucket functions (org.apache.paimon.bucket): the bucket a
// fixed-bucket table's writer assigns to a row from its bucket key, as the table option
// bucket-function.type selects. Each function accepts the bucket-key types Java's accepts and
// New refuses the others, so a table Java could not write is refused before any row is.
package bucketfunc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Option is the table option selecting the bucket function (CoreOptions BUCKET_FUNCTION_TYPE).
const Option = "bucket-function.type"

// The bucket function types of Paimon 2.0.0 (CoreOptions.BucketFunctionType).
const (
	Default = "default"
	Mod     = "mod"
	Hive    = "hive"
)

// Func assigns a bucket to an encoded bucket-key row (a BinaryRow of the bucket-key type).
type Func interface {
	Bucket(keyRow []byte, numBuckets int) (int, error)
}

// FromOptions returns the bucket function the table options select for a bucket key of keyType
// (a ROW type).
func FromOptions(opts map[string]string, keyType types.DataType) (Func, error) {
	name, ok := opts[Option]
	if !ok {
		name = Default
	}
	return New(name, keyType)
}

// New returns the bucket function named name (case-insensitive, as Java's enum option is) for a
// bucket key of keyType (a ROW type): an error for an unknown name, or a key type the function
// does not accept.
func New(name string, keyType types.DataType) (Func, error) {
	if keyType.Root != types.RootRow {
		return nil, fmt.Errorf("bucket key type %s is not a ROW", keyType.SQLString())
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case Default:
		return defaultFunc{}, nil
	case Mod:
		return newMod(keyType)
	case Hive:
		return newHive(keyType)
	}
	return nil, fmt.Errorf("%s %q: not one of default, mod, hive", Option, name)
}

func checkBuckets(n int) error {
	if n <= 0 {
		return fmt.Errorf("bucket: number of buckets %d must be positive", n)
	}
	return nil
}

// defaultFunc is DefaultBucketFunction: |hashCode(row) % n|.
type defaultFunc struct{}

func (defaultFunc) Bucket(keyRow []byte, n int) (int, error) { return binrow.Bucket(keyRow, n) }

// modFunc is ModBucketFunction: floorMod of the single INT or BIGINT key by n.
type modFunc struct{ keyType types.DataType }

func newMod(keyType types.DataType) (Func, error) {
	fields := keyType.FieldTypes()
	if len(fields) != 1 {
		return nil, fmt.Errorf("%s %s: the bucket key must have exactly one field, it has %d", Option, Mod, len(fields))
	}
	if r := fields[0].Root; r != types.RootInt && r != types.RootBigInt {
		return nil, fmt.Errorf("%s %s: the bucket key type must be INT or BIGINT, not %s", Option, Mod, fields[0].SQLString())
	}
	return modFunc{keyType: keyType}, nil
}

func (f modFunc) Bucket(keyRow []byte, n int) (int, error) {
	if err := checkBuckets(n); err != nil {
		return 0, err
	}
	vals, err := binrow.Decode(f.keyType, keyRow)
	if err != nil {
		return 0, err
	}
	var v int64
	switch x := vals[0].(type) {
	case int32:
		v = int64(x)
	case int64:
		v = x
	default:
		// Java reads the field's slot whatever it holds; a null key has no value to take.
		return 0, errors.New("bucket: mod bucket function of a null key")
	}
	m := v % int64(n)
	if m < 0 {
		m += int64(n)
	}
	return int(m), nil
}

// hiveFunc is HiveBucketFunction: Hive's hash of each field, combined as 31*h + field, masked
// non-negative, modulo n.
type hiveFunc struct{ keyType types.DataType }

func newHive(keyType types.DataType) (Func, error) {
	for i, t := range keyType.FieldTypes() {
		switch t.Root {
		case types.RootBoolean, types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootDate, types.RootTime,
			types.RootBigInt, types.RootFloat, types.RootDouble, types.RootChar, types.RootVarChar,
			types.RootBinary, types.RootVarBinary, types.RootDecimal:
		default:
			return nil, fmt.Errorf("%s %s: bucket key field %s has type %s, which Java's hive bucket function does not hash",
				Option, Hive, keyType.Fields[i].Name, t.SQLString())
		}
	}
	return hiveFunc{keyType: keyType}, nil
}

func (f hiveFunc) Bucket(keyRow []byte, n int) (int, error) {
	if err := checkBuckets(n); err != nil {
		return 0, err
	}
	vals, err := binrow.Decode(f.keyType, keyRow)
	if err != nil {
		return 0, err
	}
	var h int32
	for _, v := range vals {
		fh, err := hiveHash(v)
		if err != nil {
			return 0, err
		}
		h = 31*h + fh
	}
	return int(h&math.MaxInt32) % n, nil
}

// hiveHash is HiveBucketFunction#computeHash of one decoded field value (HiveHasher).
func hiveHash(v any) (int32, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int8:
		return int32(x), nil
	case int16:
		return int32(x), nil
	case int32:
		return x, nil
	case int64:
		return longHash(x), nil
	case float32:
		if x == 0 { // 0.0 and -0.0
			return 0, nil
		}
		return int32(floatToIntBits(x)), nil
	case float64:
		if x == 0 {
			return 0, nil
		}
		return longHash(int64(doubleToLongBits(x))), nil
	case string:
		return bytesHash([]byte(x)), nil
	case []byte:
		return bytesHash(x), nil
	case binrow.Decimal:
		return decimalHash(x), nil
	}
	return 0, fmt.Errorf("bucket: hive bucket function cannot hash a %T", v)
}

// longHash is Long#hashCode.
func longHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// floatToIntBits is Float#floatToIntBits: NaN is canonical.
func floatToIntBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

// doubleToLongBits is Double#doubleToLongBits: NaN is canonical.
func doubleToLongBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// bytesHash is HiveHasher#hashBytes over signed bytes.
func bytesHash(b []byte) int32 {
	var h int32
	for _, c := range b {
		h = h*31 + int32(int8(c))
	}
	return h
}

// hiveDecimalMax is Hive's maximum decimal precision and scale.
const hiveDecimalMax = 38

// decimalHash is BigDecimal#hashCode of HiveHasher#normalizeDecimal(d): trailing zeros stripped
// (a negative scale made 0), the scale cut to what 38 digits leave (HALF_UP), then
// 31 * BigInteger#hashCode(unscaled) + scale.
func decimalHash(d binrow.Decimal) int32 {
	u, scale := trimDecimal(new(big.Int).Set(d.Unscaled), d.Scale)
	intDigits := precision(u) - scale
	if intDigits > hiveDecimalMax {
		// Java's normalizeDecimal returns null and hashing it fails; Paimon decimals (precision
		// at most 38) never get here.
		return 0
	}
	maxScale := min(hiveDecimalMax, hiveDecimalMax-intDigits, scale)
	if scale > maxScale {
		u = roundHalfUp(u, scale-maxScale)
		u, scale = trimDecimal(u, maxScale)
	}
	return 31*bigIntegerHash(u) + int32(scale)
}

var bigTen = big.NewInt(10)

// trimDecimal is HiveHasher#trimDecimal on unscaled * 10^-scale.
func trimDecimal(u *big.Int, scale int) (*big.Int, int) {
	if u.Sign() == 0 {
		return u, 0
	}
	q, r := new(big.Int), new(big.Int)
	for {
		q.QuoRem(u, bigTen, r)
		if r.Sign() != 0 {
			break
		}
		u = new(big.Int).Set(q)
		scale--
	}
	for ; scale < 0; scale++ {
		u = new(big.Int).Mul(u, bigTen)
	}
	return u, scale
}

// precision is BigDecimal#precision: the number of decimal digits of the unscaled value (1 for 0).
func precision(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}

// roundHalfUp divides u by 10^digits, rounding half away from zero (RoundingMode.HALF_UP).
func roundHalfUp(u *big.Int, digits int) *big.Int {
	div := new(big.Int).Exp(bigTen, big.NewInt(int64(digits)), nil)
	q, r := new(big.Int).QuoRem(u, div, new(big.Int))
	twice := new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2))
	if twice.Cmp(div) >= 0 {
		if u.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// bigIntegerHash is BigInteger#hashCode: the magnitude's 32-bit words, most significant first,
// combined as 31*h + word, times the sign.
func bigIntegerHash(u *big.Int) int32 {
	mag := new(big.Int).Abs(u).Bytes()
	for len(mag)%4 != 0 {
		mag = append([]byte{0}, mag...)
	}
	var h int32
	for i := 0; i < len(mag); i += 4 {
		w := int32(uint32(mag[i])<<24 | uint32(mag[i+1])<<16 | uint32(mag[i+2])<<8 | uint32(mag[i+3]))
		h = 31*h + w
	}
	return h * int32(u.Sign())
}
