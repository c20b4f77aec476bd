package inspect_test

import (
	"math/big"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestPartitionValue checks each type's rendering against the Java runner's dump rules
// (compat/java Values#put): LocalDate#toString for DATE, the number's text for TIME,
// yyyy-MM-dd'T'HH:mm:ss plus the fraction without trailing zeros for TIMESTAMP,
// BigDecimal#toPlainString for DECIMAL, hex for bytes.
func TestPartitionValue(t *testing.T) {
	for _, c := range []struct {
		typ  types.DataType
		in   any
		want any
	}{
		{types.DataType{Root: types.RootDate}, int32(19753), "2024-01-31"},
		{types.DataType{Root: types.RootDate}, int32(-1), "1969-12-31"},
		{types.DataType{Root: types.RootTime}, int32(3600000), "3600000"},
		{types.DataType{Root: types.RootInt}, int32(7), int32(7)},
		{types.DataType{Root: types.RootTimestamp, Precision: 3}, binrow.Timestamp{Millis: 1704121200035}, "2024-01-01T15:00:00.035"},
		{types.DataType{Root: types.RootTimestamp, Precision: 0}, binrow.Timestamp{Millis: 1704121200000}, "2024-01-01T15:00:00"},
		{types.DataType{Root: types.RootTimestamp, Precision: 9}, binrow.Timestamp{Millis: 1704121200000, NanoOfMilli: 120}, "2024-01-01T15:00:00.00000012"},
		{types.DataType{Root: types.RootDecimal, Precision: 10, Scale: 2}, binrow.Decimal{Unscaled: big.NewInt(-305), Scale: 2}, "-3.05"},
		{types.DataType{Root: types.RootVarBinary}, []byte{0x0a, 0xff}, "0aff"},
		{types.DataType{Root: types.RootVarChar}, "eu", "eu"},
		{types.DataType{Root: types.RootVarChar}, nil, nil},
	} {
		if got := inspect.PartitionValue(c.typ, c.in); got != c.want {
			t.Errorf("%s %v: %#v, want %#v", c.typ.Root, c.in, got, c.want)
		}
	}
}
