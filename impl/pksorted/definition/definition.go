// Package definition resolves a table's sorted-family index definitions (pk-btree and pk-bitmap
// columns) from its options and fields, as Java's PrimaryKeyIndexDefinitions does for these two
// families: one definition per indexed field, in field order, a column listed for both families
// taking the btree one.
package definition

import (
	"slices"

	"github.com/paimon-pkft/pkft/impl/pkindex"
	"github.com/paimon-pkft/pkft/impl/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/impl/pksorted/btree"
	"github.com/paimon-pkft/pkft/impl/types"
)

// The table options that name the indexed columns.
const (
	BTreeColumnsOption  = "pk-btree.index.columns"
	BitmapColumnsOption = "pk-bitmap.index.columns"
)

// Definition is one sorted index of a table.
type Definition struct {
	// Column is the indexed column's name.
	Column string
	// FieldID is its field id, the payloads' index field id.
	FieldID int32
	// IndexType is "btree" or "bitmap", the payloads' index type.
	IndexType string
}

// FromSchema returns the sorted definitions of a table with options and fields, in field order.
// Listed columns that are no field are skipped (Java's schema validation refuses them first).
func FromSchema(options map[string]string, fields []types.DataField) []Definition {
	btreeCols, bitmapCols := pkindex.IndexColumns(options, BTreeColumnsOption), pkindex.IndexColumns(options, BitmapColumnsOption)
	var out []Definition
	for _, f := range fields {
		switch {
		case slices.Contains(btreeCols, f.Name):
			out = append(out, Definition{Column: f.Name, FieldID: int32(f.ID), IndexType: btree.Identifier})
		case slices.Contains(bitmapCols, f.Name):
			out = append(out, Definition{Column: f.Name, FieldID: int32(f.ID), IndexType: bitmap.Identifier})
		}
	}
	return out
}
