package dv

import (
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

// Maintainer holds one bucket's deletion vectors while a compaction changes them (Java's
// BucketedDvMaintainer): vectors of rewritten files are removed, rows that newer records
// supersede are marked deleted, and Modified tells whether the bucket needs a new
// deletion-vector index file. It also follows the order of Java's HashMap through the same
// sequence of puts and removals, so that Entries lists the vectors in the order Java writes
// them. A Maintainer is not safe for concurrent use.
type Maintainer struct {
	vectors  map[string]DeletionVector
	order    *javacompat.HashMap[string]
	bitmap64 bool
	modified bool
}

// NewMaintainer restores a maintainer as BucketedDvMaintainer.Factory#create does. restored
// lists, per deletion-vector index file of the bucket and in that order, the data files of its
// dvRanges in their recorded order; vectors are the vectors read from them. bitmap64 is the
// table's deletion-vectors.bitmap64 (the variant new vectors get).
func NewMaintainer(restored [][]string, vectors map[string]DeletionVector, bitmap64 bool) *Maintainer {
	m := &Maintainer{vectors: map[string]DeletionVector{}, bitmap64: bitmap64}
	for name, v := range vectors {
		m.vectors[name] = v
	}
	all := javacompat.NewHashMap[string]()
	ok := true
	for _, file := range restored {
		one := javacompat.NewHashMap[string]()
		for _, name := range file {
			if one.Put(name, javacompat.StringHashCode(name)) != nil {
				ok = false
			}
		}
		if all.PutAll(one) != nil {
			ok = false
		}
	}
	if ok {
		if cp, err := javacompat.NewHashMapCopy(all); err == nil {
			m.order = cp
		}
	}
	if m.order != nil {
		// Vectors whose name no restored file lists (none when vectors came from restored).
		var extra []string
		for name := range m.vectors {
			if !m.order.Contains(name) {
				extra = append(extra, name)
			}
		}
		slices.Sort(extra)
		for _, name := range extra {
			m.put(name)
		}
	}
	return m
}

// put records name in the order model; a name Java would hold in a tree bin (which the model
// does not follow) drops the model, and Entries then falls back to name order.
func (m *Maintainer) put(name string) {
	if m.order != nil && m.order.Put(name, javacompat.StringHashCode(name)) != nil {
		m.order = nil
	}
}

// NotifyNewDeletion marks row pos of data file name deleted (BucketedDvMaintainer
// #notifyNewDeletion); the bucket is modified when the row was not deleted yet.
func (m *Maintainer) NotifyNewDeletion(name string, pos int64) error {
	v, ok := m.vectors[name]
	if !ok {
		v = New(m.bitmap64)
		m.vectors[name] = v
		m.put(name)
	}
	if v.IsDeleted(pos) {
		return nil
	}
	if err := v.Delete(pos); err != nil {
		return fmt.Errorf("deletion vector of %s: %w", name, err)
	}
	m.modified = true
	return nil
}

// Remove drops the vector of data file name (a file a compaction rewrote); the bucket is
// modified when it had one.
func (m *Maintainer) Remove(name string) {
	if _, ok := m.vectors[name]; !ok {
		return
	}
	delete(m.vectors, name)
	if m.order != nil && m.order.Remove(name) != nil {
		m.order = nil
	}
	m.modified = true
}

// Vector returns the vector of data file name, nil when it has none.
func (m *Maintainer) Vector(name string) DeletionVector { return m.vectors[name] }

// Vectors returns the live vectors by data file name (the maintainer's own map: do not change
// it).
func (m *Maintainer) Vectors() map[string]DeletionVector { return m.vectors }

// Modified reports whether a deletion or a removal changed the vectors since the maintainer
// was restored.
func (m *Maintainer) Modified() bool { return m.modified }

// Entries returns the live vectors in the order Java's maintainer writes them into the bucket's
// new index file (DeletionVectorIndexFileWriter#writeSingleFile over the maintainer's HashMap).
func (m *Maintainer) Entries() []Entry {
	var names []string
	if m.order != nil {
		if keys, err := m.order.Keys(); err == nil {
			names = keys
		}
	}
	if names == nil {
		for name := range m.vectors {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	out := make([]Entry, 0, len(names))
	for _, name := range names {
		if v, ok := m.vectors[name]; ok {
			out = append(out, Entry{DataFile: name, Vector: v})
		}
	}
	return out
}
