package schema

import (
	"math/bits"
	"slices"
	"sort"
	"unicode/utf16"
)

// JavaHashMapOrder returns keys in the order Java iterates the options map of a schema created
// by SchemaManager#createTable, so Go-created schema files match Java's byte for byte.
//
// That map is built by Schema.Builder (a HashMap filled by put, 16 buckets doubling at load 0.75)
// and copied by the Schema constructor (new HashMap<>(m), sized with the JDK 8-17 formula
// tableSizeFor(n/0.75f + 1)). Iteration visits buckets in index order (hash ^ hash>>>16 masked
// by the capacity); keys sharing a bucket of the copy keep the source map's order, which is
// bucket order of the source and then insertion order, taken here as the order of keys.
//
// Known limits: JDK 19+ sizes the copy as ceil(n/0.75), which differs when n is 12, 24, 48, ...;
// buckets of 8 or more colliding keys (tree bins) are not modelled.
func JavaHashMapOrder(keys []string) []string {
	n := len(keys)
	if n == 0 {
		return []string{}
	}
	copyCap := tableSizeFor(int(float32(n)/0.75 + 1))
	srcCap := 16
	for float64(n) > 0.75*float64(srcCap) {
		srcCap *= 2
	}
	type entry struct {
		key       string
		hash, pos int
	}
	es := make([]entry, n)
	for i, k := range keys {
		h := javaStringHash(k)
		es[i] = entry{key: k, hash: int(uint32(h ^ int32(uint32(h)>>16))), pos: i}
	}
	sort.SliceStable(es, func(a, b int) bool {
		ea, eb := es[a], es[b]
		if ba, bb := ea.hash&(copyCap-1), eb.hash&(copyCap-1); ba != bb {
			return ba < bb
		}
		if sa, sb := ea.hash&(srcCap-1), eb.hash&(srcCap-1); sa != sb && srcCap > copyCap {
			return sa < sb
		}
		return ea.pos < eb.pos
	})
	out := make([]string, n)
	for i, e := range es {
		out[i] = e.key
	}
	return out
}

// tableSizeFor is HashMap#tableSizeFor: the smallest power of two >= c (at least 1).
func tableSizeFor(c int) int {
	if c <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(c-1))
}

// javaStringHash is String#hashCode over the UTF-16 code units of s.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

func sortStrings(s []string) { slices.Sort(s) }
