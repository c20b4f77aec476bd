package mergetree

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The table options the merge of one key's records reads (CoreOptions at release-2.0.0).
const (
	OptSequenceField          = "sequence.field"
	OptSequenceFieldSortOrder = "sequence.field.sort-order"
	OptIgnoreDelete           = "ignore-delete"
)

// ignoreDeleteKeys are ignore-delete and its fallback keys, in the order Java reads them.
var ignoreDeleteKeys = []string{OptIgnoreDelete, "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"}

// Engine is a merge engine Go implements (CoreOptions.MergeEngine).
type Engine int

const (
	// Deduplicate keeps the last record of a key (DeduplicateMergeFunction), the default.
	Deduplicate Engine = iota
	// FirstRow keeps the first record of a key (FirstRowMergeFunction).
	FirstRow
	// Aggregation folds a key's records field by field (AggregateMergeFunction).
	Aggregation
	// PartialUpdate merges the non-null fields of a key's records (PartialUpdateMergeFunction).
	PartialUpdate
)

// String is the option value Java spells.
func (e Engine) String() string {
	switch e {
	case FirstRow:
		return "first-row"
	case Aggregation:
		return "aggregation"
	case PartialUpdate:
		return "partial-update"
	}
	return "deduplicate"
}

// ErrFirstRowRetract is the error of a first-row merge that meets a retraction without
// ignore-delete (FirstRowMergeFunction#add throws then).
var ErrFirstRowRetract = errors.New("By default, First row merge engine can not accept DELETE/UPDATE_BEFORE records.\n" +
	"You can config 'ignore-delete' to ignore the DELETE/UPDATE_BEFORE records.")

// Merge is how a table merges the records of one key, as Java's KeyValueFileStoreWrite sets it up:
// the merge engine's function (with ignore-delete), the order of records of one key
// (UserDefinedSeqComparator over sequence.field, then the sequence number) and, for tables that
// need lookup, the LookupMergeFunction wrapping a deduplicate function.
type Merge struct {
	Engine       Engine
	IgnoreDelete bool
	// SeqFields are the row positions of sequence.field's fields, in the option's order (nil when
	// unset); SeqDescending is sequence.field.sort-order = descending.
	SeqFields     []int
	SeqDescending bool
	// LookupWrapped is LookupMergeFunction#wrap's effect: tables that need lookup merge a
	// deduplicate key from its level-0 records and its record of the lowest level above 0 only.
	LookupWrapped bool
	// agg is the aggregate merge function of an aggregation table.
	agg *aggregation
	// Partial is the partial-update merge function (Engine PartialUpdate only).
	Partial *PartialUpdateFunction
}

// ParseMerge reads the merge of a table: merge-engine (deduplicate, first-row, partial-update or
// aggregation), ignore-delete with its fallback keys, sequence.field with sequence.field.sort-order
// (validated as SchemaValidation#validateSequenceField does, with its messages; a field of a type
// Go does not order is an error naming it); first-row with deletion vectors is Java's schema
// error. needLookup is Options.NeedLookup.
func ParseMerge(s *schema.TableSchema, needLookup bool) (*Merge, error) {
	m := &Merge{}
	engine, err := enumOption(s.Options, OptMergeEngine, "deduplicate", "deduplicate", "partial-update", "aggregation", "first-row")
	if err != nil {
		return nil, err
	}
	switch engine {
	case "deduplicate":
	case "first-row":
		m.Engine = FirstRow
	case "aggregation":
		m.Engine = Aggregation
	case "partial-update":
		m.Engine = PartialUpdate
	default:
		return nil, fmt.Errorf("option %s: the %s merge engine is not implemented by pkft", OptMergeEngine, engine)
	}
	if m.IgnoreDelete, err = boolOption(s.Options, ignoreDeleteKeys...); err != nil {
		return nil, err
	}
	if m.Engine == FirstRow {
		// SchemaValidation#validateForDeletionVectors (pk-clustering-override, the exception it
		// allows, is refused by pkft's option registry).
		dv, err := boolOption(s.Options, OptDeletionVectorsEnabled)
		if err != nil {
			return nil, err
		}
		if dv {
			return nil, errors.New("First row merge engine does not need deletion vectors because there is no deletion of old data in this merge engine.")
		}
	}
	if m.Engine == PartialUpdate {
		if m.Partial, err = ParsePartialUpdate(s, m.IgnoreDelete); err != nil {
			return nil, err
		}
	}
	order, err := enumOption(s.Options, OptSequenceFieldSortOrder, "ascending", "ascending", "descending")
	if err != nil {
		return nil, err
	}
	m.SeqDescending = order == "descending"
	if v, ok := s.Options[OptSequenceField]; ok {
		if err := m.parseSeqFields(s, v); err != nil {
			return nil, fmt.Errorf("option %s = %q: %w", OptSequenceField, v, err)
		}
	}
	if m.Engine == Aggregation {
		if m.agg, err = parseAggregation(s, m.SeqFields); err != nil {
			return nil, err
		}
	}
	m.LookupWrapped = needLookup && m.Engine != FirstRow
	return m, nil
}

// parseSeqFields resolves sequence.field's fields as CoreOptions#sequenceField splits them (at
// commas, trimmed) and validates them as SchemaValidation#validateSequenceField does.
func (m *Merge) parseSeqFields(s *schema.TableSchema, v string) error {
	seen := map[string]bool{}
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		idx := slices.IndexFunc(s.Fields, func(f types.DataField) bool { return f.Name == n })
		if idx < 0 {
			return fmt.Errorf("Sequence field: '%s' can not be found in table schema.", n)
		}
		if seen[n] {
			return fmt.Errorf("Sequence field '%s' is defined repeatedly.", n)
		}
		seen[n] = true
		if !ordered(s.Fields[idx].Type) {
			return fmt.Errorf("field %s of type %s: Go does not order values of this type", n, s.Fields[idx].Type.Root)
		}
		m.SeqFields = append(m.SeqFields, idx)
	}
	if m.Engine == FirstRow {
		return errors.New("Do not support use sequence field on FIRST_ROW merge engine.")
	}
	return nil
}

// ordered reports whether binrow.CompareValues orders values of the type as Java's generated
// record comparator does.
func ordered(t types.DataType) bool {
	switch t.Root {
	case types.RootChar, types.RootVarChar, types.RootBoolean, types.RootBinary, types.RootVarBinary,
		types.RootDecimal, types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootBigInt,
		types.RootFloat, types.RootDouble, types.RootDate, types.RootTime, types.RootTimestamp, types.RootTimestampLTZ:
		return true
	}
	return false
}

// Compare orders two records of one key as Java's write buffer and merge readers do: by the
// sequence fields (UserDefinedSeqComparator: a null before any value in either sort order, values
// reversed when descending), then by sequence number.
func (m *Merge) Compare(a, b *kvfile.KeyValue) int {
	if c := compareFields(m.SeqFields, a.Value, b.Value, m.SeqDescending); c != 0 {
		return c
	}
	switch {
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Record is one record of a key with the level of the file it was read from (-1 for a record of
// the write buffer, which Java's LookupMergeFunction treats as level 0).
type Record struct {
	KV    *kvfile.KeyValue
	Level int32
}

// Reduce merges the records of one key, given in merge order, as ReducerMergeFunctionWrapper
// over the table's merge function: a single record is the result as it is; several go through
// the merge function (LookupMergeFunction's for a lookup-wrapped table). The result is nil when
// the merge function keeps nothing (every record a retraction it ignores).
func (m *Merge) Reduce(recs []Record) (*kvfile.KeyValue, error) {
	if len(recs) == 1 {
		return recs[0].KV, nil
	}
	if m.LookupWrapped {
		return m.lookupMerge(recs, nil)
	}
	return m.mergeAll(recs)
}

// mergeAll runs the engine's merge function over recs.
func (m *Merge) mergeAll(recs []Record) (*kvfile.KeyValue, error) {
	if m.Engine == Aggregation || m.Engine == PartialUpdate {
		kvs := make([]*kvfile.KeyValue, len(recs))
		for i, r := range recs {
			kvs[i] = r.KV
		}
		if m.Engine == PartialUpdate {
			return m.Partial.Merge(kvs)
		}
		return m.agg.merge(kvs)
	}
	var out *kvfile.KeyValue
	for _, r := range recs {
		if r.KV.IsRetract() {
			if m.IgnoreDelete {
				continue
			}
			if m.Engine == FirstRow {
				return nil, ErrFirstRowRetract
			}
		}
		if m.Engine == FirstRow {
			if out == nil {
				out = r.KV
			}
			continue
		}
		out = r.KV
	}
	return out, nil
}

// HighLevel is LookupMergeFunction#pickHighLevel: the first record of the lowest level above 0,
// nil when every record is from level 0 or the write buffer.
func HighLevel(recs []Record) *Record {
	var high *Record
	for i := range recs {
		if recs[i].Level > 0 && (high == nil || recs[i].Level < high.Level) {
			high = &recs[i]
		}
	}
	return high
}

// LookupMerge is the result LookupChangelogMergeFunctionWrapper#getResult computes for one key:
// its records of level 0 and its record of the lowest level above 0 (found, when recs have none,
// by the lookup into the levels above the output level: found, nil when the key is not there)
// merged in merge order by the table's merge function (deduplicate, partial-update or
// aggregation; LookupMergeFunction#getResult: even a single record goes through it). Not for a
// first-row table (FirstRowLookup).
func (m *Merge) LookupMerge(recs []Record, found *kvfile.KeyValue) (*kvfile.KeyValue, error) {
	return m.lookupMerge(recs, found)
}

func (m *Merge) lookupMerge(recs []Record, found *kvfile.KeyValue) (*kvfile.KeyValue, error) {
	candidates := m.lookupCandidates(recs, found)
	switch m.Engine {
	case PartialUpdate:
		return m.Partial.Merge(candidates)
	case Aggregation:
		return m.agg.merge(candidates)
	}
	var out *kvfile.KeyValue
	for _, kv := range candidates {
		if !(m.IgnoreDelete && kv.IsRetract()) {
			out = kv
		}
	}
	return out, nil
}

// lookupCandidates are the records LookupMergeFunction#getResult hands its merge function: the
// records of level 0 and the write buffer and the record of the lowest level above 0 (found,
// inserted in merge order as KeyValueBuffer#insertInto does, when recs have none), in order.
func (m *Merge) lookupCandidates(recs []Record, found *kvfile.KeyValue) []*kvfile.KeyValue {
	high := HighLevel(recs)
	out := make([]*kvfile.KeyValue, 0, len(recs)+1)
	for i := range recs {
		r := &recs[i]
		if found != nil && high == nil && m.Compare(found, r.KV) < 0 {
			out = append(out, found)
			found = nil
		}
		if r.Level <= 0 || r == high {
			out = append(out, r.KV)
		}
	}
	if found != nil && high == nil {
		out = append(out, found)
	}
	return out
}

// FirstRowLookup is FirstRowMergeFunctionWrapper#getResult for one key: the first record (a
// retraction is an error without ignore-delete); when none of recs comes from a level above 0
// and exists reports the key is in the levels above the output level, nothing (nil). exists is
// called only when needed.
func (m *Merge) FirstRowLookup(recs []Record, exists func() (bool, error)) (*kvfile.KeyValue, error) {
	var first *kvfile.KeyValue
	high := false
	for _, r := range recs {
		if r.KV.IsRetract() {
			if m.IgnoreDelete {
				continue
			}
			return nil, ErrFirstRowRetract
		}
		if first == nil {
			first = r.KV
		}
		if r.Level > 0 {
			high = true
		}
	}
	if high || first == nil {
		return first, nil
	}
	ok, err := exists()
	if err != nil || ok {
		return nil, err
	}
	return first, nil
}
