// Package definition resolves a table's sorted-family index definitions (pk-btree and pk-bitmap
// columns) from its options and fields, as Java's PrimaryKeyIndexDefinitions does for these two
// families: one definition per indexed field, in field order, a column listed for both families
// taking the btree one.
package definition

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/impl/internal/javacompat"

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

// recordsPerRange is the table option Java drops from every sorted index's options.
const recordsPerRange = "sorted-index.records-per-range"

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

// IndexOptions resolves the options of the sorted index of indexType ("btree" or "bitmap") on
// column, as Java's CoreOptions#primaryKeyBTreeIndexOptions / primaryKeyBitmapIndexOptions do:
// every table option except sorted-index.records-per-range, plus the JSON object in
// fields.<column>.pk-<family>.index.options, whose keys are qualified with the algorithm prefix
// (btree-index. or bitmap-index.) unless they already carry it or start with "fields.". It fails
// on a value that is not a JSON object of string values, an empty key, or a key whose value
// conflicts with the table's.
func IndexOptions(tableOptions map[string]string, column, indexType string) (map[string]string, error) {
	var family, prefix string
	switch indexType {
	case btree.Identifier:
		family, prefix = "pk-btree", "btree-index."
	case bitmap.Identifier:
		family, prefix = "pk-bitmap", "bitmap-index."
	default:
		return nil, fmt.Errorf("sorted index type %q is neither btree nor bitmap", indexType)
	}
	resolved := maps.Clone(tableOptions)
	if resolved == nil {
		resolved = map[string]string{}
	}
	delete(resolved, recordsPerRange)
	key := "fields." + column + "." + family + ".index.options"
	serialized, ok := tableOptions[key]
	if !ok || javacompat.Trim(serialized) == "" {
		return resolved, nil
	}
	var parsed map[string]*string
	if err := json.Unmarshal([]byte(serialized), &parsed); err != nil || parsed == nil {
		return nil, fmt.Errorf("%s must be a JSON object of option key-value pairs.", key)
	}
	for _, k := range slices.Sorted(maps.Keys(parsed)) {
		v := parsed[k]
		if javacompat.Trim(k) == "" {
			return nil, fmt.Errorf("%s contains an empty option key.", key)
		}
		if v == nil {
			return nil, fmt.Errorf("%s value for key %s must not be null.", key, k)
		}
		qualified := k
		if !strings.HasPrefix(k, prefix) && !strings.HasPrefix(k, "fields.") {
			qualified = prefix + k
		}
		if previous, ok := resolved[qualified]; ok && previous != *v {
			return nil, fmt.Errorf("%s defines conflicting values for %s.", key, qualified)
		}
		resolved[qualified] = *v
	}
	return resolved, nil
}
