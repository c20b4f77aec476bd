package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/paimon-pkft/pkft/compat/protocol"
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
func cmdManifestValues(ctx context.Context, args protocol.ManifestValuesRequest) (protocol.ManifestValuesResponse, error) {
	var none protocol.ManifestValuesResponse
	if args.Path == "" {
		return none, argErrorf("args.path (the table directory) is required")
	}
	tb := table.Open(fileio.NewLocal(), args.Path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return none, err
	}
	if snap == nil {
		return none, fmt.Errorf("table has no snapshot")
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return none, err
	}
	out := protocol.ManifestValuesResponse{SnapshotID: snap.ID,
		DataManifests: []protocol.ManifestValuesResponseDataManifest{},
		Entries:       []protocol.ManifestValuesResponseEntry{},
		IndexEntries:  []protocol.ManifestValuesResponseIndexEntry{}}
	for _, list := range [][]meta.ManifestFileMeta{contents.BaseManifests, contents.DeltaManifests} {
		for _, m := range list {
			out.DataManifests = append(out.DataManifests, manifestValue(m))
			es, err := tb.ReadManifest(ctx, m.FileName)
			if err != nil {
				return none, err
			}
			for _, e := range es {
				out.Entries = append(out.Entries, entryValue(e))
			}
		}
	}
	for _, e := range contents.IndexEntries {
		out.IndexEntries = append(out.IndexEntries, indexEntryValue(e))
	}
	for _, err := range []error{canonicalOrder(out.DataManifests), canonicalOrder(out.Entries), canonicalOrder(out.IndexEntries)} {
		if err != nil {
			return none, err
		}
	}
	return out, nil
}

// canonicalOrder sorts values by their canonical JSON (canonicalJSON), stably.
func canonicalOrder[T any](values []T) error {
	type keyed struct {
		key string
		v   T
	}
	byKey := make([]keyed, len(values))
	for i, v := range values {
		k, err := canonicalJSON(v)
		if err != nil {
			return err
		}
		byKey[i] = keyed{k, v}
	}
	sort.SliceStable(byKey, func(a, b int) bool { return byKey[a].key < byKey[b].key })
	for i := range byKey {
		values[i] = byKey[i].v
	}
	return nil
}

// canonicalJSON is v's JSON with object keys sorted (as encoding/json writes maps), no
// whitespace, no HTML escaping, numbers as they are.
func canonicalJSON(v any) (string, error) {
	var tree any
	if err := reshape(v, &tree, false); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// manifestValue is a ManifestFileMeta but its file name and size.
func manifestValue(m meta.ManifestFileMeta) protocol.ManifestValuesResponseDataManifest {
	return protocol.ManifestValuesResponseDataManifest{
		NumAddedFiles:   m.NumAddedFiles,
		NumDeletedFiles: m.NumDeletedFiles,
		PartitionStats:  statsValue(m.PartitionStats),
		SchemaID:        m.SchemaID,
		MinBucket:       widen(m.MinBucket),
		MaxBucket:       widen(m.MaxBucket),
		MinLevel:        widen(m.MinLevel),
		MaxLevel:        widen(m.MaxLevel),
		MinRowID:        widen(m.MinRowID),
		MaxRowID:        widen(m.MaxRowID),
	}
}

// entryValue is a ManifestEntry.
func entryValue(e meta.ManifestEntry) protocol.ManifestValuesResponseEntry {
	f := e.File
	var source *string
	if f.FileSource != nil {
		source = new(f.FileSource.String())
	}
	extra := f.ExtraFiles
	if extra == nil {
		extra = []string{} // Java's extra files are never null; Go writes nil as an empty array
	}
	return protocol.ManifestValuesResponseEntry{
		Kind:         e.Kind.String(),
		Partition:    base64.StdEncoding.EncodeToString(e.Partition),
		Bucket:       int64(e.Bucket),
		TotalBuckets: int64(e.TotalBuckets),
		File: protocol.ManifestValuesResponseEntryFile{
			FileName:          f.FileName,
			FileSize:          f.FileSize,
			RowCount:          f.RowCount,
			MinKey:            base64.StdEncoding.EncodeToString(f.MinKey),
			MaxKey:            base64.StdEncoding.EncodeToString(f.MaxKey),
			KeyStats:          statsValue(f.KeyStats),
			ValueStats:        statsValue(f.ValueStats),
			MinSequenceNumber: f.MinSequenceNumber,
			MaxSequenceNumber: f.MaxSequenceNumber,
			SchemaID:          f.SchemaID,
			Level:             int64(f.Level),
			ExtraFiles:        extra,
			CreationTime:      f.CreationTime,
			DeleteRowCount:    f.DeleteRowCount,
			EmbeddedIndex:     b64(f.EmbeddedIndex),
			FileSource:        source,
			ValueStatsCols:    f.ValueStatsCols,
			ExternalPath:      f.ExternalPath,
			FirstRowID:        f.FirstRowID,
			WriteCols:         f.WriteCols,
		},
	}
}

// indexEntryValue is an IndexManifestEntry.
func indexEntryValue(e meta.IndexManifestEntry) protocol.ManifestValuesResponseIndexEntry {
	f := e.IndexFile
	out := protocol.ManifestValuesResponseIndexEntry{
		Kind:         e.Kind.String(),
		Partition:    base64.StdEncoding.EncodeToString(e.Partition),
		Bucket:       int64(e.Bucket),
		IndexType:    f.IndexType,
		FileName:     f.FileName,
		FileSize:     f.FileSize,
		RowCount:     f.RowCount,
		ExternalPath: f.ExternalPath,
	}
	if f.DVRanges != nil {
		out.DVRanges = make([]protocol.ManifestValuesResponseIndexEntryDVRange, 0, len(f.DVRanges))
		for _, dv := range f.DVRanges {
			out.DVRanges = append(out.DVRanges, protocol.ManifestValuesResponseIndexEntryDVRange{
				DataFileName: dv.DataFileName, Offset: int64(dv.Offset), Length: int64(dv.Length), Cardinality: dv.Cardinality})
		}
	}
	if g := f.GlobalIndex; g != nil {
		var extra []int64
		if g.ExtraFieldIDs != nil {
			extra = make([]int64, len(g.ExtraFieldIDs))
			for i, id := range g.ExtraFieldIDs {
				extra[i] = int64(id)
			}
		}
		out.GlobalIndex = &protocol.ManifestValuesResponseIndexEntryGlobalIndex{
			RowRangeStart: g.RowRangeStart,
			RowRangeEnd:   g.RowRangeEnd,
			IndexFieldID:  int64(g.IndexFieldID),
			ExtraFieldIDs: extra,
			IndexMeta:     b64(g.IndexMeta),
			SourceMeta:    b64(g.SourceMeta),
		}
	}
	return out
}

// statsValue is a SimpleStats: its binary rows in base64, its null counts.
func statsValue(s meta.SimpleStats) protocol.ManifestValuesStats {
	return protocol.ManifestValuesStats{MinValues: base64.StdEncoding.EncodeToString(s.MinValues),
		MaxValues: base64.StdEncoding.EncodeToString(s.MaxValues), NullCounts: s.NullCounts}
}

// widen is an optional integer as the protocol's int64.
func widen[T int32 | int64](p *T) *int64 {
	if p == nil {
		return nil
	}
	return new(int64(*p))
}

// b64 is b in standard base64, or nil for nil.
func b64(b []byte) *string {
	if b == nil {
		return nil
	}
	return new(base64.StdEncoding.EncodeToString(b))
}
