package javacompat

import (
	"strconv"
	"unicode/utf8"
)

// JSONWriter produces JSON text byte-identical to what Paimon's Jackson ObjectMapper writes:
// with Pretty set it follows Jackson's DefaultPrettyPrinter (JsonSerdeUtil#toJson: two-space
// indented objects, arrays kept inline as "[ a, b ]", empty containers as "{ }" and "[ ]", and
// " : " between names and values); without it, the compact form of JsonSerdeUtil#toFlatJson.
// Strings are escaped as Jackson does (control characters only, upper-case hex, non-ASCII kept).
//
// Callers are responsible for well-formed call sequences, as with Jackson's JsonGenerator.
type JSONWriter struct {
	// Pretty selects Jackson's default pretty printer.
	Pretty bool
	buf    []byte
	stack  []jsonLevel
	// nesting counts open objects; arrays are inline and do not indent.
	nesting int
}

type jsonLevel struct {
	object  bool
	entries int
}

// Bytes returns the text written so far.
func (w *JSONWriter) Bytes() []byte { return w.buf }

func (w *JSONWriter) indent() {
	w.buf = append(w.buf, '\n')
	for i := 0; i < w.nesting; i++ {
		w.buf = append(w.buf, ' ', ' ')
	}
}

// beforeValue writes the separator an array element needs; values in objects are preceded by
// FieldName instead.
func (w *JSONWriter) beforeValue() {
	if len(w.stack) == 0 {
		return
	}
	top := &w.stack[len(w.stack)-1]
	if top.object {
		return
	}
	if top.entries > 0 {
		w.buf = append(w.buf, ',')
	}
	if w.Pretty {
		w.buf = append(w.buf, ' ')
	}
	top.entries++
}

// StartObject opens an object.
func (w *JSONWriter) StartObject() {
	w.beforeValue()
	w.buf = append(w.buf, '{')
	w.stack = append(w.stack, jsonLevel{object: true})
	w.nesting++
}

// EndObject closes the innermost object.
func (w *JSONWriter) EndObject() {
	top := w.pop()
	w.nesting--
	if w.Pretty {
		if top.entries > 0 {
			w.indent()
		} else {
			w.buf = append(w.buf, ' ')
		}
	}
	w.buf = append(w.buf, '}')
}

// StartArray opens an array.
func (w *JSONWriter) StartArray() {
	w.beforeValue()
	w.buf = append(w.buf, '[')
	w.stack = append(w.stack, jsonLevel{})
}

// EndArray closes the innermost array.
func (w *JSONWriter) EndArray() {
	w.pop()
	if w.Pretty {
		w.buf = append(w.buf, ' ')
	}
	w.buf = append(w.buf, ']')
}

func (w *JSONWriter) pop() jsonLevel {
	if len(w.stack) == 0 {
		return jsonLevel{}
	}
	top := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return top
}

// FieldName starts an object entry; the next call writes its value.
func (w *JSONWriter) FieldName(name string) {
	if len(w.stack) > 0 {
		top := &w.stack[len(w.stack)-1]
		if top.entries > 0 {
			w.buf = append(w.buf, ',')
		}
		top.entries++
	}
	if w.Pretty {
		w.indent()
	}
	w.buf = AppendJSONString(w.buf, name)
	if w.Pretty {
		w.buf = append(w.buf, " : "...)
	} else {
		w.buf = append(w.buf, ':')
	}
}

// String writes a string value.
func (w *JSONWriter) String(s string) {
	w.beforeValue()
	w.buf = AppendJSONString(w.buf, s)
}

// Int writes an integer value.
func (w *JSONWriter) Int(v int64) {
	w.beforeValue()
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// Bool writes a boolean value.
func (w *JSONWriter) Bool(v bool) {
	w.beforeValue()
	w.buf = strconv.AppendBool(w.buf, v)
}

// Null writes a null value.
func (w *JSONWriter) Null() {
	w.beforeValue()
	w.buf = append(w.buf, "null"...)
}

// Raw writes pre-encoded JSON text as a value (no reformatting).
func (w *JSONWriter) Raw(text []byte) {
	w.beforeValue()
	w.buf = append(w.buf, text...)
}

// StringField writes a string-valued entry.
func (w *JSONWriter) StringField(name, v string) {
	w.FieldName(name)
	w.String(v)
}

// IntField writes an integer-valued entry.
func (w *JSONWriter) IntField(name string, v int64) {
	w.FieldName(name)
	w.Int(v)
}

const upperHex = "0123456789ABCDEF"

// AppendJSONString appends s quoted the way Jackson's generators do by default.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				// Not valid UTF-8: Java strings cannot hold such bytes; write the
				// replacement character as String#getBytes(UTF_8) would.
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
		i++
	}
	return append(dst, '"')
}
