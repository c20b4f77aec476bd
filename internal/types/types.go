// Package types models Paimon's logical data types (paimon-api org.apache.paimon.types) as plain
// Go values, and reads and writes them in the exact text and JSON forms Paimon stores in schema
// files.
package types

import (
	"fmt"
	"strings"
)

// Root identifies the kind of a DataType; parameters such as length or precision live in the
// DataType itself.
type Root uint8

// The type roots Paimon 2.0.0 knows. The zero Root is invalid so that an unset DataType is
// detectable.
const (
	RootInvalid Root = iota
	RootChar
	RootVarChar
	RootBoolean
	RootBinary
	RootVarBinary
	RootDecimal
	RootTinyInt
	RootSmallInt
	RootInt
	RootBigInt
	RootFloat
	RootDouble
	RootDate
	RootTime
	RootTimestamp
	RootTimestampLTZ
	RootVariant
	RootBlob
	RootArray
	RootVector
	RootMultiset
	RootMap
	RootRow
)

var rootNames = [...]string{
	RootInvalid:      "INVALID",
	RootChar:         "CHAR",
	RootVarChar:      "VARCHAR",
	RootBoolean:      "BOOLEAN",
	RootBinary:       "BINARY",
	RootVarBinary:    "VARBINARY",
	RootDecimal:      "DECIMAL",
	RootTinyInt:      "TINYINT",
	RootSmallInt:     "SMALLINT",
	RootInt:          "INTEGER",
	RootBigInt:       "BIGINT",
	RootFloat:        "FLOAT",
	RootDouble:       "DOUBLE",
	RootDate:         "DATE",
	RootTime:         "TIME_WITHOUT_TIME_ZONE",
	RootTimestamp:    "TIMESTAMP_WITHOUT_TIME_ZONE",
	RootTimestampLTZ: "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
	RootVariant:      "VARIANT",
	RootBlob:         "BLOB",
	RootArray:        "ARRAY",
	RootVector:       "VECTOR",
	RootMultiset:     "MULTISET",
	RootMap:          "MAP",
	RootRow:          "ROW",
}

// String returns the Java DataTypeRoot constant name, for error messages.
func (r Root) String() string {
	if int(r) < len(rootNames) {
		return rootNames[r]
	}
	return fmt.Sprintf("Root(%d)", uint8(r))
}

// Limits and defaults of the parameterised types, as Paimon defines them.
const (
	// MaxLength is the largest CHAR/VARCHAR/BINARY/VARBINARY length; VARCHAR(MaxLength) prints as
	// STRING and VARBINARY(MaxLength) as BYTES.
	MaxLength = 2147483647
	// DefaultLength is the length of CHAR, VARCHAR, BINARY and VARBINARY written without one.
	DefaultLength = 1
	// MaxDecimalPrecision is the largest DECIMAL precision.
	MaxDecimalPrecision = 38
	// MaxCompactDecimalPrecision is the largest DECIMAL precision stored as an unscaled long.
	MaxCompactDecimalPrecision = 18
	// DefaultDecimalPrecision and DefaultDecimalScale apply to a bare DECIMAL.
	DefaultDecimalPrecision = 10
	DefaultDecimalScale     = 0
	// MaxTimePrecision is the largest TIME/TIMESTAMP precision.
	MaxTimePrecision = 9
	// DefaultTimePrecision applies to a bare TIME.
	DefaultTimePrecision = 0
	// DefaultTimestampPrecision applies to a bare TIMESTAMP and TIMESTAMP_LTZ.
	DefaultTimestampPrecision = 6
	// MaxCompactTimestampPrecision is the largest timestamp precision stored as epoch millis only.
	MaxCompactTimestampPrecision = 3
)

// DataType is one Paimon logical type. Which parameter fields are meaningful depends on Root:
// Length for CHAR, VARCHAR, BINARY, VARBINARY and VECTOR; Precision for DECIMAL, TIME, TIMESTAMP
// and TIMESTAMP_LTZ; Scale for DECIMAL; Element for ARRAY, MULTISET and VECTOR; Key and Value for
// MAP; Fields for ROW. Build values with the constructor functions so defaults match Java.
type DataType struct {
	Root Root
	// NotNull is true for types declared NOT NULL; the zero value is nullable, as in Java.
	NotNull   bool
	Length    int
	Precision int
	Scale     int
	Element   *DataType
	Key       *DataType
	Value     *DataType
	Fields    []DataField
}

// DataField is one named field of a ROW type or of a table schema.
type DataField struct {
	ID   int
	Name string
	Type DataType
	// Description is the optional field comment; nil when absent.
	Description *string
	// DefaultValue is the optional default value expression; nil when absent.
	DefaultValue *string
}

func simple(r Root) DataType { return DataType{Root: r} }

// Boolean returns a nullable BOOLEAN.
func Boolean() DataType { return simple(RootBoolean) }

// TinyInt returns a nullable TINYINT.
func TinyInt() DataType { return simple(RootTinyInt) }

// SmallInt returns a nullable SMALLINT.
func SmallInt() DataType { return simple(RootSmallInt) }

// Int returns a nullable INT.
func Int() DataType { return simple(RootInt) }

// BigInt returns a nullable BIGINT.
func BigInt() DataType { return simple(RootBigInt) }

// Float returns a nullable FLOAT.
func Float() DataType { return simple(RootFloat) }

// Double returns a nullable DOUBLE.
func Double() DataType { return simple(RootDouble) }

// Date returns a nullable DATE.
func Date() DataType { return simple(RootDate) }

// Variant returns a nullable VARIANT.
func Variant() DataType { return simple(RootVariant) }

// Blob returns a nullable BLOB.
func Blob() DataType { return simple(RootBlob) }

// Char returns a nullable CHAR(n).
func Char(n int) DataType { return DataType{Root: RootChar, Length: n} }

// VarChar returns a nullable VARCHAR(n).
func VarChar(n int) DataType { return DataType{Root: RootVarChar, Length: n} }

// String returns a nullable STRING, i.e. VARCHAR(MaxLength).
func String() DataType { return VarChar(MaxLength) }

// Binary returns a nullable BINARY(n).
func Binary(n int) DataType { return DataType{Root: RootBinary, Length: n} }

// VarBinary returns a nullable VARBINARY(n).
func VarBinary(n int) DataType { return DataType{Root: RootVarBinary, Length: n} }

// Bytes returns a nullable BYTES, i.e. VARBINARY(MaxLength).
func Bytes() DataType { return VarBinary(MaxLength) }

// Decimal returns a nullable DECIMAL(precision, scale).
func Decimal(precision, scale int) DataType {
	return DataType{Root: RootDecimal, Precision: precision, Scale: scale}
}

// Time returns a nullable TIME(precision).
func Time(precision int) DataType { return DataType{Root: RootTime, Precision: precision} }

// Timestamp returns a nullable TIMESTAMP(precision).
func Timestamp(precision int) DataType {
	return DataType{Root: RootTimestamp, Precision: precision}
}

// TimestampLTZ returns a nullable TIMESTAMP(precision) WITH LOCAL TIME ZONE.
func TimestampLTZ(precision int) DataType {
	return DataType{Root: RootTimestampLTZ, Precision: precision}
}

// Array returns a nullable ARRAY of element.
func Array(element DataType) DataType { return DataType{Root: RootArray, Element: &element} }

// Multiset returns a nullable MULTISET of element.
func Multiset(element DataType) DataType {
	return DataType{Root: RootMultiset, Element: &element}
}

// Vector returns a nullable VECTOR of length elements.
func Vector(length int, element DataType) DataType {
	return DataType{Root: RootVector, Length: length, Element: &element}
}

// Map returns a nullable MAP from key to value.
func Map(key, value DataType) DataType {
	return DataType{Root: RootMap, Key: &key, Value: &value}
}

// Row returns a nullable ROW of the given fields.
func Row(fields ...DataField) DataType {
	return DataType{Root: RootRow, Fields: append([]DataField{}, fields...)}
}

// Field returns a field without description or default value.
func Field(id int, name string, t DataType) DataField {
	return DataField{ID: id, Name: name, Type: t}
}

// Nullable reports whether values of t may be null.
func (t DataType) Nullable() bool { return !t.NotNull }

// WithNullable returns t with the given nullability; nested types are unchanged, as with Java's
// DataType#copy(boolean).
func (t DataType) WithNullable(nullable bool) DataType {
	t.NotNull = !nullable
	return t
}

// AsNotNull returns t declared NOT NULL.
func (t DataType) AsNotNull() DataType { return t.WithNullable(false) }

// FieldCount returns the number of fields of a ROW type (0 for other types).
func (t DataType) FieldCount() int { return len(t.Fields) }

// FieldTypes returns the types of the fields of a ROW type, in order.
func (t DataType) FieldTypes() []DataType {
	out := make([]DataType, len(t.Fields))
	for i, f := range t.Fields {
		out[i] = f.Type
	}
	return out
}

// FieldNames returns the names of the fields of a ROW type, in order.
func (t DataType) FieldNames() []string {
	out := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		out[i] = f.Name
	}
	return out
}

// FieldIndex returns the position of the field called name, or -1.
func (t DataType) FieldIndex(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FieldByName returns the field called name of a ROW type.
func (t DataType) FieldByName(name string) (DataField, bool) {
	if i := t.FieldIndex(name); i >= 0 {
		return t.Fields[i], true
	}
	return DataField{}, false
}

// FieldByID returns the field with the given id of a ROW type.
func (t DataType) FieldByID(id int) (DataField, bool) {
	for _, f := range t.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return DataField{}, false
}

// Project returns a ROW type holding the named fields in the given order, keeping t's
// nullability, as Java's RowType#project(List) does.
func (t DataType) Project(names []string) (DataType, error) {
	out := DataType{Root: RootRow, NotNull: t.NotNull, Fields: make([]DataField, 0, len(names))}
	for _, n := range names {
		f, ok := t.FieldByName(n)
		if !ok {
			return DataType{}, fmt.Errorf("project row type: no field %q", n)
		}
		out.Fields = append(out.Fields, f)
	}
	return out, nil
}

// IsCompactDecimal reports whether a DECIMAL of this precision is stored as an unscaled long.
func IsCompactDecimal(precision int) bool { return precision <= MaxCompactDecimalPrecision }

// IsCompactTimestamp reports whether a timestamp of this precision is stored as epoch millis only.
func IsCompactTimestamp(precision int) bool { return precision <= MaxCompactTimestampPrecision }

// Equal reports whether t and o are the same type, including nullability, field ids, names,
// descriptions and default values (Java DataType#equals).
func (t DataType) Equal(o DataType) bool {
	if t.Root != o.Root || t.NotNull != o.NotNull || t.Length != o.Length ||
		t.Precision != o.Precision || t.Scale != o.Scale {
		return false
	}
	if !equalPtr(t.Element, o.Element) || !equalPtr(t.Key, o.Key) || !equalPtr(t.Value, o.Value) {
		return false
	}
	if len(t.Fields) != len(o.Fields) {
		return false
	}
	for i := range t.Fields {
		if !t.Fields[i].Equal(o.Fields[i]) {
			return false
		}
	}
	return true
}

func equalPtr(a, b *DataType) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// Equal reports whether two fields are identical (Java DataField#equals).
func (f DataField) Equal(o DataField) bool {
	return f.ID == o.ID && f.Name == o.Name && f.Type.Equal(o.Type) &&
		equalStr(f.Description, o.Description) && equalStr(f.DefaultValue, o.DefaultValue)
}

func equalStr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Validate checks the parameter ranges and structural rules Java enforces in the type
// constructors (lengths >= 1, precision and scale ranges, vector element types, unique
// non-blank row field names), recursively.
func (t DataType) Validate() error {
	switch t.Root {
	case RootBoolean, RootTinyInt, RootSmallInt, RootInt, RootBigInt, RootFloat, RootDouble,
		RootDate, RootVariant, RootBlob:
		return nil
	case RootChar, RootVarChar, RootBinary, RootVarBinary:
		if t.Length < 1 {
			return fmt.Errorf("%s length must be between 1 and %d, got %d", t.Root, MaxLength, t.Length)
		}
		return nil
	case RootDecimal:
		if t.Precision < 1 || t.Precision > MaxDecimalPrecision {
			return fmt.Errorf("decimal precision must be between 1 and %d, got %d", MaxDecimalPrecision, t.Precision)
		}
		if t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("decimal scale must be between 0 and the precision %d, got %d", t.Precision, t.Scale)
		}
		return nil
	case RootTime, RootTimestamp, RootTimestampLTZ:
		if t.Precision < 0 || t.Precision > MaxTimePrecision {
			return fmt.Errorf("%s precision must be between 0 and %d, got %d", t.Root, MaxTimePrecision, t.Precision)
		}
		return nil
	case RootArray, RootMultiset:
		if t.Element == nil {
			return fmt.Errorf("%s without element type", t.Root)
		}
		return t.Element.Validate()
	case RootVector:
		if t.Element == nil {
			return fmt.Errorf("VECTOR without element type")
		}
		switch t.Element.Root {
		case RootBoolean, RootTinyInt, RootSmallInt, RootInt, RootBigInt, RootFloat, RootDouble:
		default:
			return fmt.Errorf("invalid element type for vector: %s", t.Element.SQLString())
		}
		if t.Length < 1 {
			return fmt.Errorf("vector length must be between 1 and %d, got %d", MaxLength, t.Length)
		}
		return nil
	case RootMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("MAP without key or value type")
		}
		if err := t.Key.Validate(); err != nil {
			return err
		}
		return t.Value.Validate()
	case RootRow:
		seen := make(map[string]bool, len(t.Fields))
		for _, f := range t.Fields {
			if strings.TrimSpace(f.Name) == "" {
				return fmt.Errorf("field names must contain at least one non-whitespace character")
			}
			if seen[f.Name] {
				return fmt.Errorf("field names must be unique, found duplicate %q", f.Name)
			}
			seen[f.Name] = true
			if err := f.Type.Validate(); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
		return nil
	default:
		return fmt.Errorf("unknown type root %s", t.Root)
	}
}

// SQLString returns the type as Java's asSQLString prints it, e.g. "INT NOT NULL", "STRING",
// "DECIMAL(10, 2)", "TIMESTAMP(6) WITH LOCAL TIME ZONE". Atomic types are stored in schema JSON in
// exactly this form.
func (t DataType) SQLString() string {
	var s string
	switch t.Root {
	case RootChar:
		s = fmt.Sprintf("CHAR(%d)", t.Length)
	case RootVarChar:
		if t.Length == MaxLength {
			s = "STRING"
		} else {
			s = fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
	case RootBoolean:
		s = "BOOLEAN"
	case RootBinary:
		s = fmt.Sprintf("BINARY(%d)", t.Length)
	case RootVarBinary:
		if t.Length == MaxLength {
			s = "BYTES"
		} else {
			s = fmt.Sprintf("VARBINARY(%d)", t.Length)
		}
	case RootDecimal:
		s = fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case RootTinyInt:
		s = "TINYINT"
	case RootSmallInt:
		s = "SMALLINT"
	case RootInt:
		s = "INT"
	case RootBigInt:
		s = "BIGINT"
	case RootFloat:
		s = "FLOAT"
	case RootDouble:
		s = "DOUBLE"
	case RootDate:
		s = "DATE"
	case RootTime:
		s = fmt.Sprintf("TIME(%d)", t.Precision)
	case RootTimestamp:
		s = fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	case RootTimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case RootVariant:
		s = "VARIANT"
	case RootBlob:
		s = "BLOB"
	case RootArray:
		s = "ARRAY<" + sqlOf(t.Element) + ">"
	case RootMultiset:
		s = "MULTISET<" + sqlOf(t.Element) + ">"
	case RootVector:
		s = fmt.Sprintf("VECTOR<%s, %d>", sqlOf(t.Element), t.Length)
	case RootMap:
		s = "MAP<" + sqlOf(t.Key) + ", " + sqlOf(t.Value) + ">"
	case RootRow:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.SQLString()
		}
		s = "ROW<" + strings.Join(parts, ", ") + ">"
	default:
		s = t.Root.String()
	}
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}

func sqlOf(t *DataType) string {
	if t == nil {
		return "NULL"
	}
	return t.SQLString()
}

// SQLString returns the field as Java's DataField#asSQLString prints it.
func (f DataField) SQLString() string {
	var b strings.Builder
	b.WriteString("`" + strings.ReplaceAll(f.Name, "`", "``") + "` ")
	b.WriteString(f.Type.SQLString())
	if f.Description != nil && *f.Description != "" {
		b.WriteString(" COMMENT '" + strings.ReplaceAll(*f.Description, "'", "''") + "'")
	}
	if f.DefaultValue != nil {
		b.WriteString(" DEFAULT " + *f.DefaultValue)
	}
	return b.String()
}

// String returns SQLString, so types print readably.
func (t DataType) String() string { return t.SQLString() }
