package scan

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestCheck checks the tables Go's scan refuses are refused by name and the others pass.
func TestCheck(t *testing.T) {
	base := func(opts map[string]string, pks ...string) *schema.TableSchema {
		return &schema.TableSchema{Fields: []types.DataField{types.Field(0, "id", types.Int())}, PrimaryKeys: pks, Options: opts}
	}
	for _, c := range []struct {
		s    *schema.TableSchema
		want string
	}{
		{base(nil), "no primary key"},
		{base(map[string]string{"merge-engine": "aggregation"}, "id"), "merge-engine"},
		{base(map[string]string{"merge-engine": "first-row"}, "id"), "merge-engine"},
		{base(map[string]string{"sequence.field": "id"}, "id"), "sequence.field"},
		{base(map[string]string{"deletion-vectors.merge-on-read": "true"}, "id"), "merge-on-read"},
	} {
		if err := Check(c.s); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v): %v, want ErrUnsupported naming %s", c.s.Options, err, c.want)
		}
	}
	for _, opts := range []map[string]string{nil, {"merge-engine": "deduplicate"}, {"deletion-vectors.enabled": "true"}} {
		if err := Check(base(opts, "id")); err != nil {
			t.Errorf("Check(%v): %v", opts, err)
		}
	}
}
