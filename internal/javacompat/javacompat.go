// Package javacompat reproduces the few Java library behaviours that leak into bytes Paimon
// writes: the iteration order of java.util.HashMap, Jackson's compact JSON for a string map,
// String.hashCode, String.compareTo and String.trim. Each is needed where Java's output depends on
// it (the full-text index meta, for one), so Go can produce identical bytes.
package javacompat

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// StringHashCode is java.lang.String#hashCode: s[0]*31^(n-1) + ... over UTF-16 code units.
func StringHashCode(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// Trim is java.lang.String#trim: it strips code points up to U+0020 from both ends, and nothing
// else (no Unicode spaces).
func Trim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// ErrTreeBin reports a key set whose HashMap order Java keeps in a red-black tree bin; pkft does
// not reproduce that order.
var ErrTreeBin = errors.New("java.util.HashMap would hold these keys in a tree bin")

const (
	treeifyThreshold   = 8
	minTreeifyCapacity = 64
)

// HashMapOrder returns the order in which a java.util.HashMap, created empty with the default
// capacity and filled by put/putIfAbsent with the given distinct keys in the given order,
// iterates its keys (see HashMap for the model). It returns ErrTreeBin when Java would keep
// some of the keys in a tree bin.
func HashMapOrder(keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	m := NewHashMap[string]()
	for _, k := range keys {
		if err := m.Put(k, StringHashCode(k)); err != nil {
			return nil, err
		}
	}
	return m.Keys()
}

// FlatJSONStringMap renders an ordered string map as Jackson's default ObjectMapper writes a
// Map<String, String> (JsonSerdeUtil.toFlatJson): compact, keys in the given order, non-ASCII
// unescaped, '"' and '\\' and the control characters \b \t \n \f \r escaped by name, the other
// control characters as \u00XX with upper-case hex.
func FlatJSONStringMap(keys, values []string) string {
	w := &JSONWriter{}
	w.StartObject()
	for i := range keys {
		w.StringField(keys[i], values[i])
	}
	w.EndObject()
	return string(w.Bytes())
}

// DoubleToString is java.lang.Double#toString for finite values: plain notation with at least
// one fractional digit for magnitudes in [1e-3, 1e7), computerized scientific notation ("1.0E10")
// otherwise, with the shortest digits that round-trip (Java 19+ behaviour).
func DoubleToString(f float64) string {
	switch {
	case f == 0:
		if 1/f < 0 {
			return "-0.0"
		}
		return "0.0"
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := f
	if abs < 0 {
		abs = -abs
	}
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // like 1.5e+10
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
