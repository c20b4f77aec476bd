// Package definition resolves a table's sorted-family index definitions (pk-btree and pk-bitmap
// columns) from its options and fields, as Java's PrimaryKeyIndexDefinitions does for these two
// families: one definition per indexed field, in field order, a column listed for both families
// taking the btree one. Resolve also runs Java's schema checks of the family
// (SchemaValidation#validatePrimaryKeySortedIndexes) and resolves each index's field and options.
package definition

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/javacompat"

	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The table options that name the indexed columns.
const (
	BTreeColumnsOption  = pkindex.BTreeColumnsOption
	BitmapColumnsOption = pkindex.BitmapColumnsOption
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
// as Java does on a value that is not a JSON object, an empty key, or a key whose value conflicts
// with the table's, and refuses values Java would re-serialize (see parseOptionsObject).
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
	keys, values, err := parseOptionsObject(serialized)
	if err != nil {
		return nil, fmt.Errorf("%s %w", key, err)
	}
	for _, k := range keys {
		v := values[k]
		if javacompat.Trim(k) == "" {
			return nil, fmt.Errorf("%s contains an empty option key.", key)
		}
		qualified := k
		if !strings.HasPrefix(k, prefix) && !strings.HasPrefix(k, "fields.") {
			qualified = prefix + k
		}
		if previous, ok := resolved[qualified]; ok && previous != v {
			return nil, fmt.Errorf("%s defines conflicting values for %s.", key, qualified)
		}
		resolved[qualified] = v
	}
	return resolved, nil
}

// errNotOptionsObject ends the message of a column's index options that are no JSON object.
var errNotOptionsObject = errors.New("must be a JSON object of option key-value pairs.")

// parseOptionsObject reads a JSON object as Java's JsonSerdeUtil.parseJsonMap(s, String.class)
// does: keys in order of first appearance (a repeated key keeps its place and takes its last
// value), string values as they are, other values as their JSON text (null, true, false and
// integers; fractions, exponents, objects and arrays are refused, since Java re-serializes them
// with its own number and escape formatting); anything after the object is ignored.
func parseOptionsObject(s string) ([]string, map[string]string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errNotOptionsObject
	}
	var keys []string
	values := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, errNotOptionsObject
		}
		k, _ := tok.(string)
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, errNotOptionsObject
		}
		var v string
		switch x := raw.(type) {
		case string:
			v = x
		case nil:
			v = "null"
		case bool:
			v = strconv.FormatBool(x)
		case json.Number:
			n, ok := new(big.Int).SetString(x.String(), 10)
			if !ok {
				return nil, nil, fmt.Errorf("value %s of key %s: pkft resolves only string, integer, boolean and null values", x, k)
			}
			v = n.String()
		default:
			return nil, nil, fmt.Errorf("value of key %s: pkft resolves only string, integer, boolean and null values", k)
		}
		if _, seen := values[k]; !seen {
			keys = append(keys, k)
		}
		values[k] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, nil, errNotOptionsObject
	}
	return keys, values, nil
}
