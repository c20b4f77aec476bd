package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// dumpFiles is the part of Table.Dump a minor compaction's messages are read from: per
// (partition, bucket) its live data files (name and level) and index files (type and name).
type dumpFiles struct {
	Buckets []struct {
		Partition map[string]json.RawMessage `json:"partition"`
		Bucket    int32                      `json:"bucket"`
		DataFiles []struct {
			FileName string `json:"fileName"`
			Level    int32  `json:"level"`
		} `json:"dataFiles"`
		IndexFiles []struct {
			IndexType string `json:"indexType"`
			FileName  string `json:"fileName"`
		} `json:"indexFiles"`
	} `json:"buckets"`
}

// bucketFiles is one bucket's live files: data files as name@level (a file moved to another
// level as it is counts as removed at its old level and added at its new one, as Java's compact
// increment lists it in compactBefore and compactAfter), index files as type:name.
type bucketFiles struct {
	bucket int32
	data   map[string]string // name@level -> name
	index  map[string]bool   // type:name
}

// liveFiles reads the live files of every bucket of the table's latest snapshot, keyed by
// partition and bucket; a table without a snapshot has none.
func liveFiles(ctx context.Context, t *pkft.Table) (map[string]*bucketFiles, int64, error) {
	raw, err := t.Dump(ctx)
	if errors.Is(err, pkft.ErrNoSnapshot) {
		return map[string]*bucketFiles{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var d dumpFiles
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, 0, fmt.Errorf("read the dump of %s: %w", t.Path(), err)
	}
	var snap struct {
		SnapshotID int64 `json:"snapshotId"`
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		return nil, 0, fmt.Errorf("read the dump of %s: %w", t.Path(), err)
	}
	out := map[string]*bucketFiles{}
	for _, b := range d.Buckets {
		part, err := json.Marshal(b.Partition)
		if err != nil {
			return nil, 0, err
		}
		bf := &bucketFiles{bucket: b.Bucket, data: map[string]string{}, index: map[string]bool{}}
		for _, f := range b.DataFiles {
			bf.data[fmt.Sprintf("%s@%d", f.FileName, f.Level)] = f.FileName
		}
		for _, f := range b.IndexFiles {
			bf.index[f.IndexType+":"+f.FileName] = true
		}
		out[fmt.Sprintf("%s/%d", part, b.Bucket)] = bf
	}
	return out, snap.SnapshotID, nil
}

// cmdMinorCompact runs a minor compaction of every bucket (Table.Compact with
// WithMinorCompaction: the table's compaction strategy picks, nothing is forced) and commits
// once. Result: {snapshotBefore, snapshotAfter (equal when nothing was compacted), messages}, one
// message per (partition, bucket) with live files before the compaction, as the Java runner's
// minor-compact answers. pkft's compaction commits one COMPACT snapshot, so a message's changes
// are its compact increment: compactBefore and compactAfter (data file names),
// compactNewIndexFiles and compactDeletedIndexFiles (type:name); its data increment and
// changelog lists are empty. The lists are read from the table's dumps before and after (files
// that left or joined the bucket's live files), the API a Go user has.
func cmdMinorCompact(ctx context.Context, args protocol.MinorCompactRequest) (protocol.MinorCompactResponse, error) {
	var none protocol.MinorCompactResponse
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	before, snapBefore, err := liveFiles(ctx, t)
	if err != nil {
		return none, err
	}
	res, err := t.Compact(ctx, pkft.WithMinorCompaction())
	if err != nil {
		return none, err
	}
	after, snapAfter := before, snapBefore
	if res.SnapshotID != 0 {
		if after, snapAfter, err = liveFiles(ctx, t); err != nil {
			return none, err
		}
	}
	keys := make([]string, 0, len(before))
	for k := range before {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	messages := []protocol.Object{}
	for _, k := range keys {
		b := before[k]
		a := after[k]
		if a == nil {
			a = &bucketFiles{data: map[string]string{}, index: map[string]bool{}}
		}
		messages = append(messages, protocol.Object{
			"bucket":                   b.bucket,
			"newFiles":                 []string{},
			"deletedFiles":             []string{},
			"changelogFiles":           []string{},
			"newIndexFiles":            []string{},
			"deletedIndexFiles":        []string{},
			"compactBefore":            dataMinus(b.data, a.data),
			"compactAfter":             dataMinus(a.data, b.data),
			"compactChangelogFiles":    []string{},
			"compactNewIndexFiles":     indexMinus(a.index, b.index),
			"compactDeletedIndexFiles": indexMinus(b.index, a.index),
		})
	}
	return protocol.MinorCompactResponse{SnapshotBefore: snapBefore, SnapshotAfter: snapAfter, Messages: messages}, nil
}

// dataMinus is the names of the data files of x (name@level) that y lacks, sorted.
func dataMinus(x, y map[string]string) []string {
	out := []string{}
	for k, name := range x {
		if _, ok := y[k]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// indexMinus is the index files of x (type:name) that y lacks, sorted.
func indexMinus(x, y map[string]bool) []string {
	out := []string{}
	for k := range x {
		if !y[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
