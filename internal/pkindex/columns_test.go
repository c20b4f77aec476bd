package pkindex

import (
	"strings"
	"testing"
)

// TestValidateIndexColumns checks SchemaValidation#validatePrimaryKeyIndexColumns: a list naming
// a column twice and a column owning two indexes are refused with Java's messages; the
// duplicates of every list are checked before the ownership.
func TestValidateIndexColumns(t *testing.T) {
	if err := ValidateIndexColumns(map[string]string{BTreeColumnsOption: "a, b", BitmapColumnsOption: "c",
		FullTextColumnsOption: "d", VectorColumnsOption: "e"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{BitmapColumnsOption: "a, a"}, "pk-bitmap.index.columns must not contain duplicate columns, but is [a, a]."},
		{map[string]string{BTreeColumnsOption: "a", FullTextColumnsOption: "a"}, "Column 'a' can own at most one primary-key index."},
		{map[string]string{VectorColumnsOption: "a", BTreeColumnsOption: "a", FullTextColumnsOption: "b,b"},
			"pk-full-text.index.columns must not contain duplicate columns"},
	} {
		if err := ValidateIndexColumns(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.opts, err, c.want)
		}
	}
}
