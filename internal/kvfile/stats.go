package kvfile

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// maxParquetStatsSize is parquet-mr's limit on the combined size of a column chunk's binary min
// and max (ParquetProperties DEFAULT_MAXIMUM_STATISTICS_SIZE... the column writer drops larger
// statistics); Paimon then sees no min/max for the column.
const maxParquetStatsSize = 4096

// colStats accumulates what parquet-mr records in a column chunk's footer statistics and
// converts it as ParquetSimpleStatsExtractor#toFieldStats and the column's collector do.
type colStats struct {
	typ   types.DataType
	mode  statsMode
	nulls int64
	min   any
	max   any
	// noMinMax: parquet-mr records no usable min/max (NaN seen, INT96, stats too large).
	noMinMax bool
}

func newColStats(c column) *colStats {
	m, _ := parseStatsMode(c.statsMode)
	s := &colStats{typ: c.typ, mode: m}
	if c.typ.Root == types.RootTimestamp || c.typ.Root == types.RootTimestampLTZ {
		s.noMinMax = c.typ.Precision > 6 // INT96: Paimon reads no min/max
	}
	return s
}

func (s *colStats) add(v any) {
	if v == nil {
		s.nulls++
		return
	}
	if s.noMinMax {
		return
	}
	switch x := v.(type) {
	case float32:
		if math.IsNaN(float64(x)) {
			s.noMinMax = true
			return
		}
	case float64:
		if math.IsNaN(x) {
			s.noMinMax = true
			return
		}
	}
	if s.min == nil || binrow.CompareValues(v, s.min) < 0 {
		s.min = v
	}
	if s.max == nil || binrow.CompareValues(v, s.max) > 0 {
		s.max = v
	}
}

// result returns min, max and the null count (nil when unknown) as Java records them, and
// whether the column's stats are NONE (dropped by the dense store).
func (s *colStats) result() (lo, hi any, nulls *int64, none bool) {
	if s.mode.kind == "none" {
		return nil, nil, nil, true
	}
	n := s.nulls
	nulls = &n
	if s.mode.kind == "counts" || s.noMinMax || s.min == nil {
		return nil, nil, nulls, false
	}
	lo, hi = s.min, s.max
	switch x := lo.(type) {
	case string:
		if len(x)+len(hi.(string)) >= maxParquetStatsSize {
			return nil, nil, nulls, false
		}
	case []byte:
		if len(x)+len(hi.([]byte)) >= maxParquetStatsSize {
			return nil, nil, nulls, false
		}
	case float32:
		// parquet-mr widens a zero bound to cover both signed zeros.
		if x == 0 {
			lo = float32(math.Copysign(0, -1))
		}
		if h := hi.(float32); h == 0 {
			hi = float32(0)
		}
	case float64:
		if x == 0 {
			lo = math.Copysign(0, -1)
		}
		if h := hi.(float64); h == 0 {
			hi = float64(0)
		}
	}
	if s.mode.kind == "truncate" {
		lo = truncateMin(lo, s.mode.truncate)
		var ok bool
		if hi, ok = truncateMax(hi, s.mode.truncate); !ok {
			return nil, nil, nulls, false
		}
	}
	return lo, hi, nulls, false
}

// truncateMin is TruncateSimpleColStatsCollector#truncateMin: strings keep their first n code
// points, bytes their first n bytes.
func truncateMin(v any, n int) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) <= n {
			return x
		}
		i, c := 0, 0
		for i < len(x) && c < n {
			_, size := utf8.DecodeRuneInString(x[i:])
			i += size
			c++
		}
		return x[:i]
	case []byte:
		if len(x) <= n {
			return x
		}
		return bytes.Clone(x[:n])
	}
	return v
}

// truncateMax is TruncateSimpleColStatsCollector#truncateMax: a value at least v, or false when
// there is none short enough. Strings are handled as Java's UTF-16 code point arithmetic does.
func truncateMax(v any, n int) (any, bool) {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) <= n {
			return x, true
		}
		runes := []rune(x)[:n]
		for i := n - 1; i >= 0; i-- {
			next := runes[i] + 1
			// Character.isValidCodePoint: up to U+10FFFF; surrogates are valid code points in
			// Java, but they cannot come from a valid UTF-8 input here, so skip them as Go can't
			// encode them.
			if next <= utf8.MaxRune && !(next >= 0xD800 && next <= 0xDFFF) {
				out := append(runes[:i:i], next)
				return string(out), true
			}
			if next >= 0xD800 && next <= 0xDFFF {
				// Java would append a lone surrogate, which encodes as U+FFFD in UTF-8; give up
				// the bound instead of recording a different one.
				return nil, false
			}
		}
		return nil, false
	case []byte:
		if len(x) <= n {
			return x, true
		}
		t := bytes.Clone(x[:n])
		for i := n - 1; i >= 0; i-- {
			if t[i] != 0xFF {
				t[i]++
				return t[:i+1], true
			}
		}
		return nil, false
	}
	return v, true
}
