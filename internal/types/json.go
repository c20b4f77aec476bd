package types

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

// WriteJSON writes t the way Java's DataType#serializeJson does: atomic types as their SQL
// string, ARRAY/MULTISET as {"type","element"}, VECTOR as {"type","element","length"}, MAP as
// {"type","key","value"} and ROW as {"type","fields"}, where "type" carries " NOT NULL" for
// non-nullable containers.
func (t DataType) WriteJSON(w *javacompat.JSONWriter) {
	kind := ""
	switch t.Root {
	case RootArray:
		kind = "ARRAY"
	case RootMultiset:
		kind = "MULTISET"
	case RootVector:
		kind = "VECTOR"
	case RootMap:
		kind = "MAP"
	case RootRow:
		kind = "ROW"
	default:
		w.String(t.SQLString())
		return
	}
	if t.NotNull {
		kind += " NOT NULL"
	}
	w.StartObject()
	w.StringField("type", kind)
	switch t.Root {
	case RootArray, RootMultiset, RootVector:
		w.FieldName("element")
		jsonOf(w, t.Element)
		if t.Root == RootVector {
			w.IntField("length", int64(t.Length))
		}
	case RootMap:
		w.FieldName("key")
		jsonOf(w, t.Key)
		w.FieldName("value")
		jsonOf(w, t.Value)
	case RootRow:
		w.FieldName("fields")
		w.StartArray()
		for _, f := range t.Fields {
			f.WriteJSON(w)
		}
		w.EndArray()
	}
	w.EndObject()
}

func jsonOf(w *javacompat.JSONWriter, t *DataType) {
	if t == nil {
		w.Null()
		return
	}
	t.WriteJSON(w)
}

// WriteJSON writes f the way Java's DataField#serializeJson does: id, name, type, then
// description and defaultValue only when present.
func (f DataField) WriteJSON(w *javacompat.JSONWriter) {
	w.StartObject()
	w.IntField("id", int64(f.ID))
	w.StringField("name", f.Name)
	w.FieldName("type")
	f.Type.WriteJSON(w)
	if f.Description != nil {
		w.StringField("description", *f.Description)
	}
	if f.DefaultValue != nil {
		w.StringField("defaultValue", *f.DefaultValue)
	}
	w.EndObject()
}

// MarshalJSON returns the compact JSON form (JsonSerdeUtil#toFlatJson).
func (t DataType) MarshalJSON() ([]byte, error) {
	w := &javacompat.JSONWriter{}
	t.WriteJSON(w)
	return w.Bytes(), nil
}

// UnmarshalJSON parses the JSON form with ParseTypeJSON.
func (t *DataType) UnmarshalJSON(data []byte) error {
	v, err := ParseTypeJSON(data)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// MarshalJSON returns the compact JSON form of the field.
func (f DataField) MarshalJSON() ([]byte, error) {
	w := &javacompat.JSONWriter{}
	f.WriteJSON(w)
	return w.Bytes(), nil
}

// UnmarshalJSON parses the JSON form with ParseFieldJSON.
func (f *DataField) UnmarshalJSON(data []byte) error {
	v, err := ParseFieldJSON(data)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// ParseTypeJSON parses a type from its JSON form (DataTypeJsonParser#parseDataType). Row fields
// without "id" are numbered 0, 1, ... in document order, as Java does; mixing fields with and
// without ids is rejected.
func ParseTypeJSON(data []byte) (DataType, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return DataType{}, fmt.Errorf("parse type json: %w", err)
	}
	counter := -1
	t, err := typeFromJSON(v, &counter)
	if err != nil {
		return DataType{}, fmt.Errorf("parse type json: %w", err)
	}
	return t, nil
}

// ParseFieldJSON parses a field from its JSON form (DataTypeJsonParser#parseDataField). As in a
// schema file, every field, nested ones included, must carry an "id".
func ParseFieldJSON(data []byte) (DataField, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return DataField{}, fmt.Errorf("parse field json: %w", err)
	}
	f, err := fieldFromJSON(v, nil)
	if err != nil {
		return DataField{}, fmt.Errorf("parse field json: %w", err)
	}
	return f, nil
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// fieldFromJSON follows parseDataField: counter is nil when ids are mandatory, otherwise it
// numbers fields that have no id.
func fieldFromJSON(v any, counter *int) (DataField, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return DataField{}, fmt.Errorf("data field must be a JSON object, got %T", v)
	}
	var f DataField
	if idv, ok := obj["id"]; ok {
		if counter != nil && *counter != -1 {
			return DataField{}, fmt.Errorf("partial field id is not allowed")
		}
		n, ok := idv.(json.Number)
		if !ok {
			return DataField{}, fmt.Errorf("field id must be a number, got %v", idv)
		}
		id, err := n.Int64()
		if err != nil || id != int64(int32(id)) {
			return DataField{}, fmt.Errorf("field id %s is not a 32-bit integer", n)
		}
		f.ID = int(id)
	} else {
		if counter == nil {
			return DataField{}, fmt.Errorf("field without id")
		}
		*counter++
		f.ID = *counter
	}
	name, ok := obj["name"].(string)
	if !ok {
		return DataField{}, fmt.Errorf("field %d: name must be a string", f.ID)
	}
	f.Name = name
	tv, ok := obj["type"]
	if !ok {
		return DataField{}, fmt.Errorf("field %q: missing type", name)
	}
	t, err := typeFromJSON(tv, counter)
	if err != nil {
		return DataField{}, fmt.Errorf("field %q: %w", name, err)
	}
	f.Type = t
	if f.Description, err = optionalText(obj, "description"); err != nil {
		return DataField{}, fmt.Errorf("field %q: %w", name, err)
	}
	if f.DefaultValue, err = optionalText(obj, "defaultValue"); err != nil {
		return DataField{}, fmt.Errorf("field %q: %w", name, err)
	}
	return f, nil
}

// optionalText reads an optional scalar member as text; JSON null counts as absent.
func optionalText(obj map[string]any, key string) (*string, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case bool:
		s = fmt.Sprint(x)
	default:
		return nil, fmt.Errorf("%s must be a scalar", key)
	}
	return &s, nil
}

func typeFromJSON(v any, counter *int) (DataType, error) {
	switch x := v.(type) {
	case string:
		return ParseSQLString(x)
	case map[string]any:
		kind, ok := x["type"].(string)
		if !ok {
			return DataType{}, fmt.Errorf("type object without textual \"type\"")
		}
		nullable := !strings.Contains(kind, "NOT NULL")
		var t DataType
		switch {
		case strings.HasPrefix(kind, "ARRAY"), strings.HasPrefix(kind, "MULTISET"),
			strings.HasPrefix(kind, "VECTOR"):
			ev, ok := x["element"]
			if !ok {
				return DataType{}, fmt.Errorf("%s without element", kind)
			}
			elem, err := typeFromJSON(ev, counter)
			if err != nil {
				return DataType{}, err
			}
			switch {
			case strings.HasPrefix(kind, "ARRAY"):
				t = Array(elem)
			case strings.HasPrefix(kind, "MULTISET"):
				t = Multiset(elem)
			default:
				n, ok := x["length"].(json.Number)
				if !ok {
					return DataType{}, fmt.Errorf("VECTOR without numeric length")
				}
				length, err := n.Int64()
				if err != nil || length != int64(int32(length)) {
					return DataType{}, fmt.Errorf("VECTOR length %s is not a 32-bit integer", n)
				}
				t = Vector(int(length), elem)
			}
		case strings.HasPrefix(kind, "MAP"):
			kv, vv := x["key"], x["value"]
			if kv == nil || vv == nil {
				return DataType{}, fmt.Errorf("MAP without key or value")
			}
			key, err := typeFromJSON(kv, counter)
			if err != nil {
				return DataType{}, err
			}
			val, err := typeFromJSON(vv, counter)
			if err != nil {
				return DataType{}, err
			}
			t = Map(key, val)
		case strings.HasPrefix(kind, "ROW"):
			arr, ok := x["fields"].([]any)
			if !ok {
				return DataType{}, fmt.Errorf("ROW without fields array")
			}
			t = DataType{Root: RootRow, Fields: make([]DataField, 0, len(arr))}
			for _, fv := range arr {
				f, err := fieldFromJSON(fv, counter)
				if err != nil {
					return DataType{}, err
				}
				t.Fields = append(t.Fields, f)
			}
		default:
			return DataType{}, fmt.Errorf("can not parse type object with type %q", kind)
		}
		t = t.WithNullable(nullable)
		if err := t.Validate(); err != nil {
			return DataType{}, err
		}
		return t, nil
	default:
		return DataType{}, fmt.Errorf("can not parse type from %v", v)
	}
}
