package manifest

import (
	"fmt"
	"reflect"
	"time"

	"github.com/hamba/avro/v2"
)

// Files whose writer schema is not the one Paimon 2.0.0's Java writer puts in the header (other
// writers: paimon-rust wraps the top-level record and the nested stats records in ["null", T]
// unions and adds fields of its own) are decoded by Avro's schema resolution: the file's writer
// schema is resolved against a reader schema made from the row type pkft expects, by hamba/avro's
// SchemaCompatibility (fields matched by name in any order, writer fields pkft does not know
// skipped, nullable fields the writer lacks read as their null default, int promoted to long),
// the records are decoded with the resolved schema into Avro's generic values, and these are
// assigned to the Avro-tagged Go records field by field. A field pkft needs that the writer
// schema lacks, that cannot be resolved, or that a record holds as null where Paimon requires a
// value is an error naming the field: nothing decodes to zeros.
//
// hamba/avro cannot decode a ["null", T] union into a Go struct or scalar (it needs a pointer),
// which is why these files do not go through the typed decoder with the writer schema.

// readerSchema builds the Avro reader schema for expected against the writer schema w of a file:
// expected's fields and types, with the record names and the nullable unions of w, so that Avro's
// resolution of w against it succeeds exactly when the file holds what pkft needs. path names the
// field in errors.
func readerSchema(w avro.Schema, expected dataType, path string) (avro.Schema, error) {
	if ref, ok := w.(*avro.RefSchema); ok {
		w = ref.Schema()
	}
	if u, ok := w.(*avro.UnionSchema); ok {
		nonNull, err := unionValueBranch(u, path)
		if err != nil {
			return nil, err
		}
		inner, err := readerSchema(nonNull, expected, path)
		if err != nil {
			return nil, err
		}
		if !u.Nullable() {
			return inner, nil
		}
		types := make([]avro.Schema, 0, 2)
		for _, t := range u.Types() {
			if t.Type() == avro.Null {
				types = append(types, avro.NewNullSchema())
			} else {
				types = append(types, inner)
			}
		}
		return avro.NewUnionSchema(types)
	}
	switch expected.root {
	case rootRow:
		rec, ok := w.(*avro.RecordSchema)
		if !ok {
			return nil, fmt.Errorf("field %s: writer schema has %s, want a record", pathOr(path), w.Type())
		}
		fields := make([]*avro.Field, 0, len(expected.fields))
		for _, f := range expected.fields {
			fp := joinPath(path, f.name)
			var wf *avro.Field
			for _, cand := range rec.Fields() {
				if cand.Name() == f.name {
					wf = cand
					break
				}
			}
			var (
				ft   avro.Schema
				opts []avro.SchemaOption
				err  error
			)
			switch {
			case wf != nil:
				ft, err = readerSchema(wf.Type(), f.typ, fp)
			case f.typ.nullable:
				// Absent from the file: read as null, the field's default (as Paimon's reader does).
				ft, err = javaShapedSchema(f.typ, rec.FullName()+"_"+f.name)
				opts = append(opts, avro.WithDefault(nil))
			default:
				return nil, fmt.Errorf("writer schema lacks required field %s", fp)
			}
			if err != nil {
				return nil, err
			}
			field, err := avro.NewField(f.name, ft, opts...)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", fp, err)
			}
			fields = append(fields, field)
		}
		return avro.NewRecordSchema(rec.Name(), rec.Namespace(), fields)
	case rootArray:
		arr, ok := w.(*avro.ArraySchema)
		if !ok {
			return nil, fmt.Errorf("field %s: writer schema has %s, want an array", pathOr(path), w.Type())
		}
		items, err := readerSchema(arr.Items(), *expected.elem, path+"[]")
		if err != nil {
			return nil, err
		}
		return avro.NewArraySchema(items), nil
	}
	r := primitiveSchema(expected)
	if !avroPromotes(w.Type(), r.Type()) {
		return nil, fmt.Errorf("field %s: writer schema has %s, Paimon's has %s", pathOr(path), w.Type(), r.Type())
	}
	if expected.root == rootTimestamp {
		// The writer's timestamp unit is kept: the generic value is an instant either way.
		if p, ok := w.(*avro.PrimitiveSchema); ok && p.Logical() != nil {
			switch p.Logical().Type() {
			case avro.TimestampMillis, avro.TimestampMicros:
				return avro.NewPrimitiveSchema(avro.Long, avro.NewPrimitiveLogicalSchema(p.Logical().Type())), nil
			}
		}
	}
	return r, nil
}

// avroPromotes reports whether Avro's resolution reads a writer's value of type w as type r
// (the same type, or one of the promotions of the specification that keep every value).
func avroPromotes(w, r avro.Type) bool {
	switch {
	case w == r:
		return true
	case w == avro.Int:
		return r == avro.Long
	case w == avro.String:
		return r == avro.Bytes
	case w == avro.Bytes:
		return r == avro.String
	}
	return false
}

// unionValueBranch returns the one non-null branch of a writer union; a union of several value
// types is not a Paimon manifest field.
func unionValueBranch(u *avro.UnionSchema, path string) (avro.Schema, error) {
	var branch avro.Schema
	for _, t := range u.Types() {
		if t.Type() == avro.Null {
			continue
		}
		if branch != nil {
			return nil, fmt.Errorf("field %s: writer schema has a union of several value types", pathOr(path))
		}
		branch = t
	}
	if branch == nil {
		return nil, fmt.Errorf("field %s: writer schema has only null", pathOr(path))
	}
	return branch, nil
}

// primitiveSchema is the Avro primitive AvroSchemaConverter maps a scalar Paimon type to.
func primitiveSchema(t dataType) avro.Schema {
	switch t.root {
	case rootTinyInt, rootInt:
		return avro.NewPrimitiveSchema(avro.Int, nil)
	case rootBigInt:
		return avro.NewPrimitiveSchema(avro.Long, nil)
	case rootString:
		return avro.NewPrimitiveSchema(avro.String, nil)
	case rootTimestamp:
		logical := avro.TimestampMillis
		if t.precision > 3 {
			logical = avro.TimestampMicros
		}
		return avro.NewPrimitiveSchema(avro.Long, avro.NewPrimitiveLogicalSchema(logical))
	default:
		return avro.NewPrimitiveSchema(avro.Bytes, nil)
	}
}

// javaShapedSchema is the schema Paimon's Java writer gives t (named name if it is a row), used
// for a nullable field the writer schema lacks.
func javaShapedSchema(t dataType, name string) (avro.Schema, error) {
	s, err := avro.Parse(avroSchemaJSONNamed(t, name))
	if err != nil {
		return nil, fmt.Errorf("schema of absent field %s: %w", name, err)
	}
	return s, nil
}

// resolvedDecoder decodes the records of one file by Avro schema resolution.
type resolvedDecoder struct {
	schema avro.Schema // the resolved (composite) schema
	set    setter      // stores a decoded record in the Go record type
	// unionTypes names the Go type of each record and array branch of the schema's unions, for
	// the decoding configuration (decodeConfig.register): without them hamba decodes such a
	// branch by building its decoder again for every value, and gives it as {name: value}.
	unionTypes map[string]any
}

// collectUnionTypes fills into with the record and array branches of the unions in s.
func collectUnionTypes(s avro.Schema, into map[string]any, seen map[avro.Schema]bool) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if seen[s] {
		return
	}
	seen[s] = true
	switch s := s.(type) {
	case *avro.UnionSchema:
		for _, b := range s.Types() {
			if ref, ok := b.(*avro.RefSchema); ok {
				b = ref.Schema()
			}
			switch b := b.(type) {
			case *avro.RecordSchema:
				into[b.FullName()] = map[string]any{}
			case *avro.ArraySchema:
				into["array:"+unionBranchName(b.Items())] = []any{}
			}
			collectUnionTypes(b, into, seen)
		}
	case *avro.RecordSchema:
		for _, f := range s.Fields() {
			collectUnionTypes(f.Type(), into, seen)
		}
	case *avro.ArraySchema:
		collectUnionTypes(s.Items(), into, seen)
	}
}

// newResolvedDecoder resolves the writer schema w of a file against expected, for records of
// Go type t (Avro-tagged, its fields those of expected).
func newResolvedDecoder(w avro.Schema, expected dataType, t reflect.Type) (*resolvedDecoder, error) {
	r, err := readerSchema(w, expected, "")
	if err != nil {
		return nil, err
	}
	composite, err := avro.NewSchemaCompatibility().Resolve(r, w)
	if err != nil {
		return nil, fmt.Errorf("writer schema cannot be resolved against Paimon's: %w", err)
	}
	set, err := compileSetter(t, composite, "")
	if err != nil {
		return nil, err
	}
	d := &resolvedDecoder{schema: composite, set: set, unionTypes: map[string]any{}}
	collectUnionTypes(composite, d.unionTypes, map[avro.Schema]bool{})
	return d, nil
}

// decode reads one record from r into out, a pointer to a value of the Go type the decoder
// was made for.
func (d *resolvedDecoder) decode(r *avro.Reader, out any) error {
	var v any
	r.ReadVal(d.schema, &v)
	if r.Error != nil {
		return r.Error
	}
	return d.set(reflect.ValueOf(out).Elem(), v)
}

// setter stores a generic value, decoded with the schema it was compiled for, in dst.
type setter func(dst reflect.Value, v any) error

// compileSetter makes the setter of generic values decoded with schema s into values of type t.
// A null where t cannot hold null (not a pointer) is an error naming path.
func compileSetter(t reflect.Type, s avro.Schema, path string) (setter, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if u, ok := s.(*avro.UnionSchema); ok {
		branch, err := unionValueBranch(u, path)
		if err != nil {
			return nil, err
		}
		inner, err := compileSetter(t, branch, path)
		if err != nil {
			return nil, err
		}
		name := unionBranchName(branch)
		return func(dst reflect.Value, v any) error {
			if v == nil {
				if dst.Kind() != reflect.Pointer {
					return fmt.Errorf("field %s is null where Paimon requires a value", pathOr(path))
				}
				dst.SetZero()
				return nil
			}
			// Without a registered Go type hamba gives a union's value as {branch name: value}.
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				if x, ok := m[name]; ok {
					v = x
				}
			}
			return inner(dst, v)
		}, nil
	}
	if t.Kind() == reflect.Pointer {
		elem, err := compileSetter(t.Elem(), s, path)
		if err != nil {
			return nil, err
		}
		return func(dst reflect.Value, v any) error {
			p := reflect.New(t.Elem())
			if err := elem(p.Elem(), v); err != nil {
				return err
			}
			dst.Set(p)
			return nil
		}, nil
	}
	switch s := s.(type) {
	case *avro.RecordSchema:
		if t.Kind() != reflect.Struct {
			return nil, fmt.Errorf("field %s: cannot store a record in %s", pathOr(path), t)
		}
		type fieldSetter struct {
			index int
			name  string
			set   setter
		}
		byName := make(map[string]*avro.Field, len(s.Fields()))
		for _, f := range s.Fields() {
			byName[f.Name()] = f
		}
		fields := make([]fieldSetter, t.NumField())
		for i := range t.NumField() {
			name := t.Field(i).Tag.Get("avro")
			f, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("field %s: the resolved schema lacks it", joinPath(path, name))
			}
			set, err := compileSetter(t.Field(i).Type, f.Type(), joinPath(path, name))
			if err != nil {
				return nil, err
			}
			fields[i] = fieldSetter{index: i, name: name, set: set}
		}
		return func(dst reflect.Value, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("field %s: %T where a record was decoded", pathOr(path), v)
			}
			for _, f := range fields {
				fv := m[f.name]
				if fv == nil {
					if _, present := m[f.name]; !present {
						return fmt.Errorf("field %s: not decoded", joinPath(path, f.name))
					}
				}
				if err := f.set(dst.Field(f.index), fv); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case *avro.ArraySchema:
		if t.Kind() != reflect.Slice {
			return nil, fmt.Errorf("field %s: cannot store an array in %s", pathOr(path), t)
		}
		elem, err := compileSetter(t.Elem(), s.Items(), path+"[]")
		if err != nil {
			return nil, err
		}
		return func(dst reflect.Value, v any) error {
			items, ok := v.([]any)
			if !ok {
				return fmt.Errorf("field %s: %T where an array was decoded", pathOr(path), v)
			}
			out := reflect.MakeSlice(t, len(items), len(items))
			for i, it := range items {
				if err := elem(out.Index(i), it); err != nil {
					return err
				}
			}
			dst.Set(out)
			return nil
		}, nil
	default:
		return func(dst reflect.Value, v any) error {
			if v == nil {
				return fmt.Errorf("field %s is null where Paimon requires a value", pathOr(path))
			}
			return assignScalar(dst, v, path)
		}, nil
	}
}

// unionBranchName is the key under which hamba gives a union branch's generic value.
func unionBranchName(s avro.Schema) string {
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	if p, ok := s.(*avro.PrimitiveSchema); ok && p.Logical() != nil {
		return string(p.Type()) + "." + string(p.Logical().Type())
	}
	return string(s.Type()) // "union" for a union
}

// assignScalar stores a generic scalar in dst, checking that an int fits.
func assignScalar(dst reflect.Value, v any, path string) error {
	switch x := v.(type) {
	case int:
		return assignInt(dst, int64(x), path)
	case int32:
		return assignInt(dst, int64(x), path)
	case int64:
		return assignInt(dst, x, path)
	case time.Time:
		return assignInt(dst, x.UnixMilli(), path)
	case string:
		if dst.Kind() != reflect.String {
			break
		}
		dst.SetString(x)
		return nil
	case []byte:
		if dst.Kind() != reflect.Slice || dst.Type().Elem().Kind() != reflect.Uint8 {
			break
		}
		dst.SetBytes(x)
		return nil
	}
	return fmt.Errorf("field %s: cannot store %T in %s", pathOr(path), v, dst.Type())
}

func assignInt(dst reflect.Value, v int64, path string) error {
	switch dst.Kind() {
	case reflect.Int32, reflect.Int64:
		if dst.OverflowInt(v) {
			return fmt.Errorf("field %s: value %d does not fit in %s", pathOr(path), v, dst.Type())
		}
		dst.SetInt(v)
		return nil
	}
	return fmt.Errorf("field %s: cannot store an integer in %s", pathOr(path), dst.Type())
}
