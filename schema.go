package pkft

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TypeKind is the kind of a column's type (Paimon's type root).
type TypeKind int

// The type kinds. [KindOther] stands for the types pkft does not write (TIME with a time
// zone, VARIANT, BLOB, ARRAY, VECTOR, MULTISET, MAP, ROW).
const (
	KindOther TypeKind = iota
	KindBoolean
	KindTinyInt
	KindSmallInt
	KindInt
	KindBigInt
	KindFloat
	KindDouble
	KindDecimal
	KindChar
	KindVarChar
	KindBinary
	KindVarBinary
	KindDate
	KindTime
	KindTimestamp
	KindTimestampLTZ
)

var kindOfRoot = map[types.Root]TypeKind{
	types.RootBoolean: KindBoolean, types.RootTinyInt: KindTinyInt, types.RootSmallInt: KindSmallInt,
	types.RootInt: KindInt, types.RootBigInt: KindBigInt, types.RootFloat: KindFloat, types.RootDouble: KindDouble,
	types.RootDecimal: KindDecimal, types.RootChar: KindChar, types.RootVarChar: KindVarChar,
	types.RootBinary: KindBinary, types.RootVarBinary: KindVarBinary, types.RootDate: KindDate,
	types.RootTime: KindTime, types.RootTimestamp: KindTimestamp, types.RootTimestampLTZ: KindTimestampLTZ,
}

// DataType is a column's type.
type DataType struct {
	Kind TypeKind
	// Precision is the number of digits of a DECIMAL, and the fractional-second digits of a
	// TIME, TIMESTAMP or TIMESTAMP_LTZ; Scale the fraction digits of a DECIMAL.
	Precision, Scale int
	// Length is the length of a CHAR, VARCHAR, BINARY or VARBINARY.
	Length int
	// NotNull is set for types declared NOT NULL.
	NotNull bool
	sql     string
}

// String is Paimon's SQL text of the type, for example "DECIMAL(10, 2) NOT NULL".
func (t DataType) String() string { return t.sql }

// Column is one column of a table.
type Column struct {
	Name string
	Type DataType
}

// Schema is the part of a table's schema that rows are written with.
type Schema struct {
	// Columns are the table's columns, in the order rows list their values.
	Columns []Column
	// PrimaryKeys and PartitionKeys name the primary key and partition columns.
	PrimaryKeys, PartitionKeys []string
}

// Column returns the column called name.
func (s *Schema) Column(name string) (Column, bool) {
	for _, c := range s.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

func schemaOf(s *schema.TableSchema) *Schema {
	out := &Schema{Columns: make([]Column, len(s.Fields)), PrimaryKeys: orEmpty(s.PrimaryKeys),
		PartitionKeys: orEmpty(s.PartitionKeys)}
	for i, f := range s.Fields {
		out.Columns[i] = Column{Name: f.Name, Type: DataType{Kind: kindOfRoot[f.Type.Root], Precision: f.Type.Precision,
			Scale: f.Type.Scale, Length: f.Type.Length, NotNull: f.Type.NotNull, sql: f.Type.SQLString()}}
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RowKind is the change a written row makes: [Insert], [UpdateAfter], [UpdateBefore] or
// [Delete] (Paimon's +I, +U, -U, -D).
type RowKind int8

// The row kinds, numbered as Paimon stores them.
const (
	Insert RowKind = iota
	UpdateBefore
	UpdateAfter
	Delete
)

// String is the kind's short form: +I, -U, +U or -D.
func (k RowKind) String() string { return types.RowKind(k).ShortString() }

// ParseRowKind reads a kind's short form (+I, -U, +U or -D), as Java's RowKind#fromShortString.
func ParseRowKind(s string) (RowKind, error) {
	k, err := types.ParseRowKind(s)
	return RowKind(k), err
}

// writeValue turns a value in the forms [Writer.Write] documents into internal/binrow's form for
// type t.
func writeValue(t types.DataType, v any) (any, error) {
	switch t.Root {
	case types.RootDecimal:
		s, ok := v.(string)
		if !ok {
			break
		}
		d, err := binrow.ParseDecimal(strings.TrimSpace(s), t.Scale)
		if err != nil {
			return nil, err
		}
		if len(new(big.Int).Abs(d.Unscaled).String()) > t.Precision {
			return nil, fmt.Errorf("%s has more than %d digits", s, t.Precision)
		}
		return d, nil
	case types.RootDate:
		if x, ok := v.(time.Time); ok {
			y, m, d := x.Date()
			return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400), nil
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		if x, ok := v.(time.Time); ok {
			nanos := x.Nanosecond()
			if p := min(t.Precision, 9); p < 9 {
				unit := 1
				for range 9 - p {
					unit *= 10
				}
				if nanos%unit != 0 {
					return nil, fmt.Errorf("%s has more fractional-second digits than TIMESTAMP(%d)", x.Format(time.RFC3339Nano), t.Precision)
				}
			}
			return binrow.Timestamp{Millis: x.UnixMilli(), NanoOfMilli: int32(nanos % 1e6)}, nil
		}
	}
	return v, nil
}
