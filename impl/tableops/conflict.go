package tableops

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/impl/binrow"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/schema"
	"github.com/paimon-pkft/pkft/impl/table"
	"github.com/paimon-pkft/pkft/impl/types"
)

// checkConflicts runs the checks FileStoreCommitImpl makes before committing index changes
// that add global-index files (checkAppendFiles, hence ConflictDetection#checkConflicts) with no
// data file changes, on the live files of the partitions the changes touch: the total bucket
// count of a partition must not vary (checkBucketKeepSame), and the key ranges of the files of a
// level above 0 must not overlap (checkKeyRange, skipped with pk-clustering-override). With no
// data changes of its own, such a commit only fails them on a table that is already
// inconsistent; Java then gives up, and so does Go. The data-evolution checks do not apply to
// primary-key tables.
func checkConflicts(sch *schema.TableSchema, contents *table.Contents, changes []meta.IndexManifestEntry) error {
	changed := map[string]bool{}
	for i := range changes {
		changed[string(partitionOrEmpty(changes[i].Partition))] = true
	}
	var entries []*meta.ManifestEntry
	for i := range contents.Entries {
		if changed[string(partitionOrEmpty(contents.Entries[i].Partition))] {
			entries = append(entries, &contents.Entries[i])
		}
	}

	totals := map[string]int32{}
	for _, e := range entries {
		if e.TotalBuckets <= 0 {
			continue
		}
		p := string(partitionOrEmpty(e.Partition))
		if old, ok := totals[p]; ok && old != e.TotalBuckets {
			return fmt.Errorf("Total buckets of partition %x changed from %d to %d without overwrite. Give up committing: %w",
				e.Partition, old, e.TotalBuckets, ErrCommitConflict)
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
		lo, err := decodeKey(keyType, e.File.MinKey)
		if err != nil {
			return fmt.Errorf("min key of %s: %w", e.File.FileName, err)
		}
		hi, err := decodeKey(keyType, e.File.MaxKey)
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
				return fmt.Errorf("LSM conflicts detected! Give up committing. Conflict files are:\n%s\n%s: %w",
					describe(a.e), describe(b.e), ErrCommitConflict)
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

func decodeKey(keyType types.DataType, b []byte) ([]any, error) {
	row, err := binrow.DeserializeBinaryRow(b)
	if err != nil {
		return nil, err
	}
	return row.Decode(keyType)
}

func describe(e *meta.ManifestEntry) string {
	return fmt.Sprintf("{partition=%x, bucket=%d, level=%d, fileName=%s}", e.Partition, e.Bucket, e.File.Level, e.File.FileName)
}
