package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// ErrUnknownQuery reports a JSON query the engine's query language (paimon-ftindex 0.1.0,
// QuerySpec of its core/src/query.rs) does not define: an unknown query type or field, a missing
// required field or a value of the wrong kind. ValidateQuery refuses it before any archive is
// planned or opened, so a query is judged the same whether or not the table has archives.
var ErrUnknownQuery = fmt.Errorf("%w: not a query of the engine's query language", ErrInvalidQuery)

// queryType describes one query type of the engine's language: its fields (each with the
// aliases serde accepts for it) and which are required.
type queryType struct {
	fields   []queryField
	aliasFor string // the type this name is an alias of (phrase -> match_phrase)
}

// queryField is one field of a query type: its name, serde aliases, kind and whether it is
// required.
type queryField struct {
	name     string
	aliases  []string
	kind     fieldKind
	required bool
}

// fieldKind is the JSON value a field takes.
type fieldKind int

const (
	kindString       fieldKind = iota // a string
	kindOptString                     // a string or null
	kindStrings                       // an array of strings
	kindNumber                        // a number
	kindNumbers                       // an array of numbers
	kindUint                          // an unsigned integer
	kindOperator                      // "or" or "and" (any case the engine accepts)
	kindFuzziness                     // null, "auto" or an unsigned integer up to 255
	kindQuery                         // a query
	kindQueries                       // an array of queries
	kindOccurQueries                  // an array of [occur, query] pairs
)

// matchTail are the fields match and multi_match share after their own.
var matchTail = []queryField{
	{name: "operator", kind: kindOperator},
	{name: "fuzziness", kind: kindFuzziness},
	{name: "max_expansions", aliases: []string{"maxExpansions"}, kind: kindUint},
	{name: "prefix_length", aliases: []string{"prefixLength"}, kind: kindUint},
}

// queryTypes is the engine's query language, by the name a JSON query's single key gives.
var queryTypes = map[string]queryType{
	"match": {fields: append([]queryField{
		{name: "column", kind: kindOptString},
		{name: "terms", aliases: []string{"query"}, kind: kindString, required: true},
		{name: "boost", kind: kindNumber},
	}, matchTail...)},
	"multi_match": {fields: append([]queryField{
		{name: "terms", aliases: []string{"query"}, kind: kindString, required: true},
		{name: "columns", kind: kindStrings, required: true},
		{name: "boosts", aliases: []string{"boost"}, kind: kindNumbers},
	}, matchTail...)},
	"match_phrase": {fields: []queryField{
		{name: "column", kind: kindOptString},
		{name: "terms", aliases: []string{"query"}, kind: kindString, required: true},
		{name: "slop", kind: kindUint},
	}},
	"phrase": {aliasFor: "match_phrase"},
	"boolean": {fields: []queryField{
		{name: "should", kind: kindQueries},
		{name: "must", kind: kindQueries},
		{name: "must_not", kind: kindQueries},
		{name: "queries", kind: kindOccurQueries},
	}},
	"boost": {fields: []queryField{
		{name: "positive", kind: kindQuery, required: true},
		{name: "negative", kind: kindQuery, required: true},
		{name: "negative_boost", kind: kindNumber},
	}},
}

// QueryTypes lists the query types of the engine's language, sorted.
func QueryTypes() []string {
	var out []string
	for name := range queryTypes {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// ValidateQuery checks a request query: plain words are always valid; a JSON query (one that
// starts with '{') must be valid JSON and a query of the engine's language, every query type and
// field known to it and every required field present. Unknown fields, which the engine itself
// ignores, are refused: a misspelt option would otherwise be dropped silently. The error wraps
// ErrInvalidQuery or ErrUnknownQuery and names the offending type or field with its path.
func ValidateQuery(q string) error {
	if !isJSONQuery(q) {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(q))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: query %s is not valid JSON: %v", ErrInvalidQuery, fulltext.QuoteQuery(q), err)
	}
	if err := checkQueryValue(v, "query"); err != nil {
		return fmt.Errorf("%w %s: %w", ErrUnknownQuery, fulltext.QuoteQuery(q), err)
	}
	return nil
}

// checkQueryValue checks that v is one query of the language; path names it in errors.
func checkQueryValue(v any, path string) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want a JSON object {\"<type>\": {...}} with type one of %s", path, strings.Join(QueryTypes(), ", "))
	}
	if len(obj) != 1 {
		keys := sortedKeys(obj)
		return fmt.Errorf("%s: want exactly one query type as its only key, got %d keys %v (types: %s)", path, len(obj), keys, strings.Join(QueryTypes(), ", "))
	}
	for name, body := range obj {
		qt, ok := queryTypes[name]
		if !ok {
			return fmt.Errorf("%s: unknown query type %q: the engine knows %s", path, name, strings.Join(QueryTypes(), ", "))
		}
		if qt.aliasFor != "" {
			qt = queryTypes[qt.aliasFor]
		}
		return checkQueryBody(qt, body, path+"."+name)
	}
	return nil
}

// checkQueryBody checks the object of one query type.
func checkQueryBody(qt queryType, body any, path string) error {
	obj, ok := body.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object of its fields", path)
	}
	seen := map[string]string{}
	for _, key := range sortedKeys(obj) {
		f, ok := findField(qt, key)
		if !ok {
			return fmt.Errorf("%s: unknown field %q: the query takes %s", path, key, fieldNames(qt))
		}
		if other, dup := seen[f.name]; dup {
			return fmt.Errorf("%s: fields %q and %q are the same field (%s)", path, other, key, f.name)
		}
		seen[f.name] = key
		if err := checkField(f, obj[key], path+"."+key); err != nil {
			return err
		}
	}
	for _, f := range qt.fields {
		if _, ok := seen[f.name]; f.required && !ok {
			if len(f.aliases) > 0 { // the documented name first (query, not terms)
				return fmt.Errorf("%s: missing required field \"%s\" (or \"%s\")", path, f.aliases[0], f.name)
			}
			return fmt.Errorf("%s: missing required field \"%s\"", path, f.name)
		}
	}
	return nil
}

// checkField checks the value of one field.
func checkField(f queryField, v any, path string) error {
	switch f.kind {
	case kindString:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: want a string", path)
		}
	case kindOptString:
		if _, ok := v.(string); !ok && v != nil {
			return fmt.Errorf("%s: want a string", path)
		}
	case kindStrings:
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array of strings", path)
		}
		for i, e := range arr {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("%s[%d]: want a string", path, i)
			}
		}
	case kindNumber:
		if _, ok := v.(json.Number); !ok {
			return fmt.Errorf("%s: want a number", path)
		}
	case kindNumbers:
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array of numbers", path)
		}
		for i, e := range arr {
			if _, ok := e.(json.Number); !ok {
				return fmt.Errorf("%s[%d]: want a number", path, i)
			}
		}
	case kindUint:
		if !isUint(v, math.MaxUint32) {
			return fmt.Errorf("%s: want an unsigned integer", path)
		}
	case kindOperator:
		s, ok := v.(string)
		switch strings.TrimSpace(s) {
		case "or", "Or", "OR", "and", "And", "AND":
		default:
			ok = false
		}
		if !ok {
			return fmt.Errorf("%s: want \"or\" or \"and\"", path)
		}
	case kindFuzziness:
		if s, ok := v.(string); ok && strings.EqualFold(s, "auto") || v == nil || isUint(v, math.MaxUint8) {
			return nil
		}
		return fmt.Errorf("%s: want an unsigned integer up to 255, \"auto\" or null", path)
	case kindQuery:
		return checkQueryValue(v, path)
	case kindQueries:
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array of queries", path)
		}
		for i, e := range arr {
			if err := checkQueryValue(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case kindOccurQueries:
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array of [occur, query] pairs", path)
		}
		for i, e := range arr {
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 {
				return fmt.Errorf("%s[%d]: want a pair [occur, query]", path, i)
			}
			occur, _ := pair[0].(string)
			switch strings.TrimSpace(occur) {
			case "Should", "should", "SHOULD", "Must", "must", "MUST", "MustNot", "must_not", "MUST_NOT", "mustnot", "MUSTNOT":
			default:
				return fmt.Errorf("%s[%d][0]: want the occur should, must or must_not", path, i)
			}
			if err := checkQueryValue(pair[1], fmt.Sprintf("%s[%d][1]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// isUint reports whether v is a JSON integer in [0, max].
func isUint(v any, max uint64) bool {
	n, ok := v.(json.Number)
	if !ok || bytes.ContainsAny([]byte(n), ".eE-") {
		return false
	}
	var u uint64
	if _, err := fmt.Sscan(string(n), &u); err != nil {
		return false
	}
	return u <= max
}

func findField(qt queryType, key string) (queryField, bool) {
	for _, f := range qt.fields {
		if f.name == key || slices.Contains(f.aliases, key) {
			return f, true
		}
	}
	return queryField{}, false
}

// fieldNames lists a type's fields with their aliases.
func fieldNames(qt queryType) string {
	var out []string
	for _, f := range qt.fields {
		s := f.name
		if len(f.aliases) > 0 {
			s += " (" + strings.Join(f.aliases, ", ") + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
