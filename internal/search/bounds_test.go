package search

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckQuery(t *testing.T) {
	repeated := strings.Repeat("lake fox river 数据 quick ", 4000)
	nested := func(levels int) string {
		q := `{"match":{"query":"lake"}}`
		for range levels {
			q = `{"boolean":{"should":[` + q + `,{"match":{"query":"fox"}}]}}`
		}
		return q
	}
	for _, c := range []struct {
		name   string
		query  string
		bounds Bounds
		err    error
		want   string
	}{
		{"plain words", "lake format", Bounds{}, nil, ""},
		{"JSON", `{"match_phrase":{"query":"lake format"}}`, Bounds{}, nil, ""},
		{"bytes", repeated, Bounds{}, ErrQueryBound, "... (112000 bytes) is longer than the maximum of 16384 bytes (max query bytes)"},
		{"bytes lifted", repeated, Bounds{MaxBytes: -1, MaxTerms: -1}, nil, ""},
		{"bytes at the bound", strings.Repeat("a", 16384), Bounds{}, nil, ""},
		{"a byte over the bound", strings.Repeat("a", 16385), Bounds{}, ErrQueryBound, "(16385 bytes) is longer than the maximum of 16384 bytes"},
		{"digits are terms", "12 34", Bounds{MaxTerms: 1}, ErrQueryBound, "maximum of 1 terms"},
		{"marks are terms", "\u0301\u0301 \u0301", Bounds{MaxTerms: 1}, ErrQueryBound, "maximum of 1 terms"},
		{"terms", strings.Repeat("lake ", 1025), Bounds{}, ErrQueryBound, "more than the maximum of 1024 terms (max query terms)"},
		{"terms at the bound", strings.Repeat("lake ", 1024), Bounds{}, nil, ""},
		{"Han characters are terms", strings.Repeat("数", 11), Bounds{MaxTerms: 10}, ErrQueryBound, "maximum of 10 terms"},
		{"terms of a JSON query", `{"boolean":{"should":[{"match":{"query":"a b c"}},{"match":{"query":"d e"}}]}}`, Bounds{MaxTerms: 4}, ErrQueryBound, "maximum of 4 terms"},
		{"depth", nested(30), Bounds{}, ErrQueryBound, "deeper than the maximum of 64 levels (max query depth)"},
		{"depth within", nested(20), Bounds{}, nil, ""},
		{"depth at the bound", `{"match":{"query":"lake"}}`, Bounds{MaxDepth: 2}, nil, ""},
		{"a level over the bound", `{"match":{"query":"lake"}}`, Bounds{MaxDepth: 1}, ErrQueryBound, "deeper than the maximum of 1 levels"},
		{"depth lifted", nested(30), Bounds{MaxDepth: -1}, nil, ""},
		{"keys are not terms", `{"match":{"fuzziness":2,"query":"a b c d"}}`, Bounds{MaxTerms: 4}, nil, ""},
		{"keys after nested values are not terms", `{"boolean":{"must":[{"match":{"query":"a"}}],"should":[{"match":{"query":"b"}}],"must_not":[]}}`, Bounds{MaxTerms: 2}, nil, ""},
		{"unterminated", `{"match":`, Bounds{}, ErrInvalidQuery, "ends inside an object or array"},
		{"bad token", `{"match":{"query":lake}}`, Bounds{}, ErrInvalidQuery, "is not valid JSON (at byte"},
		{"trailing", `{"match":{"query":"lake"}} {}`, Bounds{}, ErrInvalidQuery, "has data after its JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckQuery(c.query, c.bounds)
			if c.err == nil {
				if err != nil {
					t.Fatalf("CheckQuery: %v", err)
				}
				return
			}
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("CheckQuery = %v, want %v containing %q", err, c.err, c.want)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("the message is %d bytes long; the query must be cut: %.400s", len(err.Error()), err)
			}
		})
	}
}
