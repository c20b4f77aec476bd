package definition_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Ports of Paimon's PrimaryKeySortedIndexValidationTest (release-2.0.0,
// SchemaValidation#validateTableSchema on pk-btree and pk-bitmap): Go runs the same checks when it
// resolves a schema's primary-key indexes, the column lists' ownership and duplicates in
// pkfulltext.ResolveDefinition (pkindex.ValidateIndexColumns) and the sorted family's own in
// Resolve.

// sortedValidationSchema is the Java test's schema: id INT NOT NULL (the primary key unless
// keys says otherwise) and payload of type payload, with bucket 1 and deletion vectors plus
// options.
func sortedValidationSchema(options map[string]string, payload types.DataType, keys ...string) *schema.TableSchema {
	opts := map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}
	for k, v := range options {
		opts[k] = v
	}
	if keys == nil {
		keys = []string{"id"}
	}
	return &schema.TableSchema{
		Fields:      []types.DataField{{ID: 0, Name: "id", Type: types.Int().AsNotNull()}, {ID: 1, Name: "payload", Type: payload}},
		PrimaryKeys: keys,
		Options:     opts,
	}
}

// validateSortedIndexes resolves both index families of s as a writer does.
func validateSortedIndexes(s *schema.TableSchema) error {
	if _, err := pkfulltext.ResolveDefinition(s); err != nil && !errors.Is(err, pkfulltext.ErrNoIndex) {
		return err
	}
	_, err := definition.Resolve(s)
	return err
}

func TestSortedValidationRefusals(t *testing.T) {
	for _, c := range []struct {
		java    string
		options map[string]string
		payload types.DataType
		keys    []string
		want    []string
	}{
		{"testRejectsColumnConfiguredForMultipleIndexFamilies", map[string]string{"pk-btree.index.columns": "payload", "pk-bitmap.index.columns": "payload"},
			types.String(), nil, []string{"payload", "at most one primary-key index"}},
		{"testRejectsDuplicateBTreeIndexColumns", map[string]string{"pk-btree.index.columns": "payload,payload"},
			types.String(), nil, []string{"pk-btree.index.columns", "duplicate"}},
		{"testRejectsDuplicateBitmapIndexColumns", map[string]string{"pk-bitmap.index.columns": "payload,payload"},
			types.String(), nil, []string{"pk-bitmap.index.columns", "duplicate"}},
		{"testRequiresDeletionVectors", map[string]string{"deletion-vectors.enabled": "false", "pk-btree.index.columns": "payload"},
			types.String(), nil, []string{"Primary-key BTree and Bitmap indexes require deletion-vectors.enabled = true"}},
		{"testRequiresPrimaryKeyTable", map[string]string{"bucket-key": "id", "pk-bitmap.index.columns": "payload"},
			types.String(), []string{}, []string{"Primary-key BTree and Bitmap indexes require a primary-key table"}},
		{"testRequiresFixedBucketMode", map[string]string{"bucket": "-1", "pk-btree.index.columns": "payload"},
			types.String(), nil, []string{"Primary-key BTree and Bitmap indexes require fixed or postpone bucket mode"}},
		{"testRejectsDeletionVectorMergeOnRead", map[string]string{"deletion-vectors.merge-on-read": "true", "pk-bitmap.index.columns": "payload"},
			types.String(), nil, []string{"Primary-key BTree and Bitmap indexes require deletion-vectors.merge-on-read = false"}},
		{"testRejectsPkClusteringOverride", map[string]string{"pk-clustering-override": "true", "clustering.columns": "payload", "pk-btree.index.columns": "payload"},
			types.String(), nil, []string{"Primary-key BTree and Bitmap indexes do not support pk-clustering-override"}},
		{"testRejectsUnknownIndexColumn", map[string]string{"pk-bitmap.index.columns": "unknown"},
			types.String(), nil, []string{"pk-bitmap.index.columns entry 'unknown'", "must reference an existing column"}},
		{"testRejectsUnsupportedIndexColumnType", map[string]string{"pk-btree.index.columns": "payload"},
			types.Array(types.Int()), nil, []string{"ARRAY<INT>", "not supported by global index"}},
	} {
		t.Run(c.java, func(t *testing.T) {
			err := validateSortedIndexes(sortedValidationSchema(c.options, c.payload, c.keys...))
			if err == nil {
				t.Fatalf("accepted, want an error containing %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestSupportsPostponeBucket is PrimaryKeySortedIndexValidationTest#testSupportsPostponeBucket.
func TestSupportsPostponeBucket(t *testing.T) {
	s := sortedValidationSchema(map[string]string{"bucket": "-2", "pk-btree.index.columns": "payload"}, types.String())
	if err := validateSortedIndexes(s); err != nil {
		t.Fatal(err)
	}
	defs, err := definition.Resolve(s)
	if err != nil || len(defs) != 1 || defs[0].Column != "payload" || defs[0].IndexType != "btree" {
		t.Fatalf("definitions %+v, %v: want one btree on payload", defs, err)
	}
}
