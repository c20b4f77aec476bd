package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/table"
)

// cmdIndexFileBuild builds the full-text archive of one level of one (partition, bucket) of the
// latest snapshot, as the Java runner's pk-full-text-index-file-build builds it with Paimon's
// PkFullTextIndexFile: over the level's eligible files (ordered by file name as Java's String
// order), under the latest schema's full-text definition, written where the table's writer
// writes index files; nothing is committed. The partition is named as the dump renders it.
// Result: {sources [{fileName, rowCount}], archivePath, indexFile {indexType, fileName, fileSize,
// rowCount, externalPath, globalIndex {rowRangeStart, rowRangeEnd, indexFieldId, extraFieldIds,
// indexMeta (base64), sourceMeta (base64)}}}.
func cmdIndexFileBuild(ctx context.Context, args protocol.PKFullTextIndexFileBuildRequest) (protocol.PKFullTextIndexFileBuildResponse, error) {
	var none protocol.PKFullTextIndexFileBuildResponse
	if args.Path == "" {
		return none, argErrorf("args.path (the table directory) is required")
	}
	bucketArg, err := int32Arg("args.bucket", args.Bucket)
	if err != nil {
		return none, err
	}
	level, err := int32Arg("args.level", args.Level)
	if err != nil {
		return none, err
	}
	partition, err := json.Marshal(args.Partition)
	if err != nil {
		return none, err
	}
	want, err := normalizedPartition(partition)
	if err != nil {
		return none, argErrorf("args.partition: %v", err)
	}
	tb := table.Open(fileio.NewLocal(), args.Path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return none, err
	}
	if snap == nil {
		return none, fmt.Errorf("table has no snapshot")
	}
	sch, err := tb.LatestSchema(ctx)
	if err != nil {
		return none, err
	}
	cols := pkfulltext.IndexColumns(sch.Options)
	if len(cols) != 1 {
		return none, argErrorf("the table schema defines no primary-key full-text index of one column (%v)", cols)
	}
	field, ok := sch.FieldByName(cols[0])
	if !ok {
		return none, fmt.Errorf("the full-text column %s is not in the schema", cols[0])
	}
	analyzer, err := pkfulltext.ResolveAnalyzerOptions(sch.Options, cols[0])
	if err != nil {
		return none, err
	}
	dump, err := inspect.TableDump(ctx, tb, inspect.FullTextState)
	if err != nil {
		return none, err
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return none, err
	}
	if len(contents.Buckets) != len(dump.Buckets) {
		return none, fmt.Errorf("%d buckets, the dump has %d", len(contents.Buckets), len(dump.Buckets))
	}
	var bucket *table.Bucket
	for i, b := range contents.Buckets {
		part, err := json.Marshal(dump.Buckets[i].Partition)
		if err != nil {
			return none, err
		}
		got, err := normalizedPartition(part)
		if err != nil {
			return none, err
		}
		if b.Bucket == bucketArg && bytes.Equal(got, want) {
			bucket = b
		}
	}
	var files []*meta.DataFileMeta
	if bucket != nil {
		view, err := pkfulltext.InspectBucket(int32(field.ID), bucket.DataFiles, bucket.IndexFiles)
		if err != nil {
			return none, err
		}
		for _, f := range view.Eligible {
			if f.Level == level {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return none, argErrorf("no eligible data file on level %d of bucket %d in partition %s", level, bucketArg, partition)
	}
	slices.SortFunc(files, func(a, b *meta.DataFileMeta) int { return javaio.CompareJava(a.FileName, b.FileName) })
	restorer, err := restore.NewRestorer(ctx, tb)
	if err != nil {
		return none, err
	}
	rb, err := restorer.RestoreBucket(bucket)
	if err != nil {
		return none, err
	}
	lib, err := native.Load(ctx, "")
	if err != nil {
		return none, err
	}
	fieldName := func(schemaID int64, id int32) (string, error) {
		s, err := tb.Schema(ctx, schemaID)
		if err != nil {
			return "", err
		}
		f, ok := s.FieldByID(int(id))
		if !ok {
			return "", fmt.Errorf("schema %d field %d: %w", schemaID, id, textreader.ErrFieldNotInSchema)
		}
		return f.Name, nil
	}
	builder := &pkfulltext.Builder{
		IndexFile: &pkfulltext.IndexFile{FileIO: tb.FileIO, Paths: rb.IndexPaths, Engine: native.Engine{Lib: lib}},
		Readers:   &pkfulltext.DataFileReaders{FileIO: tb.FileIO, Paths: rb.DataPaths, FieldID: int32(field.ID), FieldName: fieldName},
		FieldID:   int32(field.ID),
		Options:   analyzer,
	}
	archive, err := builder.Build(ctx, files)
	if err != nil {
		return none, err
	}
	sources := make([]protocol.PKFullTextIndexFileBuildResponseSource, len(files))
	for i, f := range files {
		sources[i] = protocol.PKFullTextIndexFileBuildResponseSource{FileName: f.FileName, RowCount: f.RowCount}
	}
	ext := ""
	if archive.ExternalPath != nil {
		ext = *archive.ExternalPath
	}
	b64 := func(b []byte) *string {
		if b == nil {
			return nil
		}
		s := base64.StdEncoding.EncodeToString(b)
		return &s
	}
	g := archive.GlobalIndex
	if g == nil {
		return none, fmt.Errorf("the archive %s has no global index meta", archive.FileName)
	}
	return protocol.PKFullTextIndexFileBuildResponse{
		Sources:     sources,
		ArchivePath: rb.IndexPaths.ToPathOf(archive.FileName, ext),
		IndexFile: protocol.Object{
			"indexType": archive.IndexType, "fileName": archive.FileName, "fileSize": archive.FileSize,
			"rowCount": archive.RowCount, "externalPath": archive.ExternalPath,
			"globalIndex": protocol.Object{
				"rowRangeStart": g.RowRangeStart, "rowRangeEnd": g.RowRangeEnd, "indexFieldId": g.IndexFieldID,
				"extraFieldIds": g.ExtraFieldIDs, "indexMeta": b64(g.IndexMeta), "sourceMeta": b64(g.SourceMeta),
			},
		},
	}, nil
}

// normalizedPartition is a partition object (as the dump renders it) in a canonical JSON form:
// numbers by value, as the Java runner compares them; absent or null is the empty partition.
func normalizedPartition(raw json.RawMessage) ([]byte, error) {
	m := protocol.Object{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
	}
	for k, v := range m {
		if n, ok := v.(json.Number); ok {
			r, ok := new(big.Rat).SetString(n.String())
			if !ok {
				return nil, fmt.Errorf("partition value %s=%s is not a number", k, n)
			}
			m[k] = r.RatString()
		}
	}
	return json.Marshal(m)
}
