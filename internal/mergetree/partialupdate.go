package mergetree

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The options of the partial-update merge engine (CoreOptions and PartialUpdateMergeFunction at
// release-2.0.0).
const (
	OptRemoveRecordOnDelete        = "partial-update.remove-record-on-delete"
	OptRemoveRecordOnSequenceGroup = "partial-update.remove-record-on-sequence-group"
	// sequenceGroupSuffix ends the key fields.<f1,f2>.sequence-group.
	sequenceGroupSuffix = "sequence-group"
	fieldsPrefix        = "fields"
	// defaultAggFunction is fields.default-aggregate-function's middle segment.
	defaultAggFunction = "default-aggregate-function"
	lastNonNullValue   = "last_non_null_value"
)

// ErrPartialUpdateDelete is the error of a partial-update merge that meets a retraction when
// none of ignore-delete, partial-update.remove-record-on-delete and sequence groups is configured
// (PartialUpdateMergeFunction#add throws then).
var ErrPartialUpdateDelete = errors.New("By default, Partial update can not accept delete records, you can choose one of the following solutions:\n" +
	"1. Configure 'ignore-delete' to ignore delete records.\n" +
	"2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records.\n" +
	"3. Configure 'sequence-group's to retract partial columns. Also configure 'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving deleted records of `specified sequence group`.")

// seqGroup is one sequence group: fields.<seq>.sequence-group = <protected fields>. Its fields
// take a record's values only when the record's sequence fields order at or after the merged
// row's (UserDefinedSeqComparator, ascending, a null before any value).
type seqGroup struct {
	// seq are the group's sequence fields in the key's order.
	seq []int
}

// compareFields orders two rows by the given fields as UserDefinedSeqComparator does: a null
// before any value in either order, values reversed when descending.
func compareFields(fields []int, a, b []any, descending bool) int {
	for _, i := range fields {
		x, y := a[i], b[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		c := binrow.CompareValues(x, y)
		if descending {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// applies reports whether a record takes the group: false when every sequence field of the
// record is null (the group's sequence fields are then marked processed, as
// isEmptySequenceGroup does) or when its sequence orders before the merged row's.
func (g *seqGroup) applies(value, row []any, processed []bool) bool {
	if !slices.ContainsFunc(g.seq, func(i int) bool { return value[i] != nil }) {
		for _, s := range g.seq {
			processed[s] = true
		}
		return false
	}
	return compareFields(g.seq, value, row, false) >= 0
}

// isSeq reports whether field i is one of the group's sequence fields.
func (g *seqGroup) isSeq(i int) bool { return slices.Contains(g.seq, i) }

// PartialUpdateFunction is the partial-update merge function (PartialUpdateMergeFunction): a record's
// non-null fields overwrite the merged row's, nulls keep the old values; with sequence groups a
// group's fields are updated (or, by a retraction, cleared) only by records whose group sequence
// orders at or after the row's. Field aggregators inside sequence groups are not implemented
// (ParsePartialUpdate refuses them).
type PartialUpdateFunction struct {
	nullable       []bool
	ignoreDelete   bool
	removeOnDelete bool
	// group[i] is the sequence group field i belongs to (as a protected or a sequence field),
	// nil for a field of no group; groups is non-empty when any group is configured.
	group  []*seqGroup
	groups []*seqGroup
	// partialDelete are the sequence fields of partial-update.remove-record-on-sequence-group.
	partialDelete map[int]bool
}

// ParsePartialUpdate reads a partial-update table's merge options as
// PartialUpdateMergeFunction.Factory does, with Java's messages for the configurations Java
// refuses (a sequence group naming an unknown field, a primary key field, a field of two groups;
// remove-record-on-delete or remove-record-on-sequence-group with ignore-delete;
// remove-record-on-delete with sequence groups; remove-record-on-sequence-group naming a field
// that is no group's sequence field; an aggregate function outside a sequence group). It refuses
// by name what Go does not implement: field aggregate functions (not yet wired for
// partial-update), sequence fields of a type Go does not order, and a field that is the sequence
// field of one group and in another group (Java's outcome depends on its options' hash order).
func ParsePartialUpdate(s *schema.TableSchema, ignoreDelete bool) (*PartialUpdateFunction, error) {
	p := &PartialUpdateFunction{ignoreDelete: ignoreDelete, group: make([]*seqGroup, len(s.Fields)), partialDelete: map[int]bool{}}
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
		p.nullable = append(p.nullable, !f.Type.NotNull)
	}
	var err error
	if p.removeOnDelete, err = boolOption(s.Options, OptRemoveRecordOnDelete); err != nil {
		return nil, err
	}
	// Keys in sorted order, so that an error names the same key on every run.
	keys := slices.Sorted(maps.Keys(s.Options))
	seqOwner := map[int]string{}       // sequence field -> its group's key
	protectedBy := map[int]string{}    // protected field -> its group's key
	seqByName := map[string]int{}      // sequence field name -> index
	protectedName := map[string]bool{} // fieldsProtectedBySequenceGroup
	var allSeq []string
	for _, k := range keys {
		if !strings.HasPrefix(k, fieldsPrefix) || !strings.HasSuffix(k, sequenceGroupSuffix) {
			continue
		}
		if len(k) < len(fieldsPrefix)+len(sequenceGroupSuffix)+2 {
			return nil, fmt.Errorf("option %s: not a sequence group key", k)
		}
		mid := k[len(fieldsPrefix)+1 : len(k)-len(sequenceGroupSuffix)-1]
		g := &seqGroup{}
		for _, n := range javaSplit(mid) {
			idx := slices.Index(names, n)
			if idx < 0 {
				// SchemaValidation#validateFieldsPrefix checks the key's fields first.
				return nil, fmt.Errorf("Field %s can not be found in table schema.", n)
			}
			if !ordered(s.Fields[idx].Type) {
				return nil, fmt.Errorf("option %s: sequence field %s of type %s: Go does not order values of this type", k, n, s.Fields[idx].Type.Root)
			}
			g.seq = append(g.seq, idx)
		}
		for _, n := range javaSplit(s.Options[k]) {
			idx := slices.Index(names, n)
			if idx < 0 {
				return nil, fmt.Errorf("Field %s can not be found in table schema", n)
			}
			if slices.Contains(s.PrimaryKeys, n) {
				return nil, fmt.Errorf("The sequence-group '%s' contains primary key field '%s', which is not allowed. Primary key columns cannot be put in sequence-group.", k, n)
			}
			if _, dup := protectedBy[idx]; dup {
				return nil, fmt.Errorf("Field %s is defined repeatedly by multiple groups: %s", n, k)
			}
			protectedBy[idx] = k
			protectedName[n] = true
			p.group[idx] = g
		}
		for _, idx := range g.seq {
			if slices.Contains(s.PrimaryKeys, names[idx]) {
				return nil, fmt.Errorf("The sequence-group '%s' contains primary key field '%s', which is not allowed. Primary key columns cannot be put in sequence-group.", k, names[idx])
			}
			if other, dup := seqOwner[idx]; dup {
				return nil, fmt.Errorf("option %s: field %s is also a sequence field of %s: Java's merge of such groups depends on its options' hash order, pkft refuses it", k, names[idx], other)
			}
			seqOwner[idx] = k
			allSeq = append(allSeq, names[idx])
			seqByName[names[idx]] = idx
			p.group[idx] = g
		}
		p.groups = append(p.groups, g)
	}
	for _, idx := range slices.Sorted(maps.Keys(seqOwner)) {
		if by, ok := protectedBy[idx]; ok && by != seqOwner[idx] {
			return nil, fmt.Errorf("option %s: field %s is also protected by %s: Java's merge of such groups depends on its options' hash order, pkft refuses it", seqOwner[idx], names[idx], by)
		}
	}
	if err := refuseAggregates(s, names, allSeq, protectedName); err != nil {
		return nil, err
	}
	onGroup, hasOnGroup := s.Options[OptRemoveRecordOnSequenceGroup]
	switch {
	case p.removeOnDelete && ignoreDelete:
		return nil, fmt.Errorf("%s and %s have conflicting behavior so should not be enabled at the same time.", OptIgnoreDelete, OptRemoveRecordOnDelete)
	case hasOnGroup && ignoreDelete:
		return nil, fmt.Errorf("%s and %s have conflicting behavior so should not be enabled at the same time.", OptIgnoreDelete, OptRemoveRecordOnSequenceGroup)
	case p.removeOnDelete && len(p.groups) > 0:
		return nil, fmt.Errorf("%s and %s have conflicting behavior so should not be enabled at the same time.", sequenceGroupSuffix, OptRemoveRecordOnDelete)
	}
	if hasOnGroup {
		for _, n := range javaSplit(onGroup) {
			idx, ok := seqByName[n]
			if !ok {
				return nil, fmt.Errorf("field '%s' defined in '%s' option must be part of sequence groups", onGroup, OptRemoveRecordOnSequenceGroup)
			}
			p.partialDelete[idx] = true
		}
	}
	return p, nil
}

// refuseAggregates is PartialUpdateMergeFunction#getAggFuncName's check (an aggregate function
// other than last_non_null_value needs a sequence group) followed by pkft's refusal of every
// field aggregate function on a partial-update table.
func refuseAggregates(s *schema.TableSchema, names, allSeq []string, protected map[string]bool) error {
	def, hasDef := s.Options[fieldsPrefix+"."+defaultAggFunction]
	var refused error
	for _, n := range names {
		if slices.Contains(allSeq, n) || slices.Contains(s.PrimaryKeys, n) {
			continue
		}
		key := fieldsPrefix + "." + n + ".aggregate-function"
		fn, ok := s.Options[key]
		if !ok {
			if !hasDef {
				continue
			}
			key, fn = fieldsPrefix+"."+defaultAggFunction, def
		}
		if fn != lastNonNullValue && !protected[n] {
			return fmt.Errorf("Must use sequence group for aggregation functions but not found for field %s.", n)
		}
		if refused == nil {
			refused = fmt.Errorf("option %s = %q: field aggregate functions are not yet wired for partial-update in pkft", key, fn)
		}
	}
	return refused
}

// javaSplit splits at commas as Java's String#split does: trailing empty strings are dropped
// (an empty string is one empty field).
func javaSplit(v string) []string {
	parts := strings.Split(v, ",")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 1 && parts[0] == "" && v != "" {
		return nil // only commas: Java's split returns nothing
	}
	return parts
}

// Merge merges one key's records, given in merge order, as PartialUpdateMergeFunction's add and
// getResult do: the result's sequence number is the last record's it took, its kind DELETE when
// no insert was taken or the last record removed the row, INSERT otherwise. A retraction first
// fills the row with its own values when nothing did before (and is then ignored under
// ignore-delete).
func (p *PartialUpdateFunction) Merge(recs []*kvfile.KeyValue) (*kvfile.KeyValue, error) {
	row := make([]any, len(p.nullable))
	var key []any
	var seq int64
	filled, meetInsert, deleteRow := false, false, false
	for _, kv := range recs {
		key, deleteRow = kv.Key, false
		if kv.IsRetract() {
			if !filled {
				if err := p.initRow(row, kv.Value); err != nil {
					return nil, err
				}
				filled = true
			}
			if p.ignoreDelete {
				continue
			}
			seq = kv.Seq
			if len(p.groups) > 0 {
				var err error
				if row, deleteRow, err = p.retractGroups(row, kv); err != nil {
					return nil, err
				}
				continue
			}
			if p.removeOnDelete {
				if kv.Kind == types.Delete {
					deleteRow = true
					row = make([]any, len(p.nullable))
					if err := p.initRow(row, kv.Value); err != nil {
						return nil, err
					}
				}
				continue
			}
			return nil, ErrPartialUpdateDelete
		}
		seq = kv.Seq
		var err error
		if len(p.groups) == 0 {
			err = p.updateNonNull(row, kv.Value)
		} else {
			p.updateGroups(row, kv.Value)
		}
		if err != nil {
			return nil, err
		}
		meetInsert, filled = true, true
	}
	kind := types.Insert
	if deleteRow || !meetInsert {
		kind = types.Delete
	}
	return &kvfile.KeyValue{Key: key, Seq: seq, Kind: kind, Value: row}, nil
}

func (p *PartialUpdateFunction) initRow(row, value []any) error {
	for i, v := range value {
		if v == nil && !p.nullable[i] {
			return fmt.Errorf("Field %d can not be null", i)
		}
		row[i] = v
	}
	return nil
}

func (p *PartialUpdateFunction) updateNonNull(row, value []any) error {
	for i, v := range value {
		switch {
		case v != nil:
			row[i] = v
		case !p.nullable[i]:
			return fmt.Errorf("Field %d can not be null", i)
		}
	}
	return nil
}

// updateGroups is PartialUpdateMergeFunction#updateWithSequenceGroup without aggregators: in
// field order, a group whose sequence fields are all null in the record is skipped; otherwise,
// when the record's group sequence orders at or after the row's, the group's sequence fields are
// all taken at once and its protected fields take the record's values, nulls included. A field of
// no group takes the record's value when it is not null.
func (p *PartialUpdateFunction) updateGroups(row, value []any) {
	processed := make([]bool, len(row))
	for i, v := range value {
		g := p.group[i]
		if g == nil {
			if v != nil {
				row[i] = v
			}
			continue
		}
		if processed[i] || !g.applies(value, row, processed) {
			continue
		}
		if g.isSeq(i) {
			for _, s := range g.seq {
				row[s] = value[s]
				processed[s] = true
			}
			continue
		}
		row[i] = v
	}
}

// retractGroups is PartialUpdateMergeFunction#retractWithSequenceGroup without aggregators: a
// retraction whose group sequence orders at or after the row's takes the group's sequence fields
// and clears its protected fields; a DELETE whose group is one of
// remove-record-on-sequence-group's removes the whole row (the row becomes the record's values,
// and the result a DELETE). Fields of no group are kept.
func (p *PartialUpdateFunction) retractGroups(row []any, kv *kvfile.KeyValue) ([]any, bool, error) {
	value := kv.Value
	processed := make([]bool, len(row))
	updated := map[int]bool{}
	for i := range value {
		g := p.group[i]
		if g == nil || processed[i] || !g.applies(value, row, processed) {
			continue
		}
		if !g.isSeq(i) {
			row[i] = nil
			continue
		}
		for _, s := range g.seq {
			if !updated[s] {
				if kv.Kind == types.Delete && p.partialDelete[s] {
					fresh := make([]any, len(row))
					if err := p.initRow(fresh, value); err != nil {
						return nil, false, err
					}
					return fresh, true, nil
				}
				row[s] = value[s]
				updated[s] = true
			}
			processed[s] = true
		}
	}
	return row, false, nil
}
