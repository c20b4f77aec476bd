package mergetree

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree/aggregate"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The table options of the aggregation merge engine (CoreOptions at release-2.0.0).
const (
	OptFieldsDefaultAggFunc            = "fields.default-aggregate-function"
	OptAggregationRemoveRecordOnDelete = "aggregation.remove-record-on-delete"
)

// aggregation is the AggregateMergeFunction of a table: one aggregator per field of the value
// row and whether a DELETE removes the key's row (aggregation.remove-record-on-delete). An
// aggregator may hold state for the key it merges (first_value), so each merge takes a set of
// its own from sets: buckets merge concurrently.
type aggregation struct {
	// aggs are the aggregators parseAggregation validated (one per field, in order).
	aggs           []aggregate.Aggregator
	specs          []aggSpec
	sets           sync.Pool
	nullable       []bool
	removeOnDelete bool
}

// aggSpec is how one field's aggregator is made.
type aggSpec struct {
	name string
	t    types.DataType
	o    aggregate.Options
}

// set returns a set of aggregators for one merge (put it back with a.sets.Put).
func (a *aggregation) set() ([]aggregate.Aggregator, error) {
	if s, ok := a.sets.Get().([]aggregate.Aggregator); ok {
		return s, nil
	}
	s := make([]aggregate.Aggregator, len(a.specs))
	for i, sp := range a.specs {
		g, err := aggregate.New(sp.name, sp.t, sp.o)
		if err != nil {
			return nil, err
		}
		s[i] = g
	}
	return s, nil
}

// parseAggregation builds the table's aggregate merge function as AggregateMergeFunction's
// factory and FieldAggregatorFactory#create do, with SchemaValidation's checks of the options
// (every fields.<name>. option names a field, a function exists, none is set on a sequence
// field): sequence fields aggregate by last_value, primary-key fields by primary-key, the others
// by fields.<name>.aggregate-function, else fields.default-aggregate-function, else
// last_non_null_value.
func parseAggregation(s *schema.TableSchema, seqFields []int) (*aggregation, error) {
	opts := s.Options
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	for k := range opts {
		rest, ok := strings.CutPrefix(k, "fields.")
		if !ok {
			continue
		}
		// SchemaValidation#validateFieldsPrefix: the segment after "fields." lists fields.
		seg, _, _ := strings.Cut(rest, ".")
		for _, f := range strings.Split(seg, ",") {
			if f != "default-aggregate-function" && !slices.Contains(names, f) {
				return nil, fmt.Errorf("option %s: Field %s can not be found in table schema.", k, f)
			}
		}
	}
	removeOnDelete, err := boolOption(opts, OptAggregationRemoveRecordOnDelete)
	if err != nil {
		return nil, err
	}
	def, hasDef := opts[OptFieldsDefaultAggFunc]
	// SchemaValidation#validateMergeFunctionFactory: every configured function must exist.
	for _, n := range names {
		fn, ok := opts[aggregate.FieldKey(n, aggregate.KeyAggregateFunction)]
		if !ok && hasDef {
			fn, ok = def, true
		}
		if ok && !aggregate.Known(fn) {
			return nil, fmt.Errorf("Use unsupported aggregation: %s or spell aggregate function incorrectly!", fn)
		}
	}
	for _, i := range seqFields {
		if _, ok := opts[aggregate.FieldKey(names[i], aggregate.KeyAggregateFunction)]; ok {
			return nil, fmt.Errorf("Should not define aggregation on sequence field: '%s'.", names[i])
		}
	}
	a := &aggregation{removeOnDelete: removeOnDelete}
	for i, f := range s.Fields {
		fn := aggFuncName(s, i, seqFields, def, hasDef)
		o, err := aggregate.FieldOptions(opts, f.Name)
		if err != nil {
			return nil, err
		}
		if removeOnDelete && o.IgnoreRetract {
			return nil, fmt.Errorf("%s and %s have conflicting behavior so should not be enabled at the same time.",
				OptAggregationRemoveRecordOnDelete, aggregate.FieldKey(f.Name, aggregate.KeyIgnoreRetract))
		}
		agg, err := aggregate.New(fn, f.Type, o)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		a.aggs = append(a.aggs, agg)
		a.specs = append(a.specs, aggSpec{fn, f.Type, o})
		a.nullable = append(a.nullable, f.Type.Nullable())
	}
	return a, nil
}

// aggFuncName is AggregateMergeFunction#getAggFuncName.
func aggFuncName(s *schema.TableSchema, i int, seqFields []int, def string, hasDef bool) string {
	name := s.Fields[i].Name
	if slices.Contains(seqFields, i) {
		return aggregate.LastValue
	}
	if slices.Contains(s.PrimaryKeys, name) {
		return aggregate.PrimaryKey
	}
	if fn, ok := s.Options[aggregate.FieldKey(name, aggregate.KeyAggregateFunction)]; ok {
		return fn
	}
	if hasDef {
		return def
	}
	return aggregate.LastNonNullValue
}

// ErrNullOnDelete is AggregateMergeFunction#initRow's error: a DELETE that removes the row holds
// null in a NOT NULL field.
var ErrNullOnDelete = errors.New("can not be null")

// merge runs AggregateMergeFunction over one key's records in merge order: each field folds its
// input (a retraction through the function's retract); with remove-record-on-delete a DELETE
// replaces the row by the DELETE's values and the result is a DELETE, until a later record
// aggregates into it again. The result carries the last record's key and sequence number.
func (a *aggregation) merge(recs []*kvfile.KeyValue) (*kvfile.KeyValue, error) {
	aggs, err := a.set()
	if err != nil {
		return nil, err
	}
	defer a.sets.Put(aggs)
	for _, g := range aggs {
		g.Reset()
	}
	row := make([]any, len(aggs))
	deleted := false
	var last *kvfile.KeyValue
	for _, kv := range recs {
		last = kv
		deleted = a.removeOnDelete && kv.Kind == types.Delete
		if deleted {
			row = make([]any, len(aggs))
			for i := range aggs {
				if !a.nullable[i] && kv.Value[i] == nil {
					return nil, fmt.Errorf("Field %d %w", i, ErrNullOnDelete)
				}
				row[i] = kv.Value[i]
			}
			continue
		}
		retract := kv.IsRetract()
		for i, g := range aggs {
			var err error
			if retract {
				row[i], err = g.Retract(row[i], kv.Value[i])
			} else {
				row[i], err = g.Agg(row[i], kv.Value[i])
			}
			if err != nil {
				return nil, fmt.Errorf("aggregate field %d: %w", i, err)
			}
		}
	}
	if last == nil {
		return nil, errors.New("Trying to get result from merge function without any input. This is unexpected.")
	}
	kind := types.Insert
	if deleted {
		kind = types.Delete
	}
	return &kvfile.KeyValue{Key: last.Key, Seq: last.Seq, Kind: kind, Value: row}, nil
}
