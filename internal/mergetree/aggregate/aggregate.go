// Package aggregate holds the field aggregators of Paimon 2.0.0's aggregation merge engine
// (org.apache.paimon.mergetree.compact.aggregate: FieldAggregator and its Field*Agg classes with
// their factories): how one field of a key's records folds into its accumulated value, and how a
// retraction (UPDATE_BEFORE or DELETE) takes a value out again.
//
// Values are the decoded forms of internal/binrow: int8, int16, int32 (INT, DATE, TIME), int64,
// float32, float64, string, []byte, bool, binrow.Decimal and binrow.Timestamp; nil is SQL NULL.
package aggregate

import (
	"errors"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The names of the aggregate functions Paimon 2.0.0 ships (each factory's identifier).
const (
	Sum               = "sum"
	Product           = "product"
	Min               = "min"
	Max               = "max"
	LastValue         = "last_value"
	LastNonNullValue  = "last_non_null_value"
	FirstValue        = "first_value"
	FirstNonNullValue = "first_non_null_value"
	// FirstNotNullValue is first_non_null_value's legacy name (FieldFirstNonNullValueAggLegacyFactory).
	FirstNotNullValue = "first_not_null_value"
	ListAgg           = "listagg"
	BoolAnd           = "bool_and"
	BoolOr            = "bool_or"
	// PrimaryKey is the function Java gives primary-key fields (their value is the input's).
	PrimaryKey = "primary-key"
)

// unimplemented are the functions Paimon 2.0.0 ships that pkft does not implement, with why.
var unimplemented = map[string]string{
	"collect":                "it aggregates ARRAY columns, which Go's writer does not write",
	"merge_map":              "it aggregates MAP columns, which Go's writer does not write",
	"merge_map_with_keytime": "it aggregates MAP columns, which Go's writer does not write",
	"nested_update":          "it aggregates ARRAY<ROW> columns, which Go's writer does not write",
	"nested_partial_update":  "it aggregates ARRAY<ROW> columns, which Go's writer does not write",
	"hll_sketch":             "pkft has no Apache DataSketches HLL union to merge its VARBINARY sketches",
	"theta_sketch":           "pkft has no Apache DataSketches theta union to merge its VARBINARY sketches",
	"rbm32":                  "pkft has no RoaringBitmap (32-bit) serialization to merge its VARBINARY bitmaps",
	"rbm64":                  "pkft has no Roaring64NavigableMap serialization to merge its VARBINARY bitmaps",
}

// ErrUnimplemented reports an aggregate function Paimon ships that pkft does not implement.
var ErrUnimplemented = errors.New("aggregate function not implemented by pkft")

// Unimplemented returns the functions Paimon 2.0.0 ships that pkft refuses, with the reason of
// each.
func Unimplemented() map[string]string {
	out := make(map[string]string, len(unimplemented))
	for k, v := range unimplemented {
		out[k] = v
	}
	return out
}

// Aggregator is one field's aggregate function (FieldAggregator). An Aggregator may hold state
// across the records of one key (first_value): call Reset before each key.
type Aggregator interface {
	// Name is the function's name as the table option spells it.
	Name() string
	// Agg folds an input value into the accumulator (FieldAggregator#agg).
	Agg(acc, in any) (any, error)
	// Retract takes a retracted input out of the accumulator (FieldAggregator#retract); functions
	// without retraction return Java's error.
	Retract(acc, in any) (any, error)
	// Reset starts a new key (FieldAggregator#reset).
	Reset()
}

// Options are the per-field options a function reads (CoreOptions#fieldListAggDelimiter,
// #fieldCollectAggDistinct, #fieldAggIgnoreRetract).
type Options struct {
	// Delimiter is listagg's fields.<f>.list-agg-delimiter (Java's default is ",").
	Delimiter string
	// Distinct is fields.<f>.distinct: listagg skips tokens the accumulator holds.
	Distinct bool
	// IgnoreRetract is fields.<f>.ignore-retract: retractions leave the accumulator unchanged
	// (FieldIgnoreRetractAgg).
	IgnoreRetract bool
}

// DefaultOptions are Java's defaults of Options.
func DefaultOptions() Options { return Options{Delimiter: ","} }

// The option keys of one field under the fields.<name>. prefix (CoreOptions).
const (
	KeyAggregateFunction = "aggregate-function"
	KeyIgnoreRetract     = "ignore-retract"
	KeyDistinct          = "distinct"
	KeyListAggDelimiter  = "list-agg-delimiter"
)

// FieldOptions reads a field's Options from a table's options as CoreOptions does (booleans
// case-insensitively; an invalid boolean is an error naming its key).
func FieldOptions(tableOptions map[string]string, field string) (Options, error) {
	o := DefaultOptions()
	if v, ok := tableOptions[FieldKey(field, KeyListAggDelimiter)]; ok {
		o.Delimiter = v
	}
	var err error
	if o.Distinct, err = schema.BoolOption(tableOptions, FieldKey(field, KeyDistinct), false); err != nil {
		return o, err
	}
	if o.IgnoreRetract, err = schema.BoolOption(tableOptions, FieldKey(field, KeyIgnoreRetract), false); err != nil {
		return o, err
	}
	return o, nil
}

// FieldKey is the table option fields.<field>.<key>.
func FieldKey(field, key string) string { return "fields." + field + "." + key }

// New returns the aggregate function name over values of type t (FieldAggregatorFactory#create
// without the merge engine's checks): the function's type check fails with Java's message, a
// name Paimon does not ship with Java's message, a function pkft does not implement with
// ErrUnimplemented naming it and the reason. With o.IgnoreRetract the function ignores
// retractions.
func New(name string, t types.DataType, o Options) (Aggregator, error) {
	a, err := newAgg(name, t, o)
	if err != nil {
		return nil, err
	}
	if o.IgnoreRetract {
		return ignoreRetract{a}, nil
	}
	return a, nil
}

func newAgg(name string, t types.DataType, o Options) (Aggregator, error) {
	if why, ok := unimplemented[name]; ok {
		return nil, fmt.Errorf("%w: %s (%s)", ErrUnimplemented, name, why)
	}
	b := base{name: name, t: t}
	switch name {
	case Sum, Product:
		if !numeric(t.Root) {
			return nil, fmt.Errorf("Data type for %s column must be 'NumericType' but was '%s'.", name, t)
		}
		if name == Sum {
			return sum{b}, nil
		}
		return product{b}, nil
	case Min:
		return minMax{base: b}, nil
	case Max:
		return minMax{base: b, max: true}, nil
	case LastValue:
		return lastValue{b}, nil
	case LastNonNullValue:
		return lastNonNull{b}, nil
	case FirstValue:
		return &firstValue{base: b}, nil
	case FirstNonNullValue, FirstNotNullValue:
		return &firstValue{base: b, nonNull: true}, nil
	case ListAgg:
		if t.Root != types.RootVarChar {
			return nil, fmt.Errorf("Data type for list agg column must be 'VarCharType' but was '%s'.", t)
		}
		if t.Length != types.MaxLength {
			return nil, fmt.Errorf("Data type for list agg column must be STRING (unbounded VARCHAR), but was VARCHAR(%d).", t.Length)
		}
		return listAgg{base: b, delimiter: o.Delimiter, distinct: o.Distinct}, nil
	case BoolAnd, BoolOr:
		if t.Root != types.RootBoolean {
			what := "and"
			if name == BoolOr {
				what = "or"
			}
			return nil, fmt.Errorf("Data type for bool %s column must be 'BooleanType' but was '%s'.", what, t)
		}
		return boolAgg{base: b, or: name == BoolOr}, nil
	case PrimaryKey:
		return primaryKey{b}, nil
	}
	return nil, fmt.Errorf("Use unsupported aggregation: %s or spell aggregate function incorrectly!", name)
}

// Known reports whether Paimon 2.0.0 ships a function of that name (SchemaValidation's factory
// discovery); implemented or not.
func Known(name string) bool {
	if _, ok := unimplemented[name]; ok {
		return true
	}
	switch name {
	case Sum, Product, Min, Max, LastValue, LastNonNullValue, FirstValue, FirstNonNullValue, FirstNotNullValue,
		ListAgg, BoolAnd, BoolOr, PrimaryKey:
		return true
	}
	return false
}

// numeric is DataTypeFamily.NUMERIC.
func numeric(r types.Root) bool {
	switch r {
	case types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootBigInt, types.RootFloat, types.RootDouble, types.RootDecimal:
		return true
	}
	return false
}

// base carries a function's name and type, and the retraction Java's FieldAggregator refuses.
type base struct {
	name string
	t    types.DataType
}

func (b base) Name() string { return b.name }
func (b base) Reset()       {}

// ErrNoRetract reports a retraction reaching a function without one (Java's
// UnsupportedOperationException).
var ErrNoRetract = errors.New("aggregate function does not support retraction")

func (b base) Retract(any, any) (any, error) {
	return nil, fmt.Errorf("%w: Aggregate function '%s' does not support retraction, If you allow this function to ignore retraction messages, you can configure 'fields.${field_name}.ignore-retract'='true'.", ErrNoRetract, b.name)
}

// ignoreRetract is FieldIgnoreRetractAgg.
type ignoreRetract struct{ Aggregator }

func (a ignoreRetract) Retract(acc, _ any) (any, error) { return acc, nil }

// primaryKey is FieldPrimaryKeyAgg: the input, for agg and retract alike.
type primaryKey struct{ base }

func (primaryKey) Agg(_, in any) (any, error)     { return in, nil }
func (primaryKey) Retract(_, in any) (any, error) { return in, nil }

// lastValue is FieldLastValueAgg: the input; a retraction leaves null.
type lastValue struct{ base }

func (lastValue) Agg(_, in any) (any, error)    { return in, nil }
func (lastValue) Retract(any, any) (any, error) { return nil, nil }

// lastNonNull is FieldLastNonNullValueAgg: the input unless null; retracting a non-null value
// leaves null, retracting null keeps the accumulator.
type lastNonNull struct{ base }

func (lastNonNull) Agg(acc, in any) (any, error) {
	if in == nil {
		return acc, nil
	}
	return in, nil
}

func (lastNonNull) Retract(acc, in any) (any, error) {
	if in != nil {
		return nil, nil
	}
	return acc, nil
}

// firstValue is FieldFirstValueAgg (nonNull: FieldFirstNonNullValueAgg): the first input of the
// key (the first non-null one), kept from then on; no retraction.
type firstValue struct {
	base
	nonNull     bool
	initialized bool
}

func (a *firstValue) Agg(acc, in any) (any, error) {
	if !a.initialized && (!a.nonNull || in != nil) {
		a.initialized = true
		return in, nil
	}
	return acc, nil
}

func (a *firstValue) Reset() { a.initialized = false }

// boolAgg is FieldBoolAndAgg / FieldBoolOrAgg: nulls are skipped; no retraction.
type boolAgg struct {
	base
	or bool
}

func (a boolAgg) Agg(acc, in any) (any, error) {
	if r, done := skipNull(acc, in); done {
		return r, nil
	}
	x, ok1 := acc.(bool)
	y, ok2 := in.(bool)
	if !ok1 || !ok2 {
		return nil, valueErr(a.base, acc, in)
	}
	if a.or {
		return x || y, nil
	}
	return x && y, nil
}

func valueErr(b base, vals ...any) error {
	return fmt.Errorf("aggregate function %s over %s: unexpected values %T, %T", b.name, b.t, vals[0], vals[len(vals)-1])
}
