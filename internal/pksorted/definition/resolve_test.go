package definition

import (
	"maps"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

func sortedSchema(opts map[string]string) *schema.TableSchema {
	base := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}
	maps.Copy(base, opts)
	return &schema.TableSchema{
		Fields: []types.DataField{
			{ID: 0, Name: "id", Type: types.Int().AsNotNull()},
			{ID: 1, Name: "price", Type: types.Int()},
			{ID: 2, Name: "tag", Type: types.String()},
			{ID: 3, Name: "blob", Type: types.Bytes()},
		},
		PrimaryKeys: []string{"id"},
		Options:     base,
	}
}

// TestResolve checks the definitions come in field order with their options,
// and that what Java's SchemaValidation refuses is refused with its message.
func TestResolve(t *testing.T) {
	defs, err := Resolve(sortedSchema(map[string]string{
		BitmapColumnsOption: "tag", BTreeColumnsOption: "price", "btree-index.block-size": "4 kb"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 2 || defs[0].Column != "price" || defs[0].IndexType != "btree" || defs[0].FieldID != 1 ||
		defs[1].Column != "tag" || defs[1].IndexType != "bitmap" || defs[1].Field.Name != "tag" {
		t.Fatalf("definitions %+v", defs)
	}
	if defs[0].Options["btree-index.block-size"] != "4 kb" {
		t.Errorf("btree options %v", defs[0].Options)
	}
	if defs, err := Resolve(sortedSchema(nil)); err != nil || defs != nil {
		t.Errorf("no sorted index: %v, %v", defs, err)
	}
	noPK := sortedSchema(map[string]string{BTreeColumnsOption: "price"})
	noPK.PrimaryKeys = nil
	for name, c := range map[string]struct {
		s    *schema.TableSchema
		want string
	}{
		"no deletion vectors": {sortedSchema(map[string]string{BTreeColumnsOption: "price", "deletion-vectors.enabled": "false"}),
			"Primary-key BTree and Bitmap indexes require deletion-vectors.enabled = true."},
		"no primary key": {noPK, "Primary-key BTree and Bitmap indexes require a primary-key table."},
		"dynamic bucket": {sortedSchema(map[string]string{BitmapColumnsOption: "tag", "bucket": "-1"}),
			"require fixed or postpone bucket mode (bucket > 0 or bucket = -2), but bucket is -1."},
		"merge on read": {sortedSchema(map[string]string{BitmapColumnsOption: "tag", "deletion-vectors.merge-on-read": "true"}),
			"require deletion-vectors.merge-on-read = false."},
		"clustering override": {sortedSchema(map[string]string{BitmapColumnsOption: "tag", "pk-clustering-override": "true"}),
			"do not support pk-clustering-override."},
		"missing column": {sortedSchema(map[string]string{BTreeColumnsOption: "price,nope"}),
			"pk-btree.index.columns entry 'nope' must reference an existing column."},
		"unsupported type":      {sortedSchema(map[string]string{BTreeColumnsOption: "blob"}), "not supported"},
		"unknown format option": {sortedSchema(map[string]string{BTreeColumnsOption: "price", "btree-index.no-such": "1"}), "btree-index.no-such"},
	} {
		if _, err := Resolve(c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}
