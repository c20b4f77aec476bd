package javacompat

import (
	"fmt"
	"math/bits"
)

// HashMap models the iteration order of a java.util.HashMap (and of a java.util.HashSet, which
// is a HashMap of its elements) as OpenJDK 8 to 17 lay it out: a power-of-two table of bins
// indexed by (h ^ h>>>16) & (capacity-1), each bin a list in link order. Only keys are kept; the
// caller supplies each key's Java hashCode. Go key equality must match the Java keys' equals.
//
// Modelled: put (append to the bin's end, a replaced key keeps its place), computeIfAbsent (a
// new key goes to the bin's head, the table grows before the insert), remove (the table never
// shrinks; a key put again after its removal goes to its bin's end), putAll and the copy
// constructor (pre-sizing as JDK 8-17 do: tableSizeFor(s/0.75f + 1); JDK 19 and later pre-size
// to tableSizeFor(ceil(s/0.75)) and may iterate differently), resizes that split bins keeping
// their order, and a bin of eight keys growing in a table below 64 bins resizing instead of
// becoming a tree. A bin that Java would turn into a red-black tree is not modelled: the
// operation that would do it returns ErrTreeBin, and so does every later one.
//
// The zero value is not ready; use NewHashMap or NewHashMapCopy.
type HashMap[K comparable] struct {
	bins      [][]K        // nil until the first insert (Java allocates the table lazily)
	threshold int          // Java's threshold: the next resize size, or the initial capacity
	hashes    map[K]uint32 // spread hash of every present key
	err       error
}

const (
	maximumCapacity = 1 << 30
	loadFactor      = float32(0.75)
)

// NewHashMap returns an empty map as `new HashMap<>()` creates it.
func NewHashMap[K comparable]() *HashMap[K] {
	return &HashMap[K]{hashes: map[K]uint32{}}
}

// NewHashMapCopy returns the map `new HashMap<>(src)` creates: pre-sized for src's size, then
// filled with src's keys in src's iteration order.
func NewHashMapCopy[K comparable](src *HashMap[K]) (*HashMap[K], error) {
	m := NewHashMap[K]()
	if err := m.PutAll(src); err != nil {
		return nil, err
	}
	return m, nil
}

func spreadHash(h int32) uint32 {
	u := uint32(h)
	return u ^ (u >> 16)
}

// tableSizeFor is HashMap#tableSizeFor: the smallest power of two >= c, at least 1.
func tableSizeFor(c int) int {
	if c <= 1 {
		return 1
	}
	if c >= maximumCapacity {
		return maximumCapacity
	}
	return 1 << bits.Len(uint(c-1))
}

// Len is the number of keys.
func (m *HashMap[K]) Len() int { return len(m.hashes) }

// Contains reports whether key is present.
func (m *HashMap[K]) Contains(key K) bool {
	_, ok := m.hashes[key]
	return ok
}

// Capacity is the current table length (0 before the first insert).
func (m *HashMap[K]) Capacity() int { return len(m.bins) }

// resize is HashMap#resize: allocate the first table or double it, splitting every bin in order.
func (m *HashMap[K]) resize() {
	oldCap, oldThr := len(m.bins), m.threshold
	newCap, newThr := 0, 0
	switch {
	case oldCap > 0:
		if oldCap >= maximumCapacity {
			m.threshold = int(^uint32(0) >> 1)
			return
		}
		newCap = oldCap << 1
		if newCap < maximumCapacity && oldCap >= 16 {
			newThr = oldThr << 1
		}
	case oldThr > 0:
		newCap = oldThr
	default:
		newCap, newThr = 16, 12
	}
	if newThr == 0 {
		ft := float32(newCap) * loadFactor
		if newCap < maximumCapacity && ft < float32(maximumCapacity) {
			newThr = int(ft)
		} else {
			newThr = int(^uint32(0) >> 1)
		}
	}
	m.threshold = newThr
	bins := make([][]K, newCap)
	mask := uint32(newCap - 1)
	for _, bin := range m.bins {
		for _, k := range bin {
			i := m.hashes[k] & mask
			bins[i] = append(bins[i], k)
		}
	}
	m.bins = bins
}

func (m *HashMap[K]) index(h uint32) int { return int(h & uint32(len(m.bins)-1)) }

// treeifyBin is HashMap#treeifyBin: a small table grows instead; a large one would make a tree.
func (m *HashMap[K]) treeifyBin() error {
	if len(m.bins) < minTreeifyCapacity {
		m.resize()
		return nil
	}
	m.err = fmt.Errorf("%w (%d keys, %d bins)", ErrTreeBin, len(m.hashes), len(m.bins))
	return m.err
}

// Put is HashMap#put (and HashSet#add): a new key is appended to its bin.
func (m *HashMap[K]) Put(key K, hashCode int32) error {
	if m.err != nil {
		return m.err
	}
	if _, ok := m.hashes[key]; ok {
		return nil // replacing a value keeps the node where it is
	}
	if m.bins == nil {
		m.resize()
	}
	h := spreadHash(hashCode)
	m.hashes[key] = h
	i := m.index(h)
	before := len(m.bins[i])
	m.bins[i] = append(m.bins[i], key)
	if before >= treeifyThreshold {
		if err := m.treeifyBin(); err != nil {
			return err
		}
	}
	if len(m.hashes) > m.threshold {
		m.resize()
	}
	return nil
}

// ComputeIfAbsent is HashMap#computeIfAbsent with a function that returns non-null: the table
// grows first when the size already exceeds the threshold, and a new key goes to the head of its
// bin. A present key is left alone.
func (m *HashMap[K]) ComputeIfAbsent(key K, hashCode int32) error {
	if m.err != nil {
		return m.err
	}
	// Java checks the threshold before looking the key up, so even a present key can grow the
	// table.
	if len(m.hashes) > m.threshold || m.bins == nil {
		m.resize()
	}
	if _, ok := m.hashes[key]; ok {
		return nil
	}
	h := spreadHash(hashCode)
	m.hashes[key] = h
	i := m.index(h)
	before := len(m.bins[i])
	m.bins[i] = append([]K{key}, m.bins[i]...)
	if before >= treeifyThreshold-1 {
		return m.treeifyBin()
	}
	return nil
}

// Remove is HashMap#remove: the key leaves its bin; the table keeps its size.
func (m *HashMap[K]) Remove(key K) error {
	if m.err != nil {
		return m.err
	}
	h, ok := m.hashes[key]
	if !ok {
		return nil
	}
	delete(m.hashes, key)
	i := m.index(h)
	bin := m.bins[i]
	for j, k := range bin {
		if k == key {
			m.bins[i] = append(bin[:j:j], bin[j+1:]...)
			break
		}
	}
	return nil
}

// PutAll is HashMap#putAll (HashMap#putMapEntries) with a HashMap source: an unallocated table
// is pre-sized for src's size, an allocated one doubles while src's size exceeds the threshold;
// then src's keys are put in its iteration order.
func (m *HashMap[K]) PutAll(src *HashMap[K]) error {
	if m.err != nil {
		return m.err
	}
	keys, err := src.Keys()
	if err != nil {
		return err
	}
	s := len(keys)
	if s == 0 {
		return nil
	}
	if m.bins == nil {
		ft := float32(s)/loadFactor + 1
		t := maximumCapacity
		if ft < float32(maximumCapacity) {
			t = int(ft)
		}
		if t > m.threshold {
			m.threshold = tableSizeFor(t)
		}
	} else {
		for s > m.threshold && len(m.bins) < maximumCapacity {
			m.resize()
		}
	}
	for _, k := range keys {
		if err := m.Put(k, src.hashCodeOf(k)); err != nil {
			return err
		}
	}
	return nil
}

// hashCodeOf recovers a present key's hash code for re-insertion elsewhere. The spread is its
// own inverse on the high half, so the original hash code comes back exactly.
func (m *HashMap[K]) hashCodeOf(k K) int32 {
	h := m.hashes[k]
	return int32(h ^ (h >> 16))
}

// Keys returns the keys in Java's iteration order: bins ascending, each in link order.
func (m *HashMap[K]) Keys() ([]K, error) {
	if m.err != nil {
		return nil, m.err
	}
	out := make([]K, 0, len(m.hashes))
	for _, bin := range m.bins {
		out = append(out, bin...)
	}
	return out, nil
}
