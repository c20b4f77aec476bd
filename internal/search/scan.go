package search

import (
	"fmt"
	"strings"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Table options the read path consults.
const (
	optionDataEvolution  = "data-evolution.enabled"
	optionSearchMode     = "full-text-index.search-mode"
	optionThreadNum      = "global-index.thread-num"
	defaultThreadNum     = 32
	optionVectorColumns  = "pk-vector.index.columns"
	optionBTreeColumns   = "pk-btree.index.columns"
	optionBitmapColumns  = "pk-bitmap.index.columns"
	fullTextSearchModeOK = "FAST"
)

// Definition is the primary-key full-text index of one column (Java PrimaryKeyIndexDefinition of
// family FULL_TEXT): the column and its field id, which archives record as their index field.
type Definition struct {
	Column  string
	FieldID int32
}

// ResolveDefinition finds the primary-key full-text index a search of column uses, as
// FullTextSearchBuilderImpl#primaryKeyFullTextDefinition does with
// PrimaryKeyIndexDefinitions#create: the column must exist; data-evolution tables and columns
// not named by pk-full-text.index.columns have no such index (Java sends those searches to its
// data-evolution full-text path, which pkft does not implement, so they are errors here). An
// empty column selects the table's full-text column (the first in schema order).
func ResolveDefinition(s *schema.TableSchema, column string) (Definition, error) {
	if column != "" {
		if _, ok := s.FieldByName(column); !ok {
			return Definition{}, fmt.Errorf("text column '%s' does not exist", column)
		}
	}
	if on, err := boolOption(s.Options, optionDataEvolution); err != nil {
		return Definition{}, err
	} else if on {
		return Definition{}, fmt.Errorf("%w: data-evolution tables use the global full-text index, which pkft does not search", errNoDefinition)
	}
	columns := pkfulltext.IndexColumns(s.Options)
	if len(columns) == 0 {
		return Definition{}, fmt.Errorf("%w: the table does not set %s", errNoDefinition, pkfulltext.ColumnsOption)
	}
	if err := validateIndexColumns(s.Options, columns); err != nil {
		return Definition{}, err
	}
	for _, f := range s.Fields {
		if !contains(columns, f.Name) || claimedByOtherFamily(s.Options, f.Name) {
			continue
		}
		if column == "" || column == f.Name {
			return Definition{Column: f.Name, FieldID: int32(f.ID)}, nil
		}
	}
	if column == "" {
		return Definition{}, fmt.Errorf("%w: %s names no column of the table", errNoDefinition, pkfulltext.ColumnsOption)
	}
	return Definition{}, fmt.Errorf("%w on column '%s' (%s = %s)", errNoDefinition, column, pkfulltext.ColumnsOption, s.Options[pkfulltext.ColumnsOption])
}

// validateIndexColumns mirrors PrimaryKeyIndexDefinitions' checks: no column twice in one
// option, and no column owning two primary-key indexes.
func validateIndexColumns(opts map[string]string, fullText []string) error {
	owner := map[string]bool{}
	for _, key := range []string{optionVectorColumns, optionBTreeColumns, optionBitmapColumns, pkfulltext.ColumnsOption} {
		cols := pkindex.IndexColumns(opts, key)
		if key == pkfulltext.ColumnsOption {
			cols = fullText
		}
		seen := map[string]bool{}
		for _, c := range cols {
			if seen[c] {
				return fmt.Errorf("%s contains duplicate column '%s'", key, c)
			}
			seen[c] = true
		}
		for _, c := range cols {
			if owner[c] {
				return fmt.Errorf("column '%s' can own at most one primary-key index", c)
			}
			owner[c] = true
		}
	}
	return nil
}

func claimedByOtherFamily(opts map[string]string, column string) bool {
	for _, key := range []string{optionVectorColumns, optionBTreeColumns, optionBitmapColumns} {
		if contains(pkindex.IndexColumns(opts, key), column) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func boolOption(opts map[string]string, key string) (bool, error) {
	v, ok := opts[key]
	if !ok {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("option %s: cannot parse %q as a boolean", key, v)
}

// checkSearchMode accepts only full-text-index.search-mode = FAST (the default), as
// PrimaryKeyFullTextRead#checkFastSearchMode does.
func checkSearchMode(opts map[string]string) error {
	v, ok := opts[optionSearchMode]
	if !ok {
		return nil
	}
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case fullTextSearchModeOK:
		return nil
	case "FULL", "DETAIL":
		return fmt.Errorf("primary-key full-text search only supports the FAST full-text-index search mode; %s requires merge-aware logical-row fallback", strings.ToUpper(v))
	}
	return fmt.Errorf("option %s: unknown search mode %q", optionSearchMode, v)
}

// Split is the full-text search input of one (partition, bucket) of a snapshot (Java
// PrimaryKeyFullTextSearchSplit): the bucket's eligible data files, the current archives that
// cover them, and the eligible files no current archive covers (their rows are not searched).
type Split struct {
	// Partition is the serialized partition BinaryRow as manifests store it.
	Partition []byte
	Bucket    int32
	// DataFiles are the bucket's live files that feed archives (file source COMPACT, level > 0),
	// in snapshot order.
	DataFiles []*meta.DataFileMeta
	// Payloads are the current archives covering DataFiles.
	Payloads []*meta.IndexFileMeta
	// Uncovered are the names of DataFiles no current archive covers.
	Uncovered []string
	// DeletionFiles are the bucket's deletion-vector index files.
	DeletionFiles []*meta.IndexFileMeta

	bucket *table.Bucket // the bucket of the snapshot the split was planned from
}

// Plan is what a search reads from one snapshot (Java PrimaryKeyFullTextScan.Plan).
type Plan struct {
	SnapshotID int64
	Splits     []*Split
	// Coverage counts the data files of the selected buckets (every bucket of the selected
	// partitions, also those without a split and those below 0, which are not searched) and
	// those no current archive covers, by reason, derived from the classification the splits
	// were planned with (inspect.BucketCoverage).
	Coverage *inspect.CoverageDump
}

// PartitionFilter selects the partitions a search reads, given a partition's serialized
// BinaryRow. Nil reads every partition.
type PartitionFilter func(partition []byte) (bool, error)

// PlanSnapshot plans a search over the contents of one snapshot, as PrimaryKeyFullTextScan#scan
// and #plan do:
//   - payloads are the index manifest's full-text entries with global index meta and source
//     meta recorded for the definition's field, in selected partitions; any of them that is not
//     an ADD entry is an error;
//   - every (partition, bucket) of the selected partitions with bucket >= 0 and at least one
//     eligible data file (file source COMPACT above level 0: level-0 and appended files are
//     never searched) yields a split; buckets without eligible files yield none;
//   - the bucket's payloads are classified against its eligible files
//     (PkFullTextBucketIndexState#fromActiveDataFiles); only current archives are searched —
//     stale ones, other fields' archives, and levels without an archive are skipped silently,
//     and the files they would cover are listed as uncovered;
//   - the plan's Coverage counts, over every selected bucket, the files and rows no current
//     archive covers and why (an addition of pkft).
func PlanSnapshot(c *table.Contents, def Definition, filter PartitionFilter) (*Plan, error) {
	type bucketKey struct {
		partition string
		bucket    int32
	}
	payloads := map[bucketKey][]*meta.IndexFileMeta{}
	for i := range c.IndexEntries {
		e := &c.IndexEntries[i]
		if !matchesDefinition(&e.IndexFile, def.FieldID) {
			continue
		}
		if ok, err := selected(filter, e.Partition); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		if e.Kind != meta.FileKindAdd {
			return nil, fmt.Errorf("primary-key full-text index file %s is not active", e.IndexFile.FileName)
		}
		k := bucketKey{string(rowBytes(e.Partition)), e.Bucket}
		payloads[k] = append(payloads[k], &e.IndexFile)
	}
	plan := &Plan{SnapshotID: c.Snapshot.ID, Coverage: &inspect.CoverageDump{Uncovered: []inspect.UncoveredDump{}}}
	for _, b := range c.Buckets {
		if ok, err := selected(filter, b.Partition); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		if b.Bucket < 0 {
			// Not searched (Java skips such splits): none of its files counts as eligible.
			plan.Coverage.Add(inspect.BucketCoverage(b.DataFiles, nil, nil))
			continue
		}
		split := &Split{Partition: b.Partition, Bucket: b.Bucket, bucket: b}
		names := map[string]bool{}
		for _, f := range b.DataFiles {
			if !pkindex.ShouldReadDataFile(f) {
				continue
			}
			if names[f.FileName] {
				return nil, fmt.Errorf("data file %s appears more than once in full-text bucket planning", f.FileName)
			}
			names[f.FileName] = true
			split.DataFiles = append(split.DataFiles, f)
		}
		if len(split.DataFiles) == 0 {
			plan.Coverage.Add(inspect.BucketCoverage(b.DataFiles, nil, nil))
			continue
		}
		for _, f := range b.IndexFiles {
			if f.IndexType == meta.IndexTypeDeletionVectors {
				split.DeletionFiles = append(split.DeletionFiles, f)
			}
		}
		state, err := pkfulltext.FromActiveDataFiles(def.FieldID, split.DataFiles, payloads[bucketKey{string(rowBytes(b.Partition)), b.Bucket}])
		if err != nil {
			return nil, fmt.Errorf("bucket %d: %w", b.Bucket, err)
		}
		plan.Coverage.Add(inspect.BucketCoverage(b.DataFiles, split.DataFiles, state))
		bySource := state.PayloadBySourceFile()
		covered := map[string]bool{}
		chosen := map[string]bool{}
		for _, source := range state.CoveredSourceFiles() {
			if !names[source] {
				continue
			}
			p := bySource[source]
			covered[source] = true
			if !chosen[p.FileName] {
				chosen[p.FileName] = true
				split.Payloads = append(split.Payloads, p)
			}
		}
		for _, f := range split.DataFiles {
			if !covered[f.FileName] {
				split.Uncovered = append(split.Uncovered, f.FileName)
			}
		}
		plan.Splits = append(plan.Splits, split)
	}
	return plan, nil
}

// matchesDefinition is PrimaryKeyFullTextScan#matchesDefinition.
func matchesDefinition(f *meta.IndexFileMeta, fieldID int32) bool {
	g := f.GlobalIndex
	return f.IndexType == pkfulltext.IndexType && g != nil && g.SourceMeta != nil && g.IndexFieldID == fieldID
}

func selected(filter PartitionFilter, partition []byte) (bool, error) {
	if filter == nil {
		return true, nil
	}
	ok, err := filter(partition)
	if err != nil {
		return false, fmt.Errorf("partition filter: %w", err)
	}
	return ok, nil
}
