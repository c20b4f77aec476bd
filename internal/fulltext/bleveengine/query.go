package bleveengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
)

// maxQueryDepth bounds the nesting of boolean queries.
const maxQueryDepth = 64

// ErrUnsupportedQuery reports a query of the native engine's language that this engine does not
// implement (multi_match, boost, fuzzy matching, sloppy phrases).
var ErrUnsupportedQuery = errors.New("query not supported by the bleve engine")

type matchSpec struct {
	Column         *string         `json:"column"`
	Query          *string         `json:"query"`
	Terms          *string         `json:"terms"`
	Operator       *string         `json:"operator"`
	Boost          *float64        `json:"boost"`
	Fuzziness      json.RawMessage `json:"fuzziness"`
	MaxExpansions  *uint64         `json:"max_expansions"`
	MaxExpansions2 *uint64         `json:"maxExpansions"`
	PrefixLength   *uint32         `json:"prefix_length"`
	PrefixLength2  *uint32         `json:"prefixLength"`
}

type phraseSpec struct {
	Column *string `json:"column"`
	Query  *string `json:"query"`
	Terms  *string `json:"terms"`
	Slop   *uint32 `json:"slop"`
}

type booleanSpec struct {
	Should  []json.RawMessage    `json:"should"`
	Must    []json.RawMessage    `json:"must"`
	MustNot []json.RawMessage    `json:"must_not"`
	Queries [][2]json.RawMessage `json:"queries"`
}

// buildQuery translates a JSON query into a bleve query over the reader's text field.
func (r *Reader) buildQuery(text string) (query.Query, error) {
	return r.parse([]byte(text), 0)
}

func (r *Reader) parse(raw []byte, depth int) (query.Query, error) {
	if depth > maxQueryDepth {
		return nil, fmt.Errorf("query nested deeper than %d levels", maxQueryDepth)
	}
	var top map[string]json.RawMessage
	if err := decodeStrict(raw, &top); err != nil {
		return nil, fmt.Errorf("invalid query: %w", err)
	}
	if len(top) != 1 {
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("invalid query: want an object with exactly one query type, got keys %q", keys)
	}
	var kind string
	var body json.RawMessage
	for k, v := range top {
		kind, body = k, v
	}
	switch kind {
	case "match":
		var s matchSpec
		if err := decodeStrict(body, &s); err != nil {
			return nil, fmt.Errorf("invalid match query: %w", err)
		}
		return r.match(s)
	case "match_phrase", "phrase":
		var s phraseSpec
		if err := decodeStrict(body, &s); err != nil {
			return nil, fmt.Errorf("invalid %s query: %w", kind, err)
		}
		return r.phrase(s)
	case "boolean":
		var s booleanSpec
		if err := decodeStrict(body, &s); err != nil {
			return nil, fmt.Errorf("invalid boolean query: %w", err)
		}
		return r.boolean(s, depth)
	case "multi_match", "boost":
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedQuery, kind)
	default:
		return nil, fmt.Errorf("invalid query: unknown query type %q", kind)
	}
}

// decodeStrict decodes one JSON value into v, rejecting unknown fields and trailing data.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the query")
	}
	return nil
}

func (r *Reader) field(column *string) (string, error) {
	if column == nil || strings.TrimSpace(*column) == "" {
		return r.cfg.textField, nil
	}
	if c := strings.TrimSpace(*column); c != r.cfg.textField {
		return "", fmt.Errorf("full-text query column %q is not configured for this index (it has %q)", c, r.cfg.textField)
	}
	return r.cfg.textField, nil
}

func queryText(q, terms *string) (string, error) {
	switch {
	case q != nil && terms != nil:
		return "", errors.New(`both "query" and "terms" given`)
	case q != nil:
		return *q, nil
	case terms != nil:
		return *terms, nil
	}
	return "", errors.New(`missing "query"`)
}

func (r *Reader) match(s matchSpec) (query.Query, error) {
	text, err := queryText(s.Query, s.Terms)
	if err != nil {
		return nil, fmt.Errorf("match query: %w", err)
	}
	field, err := r.field(s.Column)
	if err != nil {
		return nil, err
	}
	and := false
	if s.Operator != nil {
		switch strings.TrimSpace(*s.Operator) {
		case "Or", "or", "OR":
		case "And", "and", "AND":
			and = true
		default:
			return nil, fmt.Errorf("invalid full-text query operator: %s", *s.Operator)
		}
	}
	if err := checkFuzziness(s.Fuzziness); err != nil {
		return nil, err
	}
	for _, me := range []*uint64{s.MaxExpansions, s.MaxExpansions2} {
		if me != nil && *me == 0 {
			return nil, errors.New("match query max_expansions must be positive")
		}
	}
	var terms []query.Query
	seen := map[string]bool{}
	for _, t := range r.analyzer.Analyze([]byte(text)) {
		term := string(t.Term)
		if seen[term] {
			continue
		}
		seen[term] = true
		tq := query.NewTermQuery(term)
		tq.SetField(field)
		terms = append(terms, tq)
	}
	if len(terms) == 0 {
		return query.NewMatchNoneQuery(), nil
	}
	var q query.Query
	if and {
		q = query.NewConjunctionQuery(terms)
	} else {
		d := query.NewDisjunctionQuery(terms)
		d.SetMin(1)
		q = d
	}
	if s.Boost != nil && *s.Boost != 1 {
		bq, ok := q.(query.BoostableQuery)
		if !ok {
			return nil, fmt.Errorf("match query: cannot boost %T", q)
		}
		bq.SetBoost(*s.Boost)
	}
	return q, nil
}

// checkFuzziness accepts only exact matching: fuzziness absent or 0. The native engine's fuzzy
// matching (null/"auto", 1, 2) is not reproduced; values it rejects are rejected too.
func checkFuzziness(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("invalid fuzziness: %w", err)
	}
	switch f := v.(type) {
	case float64:
		switch f {
		case 0:
			return nil
		case 1, 2:
			return fmt.Errorf("%w: fuzziness %v", ErrUnsupportedQuery, f)
		}
		return errors.New("match query fuzziness must be auto/null or a value in [0, 2]")
	case nil:
		return fmt.Errorf("%w: automatic fuzziness", ErrUnsupportedQuery)
	case string:
		if strings.EqualFold(f, "auto") {
			return fmt.Errorf("%w: automatic fuzziness", ErrUnsupportedQuery)
		}
	}
	return fmt.Errorf("invalid fuzziness: %s", raw)
}

func (r *Reader) phrase(s phraseSpec) (query.Query, error) {
	text, err := queryText(s.Query, s.Terms)
	if err != nil {
		return nil, fmt.Errorf("match_phrase query: %w", err)
	}
	field, err := r.field(s.Column)
	if err != nil {
		return nil, err
	}
	if s.Slop != nil && *s.Slop != 0 {
		return nil, fmt.Errorf("%w: phrase slop %d", ErrUnsupportedQuery, *s.Slop)
	}
	if !r.cfg.withPosition {
		return nil, errors.New("phrase query requires positions")
	}
	tokens := r.analyzer.Analyze([]byte(text))
	if len(tokens) == 0 {
		return query.NewMatchNoneQuery(), nil
	}
	if len(tokens) == 1 {
		tq := query.NewTermQuery(string(tokens[0].Term))
		tq.SetField(field)
		return tq, nil
	}
	// Positions removed by filters (stop words) stay as gaps, which bleve's phrase matching
	// skips over.
	first, last := tokens[0].Position, tokens[len(tokens)-1].Position
	if last < first || last-first > len(text) {
		return nil, fmt.Errorf("match_phrase query: unexpected token positions %d..%d", first, last)
	}
	terms := make([]string, last-first+1)
	for _, t := range tokens {
		i := t.Position - first
		if i < 0 || i >= len(terms) {
			return nil, fmt.Errorf("match_phrase query: unexpected token position %d", t.Position)
		}
		terms[i] = string(t.Term)
	}
	return query.NewPhraseQuery(terms, field), nil
}

func (r *Reader) boolean(s booleanSpec, depth int) (query.Query, error) {
	if len(s.Should)+len(s.Must)+len(s.MustNot)+len(s.Queries) == 0 {
		return nil, errors.New("boolean query must contain at least one clause")
	}
	var must, should, mustNot []query.Query
	add := func(to *[]query.Query, raw json.RawMessage) error {
		q, err := r.parse(raw, depth+1)
		if err != nil {
			return err
		}
		*to = append(*to, q)
		return nil
	}
	for _, c := range s.Should {
		if err := add(&should, c); err != nil {
			return nil, err
		}
	}
	for _, c := range s.Must {
		if err := add(&must, c); err != nil {
			return nil, err
		}
	}
	for _, c := range s.MustNot {
		if err := add(&mustNot, c); err != nil {
			return nil, err
		}
	}
	for _, pair := range s.Queries {
		var occur string
		if err := json.Unmarshal(pair[0], &occur); err != nil {
			return nil, fmt.Errorf("invalid boolean query occur: %w", err)
		}
		var err error
		switch strings.TrimSpace(occur) {
		case "Should", "should", "SHOULD":
			err = add(&should, pair[1])
		case "Must", "must", "MUST":
			err = add(&must, pair[1])
		case "MustNot", "must_not", "MUST_NOT", "mustnot", "MUSTNOT":
			err = add(&mustNot, pair[1])
		default:
			return nil, fmt.Errorf("invalid boolean query occur: %s", occur)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(must) == 0 && len(should) == 0 {
		return nil, errors.New("boolean query must contain at least one should or must clause")
	}
	b := query.NewBooleanQuery(must, should, mustNot)
	if len(must) == 0 {
		// Without a must clause a document has to match at least one should clause.
		b.SetMinShould(1)
	}
	return b, nil
}
