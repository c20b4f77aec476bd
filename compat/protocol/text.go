package protocol

import (
	"encoding/json"
	"fmt"
)

// TextString is the hit's text as the runners answer it (a JSON string, or null for a NULL
// text): its string, or nil for null or no text. The schema leaves text any JSON value, so its
// type is json.RawMessage; another value than a string or null is an error.
func (r SearchResponseResult) TextString() (*string, error) {
	if len(r.Text) == 0 || string(r.Text) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(r.Text, &s); err != nil {
		return nil, fmt.Errorf("search hit text %.100s is not a string: %w", r.Text, err)
	}
	return &s, nil
}
