package dv

import (
	"slices"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

// JavaOrder returns the order in which Java's BucketedDvMaintainer writes the deletion vectors
// of live into a bucket's new index file (DeletionVectorIndexFileWriter#writeSingleFile iterates
// the maintainer's HashMap, and the dvRanges of the file keep that order).
//
// restored lists, per deletion-vector index file the maintainer was restored from and in that
// order, the data files of the file's dvRanges in their recorded order. The maintainer's map is
// built as BucketedDvMaintainer.Factory#create does: each file read into a HashMap in dvRanges
// order (DeletionVectorsIndexFile#readAllDeletionVectors), all of them putAll into one HashMap,
// then copied by new HashMap<>(map); the vectors a compaction drops are removed, which leaves the
// others in place. Data files of live that no restored file lists are put afterwards in name
// order (a model of new deletions; pkft's compaction adds none).
//
// Where Java would hold some names in a tree bin, which javacompat does not model, the order
// falls back to data file name order; such a file is still read correctly by Java and pkft.
func JavaOrder(restored [][]string, live map[string]DeletionVector) []string {
	if order, err := javaOrder(restored, live); err == nil {
		return order
	}
	names := make([]string, 0, len(live))
	for name := range live {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func javaOrder(restored [][]string, live map[string]DeletionVector) ([]string, error) {
	all := javacompat.NewHashMap[string]()
	for _, file := range restored {
		one := javacompat.NewHashMap[string]()
		for _, name := range file {
			if err := one.Put(name, javacompat.StringHashCode(name)); err != nil {
				return nil, err
			}
		}
		if err := all.PutAll(one); err != nil {
			return nil, err
		}
	}
	m, err := javacompat.NewHashMapCopy(all)
	if err != nil {
		return nil, err
	}
	keys, err := m.Keys()
	if err != nil {
		return nil, err
	}
	for _, name := range keys {
		if _, ok := live[name]; !ok {
			if err := m.Remove(name); err != nil {
				return nil, err
			}
		}
	}
	var added []string
	for name := range live {
		if !m.Contains(name) {
			added = append(added, name)
		}
	}
	slices.Sort(added)
	for _, name := range added {
		if err := m.Put(name, javacompat.StringHashCode(name)); err != nil {
			return nil, err
		}
	}
	return m.Keys()
}
