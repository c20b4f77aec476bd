package restore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Table option keys naming the columns of each primary-key index family (CoreOptions
// PK_*_INDEX_COLUMNS).
const (
	PKVectorIndexColumnsOption = "pk-vector.index.columns"
	PKBTreeIndexColumnsOption  = "pk-btree.index.columns"
	PKBitmapIndexColumnsOption = "pk-bitmap.index.columns"
)

// ErrNoFullTextIndex reports a table whose schema configures no primary-key full-text index.
var ErrNoFullTextIndex = errors.New("table has no primary-key full-text index (" + pkfulltext.ColumnsOption + " is not set)")

// FullTextDefinition is the primary-key full-text index a schema configures (Java
// PrimaryKeyIndexDefinition of family FULL_TEXT): the column, its field id and the resolved
// engine options.
type FullTextDefinition struct {
	// Column is the indexed column.
	Column string
	// FieldID is the column's field id, recorded in every archive's GlobalIndexMeta.
	FieldID int32
	// Options are the engine options of the column
	// (CoreOptions#primaryKeyFullTextIndexOptions, prefix removed).
	Options pkfulltext.AnalyzerOptions
}

// ResolveFullTextDefinition resolves the full-text index of a table schema as Paimon 2.0.0
// does when it creates a writer (PrimaryKeyIndexDefinitions#create, then
// BucketedPrimaryKeyIndexMaintainer.Factory#create): the four families' column lists are split
// and checked for duplicates and for a column owning two indexes; definitions are made for schema
// fields, in field order, that a list names; more than one full-text column is an error. It
// returns ErrNoFullTextIndex when the schema configures none (an unset option, or one naming no
// existing column, which Java skips as well). A schema that Java's SchemaValidation would have
// refused (several columns, no primary key, no deletion vectors, dynamic bucket mode, a column
// that is missing or not CHAR/VARCHAR, ...) is an error with Java's message.
func ResolveFullTextDefinition(s *schema.TableSchema) (*FullTextDefinition, error) {
	lists := []struct {
		key  string
		cols []string
	}{
		{PKVectorIndexColumnsOption, splitColumns(s.Options, PKVectorIndexColumnsOption)},
		{PKBTreeIndexColumnsOption, splitColumns(s.Options, PKBTreeIndexColumnsOption)},
		{PKBitmapIndexColumnsOption, splitColumns(s.Options, PKBitmapIndexColumnsOption)},
		{pkfulltext.ColumnsOption, pkfulltext.IndexColumns(s.Options)},
	}
	// SchemaValidation#validatePrimaryKeyIndexColumns runs first when Java commits a schema, so
	// its messages are the ones a Java user sees.
	for _, l := range lists {
		seen := map[string]bool{}
		for _, c := range l.cols {
			if seen[c] {
				return nil, fmt.Errorf("%s must not contain duplicate columns, but is [%s].", l.key, strings.Join(l.cols, ", "))
			}
			seen[c] = true
		}
	}
	owned := map[string]bool{}
	for _, l := range lists {
		for _, c := range l.cols {
			if owned[c] {
				return nil, fmt.Errorf("Column '%s' can own at most one primary-key index.", c)
			}
			owned[c] = true
		}
	}
	fullText := lists[3].cols
	if fullText != nil {
		if err := validateFullTextSchema(s, fullText); err != nil {
			return nil, err
		}
	}
	var def *FullTextDefinition
	for _, f := range s.Fields {
		// Java's if/else chain: btree, bitmap and vector claim a column first; the checks above
		// make the order irrelevant for valid schemas.
		if !slices.Contains(fullText, f.Name) || slices.Contains(lists[1].cols, f.Name) ||
			slices.Contains(lists[2].cols, f.Name) || slices.Contains(lists[0].cols, f.Name) {
			continue
		}
		if def != nil {
			return nil, errors.New("Only one primary-key full-text index is supported.")
		}
		if f.Type.Root != types.RootChar && f.Type.Root != types.RootVarChar {
			return nil, fmt.Errorf("%s entry '%s' must reference a CHAR/VARCHAR/STRING column.", pkfulltext.ColumnsOption, f.Name)
		}
		opts, err := pkfulltext.ResolveAnalyzerOptions(s.Options, f.Name)
		if err != nil {
			return nil, err
		}
		def = &FullTextDefinition{Column: f.Name, FieldID: int32(f.ID), Options: opts}
	}
	if def == nil {
		return nil, ErrNoFullTextIndex
	}
	return def, nil
}

// validateFullTextSchema refuses a schema Java would never have committed, with the checks and
// messages of SchemaValidation#validatePrimaryKeyFullTextIndex.
func validateFullTextSchema(s *schema.TableSchema, columns []string) error {
	key := pkfulltext.ColumnsOption
	if len(columns) != 1 {
		return fmt.Errorf("%s must contain exactly one column in the first release, but is [%s].", key, strings.Join(columns, ", "))
	}
	if paths.IsJavaWhitespaceOnly(columns[0]) {
		return fmt.Errorf("%s must contain a non-empty column.", key)
	}
	if len(s.PrimaryKeys) == 0 {
		return errors.New("Primary-key full-text index requires a primary-key table.")
	}
	dv, err := schema.BoolOption(s.Options, "deletion-vectors.enabled", false)
	if err != nil {
		return err
	}
	firstRow := strings.EqualFold(strings.TrimSpace(s.Options["merge-engine"]), "first-row")
	if !firstRow && !dv {
		return errors.New("Primary-key full-text index requires deletion-vectors.enabled = true.")
	}
	mor, err := schema.BoolOption(s.Options, "deletion-vectors.merge-on-read", false)
	if err != nil {
		return err
	}
	if dv && mor {
		return errors.New("Primary-key full-text index requires deletion-vectors.merge-on-read = false.")
	}
	bucket, err := bucketOption(s)
	if err != nil {
		return err
	}
	if bucket <= 0 && bucket != paths.PostponeBucket {
		return fmt.Errorf("Primary-key full-text index requires fixed or postpone bucket mode (bucket > 0 or bucket = -2), but bucket is %d.", bucket)
	}
	if override, err := schema.BoolOption(s.Options, "pk-clustering-override", false); err != nil {
		return err
	} else if override {
		return errors.New("Primary-key full-text index does not support pk-clustering-override.")
	}
	f, ok := s.FieldByName(columns[0])
	if !ok {
		return fmt.Errorf("%s entry '%s' must reference an existing column.", key, columns[0])
	}
	if f.Type.Root != types.RootChar && f.Type.Root != types.RootVarChar {
		return fmt.Errorf("%s entry '%s' must reference a CHAR/VARCHAR/STRING column.", key, columns[0])
	}
	return nil
}

// bucketOption is the table's bucket option (-1, dynamic, when unset).
func bucketOption(s *schema.TableSchema) (int, error) {
	v, ok := s.Options["bucket"]
	if !ok {
		return -1, nil
	}
	bucket, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("option bucket: %w", err)
	}
	return bucket, nil
}

// splitColumns is CoreOptions#primaryKeyIndexColumns: nil when unset, else every comma-separated
// part trimmed (empty parts kept).
func splitColumns(opts map[string]string, key string) []string {
	if _, ok := opts[key]; !ok {
		return nil
	}
	return pkfulltext.IndexColumns(map[string]string{pkfulltext.ColumnsOption: opts[key]})
}

// Restorer restores buckets of one table snapshot the way a Java writer does
// (FileSystemWriteRestore#restoreFiles), against the writer's schema: the table's latest schema.
type Restorer struct {
	Table *table.Table
	// Schema is the writer's schema (the latest schema of the table).
	Schema *schema.TableSchema
	// Paths is the table's path factory; archives are named by it.
	Paths *paths.FileStorePathFactory
	// FullText is the full-text definition of Schema, or nil when it has none.
	FullText *FullTextDefinition
	// Sorted are the sorted-family definitions of Schema in field order (nil when it has none).
	Sorted []SortedDefinition

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
	def, err := ResolveFullTextDefinition(sch)
	switch {
	case errors.Is(err, ErrNoFullTextIndex):
	case err != nil:
		return nil, fmt.Errorf("resolve primary-key full-text index of schema %d: %w", sch.ID, err)
	default:
		r.FullText = def
	}
	if r.Sorted, err = ResolveSortedDefinitions(sch); err != nil {
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
		return nil, ErrNoFullTextIndex
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
