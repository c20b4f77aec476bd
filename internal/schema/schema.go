// Package schema reads and writes Paimon table schema files (schema/schema-N), byte-identical to
// what Paimon 2.0.0's TableSchema serializer writes, makes a new table's first schema from its
// declaration as Java's SchemaManager#createTable does (Create), and answers the questions the
// rest of pkft asks of a schema: fields by id or name, the table row type, partition and key
// fields.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/types"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

// Schema format versions (TableSchema#PAIMON_07_VERSION, PAIMON_08_VERSION, CURRENT_VERSION).
const (
	Paimon07Version = 1
	Paimon08Version = 2
	CurrentVersion  = 3
)

// Option keys the schema itself interprets.
const (
	OptionBucket     = "bucket"
	OptionBucketKey  = "bucket-key"
	OptionFileFormat = "file.format"
)

// TableSchema is one version of a table's schema, as stored in schema/schema-{ID}.
type TableSchema struct {
	Version int
	ID      int64
	Fields  []types.DataField
	// HighestFieldID is the largest field id ever assigned; dropped fields keep theirs reserved.
	HighestFieldID int
	PartitionKeys  []string
	PrimaryKeys    []string
	Options        map[string]string
	// OptionOrder is the order in which options are written. Parse records the file's order so
	// that a Java-written file re-serializes byte for byte. Keys missing from it (or all keys, when
	// it is nil) are written afterwards in java.util.HashMap iteration order, which is what Java
	// writes for a freshly created schema; see JavaHashMapOrder.
	OptionOrder []string
	// Comment is the table comment; nil when absent.
	Comment    *string
	TimeMillis int64
}

// FileName returns the name of the schema file for schema id: "schema-{id}".
func FileName(id int64) string { return "schema-" + strconv.FormatInt(id, 10) }

// Parse reads a schema file. It accepts what SchemaSerializer#deserialize accepts: unknown
// members are ignored, a missing version means 1, a missing timeMillis means 0, and old versions
// get the defaults Java fills in (bucket "1" before version 2, file.format "orc" before version 3).
// Like Java's TableSchema constructor it rejects primary keys that are all partition keys and
// invalid bucket keys.
func Parse(data []byte) (*TableSchema, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("parse table schema: %w", err)
	}
	if top == nil {
		return nil, errors.New("parse table schema: not a JSON object")
	}
	s := &TableSchema{Version: Paimon07Version}
	var err error
	if raw, ok := top["version"]; ok {
		if s.Version, err = intMember(raw, "version"); err != nil {
			return nil, err
		}
	}
	if s.ID, err = int64Member(top, "id"); err != nil {
		return nil, err
	}
	var rawFields []json.RawMessage
	if err := requiredMember(top, "fields", &rawFields); err != nil {
		return nil, err
	}
	s.Fields = make([]types.DataField, 0, len(rawFields))
	for i, rf := range rawFields {
		f, err := types.ParseFieldJSON(rf)
		if err != nil {
			return nil, fmt.Errorf("parse table schema: field %d: %w", i, err)
		}
		s.Fields = append(s.Fields, f)
	}
	raw, ok := top["highestFieldId"]
	if !ok {
		return nil, errors.New("parse table schema: missing highestFieldId")
	}
	if s.HighestFieldID, err = intMember(raw, "highestFieldId"); err != nil {
		return nil, err
	}
	if err := requiredMember(top, "partitionKeys", &s.PartitionKeys); err != nil {
		return nil, err
	}
	if err := requiredMember(top, "primaryKeys", &s.PrimaryKeys); err != nil {
		return nil, err
	}
	rawOpts, ok := top["options"]
	if !ok {
		return nil, errors.New("parse table schema: missing options")
	}
	if s.Options, s.OptionOrder, err = parseOrderedOptions(rawOpts); err != nil {
		return nil, fmt.Errorf("parse table schema: options: %w", err)
	}
	if _, ok := s.Options[OptionBucket]; s.Version <= Paimon07Version && !ok {
		s.Options[OptionBucket] = "1"
	}
	if _, ok := s.Options[OptionFileFormat]; s.Version <= Paimon08Version && !ok {
		s.Options[OptionFileFormat] = "orc"
	}
	if raw, ok := top["comment"]; ok && !isNull(raw) {
		var c string
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("parse table schema: comment: %w", err)
		}
		s.Comment = &c
	}
	if raw, ok := top["timeMillis"]; ok && !isNull(raw) {
		if s.TimeMillis, err = int64Member(top, "timeMillis"); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("parse table schema: %w", err)
	}
	return s, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func requiredMember(top map[string]json.RawMessage, name string, dst any) error {
	raw, ok := top[name]
	if !ok {
		return fmt.Errorf("parse table schema: missing %s", name)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("parse table schema: %s: %w", name, err)
	}
	return nil
}

func int64Member(top map[string]json.RawMessage, name string) (int64, error) {
	raw, ok := top[name]
	if !ok {
		return 0, fmt.Errorf("parse table schema: missing %s", name)
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("parse table schema: %s: %w", name, err)
	}
	v, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("parse table schema: %s: %w", name, err)
	}
	return v, nil
}

func intMember(raw json.RawMessage, name string) (int, error) {
	v, err := int64Member(map[string]json.RawMessage{name: raw}, name)
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, fmt.Errorf("parse table schema: %s %d is not a 32-bit integer", name, v)
	}
	return int(v), nil
}

// parseOrderedOptions decodes the options object keeping the members' order. Values are read as
// Jackson's asText would: strings as-is, other scalars as their JSON text.
func parseOrderedOptions(raw json.RawMessage) (map[string]string, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not a JSON object")
	}
	opts := map[string]string{}
	var order []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("unexpected token %v", tok)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("option %q: %w", key, err)
		}
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case json.Number:
			text = x.String()
		case bool:
			text = strconv.FormatBool(x)
		case nil:
			text = "null"
		default:
			return nil, nil, fmt.Errorf("option %q: value is not a scalar", key)
		}
		if _, dup := opts[key]; !dup {
			order = append(order, key)
		}
		opts[key] = text
	}
	return opts, order, nil
}

// Marshal returns the schema file text exactly as Java writes it (JsonSerdeUtil#toJson with the
// SchemaSerializer member order, Jackson's default pretty printer, no trailing newline).
func (s *TableSchema) Marshal() []byte {
	w := &javacompat.JSONWriter{Pretty: true}
	w.StartObject()
	w.IntField("version", int64(s.Version))
	w.IntField("id", s.ID)
	w.FieldName("fields")
	w.StartArray()
	for _, f := range s.Fields {
		f.WriteJSON(w)
	}
	w.EndArray()
	w.IntField("highestFieldId", int64(s.HighestFieldID))
	writeStrings(w, "partitionKeys", s.PartitionKeys)
	writeStrings(w, "primaryKeys", s.PrimaryKeys)
	w.FieldName("options")
	w.StartObject()
	for _, k := range s.optionKeys() {
		w.StringField(k, s.Options[k])
	}
	w.EndObject()
	if s.Comment != nil {
		w.StringField("comment", *s.Comment)
	}
	w.IntField("timeMillis", s.TimeMillis)
	w.EndObject()
	return w.Bytes()
}

// MarshalJSON returns Marshal's text, so a TableSchema embeds in other JSON documents.
func (s *TableSchema) MarshalJSON() ([]byte, error) { return s.Marshal(), nil }

func writeStrings(w *javacompat.JSONWriter, name string, vals []string) {
	w.FieldName(name)
	w.StartArray()
	for _, v := range vals {
		w.String(v)
	}
	w.EndArray()
}

// optionKeys returns the keys in writing order: OptionOrder first, then the rest in Java
// HashMap order.
func (s *TableSchema) optionKeys() []string {
	keys := make([]string, 0, len(s.Options))
	seen := make(map[string]bool, len(s.Options))
	for _, k := range s.OptionOrder {
		if _, ok := s.Options[k]; ok && !seen[k] {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range s.Options {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	if len(rest) == 0 {
		return keys
	}
	// Map iteration order is random; sort first so collisions resolve deterministically.
	sortStrings(rest)
	return append(keys, JavaHashMapOrder(rest)...)
}

// Validate checks what Java's TableSchema constructor checks: the trimmed primary keys are not
// empty when primary keys exist, and bucket keys (if set) are fields, not partition keys, and a
// subset of the primary keys. It also checks that the bucket option is an integer.
func (s *TableSchema) Validate() error {
	if _, err := s.TrimmedPrimaryKeys(); err != nil {
		return err
	}
	if _, err := s.BucketKeys(); err != nil {
		return err
	}
	if v, ok := s.Options[OptionBucket]; ok {
		if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32); err != nil {
			return fmt.Errorf("option %s=%q is not an integer", OptionBucket, v)
		}
	}
	return nil
}

// Bucket is the table's bucket option: the bucket count in fixed bucket mode, -1 (dynamic bucket
// mode) when unset, -2 in postpone bucket mode.
func (s *TableSchema) Bucket() (int, error) {
	v, ok := s.Options[OptionBucket]
	if !ok {
		return -1, nil
	}
	bucket, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("option bucket: %w", err)
	}
	return bucket, nil
}

// FieldNames returns the field names in order.
func (s *TableSchema) FieldNames() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// FieldByID returns the top-level field with the given id.
func (s *TableSchema) FieldByID(id int) (types.DataField, bool) {
	for _, f := range s.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return types.DataField{}, false
}

// FieldByName returns the top-level field with the given name.
func (s *TableSchema) FieldByName(name string) (types.DataField, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return types.DataField{}, false
}

// RowType returns the table's row type (TableSchema#logicalRowType): a nullable ROW of all
// fields.
func (s *TableSchema) RowType() types.DataType { return types.Row(s.Fields...) }

// TrimmedPrimaryKeys returns the primary keys without the partition keys
// (TableSchema#trimmedPrimaryKeys); it is an error when nothing would remain.
func (s *TableSchema) TrimmedPrimaryKeys() ([]string, error) {
	if len(s.PrimaryKeys) == 0 {
		return []string{}, nil
	}
	var out []string
	for _, pk := range s.PrimaryKeys {
		if !contains(s.PartitionKeys, pk) {
			out = append(out, pk)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("primary key constraint %v should not be same with partition fields %v",
			s.PrimaryKeys, s.PartitionKeys)
	}
	return out, nil
}

// BucketKeys returns the bucket-key option's fields, or the trimmed primary keys when it is not
// set (TableSchema#bucketKeys), validated as Java does.
func (s *TableSchema) BucketKeys() ([]string, error) {
	opt := s.Options[OptionBucketKey]
	if strings.TrimSpace(opt) == "" {
		return s.TrimmedPrimaryKeys()
	}
	keys := strings.Split(opt, ",")
	names := s.FieldNames()
	for _, k := range keys {
		if !contains(names, k) {
			return nil, fmt.Errorf("field names %v should contains all bucket keys %v", names, keys)
		}
	}
	for _, k := range keys {
		if contains(s.PartitionKeys, k) {
			return nil, fmt.Errorf("bucket keys %v should not in partition keys %v", keys, s.PartitionKeys)
		}
	}
	if len(s.PrimaryKeys) > 0 {
		for _, k := range keys {
			if !contains(s.PrimaryKeys, k) {
				return nil, fmt.Errorf("primary keys %v should contains all bucket keys %v", s.PrimaryKeys, keys)
			}
		}
	}
	return keys, nil
}

// ProjectedRowType returns a ROW of the named fields in the given order, silently skipping names
// that are not fields (TableSchema#projectedLogicalRowType).
func (s *TableSchema) ProjectedRowType(names []string) types.DataType {
	fields := make([]types.DataField, 0, len(names))
	for _, n := range names {
		if f, ok := s.FieldByName(n); ok {
			fields = append(fields, f)
		}
	}
	return types.Row(fields...)
}

// PartitionType returns the row type of the partition fields.
func (s *TableSchema) PartitionType() types.DataType { return s.ProjectedRowType(s.PartitionKeys) }

// PrimaryKeyType returns the row type of the primary key fields.
func (s *TableSchema) PrimaryKeyType() types.DataType { return s.ProjectedRowType(s.PrimaryKeys) }

// TrimmedPrimaryKeyType returns the row type of the trimmed primary key fields.
func (s *TableSchema) TrimmedPrimaryKeyType() (types.DataType, error) {
	keys, err := s.TrimmedPrimaryKeys()
	if err != nil {
		return types.DataType{}, err
	}
	return s.ProjectedRowType(keys), nil
}

// BucketKeyType returns the row type of the bucket key fields.
func (s *TableSchema) BucketKeyType() (types.DataType, error) {
	keys, err := s.BucketKeys()
	if err != nil {
		return types.DataType{}, err
	}
	return s.ProjectedRowType(keys), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ParseOptions decodes a schema's options object as Parse does (values read as Jackson's asText
// reads them) and returns the options and their order in the text.
func ParseOptions(raw json.RawMessage) (map[string]string, []string, error) {
	return parseOrderedOptions(raw)
}
