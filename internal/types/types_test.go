package types

import (
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

func strp(s string) *string { return &s }

// Cases from DataTypeJsonParserTest#testData (release-2.0.0): the type each string parses to.
func TestParseSQLString(t *testing.T) {
	cases := []struct {
		in   string
		want DataType
	}{
		{"CHAR", Char(1)},
		{"CHAR NOT NULL", Char(1).AsNotNull()},
		{"char not null", Char(1).AsNotNull()},
		{"CHAR NULL", Char(1)},
		{"CHAR(33)", Char(33)},
		{"VARCHAR", VarChar(1)},
		{"VARCHAR(33)", VarChar(33)},
		{"STRING", String()},
		{"BOOLEAN", Boolean()},
		{"BINARY", Binary(1)},
		{"BINARY(33)", Binary(33)},
		{"VARBINARY", VarBinary(1)},
		{"VARBINARY(33)", VarBinary(33)},
		{"BYTES", Bytes()},
		{"DECIMAL", Decimal(10, 0)},
		{"DEC", Decimal(10, 0)},
		{"NUMERIC", Decimal(10, 0)},
		{"DECIMAL(10)", Decimal(10, 0)},
		{"NUMERIC(10, 3)", Decimal(10, 3)},
		{"DECIMAL(10, 3)", Decimal(10, 3)},
		{"TINYINT", TinyInt()},
		{"SMALLINT", SmallInt()},
		{"INTEGER", Int()},
		{"INT", Int()},
		{"BIGINT", BigInt()},
		{"FLOAT", Float()},
		{"DOUBLE", Double()},
		{"DOUBLE PRECISION", Double()},
		{"DATE", Date()},
		{"TIME", Time(0)},
		{"TIME(3)", Time(3)},
		{"TIME WITHOUT TIME ZONE", Time(0)},
		{"TIME(3) WITHOUT TIME ZONE", Time(3)},
		{"TIMESTAMP", Timestamp(6)},
		{"TIMESTAMP(3)", Timestamp(3)},
		{"TIMESTAMP WITHOUT TIME ZONE", Timestamp(6)},
		{"TIMESTAMP(3) WITHOUT TIME ZONE", Timestamp(3)},
		{"TIMESTAMP WITH LOCAL TIME ZONE", TimestampLTZ(6)},
		{"TIMESTAMP_LTZ", TimestampLTZ(6)},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", TimestampLTZ(3)},
		{"TIMESTAMP_LTZ(3)", TimestampLTZ(3)},
		{"VARIANT", Variant()},
		{"BLOB", Blob()},
		{"VECTOR<FLOAT, 3>", Vector(3, Float())},
		{"VECTOR<INT, 5> NOT NULL", Vector(5, Int()).AsNotNull()},
		// suffix notation handled by parseTypeWithNullability
		{"INT NOT NULL ARRAY", Array(Int().AsNotNull())},
		{"STRING MULTISET NOT NULL", Multiset(String()).AsNotNull()},
	}
	for _, c := range cases {
		got, err := ParseSQLString(c.in)
		if err != nil {
			t.Errorf("ParseSQLString(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("ParseSQLString(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseSQLStringErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"VARCHAR(test)", "<LITERAL_INT> expected"},
		{"VARCHAR(33333333333)", "invalid integer value"},
		{"INT INT", "unexpected token"},
		{"ROW<a INT>", "unsupported type"},
		{"foo", "<KEYWORD> expected"},
		{"", "unexpected end"},
		{"CHAR(0)", "length"},
		{"DECIMAL(39, 0)", "precision"},
		{"DECIMAL(5, 6)", "scale"},
		{"TIMESTAMP(10)", "precision"},
		{"VECTOR<STRING, 3>", "invalid element type"},
		{"TIMESTAMP WITH TIME ZONE", "unexpected token"},
	}
	for _, c := range cases {
		_, err := ParseSQLString(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseSQLString(%q) error = %v, want containing %q", c.in, err, c.msg)
		}
	}
}

// SQL strings from DataTypesTest (release-2.0.0) plus nullability suffixes.
func TestSQLString(t *testing.T) {
	cases := []struct {
		t    DataType
		want string
	}{
		{VarBinary(22), "VARBINARY(22)"},
		{Bytes(), "BYTES"},
		{Decimal(10, 2), "DECIMAL(10, 2)"},
		{Int().AsNotNull(), "INT NOT NULL"},
		{String(), "STRING"},
		{String().AsNotNull(), "STRING NOT NULL"},
		{Time(9), "TIME(9)"},
		{Timestamp(9), "TIMESTAMP(9)"},
		{TimestampLTZ(9), "TIMESTAMP(9) WITH LOCAL TIME ZONE"},
		{TimestampLTZ(6).AsNotNull(), "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL"},
		{Array(Timestamp(6)), "ARRAY<TIMESTAMP(6)>"},
		{Array(Array(Timestamp(6))), "ARRAY<ARRAY<TIMESTAMP(6)>>"},
		{Multiset(Timestamp(6)), "MULTISET<TIMESTAMP(6)>"},
		{Map(VarChar(20), Timestamp(6)), "MAP<VARCHAR(20), TIMESTAMP(6)>"},
		{Vector(3, Float()), "VECTOR<FLOAT, 3>"},
		{Row(DataField{ID: 0, Name: "a", Type: VarChar(1), Description: strp("Someone's desc.")},
			Field(1, "b`", Timestamp(6))),
			"ROW<`a` VARCHAR(1) COMMENT 'Someone''s desc.', `b``` TIMESTAMP(6)>"},
	}
	for _, c := range cases {
		if got := c.t.SQLString(); got != c.want {
			t.Errorf("SQLString = %q, want %q", got, c.want)
		}
	}
}

// JSON strings from DataTypeJsonParserTest, in the compact form toFlatJson writes, so parsing and
// re-serializing must reproduce them byte for byte.
func TestTypeJSONRoundTrip(t *testing.T) {
	cases := []struct {
		json string
		want DataType
	}{
		{`"INT NOT NULL"`, Int().AsNotNull()},
		{`"STRING"`, String()},
		{`"DECIMAL(10, 2)"`, Decimal(10, 2)},
		{`"TIMESTAMP(3)"`, Timestamp(3)},
		{`"TIMESTAMP(6) WITH LOCAL TIME ZONE"`, TimestampLTZ(6)},
		{`"BYTES NOT NULL"`, Bytes().AsNotNull()},
		{`{"type":"VECTOR","element":"BOOLEAN NOT NULL","length":7}`, Vector(7, Boolean().AsNotNull())},
		{`{"type":"VECTOR NOT NULL","element":"TINYINT NOT NULL","length":11}`, Vector(11, TinyInt().AsNotNull()).AsNotNull()},
		{`{"type":"ARRAY","element":"TIMESTAMP(3) WITH LOCAL TIME ZONE"}`, Array(TimestampLTZ(3))},
		{`{"type":"ARRAY NOT NULL","element":"INT"}`, Array(Int()).AsNotNull()},
		{`{"type":"MULTISET","element":"INT NOT NULL"}`, Multiset(Int().AsNotNull())},
		{`{"type":"MAP","key":"BIGINT","value":"BOOLEAN"}`, Map(BigInt(), Boolean())},
		{`{"type":"ROW","fields":[{"id":0,"name":"f0","type":"INT NOT NULL"},{"id":1,"name":"f1","type":"BOOLEAN"}]}`,
			Row(Field(0, "f0", Int().AsNotNull()), Field(1, "f1", Boolean()))},
		{`{"type":"ROW","fields":[]}`, Row()},
		{`{"type":"ROW","fields":[{"id":0,"name":"f0","type":"INT NOT NULL","description":"my_comment","defaultValue":"55"}]}`,
			Row(DataField{ID: 0, Name: "f0", Type: Int().AsNotNull(), Description: strp("my_comment"), DefaultValue: strp("55")})},
		{`{"type":"ROW NOT NULL","fields":[{"id":3,"name":"n","type":{"type":"ROW","fields":[{"id":4,"name":"x","type":{"type":"MAP","key":"STRING NOT NULL","value":{"type":"ARRAY","element":"DECIMAL(38, 18)"}}}]}}]}`,
			Row(Field(3, "n", Row(Field(4, "x", Map(String().AsNotNull(), Array(Decimal(38, 18))))))).AsNotNull()},
	}
	for _, c := range cases {
		got, err := ParseTypeJSON([]byte(c.json))
		if err != nil {
			t.Errorf("ParseTypeJSON(%s): %v", c.json, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("ParseTypeJSON(%s) = %s, want %s", c.json, got, c.want)
		}
		out, _ := got.MarshalJSON()
		if string(out) != c.json {
			t.Errorf("round trip:\n got %s\nwant %s", out, c.json)
		}
	}
}

// DataTypeJsonParserTest#testParingRowTypeWithoutFieldId: missing ids are numbered in document
// order (a field's id before its nested fields), and partial ids are rejected.
func TestParseTypeJSONWithoutIDs(t *testing.T) {
	got, err := ParseTypeJSON([]byte(`{"type":"ROW","fields":[{"name":"field1","type":"INT"},{"name":"field2","type":{"type":"ROW","fields":[{"name":"s1","type":"INT"},{"name":"s2","type":"STRING"}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Row(Field(0, "field1", Int()), Field(1, "field2", Row(Field(2, "s1", Int()), Field(3, "s2", String()))))
	if !got.Equal(want) {
		t.Errorf("got %s, want %s", got, want)
	}
	_, err = ParseTypeJSON([]byte(`{"type":"ROW","fields":[{"name":"field1","type":"INT"},{"id":1, "name":"field2","type":"STRING"}]}`))
	if err == nil || !strings.Contains(err.Error(), "partial field id") {
		t.Errorf("partial ids: err = %v", err)
	}
	if _, err := ParseFieldJSON([]byte(`{"name":"a","type":"INT"}`)); err == nil {
		t.Error("field without id accepted by ParseFieldJSON")
	}
}

func TestParseTypeJSONErrors(t *testing.T) {
	for _, in := range []string{
		`42`, `{"type":"ARRAY"}`, `{"type":"FOO"}`, `{"type":"ROW","fields":[{"id":0,"name":" ","type":"INT"}]}`,
		`{"type":"ROW","fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"a","type":"INT"}]}`,
		`{"type":"VECTOR","element":"STRING","length":2}`, `"INT" "INT"`, `{`,
	} {
		if _, err := ParseTypeJSON([]byte(in)); err == nil {
			t.Errorf("ParseTypeJSON(%s) accepted", in)
		}
	}
}

// Jackson's DefaultPrettyPrinter layout, as seen in Paimon schema files.
func TestJSONWriterPretty(t *testing.T) {
	w := &javacompat.JSONWriter{Pretty: true}
	w.StartObject()
	w.IntField("a", 1)
	w.FieldName("arr")
	w.StartArray()
	w.String("x")
	w.String("y\n\"\x01é")
	w.EndArray()
	w.FieldName("empty")
	w.StartArray()
	w.EndArray()
	w.FieldName("objs")
	w.StartArray()
	w.StartObject()
	w.IntField("id", 0)
	w.EndObject()
	w.StartObject()
	w.EndObject()
	w.EndArray()
	w.FieldName("o")
	w.StartObject()
	w.EndObject()
	w.EndObject()
	want := "{\n  \"a\" : 1,\n  \"arr\" : [ \"x\", \"y\\n\\\"\\u0001é\" ],\n  \"empty\" : [ ],\n" +
		"  \"objs\" : [ {\n    \"id\" : 0\n  }, { } ],\n  \"o\" : { }\n}"
	if got := string(w.Bytes()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Short strings parse as Java's RowKind#fromShortString: case-insensitive, four kinds, and a
// round trip through ShortString.
func TestParseRowKind(t *testing.T) {
	for _, k := range []RowKind{Insert, UpdateBefore, UpdateAfter, Delete} {
		for _, s := range []string{k.ShortString(), strings.ToLower(k.ShortString())} {
			got, err := ParseRowKind(s)
			if err != nil || got != k {
				t.Errorf("ParseRowKind(%q) = %v, %v; want %v", s, got, err, k)
			}
		}
	}
	for _, s := range []string{"", "I", "+X", "+I "} {
		if _, err := ParseRowKind(s); err == nil {
			t.Errorf("ParseRowKind(%q) accepted", s)
		}
	}
}
