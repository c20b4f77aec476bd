// Package predicate is a row predicate over a table's columns as Paimon's
// org.apache.paimon.predicate package defines one: leaves (a column, a comparison or null test and
// its literals) joined by AND and OR. It evaluates a predicate on a row (LeafPredicate#test), on a
// data file's min/max/null-count statistics (the stats test a scan prunes files with), and
// projects it onto a subset of the columns (PredicateProjectionConverter): AND keeps the
// projectable children, OR needs all of them.
//
// Values and literals use internal/binrow's Go forms (int32 for INT and DATE, string for CHAR and
// VARCHAR, binrow.Decimal, binrow.Timestamp, ...); a literal is never null.
package predicate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Kind says what a Predicate node is.
type Kind uint8

// The node kinds.
const (
	Leaf Kind = iota + 1
	And
	Or
)

// Predicate is one node of a predicate tree. Build it with NewLeaf, NewAnd and NewOr (or Parse),
// which check columns and literal types.
type Predicate struct {
	Kind Kind
	// Field is the leaf column's position in the row the predicate tests.
	Field int
	// Name and Type are the leaf column's name and type.
	Name string
	Type types.DataType
	// Op is the leaf function: one of IsNull, IsNotNull, Equal, NotEqual, LessThan, LessOrEqual,
	// GreaterThan, GreaterOrEqual, In, NotIn.
	Op pred.Op
	// Literals are the leaf's literals (none for the null tests, one for comparisons, at least
	// one for In and NotIn), in internal/binrow's form of Type.
	Literals []any
	// Children are the operands of And and Or (at least two).
	Children []*Predicate
}

// ErrUnsupported reports a predicate this package does not evaluate.
var ErrUnsupported = errors.New("predicate not supported")

// NewLeaf returns the leaf op(column, literals...) over fields, the columns of the rows it tests.
func NewLeaf(fields []types.DataField, column string, op pred.Op, literals ...any) (*Predicate, error) {
	i := slices.IndexFunc(fields, func(f types.DataField) bool { return f.Name == column })
	if i < 0 {
		return nil, fmt.Errorf("column %s is not a column of the table", column)
	}
	f := fields[i]
	switch op {
	case pred.IsNull, pred.IsNotNull, pred.Equal, pred.NotEqual, pred.LessThan, pred.LessOrEqual,
		pred.GreaterThan, pred.GreaterOrEqual, pred.In, pred.NotIn:
	default:
		return nil, fmt.Errorf("%s on column %s: %w", op, column, ErrUnsupported)
	}
	p := pred.Predicate{Op: op, Literals: literals}
	if err := p.Arity(); err != nil {
		return nil, fmt.Errorf("column %s: %w", column, err)
	}
	if (op == pred.In || op == pred.NotIn) && len(literals) == 0 {
		return nil, fmt.Errorf("column %s: %s needs at least one literal", column, op)
	}
	if !comparable(f.Type) && op != pred.IsNull && op != pred.IsNotNull {
		return nil, fmt.Errorf("column %s of type %s cannot be compared: %w", column, f.Type.SQLString(), ErrUnsupported)
	}
	for _, l := range literals {
		if err := CheckValue(f.Type, l); err != nil {
			return nil, fmt.Errorf("literal for column %s: %w", column, err)
		}
	}
	return &Predicate{Kind: Leaf, Field: i, Name: f.Name, Type: f.Type, Op: op, Literals: slices.Clone(literals)}, nil
}

// NewAnd joins children with AND; one child is returned as is.
func NewAnd(children ...*Predicate) *Predicate { return compound(And, children) }

// NewOr joins children with OR; one child is returned as is.
func NewOr(children ...*Predicate) *Predicate { return compound(Or, children) }

func compound(k Kind, children []*Predicate) *Predicate {
	if len(children) == 1 {
		return children[0]
	}
	return &Predicate{Kind: k, Children: slices.Clone(children)}
}

// comparable reports whether Paimon's CompareUtils orders values of t (they are Comparable or
// byte arrays).
func comparable(t types.DataType) bool {
	switch t.Root {
	case types.RootBoolean, types.RootTinyInt, types.RootSmallInt, types.RootInt, types.RootBigInt,
		types.RootFloat, types.RootDouble, types.RootChar, types.RootVarChar, types.RootBinary,
		types.RootVarBinary, types.RootDecimal, types.RootDate, types.RootTime, types.RootTimestamp,
		types.RootTimestampLTZ:
		return true
	}
	return false
}

// CheckValue checks v is a non-null value of t in internal/binrow's form.
func CheckValue(t types.DataType, v any) error {
	ok := false
	switch t.Root {
	case types.RootBoolean:
		_, ok = v.(bool)
	case types.RootTinyInt:
		_, ok = v.(int8)
	case types.RootSmallInt:
		_, ok = v.(int16)
	case types.RootInt, types.RootDate, types.RootTime:
		_, ok = v.(int32)
	case types.RootBigInt:
		_, ok = v.(int64)
	case types.RootFloat:
		_, ok = v.(float32)
	case types.RootDouble:
		_, ok = v.(float64)
	case types.RootChar, types.RootVarChar:
		_, ok = v.(string)
	case types.RootBinary, types.RootVarBinary:
		_, ok = v.([]byte)
	case types.RootDecimal:
		var d binrow.Decimal
		if d, ok = v.(binrow.Decimal); ok && (d.Unscaled == nil || d.Scale != t.Scale) {
			return fmt.Errorf("decimal %v does not have the column's scale %d", v, t.Scale)
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		_, ok = v.(binrow.Timestamp)
	default:
		return fmt.Errorf("type %s: %w", t.SQLString(), ErrUnsupported)
	}
	if !ok {
		return fmt.Errorf("value %v (Go type %T) is not a %s", v, v, t.SQLString())
	}
	return nil
}

// compare is Paimon's CompareUtils#compareLiteral of two non-null values of one column.
func compare(a, b any) int { return binrow.CompareValues(a, b) }

// Test evaluates p on row (every column of the row type p was built over), as Paimon's
// Predicate#test: a comparison with a null value is false, IN is true when a literal equals the
// value, NOT IN when none does.
func (p *Predicate) Test(row []any) bool {
	switch p.Kind {
	case And:
		for _, c := range p.Children {
			if !c.Test(row) {
				return false
			}
		}
		return true
	case Or:
		for _, c := range p.Children {
			if c.Test(row) {
				return true
			}
		}
		return false
	}
	v := row[p.Field]
	switch p.Op {
	case pred.IsNull:
		return v == nil
	case pred.IsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	switch p.Op {
	case pred.In, pred.NotIn:
		in := slices.ContainsFunc(p.Literals, func(l any) bool { return compare(l, v) == 0 })
		return in == (p.Op == pred.In)
	}
	c := compare(p.Literals[0], v)
	switch p.Op {
	case pred.Equal:
		return c == 0
	case pred.NotEqual:
		return c != 0
	case pred.LessThan:
		return c > 0
	case pred.LessOrEqual:
		return c >= 0
	case pred.GreaterThan:
		return c < 0
	case pred.GreaterOrEqual:
		return c <= 0
	}
	return false
}

// Stats are a data file's statistics of the row p tests: per column the minimum and maximum
// (nil when unknown or all null) and the null count (nil when unknown), and the file's rows.
type Stats struct {
	RowCount   int64
	Min, Max   []any
	NullCounts []*int64
}

func (s Stats) at(i int) (lo, hi any, nulls *int64) {
	if i < len(s.Min) {
		lo = s.Min[i]
	}
	if i < len(s.Max) {
		hi = s.Max[i]
	}
	if i < len(s.NullCounts) {
		nulls = s.NullCounts[i]
	}
	return lo, hi, nulls
}

// TestStats reports whether a file with stats s may hold a row p accepts, as Paimon's
// Predicate#test(rowCount, min, max, nullCounts) decides: unknown bounds of a column that is not
// all null keep the file.
func (p *Predicate) TestStats(s Stats) bool {
	switch p.Kind {
	case And:
		for _, c := range p.Children {
			if !c.TestStats(s) {
				return false
			}
		}
		return true
	case Or:
		for _, c := range p.Children {
			if c.TestStats(s) {
				return true
			}
		}
		return false
	}
	lo, hi, nulls := s.at(p.Field)
	allNull := nulls != nil && *nulls == s.RowCount
	if !allNull && (lo == nil || hi == nil) {
		return true
	}
	switch p.Op {
	case pred.IsNull:
		return nulls == nil || *nulls > 0
	case pred.IsNotNull:
		return nulls == nil || *nulls < s.RowCount
	}
	if allNull {
		return false
	}
	switch p.Op {
	case pred.In:
		return slices.ContainsFunc(p.Literals, func(l any) bool { return compare(l, lo) >= 0 && compare(l, hi) <= 0 })
	case pred.NotIn:
		return !slices.ContainsFunc(p.Literals, func(l any) bool { return compare(l, lo) == 0 && compare(l, hi) == 0 })
	}
	l := p.Literals[0]
	switch p.Op {
	case pred.Equal:
		return compare(l, lo) >= 0 && compare(l, hi) <= 0
	case pred.NotEqual:
		return compare(l, lo) != 0 || compare(l, hi) != 0
	case pred.LessThan:
		return compare(l, lo) > 0
	case pred.LessOrEqual:
		return compare(l, lo) >= 0
	case pred.GreaterThan:
		return compare(l, hi) < 0
	case pred.GreaterOrEqual:
		return compare(l, hi) <= 0
	}
	return true
}

// Project returns p over the columns mapping names (old field position -> new position), as
// Paimon's PredicateProjectionConverter: a leaf projects when its column is mapped; AND keeps its
// projectable children; OR projects only when every child does. ok is false when nothing
// projects.
func (p *Predicate) Project(mapping map[int]int) (_ *Predicate, ok bool) {
	if p.Kind == Leaf {
		to, ok := mapping[p.Field]
		if !ok {
			return nil, false
		}
		c := *p
		c.Field = to
		return &c, true
	}
	var kept []*Predicate
	for _, c := range p.Children {
		q, ok := c.Project(mapping)
		if !ok {
			if p.Kind == Or {
				return nil, false
			}
			continue
		}
		kept = append(kept, q)
	}
	if len(kept) == 0 {
		return nil, false
	}
	return compound(p.Kind, kept), true
}

// SplitAnd returns the conjuncts of p (PredicateBuilder#splitAnd): the children of nested ANDs,
// or p itself.
func (p *Predicate) SplitAnd() []*Predicate {
	if p.Kind != And {
		return []*Predicate{p}
	}
	var out []*Predicate
	for _, c := range p.Children {
		out = append(out, c.SplitAnd()...)
	}
	return out
}

// Fields returns the positions of the columns p's leaves test.
func (p *Predicate) Fields() []int {
	if p.Kind == Leaf {
		return []int{p.Field}
	}
	var out []int
	for _, c := range p.Children {
		for _, f := range c.Fields() {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

var opSQL = map[pred.Op]string{
	pred.Equal: "=", pred.NotEqual: "<>", pred.LessThan: "<", pred.LessOrEqual: "<=",
	pred.GreaterThan: ">", pred.GreaterOrEqual: ">=",
}

// String renders p in the syntax Parse reads.
func (p *Predicate) String() string {
	if p.Kind != Leaf {
		parts := make([]string, len(p.Children))
		for i, c := range p.Children {
			parts[i] = c.String()
			if c.Kind != Leaf {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		sep := " AND "
		if p.Kind == Or {
			sep = " OR "
		}
		return strings.Join(parts, sep)
	}
	name := quoteName(p.Name)
	switch p.Op {
	case pred.IsNull:
		return name + " IS NULL"
	case pred.IsNotNull:
		return name + " IS NOT NULL"
	case pred.In, pred.NotIn:
		lits := make([]string, len(p.Literals))
		for i, l := range p.Literals {
			lits[i] = FormatLiteral(p.Type, l)
		}
		kw := " IN ("
		if p.Op == pred.NotIn {
			kw = " NOT IN ("
		}
		return name + kw + strings.Join(lits, ", ") + ")"
	}
	return name + " " + opSQL[p.Op] + " " + FormatLiteral(p.Type, p.Literals[0])
}
