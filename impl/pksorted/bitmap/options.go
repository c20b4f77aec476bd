package bitmap

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/impl/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/impl/schema"
)

// The bitmap-index.* options that shape the file.
const (
	OptDictionaryBlockSize = "bitmap-index.dictionary-block-size"
	OptCompression         = "bitmap-index.compression"
	OptCompressionLevel    = "bitmap-index.compression-level"
)

// ParseOptions returns the writer options of an index's option map (keys without their
// per-column prefix). Keys outside bitmap-index.* are ignored; any other bitmap-index.* key is
// refused by name, since pkft's writer does not honour it.
func ParseOptions(opts map[string]string) (Options, error) {
	o := Options{DictionaryBlockSize: DefaultDictionaryBlockSize}
	name, level := "none", 1
	var refused []string
	for k, v := range opts {
		switch k {
		case OptDictionaryBlockSize:
			n, err := schema.ParseMemorySize(v)
			if err != nil || n <= 0 || n > 1<<31-1 {
				return Options{}, fmt.Errorf("bitmap index: %s = %q is not a positive memory size below 2 GiB", k, v)
			}
			o.DictionaryBlockSize = int(n)
		case OptCompression:
			name = v
		case OptCompressionLevel:
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return Options{}, fmt.Errorf("bitmap index: %s = %q is not an integer", k, v)
			}
			level = n
		default:
			if strings.HasPrefix(k, "bitmap-index.") {
				refused = append(refused, k)
			}
		}
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		return Options{}, fmt.Errorf("bitmap index: option(s) %s are not supported by pkft's bitmap writer", strings.Join(refused, ", "))
	}
	c, err := blockcodec.NewCodec(name, level)
	if err != nil {
		return Options{}, fmt.Errorf("bitmap index: %s: %w", OptCompression, err)
	}
	o.Codec = c
	return o, nil
}
