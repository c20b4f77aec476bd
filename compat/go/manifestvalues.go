package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/table"
)

// cmdManifestValues renders the latest snapshot's metadata as internal/manifest's readers decode
// it (through internal/table, the reader every table operation of pkft uses), as the Java
// runner's manifest-values renders what Paimon's readers decode: result {snapshotId,
// dataManifests [the ManifestFileMeta of every base and delta manifest but its file name and
// size], entries [every ManifestEntry of those manifests, unmerged], indexEntries [every entry
// of the index manifest]}. Binary rows and bytes are base64; each list is sorted by the
// canonical JSON of its elements (object keys sorted, no whitespace).
func cmdManifestValues(ctx context.Context, raw json.RawMessage) (any, error) {
	var args pathArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.Path == "" {
		return nil, argErrorf("args.path (the table directory) is required")
	}
	tb := table.Open(fileio.NewLocal(), args.Path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, fmt.Errorf("table has no snapshot")
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	var manifests, entries, indexEntries []any
	for _, list := range [][]meta.ManifestFileMeta{contents.BaseManifests, contents.DeltaManifests} {
		for _, m := range list {
			manifests = append(manifests, manifestValue(m))
			es, err := tb.ReadManifest(ctx, m.FileName)
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				entries = append(entries, entryValue(e))
			}
		}
	}
	for _, e := range contents.IndexEntries {
		indexEntries = append(indexEntries, indexEntryValue(e))
	}
	out := map[string]any{"snapshotId": snap.ID}
	for name, list := range map[string][]any{"dataManifests": manifests, "entries": entries, "indexEntries": indexEntries} {
		if out[name], err = canonicalOrder(list); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// canonicalOrder returns values sorted by their canonical JSON: object keys sorted (as
// encoding/json writes maps), no whitespace, no HTML escaping.
func canonicalOrder(values []any) ([]any, error) {
	keys := make([]string, len(values))
	for i, v := range values {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		keys[i] = string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	out := make([]any, 0, len(values))
	for _, i := range idx {
		out = append(out, values[i])
	}
	return out, nil
}

func manifestValue(m meta.ManifestFileMeta) map[string]any {
	return map[string]any{
		"numAddedFiles":   m.NumAddedFiles,
		"numDeletedFiles": m.NumDeletedFiles,
		"partitionStats":  statsValue(m.PartitionStats),
		"schemaId":        m.SchemaID,
		"minBucket":       m.MinBucket,
		"maxBucket":       m.MaxBucket,
		"minLevel":        m.MinLevel,
		"maxLevel":        m.MaxLevel,
		"minRowId":        m.MinRowID,
		"maxRowId":        m.MaxRowID,
	}
}

func entryValue(e meta.ManifestEntry) map[string]any {
	f := e.File
	var source *string
	if f.FileSource != nil {
		s := f.FileSource.String()
		source = &s
	}
	extra := f.ExtraFiles
	if extra == nil {
		extra = []string{} // Java's extra files are never null; Go writes nil as an empty array
	}
	return map[string]any{
		"kind":         e.Kind.String(),
		"partition":    b64(e.Partition),
		"bucket":       e.Bucket,
		"totalBuckets": e.TotalBuckets,
		"file": map[string]any{
			"fileName":          f.FileName,
			"fileSize":          f.FileSize,
			"rowCount":          f.RowCount,
			"minKey":            b64(f.MinKey),
			"maxKey":            b64(f.MaxKey),
			"keyStats":          statsValue(f.KeyStats),
			"valueStats":        statsValue(f.ValueStats),
			"minSequenceNumber": f.MinSequenceNumber,
			"maxSequenceNumber": f.MaxSequenceNumber,
			"schemaId":          f.SchemaID,
			"level":             f.Level,
			"extraFiles":        extra,
			"creationTime":      f.CreationTime,
			"deleteRowCount":    f.DeleteRowCount,
			"embeddedIndex":     b64(f.EmbeddedIndex),
			"fileSource":        source,
			"valueStatsCols":    f.ValueStatsCols,
			"externalPath":      f.ExternalPath,
			"firstRowId":        f.FirstRowID,
			"writeCols":         f.WriteCols,
		},
	}
}

func indexEntryValue(e meta.IndexManifestEntry) map[string]any {
	f := e.IndexFile
	out := map[string]any{
		"kind":         e.Kind.String(),
		"partition":    b64(e.Partition),
		"bucket":       e.Bucket,
		"indexType":    f.IndexType,
		"fileName":     f.FileName,
		"fileSize":     f.FileSize,
		"rowCount":     f.RowCount,
		"dvRanges":     nil,
		"externalPath": f.ExternalPath,
		"globalIndex":  nil,
	}
	if f.DVRanges != nil {
		ranges := make([]any, 0, len(f.DVRanges))
		for _, dv := range f.DVRanges {
			ranges = append(ranges, map[string]any{"dataFileName": dv.DataFileName, "offset": dv.Offset,
				"length": dv.Length, "cardinality": dv.Cardinality})
		}
		out["dvRanges"] = ranges
	}
	if g := f.GlobalIndex; g != nil {
		out["globalIndex"] = map[string]any{
			"rowRangeStart": g.RowRangeStart,
			"rowRangeEnd":   g.RowRangeEnd,
			"indexFieldId":  g.IndexFieldID,
			"extraFieldIds": g.ExtraFieldIDs,
			"indexMeta":     b64(g.IndexMeta),
			"sourceMeta":    b64(g.SourceMeta),
		}
	}
	return out
}

func statsValue(s meta.SimpleStats) map[string]any {
	return map[string]any{"minValues": b64(s.MinValues), "maxValues": b64(s.MaxValues), "nullCounts": s.NullCounts}
}

// b64 is b in standard base64, or nil for nil.
func b64(b []byte) *string {
	if b == nil {
		return nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return &s
}
