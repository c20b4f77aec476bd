package convert

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-pkft/pkft/internal/types"
)

// TestArrowType checks the Arrow type of every Paimon type pkft reads out, and that
// FromArrowType maps it back to a Paimon type of the same root and parameters (CHAR and VARCHAR
// come back as STRING, BINARY and VARBINARY as BYTES, TIME as TIME(3)).
func TestArrowType(t *testing.T) {
	for _, c := range []struct {
		paimon types.DataType
		arrow  string
		back   types.DataType
	}{
		{types.Boolean(), "bool", types.Boolean()},
		{types.TinyInt(), "int8", types.TinyInt()},
		{types.SmallInt(), "int16", types.SmallInt()},
		{types.Int(), "int32", types.Int()},
		{types.BigInt(), "int64", types.BigInt()},
		{types.Float(), "float32", types.Float()},
		{types.Double(), "float64", types.Double()},
		{types.Char(3), "utf8", types.String()},
		{types.VarChar(10), "utf8", types.String()},
		{types.Binary(4), "binary", types.Bytes()},
		{types.Bytes(), "binary", types.Bytes()},
		{types.Decimal(10, 2), "decimal(10, 2)", types.Decimal(10, 2)},
		{types.Date(), "date32", types.Date()},
		{types.Time(0), "time32[ms]", types.Time(3)},
		{types.Timestamp(0), "timestamp[s]", types.Timestamp(0)},
		{types.Timestamp(2), "timestamp[ms]", types.Timestamp(3)},
		{types.Timestamp(3), "timestamp[ms]", types.Timestamp(3)},
		{types.Timestamp(5), "timestamp[us]", types.Timestamp(6)},
		{types.Timestamp(9), "timestamp[ns]", types.Timestamp(9)},
		{types.TimestampLTZ(6), "timestamp[us, tz=UTC]", types.TimestampLTZ(6)},
	} {
		at, err := ArrowType(c.paimon)
		if err != nil || at.String() != c.arrow {
			t.Errorf("ArrowType(%s) = %v, %v; want %s", c.paimon.SQLString(), at, err, c.arrow)
			continue
		}
		back, err := FromArrowType(at)
		if err != nil || !back.Equal(c.back) {
			t.Errorf("FromArrowType(%s) = %s, %v; want %s", at, back.SQLString(), err, c.back.SQLString())
		}
	}
	if _, err := ArrowType(types.Array(types.Int())); err == nil || err.Error() != "type ARRAY<INT> has no Arrow form in pkft" {
		t.Errorf("ArrowType(ARRAY<INT>): %v", err)
	}
}

// TestArrowField checks a field's nullability follows the type's.
func TestArrowField(t *testing.T) {
	f, err := ArrowField("id", types.BigInt().AsNotNull())
	if err != nil || f.Name != "id" || f.Nullable || f.Type.ID() != arrow.INT64 {
		t.Errorf("NOT NULL field %v, %v", f, err)
	}
	f, err = ArrowField("note", types.String())
	if err != nil || !f.Nullable || f.Type.ID() != arrow.STRING {
		t.Errorf("nullable field %v, %v", f, err)
	}
	if _, err := ArrowField("m", types.Map(types.Int(), types.Int())); err == nil {
		t.Error("a MAP field has an Arrow form")
	}
}

// TestFromArrowType checks the Arrow types only FromArrowType reads (the large, view and fixed
// forms, time32[s], timestamps of each unit and zone) and that other types are refused by name.
func TestFromArrowType(t *testing.T) {
	for _, c := range []struct {
		arrow arrow.DataType
		want  string
	}{
		{arrow.BinaryTypes.LargeString, "STRING"},
		{arrow.BinaryTypes.StringView, "STRING"},
		{arrow.BinaryTypes.LargeBinary, "BYTES"},
		{arrow.BinaryTypes.BinaryView, "BYTES"},
		{&arrow.FixedSizeBinaryType{ByteWidth: 16}, "BINARY(16)"},
		{arrow.FixedWidthTypes.Time32s, "TIME(0)"},
		{arrow.FixedWidthTypes.Timestamp_s, "TIMESTAMP(0) WITH LOCAL TIME ZONE"},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, "TIMESTAMP(6)"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Paris"}, "TIMESTAMP(9) WITH LOCAL TIME ZONE"},
	} {
		got, err := FromArrowType(c.arrow)
		if err != nil || got.SQLString() != c.want {
			t.Errorf("FromArrowType(%s) = %s, %v; want %s", c.arrow, got.SQLString(), err, c.want)
		}
	}
	for _, bad := range []arrow.DataType{arrow.ListOf(arrow.PrimitiveTypes.Int32), arrow.PrimitiveTypes.Uint32, arrow.FixedWidthTypes.Date64} {
		if _, err := FromArrowType(bad); err == nil || !strings.Contains(err.Error(), bad.String()) {
			t.Errorf("FromArrowType(%s): %v, want an error naming it", bad, err)
		}
	}
}
