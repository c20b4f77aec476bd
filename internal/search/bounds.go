package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// Default query bounds. The engine's cost grows much faster than linearly with the number of
// terms of a query (a 40,000-character query of repeated words runs for minutes on an ngram
// archive), and it recurses over nested boolean queries, so pkft refuses queries beyond these
// bounds before any archive is opened. Java Paimon passes every query through unchecked; the
// bounds are a pkft addition, configurable per search (Bounds).
const (
	// DefaultMaxQueryBytes bounds the length of the query string in bytes.
	DefaultMaxQueryBytes = 16 << 10
	// DefaultMaxQueryTerms bounds the number of words in the query's strings.
	DefaultMaxQueryTerms = 1024
	// DefaultMaxQueryDepth bounds the nesting of JSON objects and arrays in a JSON query; one
	// level of boolean query takes three (the boolean object, its body and a clause list).
	DefaultMaxQueryDepth = 64
)

// ErrQueryBound reports a query that exceeds one of the search's Bounds.
var ErrQueryBound = errors.New("full-text query exceeds a bound")

// ErrInvalidQuery reports a query that starts as a JSON object but is not valid JSON.
var ErrInvalidQuery = errors.New("invalid full-text query")

// Bounds limit the size and shape of a search query. A zero field takes its default; a
// negative one disables that bound.
type Bounds struct {
	// MaxBytes bounds the query string's length in bytes (default DefaultMaxQueryBytes).
	MaxBytes int
	// MaxTerms bounds the number of words in the query: maximal runs of letters, digits and
	// marks in the plain words or in the JSON query's string values, each Han, Hiragana,
	// Katakana or Hangul character counting as one word (default DefaultMaxQueryTerms).
	MaxTerms int
	// MaxDepth bounds the nesting of objects and arrays of a JSON query (default
	// DefaultMaxQueryDepth).
	MaxDepth int
}

func (b Bounds) withDefaults() Bounds {
	if b.MaxBytes == 0 {
		b.MaxBytes = DefaultMaxQueryBytes
	}
	if b.MaxTerms == 0 {
		b.MaxTerms = DefaultMaxQueryTerms
	}
	if b.MaxDepth == 0 {
		b.MaxDepth = DefaultMaxQueryDepth
	}
	return b
}

// CheckQuery checks the request query q (plain words or a JSON object, as Request.Query) against
// b and, for a JSON query, that it is one valid JSON value and a query of the engine's language
// (ValidateQuery). The error names the bound exceeded or the unknown query type or field and
// quotes at most the start of the query.
func CheckQuery(q string, b Bounds) error {
	b = b.withDefaults()
	if b.MaxBytes > 0 && len(q) > b.MaxBytes {
		return fmt.Errorf("%w: query %s is longer than the maximum of %d bytes (max query bytes)",
			ErrQueryBound, fulltext.QuoteQuery(q), b.MaxBytes)
	}
	if !isJSONQuery(q) {
		if n := countTerms(q, b.MaxTerms); b.MaxTerms > 0 && n > b.MaxTerms {
			return termsError(q, b.MaxTerms)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(q)))
	dec.UseNumber()
	depth, terms, values := 0, 0, 0
	// inObject[i] tells whether container i is an object; keyNext whether the innermost
	// object's next token is a key (keys are not searched, so they are not terms).
	var inObject []bool
	keyNext := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if depth > 0 {
				return fmt.Errorf("%w: query %s is not valid JSON: it ends inside an object or array", ErrInvalidQuery, fulltext.QuoteQuery(q))
			}
			break
		}
		if err != nil {
			return fmt.Errorf("%w: query %s is not valid JSON (at byte %d): %v", ErrInvalidQuery, fulltext.QuoteQuery(q), dec.InputOffset(), err)
		}
		if depth == 0 {
			if values++; values > 1 {
				return fmt.Errorf("%w: query %s has data after its JSON object (at byte %d)", ErrInvalidQuery, fulltext.QuoteQuery(q), dec.InputOffset())
			}
		}
		isKey := keyNext
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				inObject = append(inObject, v == '{')
				depth++
				if b.MaxDepth > 0 && depth > b.MaxDepth {
					return fmt.Errorf("%w: query %s nests objects and arrays deeper than the maximum of %d levels (max query depth)",
						ErrQueryBound, fulltext.QuoteQuery(q), b.MaxDepth)
				}
			} else {
				depth--
				inObject = inObject[:len(inObject)-1]
			}
		case string:
			if b.MaxTerms > 0 && !isKey {
				terms += countTerms(v, b.MaxTerms-terms)
				if terms > b.MaxTerms {
					return termsError(q, b.MaxTerms)
				}
			}
		}
		// In an object keys and values alternate; a container that ends was a value.
		inObj := len(inObject) > 0 && inObject[len(inObject)-1]
		switch tok {
		case json.Delim('{'):
			keyNext = true
		case json.Delim('['):
			keyNext = false
		case json.Delim('}'), json.Delim(']'):
			keyNext = inObj
		default:
			keyNext = inObj && !isKey
		}
	}
	return ValidateQuery(q)
}

func termsError(q string, max int) error {
	return fmt.Errorf("%w: query %s has more than the maximum of %d terms (max query terms)", ErrQueryBound, fulltext.QuoteQuery(q), max)
}

// isJSONQuery reports whether q is taken as the engine's JSON query (EngineQuery).
func isJSONQuery(q string) bool {
	for _, r := range q {
		if !unicode.IsSpace(r) {
			return r == '{'
		}
	}
	return false
}

// countTerms counts the words of s, stopping once more than limit are seen (limit < 0: no stop).
func countTerms(s string, limit int) int {
	n, in := 0, false
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if !in {
				n++
			}
			in = true
		default:
			in = false
		}
		if limit >= 0 && n > limit {
			return n
		}
	}
	return n
}
