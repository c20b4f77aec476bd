package commit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Manifest merge options of Paimon 2.0.0 (CoreOptions) and their defaults.
const (
	ManifestTargetFileSizeOption       = "manifest.target-file-size"
	ManifestMergeMinCountOption        = "manifest.merge-min-count"
	ManifestFullCompactionSizeOption   = "manifest.full-compaction-threshold-size"
	ManifestSortEnabledOption          = "manifest-sort.enabled"
	defaultManifestTargetFileSize      = 8 << 20
	defaultManifestMergeMinCount       = 30
	defaultManifestFullCompactionBytes = 16 << 20
)

// errNoMerge makes mergeManifests keep its input as it is (see mergeManifests).
var errNoMerge = errors.New("manifest merge not supported here")

// manifestMerger merges the manifests a commit carries forward, as Java's ManifestFileMerger
// does before every commit.
type manifestMerger struct {
	t          *table.Table
	w          *MetadataWriter
	partType   types.DataType
	target     int64
	minCount   int
	fullSize   int64
	sortEnable bool
}

func newManifestMerger(t *table.Table, w *MetadataWriter, partType types.DataType, opts map[string]string) (*manifestMerger, error) {
	m := &manifestMerger{t: t, w: w, partType: partType, target: defaultManifestTargetFileSize,
		minCount: defaultManifestMergeMinCount, fullSize: defaultManifestFullCompactionBytes}
	var err error
	if v, ok := opts[ManifestTargetFileSizeOption]; ok {
		if m.target, err = schema.ParseMemorySize(v); err != nil {
			return nil, fmt.Errorf("%s: %w", ManifestTargetFileSizeOption, err)
		}
	}
	if v, ok := opts[ManifestFullCompactionSizeOption]; ok {
		if m.fullSize, err = schema.ParseMemorySize(v); err != nil {
			return nil, fmt.Errorf("%s: %w", ManifestFullCompactionSizeOption, err)
		}
	}
	if v, ok := opts[ManifestMergeMinCountOption]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ManifestMergeMinCountOption, err)
		}
		m.minCount = n
	}
	m.sortEnable = strings.EqualFold(strings.TrimSpace(opts[ManifestSortEnabledOption]), "true")
	return m, nil
}

// writeBaseList merges manifests (see merge) and writes the result as the next snapshot's base
// manifest list, returning the list's name and size.
func (m *manifestMerger) writeBaseList(ctx context.Context, manifests []meta.ManifestFileMeta) (string, int64, error) {
	merged, err := m.merge(ctx, manifests)
	if err != nil {
		return "", 0, err
	}
	return m.w.Write(ctx, m.w.factory.NewManifestList, func(out io.Writer) error {
		return manifest.WriteManifestList(out, merged, m.w.Options)
	})
}

// merge returns the manifests the next snapshot's base manifest list holds: full compaction
// when the manifests that must change reach the threshold, else minor compaction of runs of
// small manifests (ManifestFileMerger#merge). Manifests it writes are recorded by the writer, so
// a failed commit deletes them. Sorted manifest compaction (manifest-sort.enabled on a
// partitioned table) and rolling a merged manifest at the target size are not implemented: then
// the input is kept as it is, which Java reads the same way.
func (m *manifestMerger) merge(ctx context.Context, input []meta.ManifestFileMeta) ([]meta.ManifestFileMeta, error) {
	if m.sortEnable && m.partType.FieldCount() > 0 {
		return input, nil
	}
	out, ok, err := m.tryFull(ctx, input)
	if errors.Is(err, errNoMerge) {
		return input, nil
	}
	if err != nil || ok {
		return out, err
	}
	out, err = m.minor(ctx, input)
	if errors.Is(err, errNoMerge) {
		return input, nil
	}
	return out, err
}

func (m *manifestMerger) minor(ctx context.Context, input []meta.ManifestFileMeta) ([]meta.ManifestFileMeta, error) {
	var result, candidates []meta.ManifestFileMeta
	var total int64
	for _, mf := range input {
		total += mf.FileSize
		candidates = append(candidates, mf)
		if total >= m.target {
			merged, err := m.mergeCandidates(ctx, candidates)
			if err != nil {
				return nil, err
			}
			result = append(result, merged...)
			candidates, total = nil, 0
		}
	}
	if len(candidates) >= m.minCount {
		merged, err := m.mergeCandidates(ctx, candidates)
		if err != nil {
			return nil, err
		}
		return append(result, merged...), nil
	}
	return append(result, candidates...), nil
}

func (m *manifestMerger) mergeCandidates(ctx context.Context, candidates []meta.ManifestFileMeta) ([]meta.ManifestFileMeta, error) {
	if len(candidates) == 1 {
		return candidates, nil
	}
	var all []meta.ManifestEntry
	for _, c := range candidates {
		entries, err := m.t.ReadManifest(ctx, c.FileName)
		if err != nil {
			return nil, err
		}
		all = append(all, entries...)
	}
	merged, err := manifest.MergeEntries(all)
	if err != nil {
		return nil, fmt.Errorf("merge manifests: %w", err)
	}
	if len(merged) == 0 {
		return nil, nil
	}
	mf, err := m.writeManifest(ctx, merged)
	if err != nil {
		return nil, err
	}
	return []meta.ManifestFileMeta{mf}, nil
}

func (m *manifestMerger) tryFull(ctx context.Context, input []meta.ManifestFileMeta) ([]meta.ManifestFileMeta, bool, error) {
	if m.fullSize <= 0 {
		return nil, false, errors.New("manifest full compaction size trigger cannot be zero")
	}
	mustChange := func(f *meta.ManifestFileMeta) bool { return f.NumDeletedFiles > 0 || f.FileSize < m.target }
	var deltaSize int64
	for i := range input {
		if mustChange(&input[i]) {
			deltaSize += input[i].FileSize
		}
	}
	if deltaSize < m.fullSize {
		return nil, false, nil
	}
	deleted := map[manifest.Identifier]bool{}
	deletedPartitions := map[string][]byte{}
	for i := range input {
		if input[i].NumDeletedFiles == 0 {
			continue
		}
		entries, err := m.t.ReadManifest(ctx, input[i].FileName)
		if err != nil {
			return nil, false, err
		}
		for j := range entries {
			if entries[j].Kind == meta.FileKindDelete {
				id := manifest.EntryIdentifier(&entries[j])
				deleted[id] = true
				deletedPartitions[id.Partition] = []byte(id.Partition)
			}
		}
	}
	// Which untouched manifests may hold a deleted file: none without deletes, all for an
	// unpartitioned table, else those whose partition stats range may contain a deleted partition.
	mayContain := func(f *meta.ManifestFileMeta) (bool, error) {
		if len(deleted) == 0 {
			return false, nil
		}
		if m.partType.FieldCount() == 0 {
			return true, nil
		}
		return m.statsMayContain(f, deletedPartitions)
	}
	var result, toMerge []meta.ManifestFileMeta
	for i := range input {
		f := &input[i]
		if !mustChange(f) {
			ok, err := mayContain(f)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				result = append(result, *f)
				continue
			}
		}
		toMerge = append(toMerge, *f)
	}
	if len(toMerge) <= 1 {
		return nil, false, nil
	}
	var rewritten []meta.ManifestEntry
	for i := range toMerge {
		f := &toMerge[i]
		entries, err := m.t.ReadManifest(ctx, f.FileName)
		if err != nil {
			return nil, false, err
		}
		change := mustChange(f)
		var kept []meta.ManifestEntry
		for j := range entries {
			if entries[j].Kind != meta.FileKindAdd {
				continue
			}
			if deleted[manifest.EntryIdentifier(&entries[j])] {
				change = true
			} else {
				kept = append(kept, entries[j])
			}
		}
		if change {
			rewritten = append(rewritten, kept...)
		} else {
			result = append(result, *f)
		}
	}
	if len(rewritten) > 0 {
		mf, err := m.writeManifest(ctx, rewritten)
		if err != nil {
			return nil, false, err
		}
		result = append(result, mf)
	}
	return result, true, nil
}

// statsMayContain evaluates Java's MultiplePartitionPredicate on a manifest's partition stats:
// for every partition field, the manifest's [min, max] must reach the deleted partitions'
// [min, max] of that field.
func (m *manifestMerger) statsMayContain(f *meta.ManifestFileMeta, partitions map[string][]byte) (bool, error) {
	fieldTypes := m.partType.FieldTypes()
	lo, hi := make([]any, len(fieldTypes)), make([]any, len(fieldTypes))
	for _, p := range partitions {
		row, err := binrow.DeserializeBinaryRow(p)
		if err != nil {
			return false, err
		}
		vals, err := row.Decode(m.partType)
		if err != nil {
			return false, err
		}
		for i, v := range vals {
			if v == nil {
				continue
			}
			if lo[i] == nil || binrow.CompareValues(v, lo[i]) < 0 {
				lo[i] = v
			}
			if hi[i] == nil || binrow.CompareValues(v, hi[i]) > 0 {
				hi[i] = v
			}
		}
	}
	minRow, err := binrow.DeserializeBinaryRow(f.PartitionStats.MinValues)
	if err != nil {
		return false, err
	}
	maxRow, err := binrow.DeserializeBinaryRow(f.PartitionStats.MaxValues)
	if err != nil {
		return false, err
	}
	if minRow.Arity != len(fieldTypes) || maxRow.Arity != len(fieldTypes) {
		return true, nil // stats of another shape: read the manifest
	}
	fmin, err := minRow.Decode(m.partType)
	if err != nil {
		return false, err
	}
	fmax, err := maxRow.Decode(m.partType)
	if err != nil {
		return false, err
	}
	for i := range fieldTypes {
		if _, err := checkComparable(fieldTypes[i]); err != nil {
			return false, errNoMerge
		}
		// field >= lo and field <= hi on stats: a null bound (all values null, or only null
		// partitions deleted) makes the comparison unknown, which Java's predicates treat as no
		// match.
		if lo[i] == nil || hi[i] == nil || fmin[i] == nil || fmax[i] == nil {
			return false, nil
		}
		if binrow.CompareValues(fmax[i], lo[i]) < 0 || binrow.CompareValues(fmin[i], hi[i]) > 0 {
			return false, nil
		}
	}
	return true, nil
}

// writeManifest writes entries as one new manifest and returns its list entry, computed as
// Java's ManifestEntryWriter does.
func (m *manifestMerger) writeManifest(ctx context.Context, entries []meta.ManifestEntry) (meta.ManifestFileMeta, error) {
	mf, err := manifestFileMeta(m.partType, entries)
	if err != nil {
		return meta.ManifestFileMeta{}, err
	}
	name, size, err := m.w.Write(ctx, m.w.factory.NewManifestFile, func(out io.Writer) error {
		return manifest.WriteManifestFile(out, entries, m.w.Options)
	})
	if err != nil {
		return meta.ManifestFileMeta{}, err
	}
	mf.FileName, mf.FileSize = name, size
	return mf, nil
}

// manifestFileMeta computes a manifest's list entry from its (non-empty) entries, as
// ManifestFile.ManifestEntryWriter#result does: counts, largest schema id, bucket and level
// ranges, row id range when every file has a first row id, and the partition stats.
func manifestFileMeta(partType types.DataType, entries []meta.ManifestEntry) (meta.ManifestFileMeta, error) {
	if len(entries) == 0 {
		return meta.ManifestFileMeta{}, errors.New("manifest without entries")
	}
	var mf meta.ManifestFileMeta
	schemaID := int64(math.MinInt64)
	minB, maxB := int32(math.MaxInt32), int32(math.MinInt32)
	minL, maxL := int32(math.MaxInt32), int32(math.MinInt32)
	rowIDs := true
	minR, maxR := int64(math.MaxInt64), int64(math.MinInt64)
	fieldTypes := partType.FieldTypes()
	for _, t := range fieldTypes {
		if _, err := checkComparable(t); err != nil {
			return meta.ManifestFileMeta{}, errNoMerge
		}
	}
	lo, hi := make([]any, len(fieldTypes)), make([]any, len(fieldTypes))
	nulls := make([]int64, len(fieldTypes))
	for i := range entries {
		e := &entries[i]
		switch e.Kind {
		case meta.FileKindAdd:
			mf.NumAddedFiles++
		case meta.FileKindDelete:
			mf.NumDeletedFiles++
		default:
			return meta.ManifestFileMeta{}, fmt.Errorf("unknown entry kind %d", e.Kind)
		}
		schemaID = max(schemaID, e.File.SchemaID)
		minB, maxB = min(minB, e.Bucket), max(maxB, e.Bucket)
		minL, maxL = min(minL, e.File.Level), max(maxL, e.File.Level)
		if rowIDs {
			if e.File.FirstRowID == nil {
				rowIDs = false
			} else {
				minR = min(minR, *e.File.FirstRowID)
				maxR = max(maxR, *e.File.FirstRowID+e.File.RowCount-1)
			}
		}
		if len(fieldTypes) > 0 {
			part := e.Partition
			if part == nil {
				part = meta.EmptyBinaryRow()
			}
			row, err := binrow.DeserializeBinaryRow(part)
			if err != nil {
				return meta.ManifestFileMeta{}, fmt.Errorf("partition of %s: %w", e.File.FileName, err)
			}
			vals, err := row.Decode(partType)
			if err != nil {
				return meta.ManifestFileMeta{}, fmt.Errorf("partition of %s: %w", e.File.FileName, err)
			}
			for j, v := range vals {
				if v == nil {
					nulls[j]++
					continue
				}
				if lo[j] == nil || binrow.CompareValues(v, lo[j]) < 0 {
					lo[j] = v
				}
				if hi[j] == nil || binrow.CompareValues(v, hi[j]) > 0 {
					hi[j] = v
				}
			}
		}
	}
	mf.SchemaID = schemaID
	mf.MinBucket, mf.MaxBucket, mf.MinLevel, mf.MaxLevel = &minB, &maxB, &minL, &maxL
	if rowIDs {
		mf.MinRowID, mf.MaxRowID = &minR, &maxR
	}
	nullable := make([]types.DataField, len(partType.Fields))
	for i, f := range partType.Fields {
		nullable[i] = f
		nullable[i].Type = f.Type.WithNullable(true)
	}
	statsType := types.Row(nullable...)
	minRow, err := binrow.NewBinaryRow(statsType, lo)
	if err != nil {
		return meta.ManifestFileMeta{}, fmt.Errorf("partition stats: %w", err)
	}
	maxRow, err := binrow.NewBinaryRow(statsType, hi)
	if err != nil {
		return meta.ManifestFileMeta{}, fmt.Errorf("partition stats: %w", err)
	}
	counts := make([]*int64, len(nulls))
	for i := range nulls {
		counts[i] = &nulls[i]
	}
	mf.PartitionStats = meta.SimpleStats{MinValues: minRow.Serialize(), MaxValues: maxRow.Serialize(), NullCounts: counts}
	return mf, nil
}

// checkComparable accepts the partition types whose order binrow.CompareValues implements (not floats).
func checkComparable(t types.DataType) (types.Root, error) {
	switch t.Root {
	case types.RootChar, types.RootVarChar, types.RootBoolean, types.RootTinyInt, types.RootSmallInt,
		types.RootInt, types.RootBigInt, types.RootDate, types.RootTime, types.RootDecimal,
		types.RootTimestamp, types.RootTimestampLTZ, types.RootBinary, types.RootVarBinary:
		return t.Root, nil
	}
	return t.Root, fmt.Errorf("partition type %s has no stats order here", t.SQLString())
}
