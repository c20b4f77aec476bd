package definition

import (
	"errors"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Resolved is one sorted-family index (pk-btree or pk-bitmap) a schema configures, resolved for
// building: the indexed field and the index's format options (Java PrimaryKeyIndexDefinition of
// family BTREE or BITMAP).
type Resolved struct {
	Definition
	// Field is the indexed field of the schema.
	Field types.DataField
	// Options are the index's options (CoreOptions#primaryKeyBTreeIndexOptions or
	// primaryKeyBitmapIndexOptions).
	Options map[string]string
}

// Resolve resolves the sorted-family indexes of a table schema as Paimon 2.0.0 does when it
// creates a writer (PrimaryKeyIndexDefinitions#create), in field order, after the checks of SchemaValidation#validatePrimaryKeySortedIndexes with Java's messages (deletion
// vectors, a primary key, fixed or postpone buckets, no merge-on-read, no pk-clustering-override,
// existing columns, a type and options the index accepts). The column lists' duplicate and
// ownership checks are pkindex.ValidateIndexColumns, which pkfulltext.ResolveDefinition runs;
// callers run both. It returns nil when the schema configures no sorted index.
func Resolve(s *schema.TableSchema) ([]Resolved, error) {
	btreeCols, bitmapCols := pkindex.IndexColumns(s.Options, BTreeColumnsOption), pkindex.IndexColumns(s.Options, BitmapColumnsOption)
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
	bucket, err := s.Bucket()
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
	}{{BTreeColumnsOption, btreeCols}, {BitmapColumnsOption, bitmapCols}} {
		for _, c := range l.cols {
			if _, ok := s.FieldByName(c); !ok {
				return nil, fmt.Errorf("%s entry '%s' must reference an existing column.", l.key, c)
			}
		}
	}
	var out []Resolved
	for _, d := range FromSchema(s.Options, s.Fields) {
		f, _ := s.FieldByName(d.Column)
		if _, err := sortkey.New(f.Type); err != nil {
			return nil, fmt.Errorf("%s index on column %s: %w", d.IndexType, d.Column, err)
		}
		opts, err := IndexOptions(s.Options, d.Column, d.IndexType)
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
		out = append(out, Resolved{Definition: d, Field: f, Options: opts})
	}
	return out, nil
}
