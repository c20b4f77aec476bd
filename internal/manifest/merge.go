package manifest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/javacompat"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// Identifier says which data file a manifest entry refers to (Java FileEntry.Identifier):
// partition, bucket, level, file name, extra files, embedded index and external path. It is
// comparable, so it can key a map.
type Identifier struct {
	// Partition is the serialized partition BinaryRow (nil is the empty row).
	Partition string
	// Bucket is the bucket of the file.
	Bucket int32
	// Level is the LSM level of the file.
	Level int32
	// FileName is the data file name.
	FileName string
	// ExtraFiles encodes the extra file list, each name prefixed with its length.
	ExtraFiles string
	// HasEmbeddedIndex tells a null embedded index from an empty one.
	HasEmbeddedIndex bool
	// EmbeddedIndex holds the embedded index bytes.
	EmbeddedIndex string
	// HasExternalPath tells a null external path from an empty one.
	HasExternalPath bool
	// ExternalPath holds the external path.
	ExternalPath string
}

// EntryIdentifier returns the identifier of e.
func EntryIdentifier(e *meta.ManifestEntry) Identifier {
	var extra strings.Builder
	for _, f := range e.File.ExtraFiles {
		extra.WriteString(strconv.Itoa(len(f)))
		extra.WriteByte(':')
		extra.WriteString(f)
	}
	id := Identifier{
		Partition:        string(rowOrEmpty(e.Partition)),
		Bucket:           e.Bucket,
		Level:            e.File.Level,
		FileName:         e.File.FileName,
		ExtraFiles:       extra.String(),
		HasEmbeddedIndex: e.File.EmbeddedIndex != nil,
		EmbeddedIndex:    string(e.File.EmbeddedIndex),
	}
	if e.File.ExternalPath != nil {
		id.HasExternalPath = true
		id.ExternalPath = *e.File.ExternalPath
	}
	return id
}

// orderedMap is a minimal LinkedHashMap: insertion order, replacing a key keeps its position,
// removing and re-inserting moves it to the end.
type orderedMap[K comparable, V any] struct {
	keys []K
	vals map[K]V
	pos  map[K]int
}

func newOrderedMap[K comparable, V any]() *orderedMap[K, V] {
	return &orderedMap[K, V]{vals: map[K]V{}, pos: map[K]int{}}
}

func (m *orderedMap[K, V]) get(k K) (V, bool) {
	v, ok := m.vals[k]
	return v, ok
}

func (m *orderedMap[K, V]) put(k K, v V) {
	if _, ok := m.vals[k]; !ok {
		m.pos[k] = len(m.keys)
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

func (m *orderedMap[K, V]) remove(k K) {
	if _, ok := m.vals[k]; !ok {
		return
	}
	delete(m.vals, k)
	delete(m.pos, k)
}

func (m *orderedMap[K, V]) values() []V {
	out := make([]V, 0, len(m.vals))
	for i, k := range m.keys {
		// A key removed and re-added has a newer position; skip stale slots.
		if p, ok := m.pos[k]; ok && p == i {
			out = append(out, m.vals[k])
		}
	}
	return out
}

// MergeEntries merges manifest entries in order as Java FileEntry.mergeEntries does: an ADD
// followed by a DELETE of the same identifier cancels out, a DELETE with no earlier ADD is kept,
// and adding an identifier already present is an error. The result is in first-insertion order.
func MergeEntries(entries []meta.ManifestEntry) ([]meta.ManifestEntry, error) {
	m := newOrderedMap[Identifier, meta.ManifestEntry]()
	for i := range entries {
		e := &entries[i]
		id := EntryIdentifier(e)
		switch e.Kind {
		case meta.FileKindAdd:
			if old, ok := m.get(id); ok {
				return nil, fmt.Errorf("merge manifest entries: trying to add file %s (partition %x, bucket %d, level %d) which is already present as %s",
					e.File.FileName, e.Partition, e.Bucket, e.File.Level, old.Kind)
			}
			m.put(id, *e)
		case meta.FileKindDelete:
			if _, ok := m.get(id); ok {
				m.remove(id)
			} else {
				m.put(id, *e)
			}
		default:
			return nil, fmt.Errorf("merge manifest entries: file %s has unknown kind %d", e.File.FileName, e.Kind)
		}
	}
	return m.values(), nil
}

// LiveEntries returns the ADD entries whose identifier no DELETE entry names, in input order.
// This is how Paimon's scan computes the files of a snapshot from all its manifests: it first
// collects every deleted identifier, then keeps the added entries not among them.
func LiveEntries(entries []meta.ManifestEntry) []meta.ManifestEntry {
	deleted := map[Identifier]bool{}
	for i := range entries {
		if entries[i].Kind == meta.FileKindDelete {
			deleted[EntryIdentifier(&entries[i])] = true
		}
	}
	var out []meta.ManifestEntry
	for i := range entries {
		if entries[i].Kind == meta.FileKindAdd && !deleted[EntryIdentifier(&entries[i])] {
			out = append(out, entries[i])
		}
	}
	return out
}

// CombineIndexManifest computes the entries of a new index manifest from the previous one and
// the index file changes of a commit, as Java IndexManifestFileHandler.write does. Every
// previous entry must be an ADD. Entries are grouped by index type:
//   - DELETION_VECTORS and HASH files are keyed by (partition, bucket, index type): a DELETE
//     removes the bucket's file of that type, an ADD replaces it; so a bucket keeps one
//     deletion-vector file and the newest one wins;
//   - in bucket-unaware tables DELETION_VECTORS files are keyed by file name instead, and each
//     data file may have its deletion vector in only one index file;
//   - every other type (global indexes such as full-text) is keyed by file name; an added file
//     must not overlap a retained one of the same field (see validateRetained).
//
// The order is Java's: Java groups the entries into a HashMap by index type, iterates a HashSet
// of the type names, and for each type emits the values of a HashMap keyed as above; every one
// of those orders is reproduced with javacompat.HashMap from the keys' Java hash codes (String
// hashCode for names, Objects.hash(partition, bucket, indexType) with BinaryRow#hashCode for
// bucket keys). Where Java would hold keys in a tree bin (more than eight keys in one bin of a
// table of at least 64 bins), whose order is not modelled, that map falls back to insertion
// order: index types in order of first appearance, keys in order of first put.
func CombineIndexManifest(previous, changes []meta.IndexManifestEntry, bucketUnaware bool) ([]meta.IndexManifestEntry, error) {
	for i := range previous {
		if previous[i].Kind != meta.FileKindAdd {
			return nil, fmt.Errorf("combine index manifest: previous entry %s has kind %s, expected ADD",
				previous[i].IndexFile.FileName, previous[i].Kind)
		}
	}
	prevByType := map[string][]meta.IndexManifestEntry{}
	curByType := map[string][]meta.IndexManifestEntry{}
	// separateIndexEntries: HashMap<String, List>.computeIfAbsent per entry, in entry order.
	prevTypes := newJavaMap[string, struct{}](javacompat.StringHashCode)
	curTypes := newJavaMap[string, struct{}](javacompat.StringHashCode)
	for _, e := range previous {
		t := e.IndexFile.IndexType
		prevTypes.computeIfAbsent(t, struct{}{})
		prevByType[t] = append(prevByType[t], e)
	}
	for _, e := range changes {
		t := e.IndexFile.IndexType
		curTypes.computeIfAbsent(t, struct{}{})
		curByType[t] = append(curByType[t], e)
	}
	// indexes = new HashSet<>(); addAll(previous.keySet()); addAll(current.keySet()).
	indexes := newJavaMap[string, struct{}](javacompat.StringHashCode)
	for _, t := range prevTypes.keys() {
		indexes.put(t, struct{}{})
	}
	for _, t := range curTypes.keys() {
		indexes.put(t, struct{}{})
	}

	var out []meta.IndexManifestEntry
	for _, t := range indexes.keys() {
		var (
			combined []meta.IndexManifestEntry
			err      error
		)
		switch {
		case t != meta.IndexTypeDeletionVectors && t != meta.IndexTypeHash:
			combined, err = combineGlobalIndex(prevByType[t], curByType[t])
		case t == meta.IndexTypeDeletionVectors && bucketUnaware:
			combined, err = combineByFileName(prevByType[t], curByType[t])
		default:
			combined = combineBucketed(prevByType[t], curByType[t])
		}
		if err != nil {
			return nil, fmt.Errorf("combine index manifest: %w", err)
		}
		out = append(out, combined...)
	}
	return out, nil
}

// javaMap is an orderedMap that iterates as a java.util.HashMap with the same operations
// would, falling back to insertion order when javacompat cannot model it (a tree bin).
type javaMap[K comparable, V any] struct {
	om   *orderedMap[K, V]
	hm   *javacompat.HashMap[K]
	hash func(K) int32
}

func newJavaMap[K comparable, V any](hash func(K) int32) *javaMap[K, V] {
	return &javaMap[K, V]{om: newOrderedMap[K, V](), hm: javacompat.NewHashMap[K](), hash: hash}
}

func (m *javaMap[K, V]) get(k K) (V, bool) { return m.om.get(k) }

// put is HashMap#put. A model error is sticky in hm and only changes the order keys returns.
func (m *javaMap[K, V]) put(k K, v V) {
	m.om.put(k, v)
	_ = m.hm.Put(k, m.hash(k))
}

// computeIfAbsent is HashMap#computeIfAbsent with a function returning v.
func (m *javaMap[K, V]) computeIfAbsent(k K, v V) {
	if _, ok := m.om.get(k); !ok {
		m.om.put(k, v)
	}
	_ = m.hm.ComputeIfAbsent(k, m.hash(k))
}

func (m *javaMap[K, V]) remove(k K) {
	m.om.remove(k)
	_ = m.hm.Remove(k)
}

// keys returns the keys in Java's order, or in insertion order when it is not modelled.
func (m *javaMap[K, V]) keys() []K {
	if ks, err := m.hm.Keys(); err == nil {
		return ks
	}
	out := make([]K, 0, len(m.om.vals))
	for i, k := range m.om.keys {
		if p, ok := m.om.pos[k]; ok && p == i {
			out = append(out, k)
		}
	}
	return out
}

func (m *javaMap[K, V]) values() []V {
	ks := m.keys()
	out := make([]V, len(ks))
	for i, k := range ks {
		out[i] = m.om.vals[k]
	}
	return out
}

// bucketKey is Java's IndexManifestFileHandler.BucketIdentifier.
type bucketKey struct {
	partition string
	bucket    int32
	indexType string
}

// javaHashCode is BucketIdentifier#hashCode: Objects.hash(partition, bucket, indexType), with
// the partition's BinaryRow#hashCode over the row bytes after the serialized arity.
func (k bucketKey) javaHashCode() int32 {
	var ph int32
	if len(k.partition) >= 4 {
		ph = binrow.HashCode([]byte(k.partition[4:]))
	}
	h := 31 + ph
	h = 31*h + k.bucket
	return 31*h + javacompat.StringHashCode(k.indexType)
}

func bucketKeyOf(e *meta.IndexManifestEntry) bucketKey {
	return bucketKey{string(rowOrEmpty(e.Partition)), e.Bucket, e.IndexFile.IndexType}
}

// combineBucketed is Java's BucketedCombiner: all DELETEs are applied before all ADDs.
func combineBucketed(prev, changes []meta.IndexManifestEntry) []meta.IndexManifestEntry {
	m := newJavaMap[bucketKey, meta.IndexManifestEntry](bucketKey.javaHashCode)
	for i := range prev {
		m.put(bucketKeyOf(&prev[i]), prev[i])
	}
	for i := range changes {
		if changes[i].Kind == meta.FileKindDelete {
			m.remove(bucketKeyOf(&changes[i]))
		}
	}
	for i := range changes {
		if changes[i].Kind == meta.FileKindAdd {
			m.put(bucketKeyOf(&changes[i]), changes[i])
		}
	}
	return m.values()
}

// combineByFileName is Java's GlobalCombiner for deletion vectors of bucket-unaware tables:
// changes apply in order, and a data file's deletion vector may live in one index file only.
func combineByFileName(prev, changes []meta.IndexManifestEntry) ([]meta.IndexManifestEntry, error) {
	m := newJavaMap[string, meta.IndexManifestEntry](javacompat.StringHashCode)
	dvFiles := map[string]bool{}
	for _, e := range prev {
		m.put(e.IndexFile.FileName, e)
		for _, dv := range e.IndexFile.DVRanges {
			dvFiles[dv.DataFileName] = true
		}
	}
	for _, e := range changes {
		name := e.IndexFile.FileName
		if e.Kind == meta.FileKindAdd {
			if _, ok := m.get(name); ok {
				return nil, fmt.Errorf("trying to add file %s which is already added", name)
			}
			for _, dv := range e.IndexFile.DVRanges {
				if dvFiles[dv.DataFileName] {
					return nil, fmt.Errorf("trying to add dv for data file %s which is already added", dv.DataFileName)
				}
				dvFiles[dv.DataFileName] = true
			}
			m.put(name, e)
			continue
		}
		if _, ok := m.get(name); !ok {
			return nil, fmt.Errorf("trying to delete file %s which does not exist", name)
		}
		for _, dv := range e.IndexFile.DVRanges {
			if !dvFiles[dv.DataFileName] {
				return nil, fmt.Errorf("trying to delete dv for data file %s which does not exist", dv.DataFileName)
			}
			delete(dvFiles, dv.DataFileName)
		}
		m.remove(name)
	}
	return m.values(), nil
}

// combineGlobalIndex is Java's GlobalIndexCombiner: DELETEs by file name, then a check that
// no added file collides with a retained one, then ADDs by file name.
func combineGlobalIndex(prev, changes []meta.IndexManifestEntry) ([]meta.IndexManifestEntry, error) {
	m := newJavaMap[string, meta.IndexManifestEntry](javacompat.StringHashCode)
	for _, e := range prev {
		m.put(e.IndexFile.FileName, e)
	}
	var added []meta.IndexManifestEntry
	for _, e := range changes {
		if e.Kind == meta.FileKindDelete {
			m.remove(e.IndexFile.FileName)
		} else {
			added = append(added, e)
		}
	}
	if err := validateRetained(m.values(), added); err != nil {
		return nil, err
	}
	for _, e := range added {
		m.put(e.IndexFile.FileName, e)
	}
	return m.values(), nil
}

// validateRetained rejects an added global-index file that would sit beside a retained one of
// the same index field, unless one of them has no global index meta, both carry source meta
// (primary-key indexes manage their own replacement), or they have equal extra field ids and
// disjoint row ranges.
func validateRetained(retained, added []meta.IndexManifestEntry) error {
	for _, r := range retained {
		rm := r.IndexFile.GlobalIndex
		if rm == nil {
			continue
		}
		for _, a := range added {
			am := a.IndexFile.GlobalIndex
			if am == nil ||
				(rm.SourceMeta != nil && am.SourceMeta != nil) ||
				rm.IndexFieldID != am.IndexFieldID ||
				(equalNullable(rm.ExtraFieldIDs, am.ExtraFieldIDs) &&
					!rangesIntersect(rm.RowRangeStart, rm.RowRangeEnd, am.RowRangeStart, am.RowRangeEnd)) {
				continue
			}
			return fmt.Errorf("trying to add global index file %s of type %s for index field %d with row range [%d, %d], "+
				"but previous file %s still exists with overlapping row range [%d, %d]; remove the previous file first",
				a.IndexFile.FileName, a.IndexFile.IndexType, am.IndexFieldID, am.RowRangeStart, am.RowRangeEnd,
				r.IndexFile.FileName, rm.RowRangeStart, rm.RowRangeEnd)
		}
	}
	return nil
}

// equalNullable is Java's Arrays.equals: two nulls are equal, null never equals non-null.
func equalNullable(a, b []int32) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return slices.Equal(a, b)
}

// rangesIntersect is Java's Range.intersect on inclusive ranges.
func rangesIntersect(start1, end1, start2, end2 int64) bool {
	return max(start1, start2) <= min(end1, end2)
}
