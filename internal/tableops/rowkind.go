package tableops

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// RowKindFieldOption names the field a row's kind is read from on write (CoreOptions
// ROWKIND_FIELD).
const RowKindFieldOption = "rowkind.field"

// rowKindField returns the position of the table's rowkind.field, -1 when unset; a field the
// schema lacks is Java's schema error (SchemaValidation), one not of a character type the error
// of Java's RowKindGenerator, with their messages.
func rowKindField(s *schema.TableSchema) (int, error) {
	name, ok := s.Options[RowKindFieldOption]
	if !ok {
		return -1, nil
	}
	idx := slices.IndexFunc(s.Fields, func(f types.DataField) bool { return f.Name == name })
	if idx < 0 {
		return -1, fmt.Errorf("Rowkind field: '%s' can not be found in table schema.", name)
	}
	if r := s.Fields[idx].Type.Root; r != types.RootChar && r != types.RootVarChar {
		return -1, fmt.Errorf("only support string type for rowkind, but %s is %s", name, s.Fields[idx].Type)
	}
	return idx, nil
}

// rowKindOf is RowKindGenerator#generate: the kind a row's rowkind.field value spells (+I, -U, +U
// or -D, in any case).
func rowKindOf(v any) (types.RowKind, error) {
	if v == nil {
		return 0, errors.New("Row kind cannot be null.")
	}
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("row kind field holds %T, not a string", v)
	}
	switch strings.ToUpper(s) {
	case "+I":
		return types.Insert, nil
	case "-U":
		return types.UpdateBefore, nil
	case "+U":
		return types.UpdateAfter, nil
	case "-D":
		return types.Delete, nil
	}
	return 0, fmt.Errorf("Unsupported short string '%s' for row kind.", s)
}

// ValidateMergeOptions checks a new table's schema as Java's SchemaValidation checks the options
// Go's writer merges by (merge-engine, sequence.field with its order, first-row without deletion
// vectors, rowkind.field naming a field, record-level.time-field naming an INT, BIGINT or
// TIMESTAMP field), with Java's messages, and refuses sequence fields of types Go does not order;
// nil when the schema passes.
func ValidateMergeOptions(s *schema.TableSchema) error {
	opts, err := mergetree.ParseOptions(s.Options)
	if err != nil {
		return err
	}
	if _, err := mergetree.ParseMerge(s, opts.NeedLookup); err != nil {
		return err
	}
	if _, err := mergetree.ParseRecordExpire(s); err != nil && !errors.Is(err, mergetree.ErrNoRecordTimeField) {
		return err
	}
	if name, ok := s.Options[RowKindFieldOption]; ok && !slices.ContainsFunc(s.Fields, func(f types.DataField) bool { return f.Name == name }) {
		return fmt.Errorf("Rowkind field: '%s' can not be found in table schema.", name)
	}
	return nil
}
