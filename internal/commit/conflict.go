package commit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// bucketConflict is a conflict check failure caused by one bucket's change: the bucket is
// planned again on the same base before the commit gives up.
type bucketConflict struct {
	key BucketKey
	err error
}

func (e *bucketConflict) Error() string { return e.err.Error() }
func (e *bucketConflict) Unwrap() error { return e.err }

// check runs the conflict checks of FileStoreCommitImpl (ConflictDetection#checkConflicts) on
// the new base: every file the commit deletes (data or index) must still be live, no file may be
// deleted or added twice, and, over the merged live files of the partitions the commit touches,
// the total bucket count of a partition must not vary and the key ranges of levels above 0 must
// not overlap. Java runs them on commits that delete files or add global-index files; Go runs
// them on every commit (on a consistent base they can only fail because of the commit itself).
func (c *committer) check(contents *table.Contents) error {
	live := map[string]bool{}
	for i := range contents.Entries {
		e := &contents.Entries[i]
		live[fileKey(e.Partition, e.Bucket, e.File.FileName)] = true
	}
	liveIndex := map[string]bool{}
	for i := range contents.IndexEntries {
		e := &contents.IndexEntries[i]
		liveIndex[fileKey(e.Partition, e.Bucket, e.IndexFile.FileName)] = true
	}
	changes := c.sorted()
	for _, m := range changes {
		for _, f := range m.CompactBefore {
			if !live[fileKey(m.Partition, m.Bucket, f.FileName)] {
				return &bucketConflict{m.Key(), c.conflict("File deletion conflicts detected! Give up committing: %s is no longer live in bucket %d", f.FileName, m.Bucket)}
			}
		}
		for _, f := range m.DeletedIndexFiles {
			if !liveIndex[fileKey(m.Partition, m.Bucket, f.FileName)] {
				return &bucketConflict{m.Key(), c.conflict("index file %s of bucket %d is no longer live", f.FileName, m.Bucket)}
			}
		}
	}
	delta := dataEntries(changes)
	if _, err := manifest.MergeEntries(delta); err != nil {
		return c.conflict("merge the commit's own changes: %v", err)
	}
	merged, err := manifest.MergeEntries(slices.Concat(contents.Entries, delta))
	if err != nil {
		return c.conflict("merge changes: %v", err)
	}
	for _, e := range merged {
		if e.Kind != meta.FileKindAdd {
			return &bucketConflict{KeyOf(e.Partition, e.Bucket), c.conflict("File deletion conflicts detected! Give up committing: %s", e.File.FileName)}
		}
	}
	touched := map[string]bool{}
	for _, m := range changes {
		if !m.Empty() {
			touched[string(partitionOrEmpty(m.Partition))] = true
		}
	}
	err = checkConflicts(c.req.Schema, merged, touched)
	var bad *levelConflict
	if errors.As(err, &bad) {
		return &bucketConflict{bad.key, c.conflict("%v", err)}
	}
	if err != nil {
		return c.conflict("%v", err)
	}
	return nil
}

func fileKey(partition []byte, bucket int32, name string) string {
	return fmt.Sprintf("%x/%d/%s", partitionOrEmpty(partition), bucket, name)
}

// levelConflict is an overlap of key ranges in one level of one bucket.
type levelConflict struct {
	key BucketKey
	msg string
}

func (e *levelConflict) Error() string { return e.msg }

// checkConflicts runs the checks FileStoreCommitImpl makes before committing index changes
// that add global-index files (checkAppendFiles, hence ConflictDetection#checkConflicts) with no
// data file changes, on the live files of the partitions the changes touch: the total bucket
// count of a partition must not vary (checkBucketKeepSame), and the key ranges of the files of a
// level above 0 must not overlap (checkKeyRange, skipped with pk-clustering-override). With no
// data changes of its own, such a commit only fails them on a table that is already
// inconsistent; Java then gives up, and so does Go. The data-evolution checks do not apply to
// primary-key tables.
func checkConflicts(sch *schema.TableSchema, merged []meta.ManifestEntry, changed map[string]bool) error {
	var entries []*meta.ManifestEntry
	for i := range merged {
		if changed[string(partitionOrEmpty(merged[i].Partition))] {
			entries = append(entries, &merged[i])
		}
	}

	totals := map[string]int32{}
	for _, e := range entries {
		if e.TotalBuckets <= 0 {
			continue
		}
		p := string(partitionOrEmpty(e.Partition))
		if old, ok := totals[p]; ok && old != e.TotalBuckets {
			return fmt.Errorf("Total buckets of partition %x changed from %d to %d without overwrite. Give up committing",
				e.Partition, old, e.TotalBuckets)
		}
		totals[p] = e.TotalBuckets
	}

	if strings.EqualFold(strings.TrimSpace(sch.Options["pk-clustering-override"]), "true") || len(sch.PrimaryKeys) == 0 {
		return nil
	}
	keyType, err := sch.TrimmedPrimaryKeyType()
	if err != nil {
		return err
	}
	for _, f := range keyType.Fields {
		if _, err := checkComparable(f.Type); err != nil {
			return nil // a key type whose order is not ported: leave the check to Java
		}
	}
	type levelKey struct {
		partition string
		bucket    int32
		level     int32
	}
	type keyed struct {
		e        *meta.ManifestEntry
		min, max []any
	}
	levels := map[levelKey][]keyed{}
	for _, e := range entries {
		if e.File.Level < 1 {
			continue
		}
		lo, err := DecodeKey(keyType, e.File.MinKey)
		if err != nil {
			return fmt.Errorf("min key of %s: %w", e.File.FileName, err)
		}
		hi, err := DecodeKey(keyType, e.File.MaxKey)
		if err != nil {
			return fmt.Errorf("max key of %s: %w", e.File.FileName, err)
		}
		k := levelKey{string(partitionOrEmpty(e.Partition)), e.Bucket, e.File.Level}
		levels[k] = append(levels[k], keyed{e, lo, hi})
	}
	for _, files := range levels {
		slices.SortStableFunc(files, func(a, b keyed) int { return binrow.CompareKeys(a.min, b.min) })
		for i := 0; i+1 < len(files); i++ {
			a, b := files[i], files[i+1]
			if binrow.CompareKeys(a.max, b.min) >= 0 {
				return &levelConflict{KeyOf(a.e.Partition, a.e.Bucket), fmt.Sprintf("LSM conflicts detected! Give up committing. Conflict files are:\n%s\n%s",
					describe(a.e), describe(b.e))}
			}
		}
	}
	return nil
}

func partitionOrEmpty(p []byte) []byte {
	if p == nil {
		return meta.EmptyBinaryRow()
	}
	return p
}

// DecodeKey decodes a serialized key row (a data file's min or max key) of keyType.
func DecodeKey(keyType types.DataType, b []byte) ([]any, error) {
	row, err := binrow.DeserializeBinaryRow(b)
	if err != nil {
		return nil, err
	}
	return row.Decode(keyType)
}

func describe(e *meta.ManifestEntry) string {
	return fmt.Sprintf("{partition=%x, bucket=%d, level=%d, fileName=%s}", e.Partition, e.Bucket, e.File.Level, e.File.FileName)
}
