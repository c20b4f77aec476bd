package restore

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/datafile"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// SortedDefinition is one sorted-family index (pk-btree or pk-bitmap) a schema configures,
// resolved for building: the indexed field and the index's format options (Java
// PrimaryKeyIndexDefinition of family BTREE or BITMAP).
type SortedDefinition struct {
	definition.Definition
	// Field is the indexed field of the schema.
	Field types.DataField
	// Options are the index's options (CoreOptions#primaryKeyBTreeIndexOptions or
	// primaryKeyBitmapIndexOptions).
	Options map[string]string
}

// ResolveSortedDefinitions resolves the sorted-family indexes of a table schema as Paimon 2.0.0
// does when it creates a writer (PrimaryKeyIndexDefinitions#create), in field order, after the
// checks of SchemaValidation#validatePrimaryKeySortedIndexes with Java's messages (deletion
// vectors, a primary key, fixed or postpone buckets, no merge-on-read, no pk-clustering-override,
// existing columns, a type and options the index accepts). The column lists' duplicate and
// ownership checks are ResolveFullTextDefinition's; callers run both. It returns nil when the
// schema configures no sorted index.
func ResolveSortedDefinitions(s *schema.TableSchema) ([]SortedDefinition, error) {
	btreeCols, bitmapCols := splitColumns(s.Options, PKBTreeIndexColumnsOption), splitColumns(s.Options, PKBitmapIndexColumnsOption)
	if len(btreeCols) == 0 && len(bitmapCols) == 0 {
		return nil, nil
	}
	dvOn, err := schema.BoolOption(s.Options, "deletion-vectors.enabled", false)
	if err != nil {
		return nil, err
	}
	if !dvOn {
		return nil, errors.New("Primary-key BTree and Bitmap indexes require deletion-vectors.enabled = true.")
	}
	if len(s.PrimaryKeys) == 0 {
		return nil, errors.New("Primary-key BTree and Bitmap indexes require a primary-key table.")
	}
	bucket, err := bucketOption(s)
	if err != nil {
		return nil, err
	}
	if bucket <= 0 && bucket != paths.PostponeBucket {
		return nil, fmt.Errorf("Primary-key BTree and Bitmap indexes require fixed or postpone bucket mode (bucket > 0 or bucket = -2), but bucket is %d.", bucket)
	}
	if mor, err := schema.BoolOption(s.Options, "deletion-vectors.merge-on-read", false); err != nil {
		return nil, err
	} else if mor {
		return nil, errors.New("Primary-key BTree and Bitmap indexes require deletion-vectors.merge-on-read = false.")
	}
	if override, err := schema.BoolOption(s.Options, "pk-clustering-override", false); err != nil {
		return nil, err
	} else if override {
		return nil, errors.New("Primary-key BTree and Bitmap indexes do not support pk-clustering-override.")
	}
	for _, l := range []struct {
		key  string
		cols []string
	}{{PKBTreeIndexColumnsOption, btreeCols}, {PKBitmapIndexColumnsOption, bitmapCols}} {
		for _, c := range l.cols {
			if _, ok := s.FieldByName(c); !ok {
				return nil, fmt.Errorf("%s entry '%s' must reference an existing column.", l.key, c)
			}
		}
	}
	var out []SortedDefinition
	for _, d := range definition.FromSchema(s.Options, s.Fields) {
		f, _ := s.FieldByName(d.Column)
		if _, err := sortkey.New(f.Type); err != nil {
			return nil, fmt.Errorf("%s index on column %s: %w", d.IndexType, d.Column, err)
		}
		opts, err := definition.IndexOptions(s.Options, d.Column, d.IndexType)
		if err != nil {
			return nil, fmt.Errorf("%s index on column %s: %w", d.IndexType, d.Column, err)
		}
		switch d.IndexType {
		case btree.Identifier:
			_, err = btree.ParseOptions(opts)
		case bitmap.Identifier:
			_, err = bitmap.ParseOptions(opts)
		}
		if err != nil {
			return nil, fmt.Errorf("%s index on column %s: %w", d.IndexType, d.Column, err)
		}
		out = append(out, SortedDefinition{Definition: d, Field: f, Options: opts})
	}
	return out, nil
}

// HasIndexes reports whether the writer's schema configures any primary-key index Go maintains.
func (r *Restorer) HasIndexes() bool { return r.FullText != nil || len(r.Sorted) > 0 }

// SortedIndexFile is the sorted-index payload writer and deleter of a bucket (Java
// IndexFileHandler#pkSortedIndex).
func (r *Restorer) SortedIndexFile(b *RestoredBucket) *indexfile.IndexFile {
	return &indexfile.IndexFile{FileIO: r.Table.FileIO, Paths: b.IndexPaths}
}

// SortedBuilder is the payload builder of one sorted definition in a bucket (Java
// PkSortedIndexBuilder over PkSortedDataFileReader): it reads the indexed column of the bucket's
// data files with their row positions.
func (r *Restorer) SortedBuilder(b *RestoredBucket, def SortedDefinition, indexFile *indexfile.IndexFile) (*indexfile.Builder, error) {
	layout, err := r.layout()
	if err != nil {
		return nil, err
	}
	return &indexfile.Builder{
		IndexFile: indexFile,
		Readers:   &sortedReaders{fio: r.Table.FileIO, paths: b.DataPaths, layout: layout, fieldID: int(def.FieldID)},
		Field:     def.Field,
		IndexType: def.IndexType,
		Options:   def.Options,
	}, nil
}

// layout is the key-value layout of the writer's schema, resolved once.
func (r *Restorer) layout() (*kvfile.Layout, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kvLayout == nil {
		l, err := kvfile.NewLayout(r.Schema)
		if err != nil {
			return nil, fmt.Errorf("data file layout of schema %d: %w", r.Schema.ID, err)
		}
		r.kvLayout = l
	}
	return r.kvLayout, nil
}

// sortedReaders opens the sorted-index readers of one bucket's data files.
type sortedReaders struct {
	fio     fileio.FileIO
	paths   *paths.DataFilePathFactory
	layout  *kvfile.Layout
	fieldID int
}

func (s *sortedReaders) Open(ctx context.Context, file *meta.DataFileMeta) (indexfile.EntryReader, error) {
	ext := ""
	if file.ExternalPath != nil {
		ext = *file.ExternalPath
	}
	return datafile.Open(ctx, s.fio, s.paths.ToPath(file.FileName, ext), file, s.layout, s.fieldID)
}
