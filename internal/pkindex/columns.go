package pkindex

import (
	"fmt"
	"strings"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

// The table options naming the indexed columns of each primary-key index family (CoreOptions
// PK_VECTOR_INDEX_COLUMNS, PK_BTREE_INDEX_COLUMNS, PK_BITMAP_INDEX_COLUMNS and
// PK_FULL_TEXT_INDEX_COLUMNS).
const (
	VectorColumnsOption   = "pk-vector.index.columns"
	BTreeColumnsOption    = "pk-btree.index.columns"
	BitmapColumnsOption   = "pk-bitmap.index.columns"
	FullTextColumnsOption = "pk-full-text.index.columns"
)

// IndexColumns returns the columns a primary-key index option (pk-full-text.index.columns,
// pk-btree.index.columns, ...) names, as Java's CoreOptions#primaryKeyIndexColumns splits them:
// every comma separates, each part is trimmed, empty parts are kept; nil when the option is
// unset.
func IndexColumns(tableOptions map[string]string, key string) []string {
	v, ok := tableOptions[key]
	if !ok {
		return nil
	}
	parts := strings.Split(v, ",")
	for i := range parts {
		parts[i] = javacompat.Trim(parts[i])
	}
	return parts
}

// ValidateIndexColumns runs the checks of SchemaValidation#validatePrimaryKeyIndexColumns on the
// four families' column lists (vector, btree, bitmap, full-text), with Java's messages: no list
// names a column twice, and no column owns two indexes. Java runs them first when it commits a
// schema, so their messages are the ones a Java user sees.
func ValidateIndexColumns(tableOptions map[string]string) error {
	keys := []string{VectorColumnsOption, BTreeColumnsOption, BitmapColumnsOption, FullTextColumnsOption}
	lists := make([][]string, len(keys))
	for i, key := range keys {
		lists[i] = IndexColumns(tableOptions, key)
		seen := map[string]bool{}
		for _, c := range lists[i] {
			if seen[c] {
				return fmt.Errorf("%s must not contain duplicate columns, but is [%s].", key, strings.Join(lists[i], ", "))
			}
			seen[c] = true
		}
	}
	owned := map[string]bool{}
	for _, cols := range lists {
		for _, c := range cols {
			if owned[c] {
				return fmt.Errorf("Column '%s' can own at most one primary-key index.", c)
			}
			owned[c] = true
		}
	}
	return nil
}
