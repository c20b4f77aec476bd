package pkindex

import (
	"strings"

	"github.com/paimon-pkft/pkft/internal/javacompat"
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
