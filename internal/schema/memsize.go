package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseMemorySize reads a Paimon MemorySize option value ("128 mb", "16MB", "1024", "2 gb") as
// a number of bytes. Units are b/bytes, k/kb/kibibytes, m/mb/mebibytes, g/gb/gibibytes and
// t/tb/tebibytes, case-insensitive, with or without a space after the number.
func ParseMemorySize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("memory size %q does not start with a number", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("memory size %q: %w", s, err)
	}
	mult := int64(1)
	switch strings.TrimSpace(t[i:]) {
	case "", "b", "bytes":
	case "k", "kb", "kibibytes":
		mult = 1 << 10
	case "m", "mb", "mebibytes":
		mult = 1 << 20
	case "g", "gb", "gibibytes":
		mult = 1 << 30
	case "t", "tb", "tebibytes":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("memory size %q has an unknown unit", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("memory size %q overflows", s)
	}
	return n * mult, nil
}
