package schema

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/types"
)

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testdata/spec-example.json is the example of docs/concepts/spec/schema.md (release-2.0.0);
// testdata/pk-fulltext.json is constructed following SchemaSerializer#serialize and
// DataField/DataType#serializeJson with every member kind (description, defaultValue, nested
// ARRAY/MAP/ROW, empty arrays, escapes). Both must re-serialize byte for byte.
func TestRoundTripFiles(t *testing.T) {
	for _, name := range []string{"spec-example.json", "pk-fulltext.json"} {
		t.Run(name, func(t *testing.T) {
			in := readFile(t, name)
			s, err := Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			if out := s.Marshal(); string(out) != string(in) {
				t.Errorf("round trip differs:\n--- got\n%s\n--- want\n%s", out, in)
			}
		})
	}
}

func TestParsedContent(t *testing.T) {
	s, err := Parse(readFile(t, "pk-fulltext.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 3 || s.ID != 2 || s.HighestFieldID != 10 || s.TimeMillis != 1751234567890 || s.Comment != nil {
		t.Errorf("header = %+v", s)
	}
	if f, ok := s.FieldByID(4); !ok || f.Name != "price" || !f.Type.Equal(types.Decimal(10, 2)) ||
		f.DefaultValue == nil || *f.DefaultValue != "0" {
		t.Errorf("FieldByID(4) = %+v, %v", f, ok)
	}
	if f, ok := s.FieldByName("id"); !ok || f.Description == nil || *f.Description != "row \"key\"\tü" {
		t.Errorf("FieldByName(id) = %+v, %v", f, ok)
	}
	if _, ok := s.FieldByID(3); ok {
		t.Error("dropped field id 3 found")
	}
	if _, ok := s.FieldByName("nope"); ok {
		t.Error("unknown field found")
	}
	meta, _ := s.FieldByName("meta")
	if want := types.Row(types.Field(9, "created", types.Timestamp(3)),
		types.Field(10, "empty", types.Row().AsNotNull())); !meta.Type.Equal(want) {
		t.Errorf("meta type = %s", meta.Type)
	}
	if got := s.Options["fields.body.pk-full-text.index.options"]; got != `{"tokenizer":"jieba"}` {
		t.Errorf("option = %q", got)
	}
	pk, err := s.TrimmedPrimaryKeys()
	if err != nil || !slices.Equal(pk, []string{"id"}) {
		t.Errorf("TrimmedPrimaryKeys = %v, %v", pk, err)
	}
	bk, err := s.BucketKeys()
	if err != nil || !slices.Equal(bk, []string{"id"}) {
		t.Errorf("BucketKeys = %v, %v", bk, err)
	}
	if rt := s.RowType(); rt.Root != types.RootRow || rt.FieldCount() != 8 || !rt.Nullable() {
		t.Errorf("RowType = %s", rt)
	}
	if got := s.PartitionType().SQLString(); got != "ROW<`dt` STRING NOT NULL>" {
		t.Errorf("PartitionType = %s", got)
	}
	if got := s.PrimaryKeyType().SQLString(); got != "ROW<`dt` STRING NOT NULL, `id` BIGINT NOT NULL COMMENT 'row \"key\"\tü'>" {
		t.Errorf("PrimaryKeyType = %s", got)
	}
	tpk, err := s.TrimmedPrimaryKeyType()
	if err != nil || tpk.FieldCount() != 1 || tpk.Fields[0].ID != 1 {
		t.Errorf("TrimmedPrimaryKeyType = %s, %v", tpk, err)
	}
	bkt, err := s.BucketKeyType()
	if err != nil || bkt.FieldCount() != 1 || bkt.Fields[0].Name != "id" {
		t.Errorf("BucketKeyType = %s, %v", bkt, err)
	}
	if got := s.ProjectedRowType([]string{"body", "missing", "dt"}).FieldNames(); !slices.Equal(got, []string{"body", "dt"}) {
		t.Errorf("ProjectedRowType = %v", got)
	}
	if FileName(12) != "schema-12" {
		t.Error("FileName")
	}
}

// SchemaSerializer#deserialize: unknown members are ignored, version defaults to 1,
// timeMillis to 0, and old versions get bucket=1 (v1) and file.format=orc (v1, v2).
func TestParseCompatibility(t *testing.T) {
	in := `{"id":1,"fields":[{"id":0,"name":"a","type":"INT"}],"highestFieldId":0,
		"partitionKeys":[],"primaryKeys":[],"options":{"x":1,"y":true},"extra":{"z":[1]}}`
	s, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || s.TimeMillis != 0 || s.Options["bucket"] != "1" || s.Options["file.format"] != "orc" ||
		s.Options["x"] != "1" || s.Options["y"] != "true" {
		t.Errorf("parsed %+v", s)
	}
	s2, err := Parse([]byte(strings.Replace(in, `"id":1,`, `"version":2,"id":1,`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s2.Options["bucket"]; ok || s2.Options["file.format"] != "orc" {
		t.Errorf("v2 options %v", s2.Options)
	}
	// Re-serializing puts the defaults Java added after the file's own options.
	out := string(s2.Marshal())
	if !strings.Contains(out, "\"options\" : {\n    \"x\" : \"1\",\n    \"y\" : \"true\",\n    \"file.format\" : \"orc\"\n  },") {
		t.Errorf("marshal:\n%s", out)
	}
}

func TestParseErrors(t *testing.T) {
	base := `{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":"INT"},{"id":1,"name":"p","type":"INT"}],` +
		`"highestFieldId":1,"partitionKeys":["p"],"primaryKeys":["k","p"],"options":{},"timeMillis":5}`
	if _, err := Parse([]byte(base)); err != nil {
		t.Fatalf("base: %v", err)
	}
	cases := []struct{ from, to, msg string }{
		{`"id":0,"fields"`, `"fields"`, "missing id"},
		{`"highestFieldId":1,`, ``, "missing highestFieldId"},
		{`"options":{}`, `"options":[]`, "not a JSON object"},
		{`,"options":{}`, ``, "missing options"},
		{`"primaryKeys":["k","p"]`, `"primaryKeys":["p"]`, "should not be same"},
		{`"options":{}`, `"options":{"bucket-key":"x"}`, "should contains all bucket keys"},
		{`"options":{}`, `"options":{"bucket-key":"p"}`, "should not in partition keys"},
		{`"options":{}`, `"options":{"bucket":"two"}`, "not an integer"},
		{`"type":"INT"}`, `"type":"FOO"}`, "field 0"},
		{`{"id":0,"name":"k"`, `{"name":"k"`, "field without id"},
		{`"timeMillis":5`, `"timeMillis":"x"`, "timeMillis"},
		{`"version":3`, `"version":3000000000`, "32-bit"},
	}
	for _, c := range cases {
		in := strings.Replace(base, c.from, c.to, 1)
		if in == base {
			t.Fatalf("case %q does not apply", c.from)
		}
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s -> %s: err = %v, want containing %q", c.from, c.to, err, c.msg)
		}
	}
	for _, bad := range []string{``, `null`, `[]`, `{`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// A schema built in Go (no OptionOrder) writes options in Java HashMap order and the layout of
// SchemaSerializer#serialize, including the optional comment.
func TestMarshalNewSchema(t *testing.T) {
	comment := "orders"
	s := &TableSchema{
		Version: CurrentVersion, ID: 0,
		Fields:         []types.DataField{types.Field(0, "k", types.Int().AsNotNull()), types.Field(1, "v", types.String())},
		HighestFieldID: 1, PartitionKeys: []string{}, PrimaryKeys: []string{"k"},
		Options: map[string]string{"c": "3", "a": "1", "b": "2"}, Comment: &comment, TimeMillis: 42,
	}
	want := `{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "k",
    "type" : "INT NOT NULL"
  }, {
    "id" : 1,
    "name" : "v",
    "type" : "STRING"
  } ],
  "highestFieldId" : 1,
  "partitionKeys" : [ ],
  "primaryKeys" : [ "k" ],
  "options" : {
    "a" : "1",
    "b" : "2",
    "c" : "3"
  },
  "comment" : "orders",
  "timeMillis" : 42
}`
	if got := string(s.Marshal()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	back, err := Parse(s.Marshal())
	if err != nil || back.Comment == nil || *back.Comment != "orders" {
		t.Fatalf("parse back: %v", err)
	}
	j, _ := s.MarshalJSON()
	if string(j) != want {
		t.Error("MarshalJSON differs from Marshal")
	}
	empty := &TableSchema{Version: 3, Options: map[string]string{}}
	if !strings.Contains(string(empty.Marshal()), `"fields" : [ ],`) || !strings.Contains(string(empty.Marshal()), `"options" : { },`) {
		t.Errorf("empty containers:\n%s", empty.Marshal())
	}
}

// java.util.HashMap iteration order, worked by hand from String#hashCode:
//   - "a","b","c" hash to 97, 98, 99; a copy of 3 entries has tableSizeFor(5) = 8 buckets, so
//     they iterate a, b, c whatever the insertion order.
func TestJavaHashMapOrder(t *testing.T) {
	if got := JavaHashMapOrder([]string{"c", "a", "b"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("got %v", got)
	}
	// "h" (104), "p" (112) and "x" (120) share bucket 0 of an 8-bucket copy; in the 16-bucket
	// source map "p" is in bucket 0 and "h", "x" in bucket 8, so "p" comes first and "h", "x"
	// keep their insertion order.
	for _, in := range [][]string{{"h", "p", "x"}, {"p", "h", "x"}} {
		if got := JavaHashMapOrder(in); !slices.Equal(got, []string{"p", "h", "x"}) {
			t.Errorf("JavaHashMapOrder(%v) = %v", in, got)
		}
	}
	// "Aa" and "BB" have the same String#hashCode (2112): insertion order decides.
	if got := JavaHashMapOrder([]string{"BB", "Aa"}); !slices.Equal(got, []string{"BB", "Aa"}) {
		t.Errorf("collision order %v", got)
	}
	if javaStringHash("bucket") != -1378203158 {
		t.Errorf("hash(bucket) = %d", javaStringHash("bucket"))
	}
	if javaStringHash("\U0001F600") != 1772899 {
		t.Errorf("hash of a surrogate pair = %d", javaStringHash("\U0001F600"))
	}
	for c, want := range map[int]int{0: 1, 1: 1, 2: 2, 5: 8, 16: 16, 17: 32} {
		if got := tableSizeFor(c); got != want {
			t.Errorf("tableSizeFor(%d) = %d, want %d", c, got, want)
		}
	}
	if got := JavaHashMapOrder(nil); len(got) != 0 {
		t.Errorf("empty: %v", got)
	}
}

// TestBucket reads the bucket option: unset is dynamic bucket mode (-1), a value is trimmed, and
// one that is no integer is an error naming the option.
func TestBucket(t *testing.T) {
	for opts, want := range map[string]int{"": -1, "4": 4, " -2 ": -2} {
		s := &TableSchema{Options: map[string]string{}}
		if opts != "" {
			s.Options[OptionBucket] = opts
		}
		if got, err := s.Bucket(); err != nil || got != want {
			t.Errorf("bucket %q: %d, %v; want %d", opts, got, err, want)
		}
	}
	s := &TableSchema{Options: map[string]string{OptionBucket: "two"}}
	if _, err := s.Bucket(); err == nil || !strings.Contains(err.Error(), "option bucket") {
		t.Errorf("bucket two: %v", err)
	}
}
