package schema

import (
	"fmt"
	"strings"
)

// BoolOption reads the boolean table option key from opts: "true" or "false", case-insensitive
// and trimmed; def when the option is absent; an error naming the option for any other value.
func BoolOption(opts map[string]string, key string, def bool) (bool, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("option %s: %q is not a boolean", key, v)
}
