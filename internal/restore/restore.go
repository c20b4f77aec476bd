package restore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Restorer restores buckets of one table snapshot the way a Java writer does
// (FileSystemWriteRestore#restoreFiles), against the writer's schema: the table's latest schema.
type Restorer struct {
	Table *table.Table
	// Schema is the writer's schema (the latest schema of the table).
	Schema *schema.TableSchema
	// Paths is the table's path factory; archives are named by it.
	Paths *paths.FileStorePathFactory
	// FullText is the full-text definition of Schema, or nil when it has none.
	FullText *pkfulltext.Definition
	// Sorted are the sorted-family definitions of Schema in field order (nil when it has none).
	Sorted []definition.Resolved

	mu       sync.Mutex
	schemas  map[int64]*schema.TableSchema
	kvLayout *kvfile.Layout
}

// NewRestorer reads the table's latest schema and resolves its path layout, full-text definition
// (nil when the table has none) and sorted-family definitions; other definition errors are
// returned.
func NewRestorer(ctx context.Context, t *table.Table) (*Restorer, error) {
	sch, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	factory, err := paths.NewTableFactory(t.Root, sch.Options)
	if err != nil {
		return nil, err
	}
	r := &Restorer{Table: t, Schema: sch, Paths: factory, schemas: map[int64]*schema.TableSchema{sch.ID: sch}}
	def, err := pkfulltext.ResolveDefinition(sch)
	switch {
	case errors.Is(err, pkfulltext.ErrNoIndex):
	case err != nil:
		return nil, fmt.Errorf("resolve primary-key full-text index of schema %d: %w", sch.ID, err)
	default:
		r.FullText = def
	}
	if r.Sorted, err = definition.Resolve(sch); err != nil {
		return nil, fmt.Errorf("resolve primary-key sorted indexes of schema %d: %w", sch.ID, err)
	}
	return r, nil
}

// RestoredBucket is what a writer restores for one (partition, bucket) of a snapshot.
type RestoredBucket struct {
	// Partition is the serialized partition row.
	Partition []byte
	// PartitionSpec is the partition as the bucket's directory names it.
	PartitionSpec []paths.PartitionKV
	Bucket        int32
	TotalBuckets  int32
	// DataFiles are the live data files, ordered by level then name.
	DataFiles []*meta.DataFileMeta
	// IndexFiles are the bucket's live index files by index type, each list in index manifest
	// order. Types this package does not maintain are carried through untouched.
	IndexFiles map[string][]*meta.IndexFileMeta
	// SourcePayloads are the index files that carry source meta (Java
	// IndexFileHandler#scanSourceIndexes): what the primary-key index maintainers restore from.
	SourcePayloads []*meta.IndexFileMeta
	// DataPaths resolves the bucket's data files.
	DataPaths *paths.DataFilePathFactory
	// IndexPaths names and resolves the bucket's index files.
	IndexPaths paths.IndexPathFactory
}

// DeletionVectorFiles are the bucket's deletion-vector index files.
func (b *RestoredBucket) DeletionVectorFiles() []*meta.IndexFileMeta {
	return b.IndexFiles[meta.IndexTypeDeletionVectors]
}

// ReadDeletionVectors reads every deletion vector of the bucket, keyed by data file name.
func (b *RestoredBucket) ReadDeletionVectors(ctx context.Context, r *Restorer) (map[string]dv.DeletionVector, error) {
	out := map[string]dv.DeletionVector{}
	for _, f := range b.DeletionVectorFiles() {
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		ranges := make([]dv.Range, 0, len(f.DVRanges))
		for _, m := range f.DVRanges {
			ranges = append(ranges, dv.Range{DataFile: m.DataFileName, Offset: m.Offset, Length: m.Length, Cardinality: m.Cardinality})
		}
		vecs, err := dv.ReadAll(ctx, r.Table.FileIO, b.IndexPaths.ToPathOf(f.FileName, ext), ranges)
		if err != nil {
			return nil, fmt.Errorf("bucket %d: deletion vectors of %s: %w", b.Bucket, f.FileName, err)
		}
		for k, v := range vecs {
			out[k] = v
		}
	}
	return out, nil
}

// RestoreBucket restores one bucket of the contents Table.Read returned.
func (r *Restorer) RestoreBucket(b *table.Bucket) (*RestoredBucket, error) {
	spec, err := r.PartitionSpec(b.Partition)
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	dataPaths, err := r.Paths.DataFilePathFactory(spec, int(b.Bucket))
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	indexPaths, err := r.Paths.IndexPathFactory(spec, int(b.Bucket))
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	rb := &RestoredBucket{
		Partition:     b.Partition,
		PartitionSpec: spec,
		Bucket:        b.Bucket,
		TotalBuckets:  b.TotalBuckets,
		DataFiles:     slices.Clone(b.DataFiles),
		IndexFiles:    map[string][]*meta.IndexFileMeta{},
		DataPaths:     dataPaths,
		IndexPaths:    indexPaths,
	}
	for _, f := range b.IndexFiles {
		rb.IndexFiles[f.IndexType] = append(rb.IndexFiles[f.IndexType], f)
		if f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
			rb.SourcePayloads = append(rb.SourcePayloads, f)
		}
	}
	return rb, nil
}

// PartitionSpec formats a serialized partition row as the partition directory names it
// (InternalRowPartitionComputer#generatePartValues with partition.legacy-name and
// partition.default-name). Supported partition types: CHAR, VARCHAR, BOOLEAN, the integer types,
// DATE and DECIMAL.
func (r *Restorer) PartitionSpec(partition []byte) ([]paths.PartitionKV, error) {
	keys := r.Schema.PartitionKeys
	if len(keys) == 0 {
		return nil, nil
	}
	partType := r.Schema.PartitionType()
	row, err := binrow.DeserializeBinaryRow(partition)
	if err != nil {
		return nil, fmt.Errorf("decode partition: %w", err)
	}
	values, err := row.Decode(partType)
	if err != nil {
		return nil, fmt.Errorf("decode partition: %w", err)
	}
	opts := r.Paths.Options()
	spec := make([]paths.PartitionKV, len(keys))
	for i, k := range keys {
		var s string
		switch v := values[i].(type) {
		case nil:
		case string:
			s = v
		case bool:
			s = strconv.FormatBool(v)
		case int8:
			s = strconv.FormatInt(int64(v), 10)
		case int16:
			s = strconv.FormatInt(int64(v), 10)
		case int32:
			switch partType.Fields[i].Type.Root {
			case types.RootDate:
				s = paths.FormatDate(v, opts.LegacyPartitionName)
			case types.RootTinyInt, types.RootSmallInt, types.RootInt:
				s = strconv.FormatInt(int64(v), 10)
			default:
				return nil, fmt.Errorf("partition key %s: unsupported partition type %s", k, partType.Fields[i].Type.SQLString())
			}
		case int64:
			s = strconv.FormatInt(v, 10)
		case binrow.Decimal:
			s = v.String()
		default:
			return nil, fmt.Errorf("partition key %s: unsupported partition type %s", k, partType.Fields[i].Type.SQLString())
		}
		spec[i] = paths.PartitionKV{Key: k, Value: s}
	}
	return spec, nil
}

// fieldName is the textreader.FieldNameFunc over the table's schema files.
func (r *Restorer) fieldName(ctx context.Context) textreader.FieldNameFunc {
	if mutation.On("text-column-latest-name") && r.FullText != nil {
		// The text column is looked up by its name in the latest schema, whatever schema the
		// data file was written with.
		column := r.FullText.Column
		return func(int64, int32) (string, error) { return column, nil }
	}
	return func(schemaID int64, fieldID int32) (string, error) {
		r.mu.Lock()
		if r.schemas == nil {
			r.schemas = map[int64]*schema.TableSchema{}
		}
		s, ok := r.schemas[schemaID]
		r.mu.Unlock()
		if !ok {
			var err error
			if s, err = r.Table.Schema(ctx, schemaID); err != nil {
				return "", err
			}
			r.mu.Lock()
			r.schemas[schemaID] = s
			r.mu.Unlock()
		}
		f, ok := s.FieldByID(int(fieldID))
		if !ok {
			return "", fmt.Errorf("schema %d field %d: %w", schemaID, fieldID, textreader.ErrFieldNotInSchema)
		}
		return f.Name, nil
	}
}

// FullTextIndexFile is the archive writer and deleter of a bucket (Java
// IndexFileHandler#pkFullTextIndex).
func (r *Restorer) FullTextIndexFile(b *RestoredBucket, engine fulltext.Engine) *pkfulltext.IndexFile {
	return &pkfulltext.IndexFile{FileIO: r.Table.FileIO, Paths: b.IndexPaths, Engine: engine}
}

// FullTextBuilder is the archive builder of a bucket (Java PkFullTextIndexBuilder over
// PkFullTextDataFileReader): it reads the text column of the bucket's data files through
// pkfulltext.DataFileReaders.
func (r *Restorer) FullTextBuilder(ctx context.Context, b *RestoredBucket, indexFile *pkfulltext.IndexFile) (*pkfulltext.Builder, error) {
	if r.FullText == nil {
		return nil, pkfulltext.ErrNoIndex
	}
	return &pkfulltext.Builder{
		IndexFile: indexFile,
		Readers: &pkfulltext.DataFileReaders{
			FileIO:    r.Table.FileIO,
			Paths:     b.DataPaths,
			FieldID:   r.FullText.FieldID,
			FieldName: r.fieldName(ctx),
		},
		FieldID: r.FullText.FieldID,
		Options: r.FullText.Options,
	}, nil
}

// NewFullTextMaintainer restores the bucket's full-text maintainer as Java's
// FullTextDefinitionFactory#create does: from the bucket's data files and its source payloads.
// ctx supplies the values (not the cancellation) of the schema reads its builds make.
func (r *Restorer) NewFullTextMaintainer(ctx context.Context, b *RestoredBucket, engine fulltext.Engine) (*pkfulltext.Maintainer, error) {
	indexFile := r.FullTextIndexFile(b, engine)
	builder, err := r.FullTextBuilder(ctx, b, indexFile)
	if err != nil {
		return nil, err
	}
	m, err := pkfulltext.NewMaintainer(r.FullText.FieldID, builder, indexFile, b.DataFiles, b.SourcePayloads)
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", b.Bucket, err)
	}
	return m, nil
}
