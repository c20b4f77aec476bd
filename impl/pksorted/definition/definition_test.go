package definition

import (
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/impl/types"
)

func TestFromSchemaFollowsFieldOrder(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "id"}, {ID: 3, Name: "status"}, {ID: 5, Name: "price"}, {ID: 6, Name: "both"}}
	got := FromSchema(map[string]string{
		BTreeColumnsOption:  " price , both,missing",
		BitmapColumnsOption: "status,both",
	}, fields)
	want := []Definition{{"status", 3, "bitmap"}, {"price", 5, "btree"}, {"both", 6, "btree"}}
	if !slices.Equal(got, want) {
		t.Fatalf("FromSchema = %v, want %v", got, want)
	}
	if d := FromSchema(map[string]string{}, fields); d != nil {
		t.Fatalf("no options: %v", d)
	}
}
