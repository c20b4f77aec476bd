package search

import (
	"errors"
	"strings"
	"testing"
)

// ValidateQuery accepts the engine's query language (paimon-ftindex 0.1.0's QuerySpec, with
// serde's aliases) and refuses unknown types and fields by name.
func TestValidateQuery(t *testing.T) {
	valid := []string{
		"lake format",
		`{"match":{"query":"lake"}}`,
		`{"match":{"terms":"lake","column":null,"operator":"AND","boost":2,"fuzziness":"auto","maxExpansions":10,"prefix_length":1}}`,
		`{"match":{"query":"lake","fuzziness":2}}`,
		`{"match":{"query":"lake","fuzziness":255}}`,
		`{"match":{"query":"lake","fuzziness":"AUTO"}}`,
		`{"match":{"query":"lake","fuzziness":null}}`,
		`{"multi_match":{"query":"lake","columns":["a","b"],"boost":[1,2]}}`,
		`{"match_phrase":{"query":"lake format","slop":1}}`,
		`{"phrase":{"terms":"lake format"}}`,
		`{"boolean":{"must":[{"match":{"query":"a"}}],"must_not":[],"queries":[["should",{"phrase":{"query":"b c"}}]]}}`,
		`{"boost":{"positive":{"match":{"query":"a"}},"negative":{"match":{"query":"b"}},"negative_boost":0.2}}`,
	}
	for _, q := range valid {
		if err := ValidateQuery(q); err != nil {
			t.Errorf("ValidateQuery(%s): %v", q, err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{`{"fuzzy":{"query":"lake"}}`, `unknown query type "fuzzy"`},
		{`{"match":{"qury":"lake"}}`, `query.match: unknown field "qury"`},
		{`{"match":{"query":"lake","opertor":"and"}}`, `unknown field "opertor"`},
		{`{"match":{"column":"content"}}`, `missing required field "query" (or "terms")`},
		{`{"match":{"query":"lake","operator":"xor"}}`, `query.match.operator: want "or" or "and"`},
		{`{"match":{"query":"lake","fuzziness":300}}`, `fuzziness: want an unsigned integer up to 255`},
		{`{"match":{"query":"lake","fuzziness":256}}`, `fuzziness: want an unsigned integer up to 255`},
		{`{"match":{"query":"lake","fuzziness":2.5}}`, `fuzziness: want an unsigned integer up to 255`},
		{`{"match":{"query":"lake","fuzziness":-1}}`, `fuzziness: want an unsigned integer up to 255`},
		{`{"match":{"query":"lake","fuzziness":"fast"}}`, `fuzziness: want an unsigned integer up to 255`},
		{`{"match":{"qury":"lake"}}`, `the query takes column, terms (query), boost, `},
		{`{"boolean":{"queries":[["should",{"match":{"query":"a"}},"extra"]]}}`, `query.boolean.queries[0]: want a pair [occur, query]`},
		{`{"boolean":{"queries":[["should",{"match":{"query":"a"}}],["must",{"fuzzy":{}}]]}}`, `query.boolean.queries[1][1]: unknown query type "fuzzy"`},
		{`{"match":{"query":"lake","query":"x","terms":"y"}}`, `are the same field (terms)`},
		{`{"match":{"query":1}}`, `query.match.query: want a string`},
		{`{"multi_match":{"query":"lake"}}`, `missing required field "columns"`},
		{`{"boolean":{"must":[{"fuzzy":{}}]}}`, `query.boolean.must[0]: unknown query type "fuzzy"`},
		{`{"boolean":{"queries":[["maybe",{"match":{"query":"a"}}]]}}`, `want the occur`},
		{`{"boost":{"positive":{"match":{"query":"a"}}}}`, `missing required field "negative"`},
		{`{"match":{"query":"a"},"phrase":{"query":"b"}}`, `want exactly one query type`},
		{`{}`, `want exactly one query type`},
		{`{"match":"lake"}`, `query.match: want an object of its fields`},
	} {
		err := ValidateQuery(c.q)
		if !errors.Is(err, ErrUnknownQuery) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ValidateQuery(%s) = %v, want ErrUnknownQuery saying %q", c.q, err, c.want)
		}
	}
	if err := ValidateQuery(`{"match":`); !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("truncated JSON: %v", err)
	}
}
