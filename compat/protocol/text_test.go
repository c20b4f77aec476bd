package protocol

import "testing"

// A hit's text is its string, nil for null or none, and an error for another JSON value.
func TestTextString(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want *string
		err  bool
	}{{`"caf\u00e9 <b>"`, new("café <b>"), false}, {`null`, nil, false}, {``, nil, false}, {`12`, nil, true}} {
		got, err := SearchResponseResult{Text: []byte(c.raw)}.TextString()
		if (err != nil) != c.err || (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("TextString of %q: %v, %v; want %v (error %v)", c.raw, got, err, c.want, c.err)
		}
	}
}
