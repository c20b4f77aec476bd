package pkft

import (
	"maps"

	"github.com/paimon-pkft/pkft/internal/convert"
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

// paimon is the Paimon type t stands for: built from its kind and parameters, or for
// [KindOther] read from its SQL text (the zero type when there is none).
func (t DataType) paimon() types.DataType {
	if t.Kind == KindOther {
		pt, _ := types.ParseSQLString(t.sql)
		return pt
	}
	for root, kind := range kindOfRoot {
		if kind == t.Kind {
			return types.DataType{Root: root, NotNull: t.NotNull, Length: t.Length, Precision: t.Precision, Scale: t.Scale}
		}
	}
	return types.DataType{}
}

// ParseValue converts a value read from JSON (json.Number, string, bool or nil, as a decoder with
// UseNumber gives them) or from text (a string, such as a CSV cell) into the Go form
// [Writer.Write] takes for a column of type t, as pkft write reads its input: integers as
// Paimon's JSON and CSV readers take them (digits with an optional sign; 1.0 and 1e3 are
// refused), FLOAT and DOUBLE any float syntax, BOOLEAN true/false or a JSON bool, CHAR and
// VARCHAR a string (not a JSON number), DECIMAL a number or a string, DATE yyyy-mm-dd or a day
// number, TIME hh:mm:ss[.fff] or milliseconds of the day, TIMESTAMP and TIMESTAMP_LTZ
// "yyyy-mm-dd hh:mm:ss[.fffffffff]" (or with a T; cut to the column's precision, as Paimon's
// cast does) or a JSON number of epoch milliseconds, BINARY and VARBINARY base64. nil is nil
// (NULL), also for a NOT NULL type: [Writer.Write] refuses it. A value that does not parse as t
// is an error naming it.
func ParseValue(t DataType, v any) (any, error) { return convert.ParseValue(t.paimon(), v) }

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
	// Options are the table options the schema sets (never nil); Comment is the table comment.
	Options map[string]string
	Comment string
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
		PartitionKeys: orEmpty(s.PartitionKeys), Options: maps.Clone(s.Options)}
	if out.Options == nil {
		out.Options = map[string]string{}
	}
	if s.Comment != nil {
		out.Comment = *s.Comment
	}
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
