package blockcodec

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/schema"
)

// FormatOptions reads a sorted index's format options from opts: the memory size under sizeKey
// (defSize when absent) and the codec from prefix+"compression" and prefix+"compression-level"
// (Java's defaults "none" and 1). Keys outside prefix are ignored; any other key under prefix is
// refused by name, since pkft's writers do not honour it, except readerKeys (reader-side keys
// that other code reads). what names the index in errors.
func FormatOptions(opts map[string]string, what, prefix, sizeKey string, defSize int, readerKeys ...string) (int, Codec, error) {
	size, name, level := defSize, "none", 1
	var refused []string
	for k, v := range opts {
		switch k {
		case sizeKey:
			n, err := schema.ParseMemorySize(v)
			if err != nil || n <= 0 || n > 1<<31-1 {
				return 0, Codec{}, fmt.Errorf("%s: %s = %q is not a positive memory size below 2 GiB", what, k, v)
			}
			size = int(n)
		case prefix + "compression":
			name = v
		case prefix + "compression-level":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return 0, Codec{}, fmt.Errorf("%s: %s = %q is not an integer", what, k, v)
			}
			level = n
		default:
			if strings.HasPrefix(k, prefix) && !slices.Contains(readerKeys, k) {
				refused = append(refused, k)
			}
		}
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		return 0, Codec{}, fmt.Errorf("%s: option(s) %s are not supported by pkft's writer", what, strings.Join(refused, ", "))
	}
	c, err := NewCodec(name, level)
	if err != nil {
		return 0, Codec{}, fmt.Errorf("%s: %scompression: %w", what, prefix, err)
	}
	return size, c, nil
}

// MemorySizeOption returns the memory size under key in opts in bytes (def when absent), as
// Java's MemorySize parses it: a non-negative number with an optional unit. what names the index
// in errors.
func MemorySizeOption(opts map[string]string, what, key string, def int64) (int64, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	n, err := schema.ParseMemorySize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s = %q is not a memory size: %w", what, key, v, err)
	}
	return n, nil
}
