package scan

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
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

// TestRawConvertible checks MergeTreeSplitGenerator's rule for reading a bucket raw: every file
// above level 0 without delete rows (no count counts as none), and deletion vectors, the
// first-row engine or a single level.
func TestRawConvertible(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	file := func(level int32, deletes *int64) *meta.DataFileMeta {
		return &meta.DataFileMeta{Level: level, DeleteRowCount: deletes}
	}
	dedup, firstRow := &mergetree.Merge{}, &mergetree.Merge{Engine: mergetree.FirstRow}
	for _, c := range []struct {
		name  string
		files []*meta.DataFileMeta
		h     how
		want  bool
	}{
		{"dv, two levels", []*meta.DataFileMeta{file(1, n(0)), file(5, nil)}, how{merge: dedup, dvOn: true}, true},
		{"dv, delete rows", []*meta.DataFileMeta{file(1, n(2)), file(5, n(0))}, how{merge: dedup, dvOn: true}, false},
		{"dv, level 0", []*meta.DataFileMeta{file(0, n(0))}, how{merge: dedup, dvOn: true}, false},
		{"first-row, two levels", []*meta.DataFileMeta{file(2, n(0)), file(5, n(0))}, how{merge: firstRow}, true},
		{"no dv, one level", []*meta.DataFileMeta{file(5, n(0)), file(5, n(0))}, how{merge: dedup}, true},
		{"no dv, two levels", []*meta.DataFileMeta{file(4, n(0)), file(5, n(0))}, how{merge: dedup}, false},
		{"no files", nil, how{merge: dedup}, true},
	} {
		if got := rawConvertible(c.files, c.h); got != c.want {
			t.Errorf("%s: rawConvertible = %v, want %v", c.name, got, c.want)
		}
	}
}
