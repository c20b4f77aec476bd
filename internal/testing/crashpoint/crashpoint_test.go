package crashpoint

import (
	"encoding/json"
	"testing"
)

func TestCleanable(t *testing.T) {
	for rel, want := range map[string]bool{
		"manifest/manifest-x-0":                      true,
		"manifest/.manifest-x-0.uuid.tmp":            true,
		"index/index-x-0":                            true,
		"statistics/stat-x-0":                        true,
		"snapshot/.snapshot-9.uuid.tmp":              true,
		"region=eu/dt=1/bucket-0/data-x-0.parquet":   true,
		"bucket-0/data-x-0.parquet":                  true,
		"snapshot/snapshot-9":                        false,
		"snapshot/LATEST":                            false,
		"schema/schema-3":                            false,
		"region=eu/dt=1/data-x-0.parquet":            false,
		"manifest/sub/manifest-x-0":                  false,
		"tag/tag-1":                                  false,
		"region=eu/dt=1/bucket-0/index-x-0":          true,
		"region=eu/dt=1/bucket-0/.data-x-0.uuid.tmp": true,
	} {
		if got := cleanable(rel); got != want {
			t.Errorf("cleanable(%s) = %v, want %v", rel, got, want)
		}
	}
}

func TestNormalizedNamesAndOrder(t *testing.T) {
	a := sortArrays(map[string]any{"x": []any{"b", "a", []any{2.0, 1.0}}})
	b := sortArrays(map[string]any{"x": []any{[]any{1.0, 2.0}, "a", "b"}})
	if stripID(`{"snapshotId":3,"x":1}`) != stripID(`{"snapshotId":14,"x":1}`) || stripID(`{"x":1,"snapshotId":3}`) != stripID(`{"x":1,"snapshotId":4}`) {
		t.Error("stripID")
	}
	if got, want := fileName.ReplaceAllString("data-0a1b2c3d-0000-1111-2222-333344445555-0.parquet index-0a1b2c3d-0000-1111-2222-333344445555-12", "NEW"), "NEW NEW"; got != want {
		t.Errorf("file names: %q", got)
	}
	if fmtJSON(a) != fmtJSON(b) {
		t.Errorf("sorted arrays differ: %s vs %s", fmtJSON(a), fmtJSON(b))
	}
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
