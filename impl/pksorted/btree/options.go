package btree

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/impl/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/impl/schema"
)

// The btree-index.* options that shape the file, with Java's defaults.
const (
	OptBlockSize        = "btree-index.block-size"
	OptCompression      = "btree-index.compression"
	OptCompressionLevel = "btree-index.compression-level"
)

// ParseOptions returns the writer options of an index's option map (keys without their
// per-column prefix). Keys outside btree-index.* are not the writer's and are ignored; any other
// btree-index.* key is refused by name, since pkft's writer does not honour it.
func ParseOptions(opts map[string]string) (Options, error) {
	o := Options{BlockSize: DefaultBlock}
	name, level := "none", 1
	var refused []string
	for k, v := range opts {
		switch k {
		case OptBlockSize:
			n, err := schema.ParseMemorySize(v)
			if err != nil || n <= 0 || n > 1<<31-1 {
				return Options{}, fmt.Errorf("btree index: %s = %q is not a positive memory size below 2 GiB", k, v)
			}
			o.BlockSize = int(n)
		case OptCompression:
			name = v
		case OptCompressionLevel:
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return Options{}, fmt.Errorf("btree index: %s = %q is not an integer", k, v)
			}
			level = n
		default:
			if strings.HasPrefix(k, "btree-index.") {
				refused = append(refused, k)
			}
		}
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		return Options{}, fmt.Errorf("btree index: option(s) %s are not supported by pkft's btree writer", strings.Join(refused, ", "))
	}
	c, err := blockcodec.NewCodec(name, level)
	if err != nil {
		return Options{}, fmt.Errorf("btree index: %s: %w", OptCompression, err)
	}
	o.Codec = c
	return o, nil
}
