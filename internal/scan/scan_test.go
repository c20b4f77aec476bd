package scan

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestCheck checks the tables Go's scan refuses are refused by name (append tables,
// deletion-vectors.merge-on-read, and the merges internal/mergetree does not implement or Java
// refuses) and every merge engine, with or without a sequence field, passes.
func TestCheck(t *testing.T) {
	base := func(opts map[string]string, pks ...string) *schema.TableSchema {
		return &schema.TableSchema{Fields: []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "v", types.Int())}, PrimaryKeys: pks, Options: opts}
	}
	for _, c := range []struct {
		s    *schema.TableSchema
		want string
	}{
		{base(nil), "no primary key"},
		{base(map[string]string{"deletion-vectors.merge-on-read": "true"}, "id"), "merge-on-read"},
		{base(map[string]string{"merge-engine": "lookup-merge"}, "id"), "lookup-merge"},
		{base(map[string]string{"merge-engine": "first-row", "deletion-vectors.enabled": "true"}, "id"), "First row merge engine does not need deletion vectors"},
		{base(map[string]string{"merge-engine": "partial-update", "fields.default-aggregate-function": "last_non_null_value"}, "id"), "not yet wired for partial-update"},
		{base(map[string]string{"sequence.field": "nosuch"}, "id"), "nosuch"},
	} {
		if err := Check(c.s); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v): %v, want ErrUnsupported naming %s", c.s.Options, err, c.want)
		}
	}
	for _, opts := range []map[string]string{nil, {"merge-engine": "deduplicate"}, {"deletion-vectors.enabled": "true"},
		{"merge-engine": "aggregation"}, {"merge-engine": "first-row"}, {"merge-engine": "partial-update", "deletion-vectors.enabled": "true"},
		{"sequence.field": "id"}} {
		if err := Check(base(opts, "id")); err != nil {
			t.Errorf("Check(%v): %v", opts, err)
		}
	}
}
