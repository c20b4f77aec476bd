package schema

import "testing"

func TestBoolOption(t *testing.T) {
	opts := map[string]string{"a": " TRUE ", "b": "false", "c": "yes"}
	for _, tc := range []struct {
		key       string
		def, want bool
	}{{"a", false, true}, {"b", true, false}, {"missing", true, true}, {"missing", false, false}} {
		if got, err := BoolOption(opts, tc.key, tc.def); err != nil || got != tc.want {
			t.Errorf("%s (default %v): %v, %v; want %v", tc.key, tc.def, got, err, tc.want)
		}
	}
	if _, err := BoolOption(opts, "c", true); err == nil {
		t.Error(`"yes" accepted`)
	}
}
