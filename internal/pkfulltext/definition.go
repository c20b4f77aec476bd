package pkfulltext

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// ErrNoIndex reports a table whose schema configures no primary-key full-text index.
var ErrNoIndex = errors.New("table has no primary-key full-text index (" + ColumnsOption + " is not set)")

// Definition is the primary-key full-text index a schema configures (Java
// PrimaryKeyIndexDefinition of family FULL_TEXT): the column, its field id and the resolved
// engine options.
type Definition struct {
	// Column is the indexed column.
	Column string
	// FieldID is the column's field id, recorded in every archive's GlobalIndexMeta.
	FieldID int32
	// Options are the engine options of the column
	// (CoreOptions#primaryKeyFullTextIndexOptions, prefix removed).
	Options AnalyzerOptions
}

// ResolveDefinition resolves the full-text index of a table schema as Paimon 2.0.0 does when it
// creates a writer (PrimaryKeyIndexDefinitions#create, then
// BucketedPrimaryKeyIndexMaintainer.Factory#create): the four families' column lists are split
// and checked for duplicates and for a column owning two indexes (pkindex.ValidateIndexColumns);
// definitions are made for schema fields, in field order, that a list names; more than one
// full-text column is an error. It returns ErrNoIndex when the schema configures none (an unset
// option, or one naming no existing column, which Java skips as well). A schema that Java's
// SchemaValidation would have refused (several columns, no primary key, no deletion vectors,
// dynamic bucket mode, a column that is missing or not CHAR/VARCHAR, ...) is an error with Java's
// message.
func ResolveDefinition(s *schema.TableSchema) (*Definition, error) {
	if err := pkindex.ValidateIndexColumns(s.Options); err != nil {
		return nil, err
	}
	vector := pkindex.IndexColumns(s.Options, pkindex.VectorColumnsOption)
	btree := pkindex.IndexColumns(s.Options, pkindex.BTreeColumnsOption)
	bitmap := pkindex.IndexColumns(s.Options, pkindex.BitmapColumnsOption)
	fullText := IndexColumns(s.Options)
	if fullText != nil {
		if err := validateSchema(s, fullText); err != nil {
			return nil, err
		}
	}
	var def *Definition
	for _, f := range s.Fields {
		// Java's if/else chain: btree, bitmap and vector claim a column first; the checks above
		// make the order irrelevant for valid schemas.
		if !slices.Contains(fullText, f.Name) || slices.Contains(btree, f.Name) ||
			slices.Contains(bitmap, f.Name) || slices.Contains(vector, f.Name) {
			continue
		}
		if def != nil {
			return nil, errors.New("Only one primary-key full-text index is supported.")
		}
		if f.Type.Root != types.RootChar && f.Type.Root != types.RootVarChar {
			return nil, fmt.Errorf("%s entry '%s' must reference a CHAR/VARCHAR/STRING column.", ColumnsOption, f.Name)
		}
		opts, err := ResolveAnalyzerOptions(s.Options, f.Name)
		if err != nil {
			return nil, err
		}
		def = &Definition{Column: f.Name, FieldID: int32(f.ID), Options: opts}
	}
	if def == nil {
		return nil, ErrNoIndex
	}
	return def, nil
}

// validateSchema refuses a schema Java would never have committed, with the checks and
// messages of SchemaValidation#validatePrimaryKeyFullTextIndex.
func validateSchema(s *schema.TableSchema, columns []string) error {
	key := ColumnsOption
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
	bucket, err := s.Bucket()
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
