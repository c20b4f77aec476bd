// Package pred names the leaf predicates Paimon's sorted global index readers evaluate on one
// indexed column (the visit* methods of Java's BTreeIndexReader and BitmapIndexReader), and the
// byte-prefix helpers they share.
package pred

import "fmt"

// Op is a leaf predicate function.
type Op uint8

// The leaf predicates of Paimon's FunctionVisitor that sorted index readers answer.
const (
	IsNull Op = iota + 1
	IsNotNull
	Equal
	NotEqual
	LessThan
	LessOrEqual
	GreaterThan
	GreaterOrEqual
	In
	NotIn
	Between
	StartsWith
	EndsWith
	Contains
	Like
)

var names = map[Op]string{
	IsNull: "isNull", IsNotNull: "isNotNull", Equal: "equal", NotEqual: "notEqual",
	LessThan: "lessThan", LessOrEqual: "lessOrEqual", GreaterThan: "greaterThan",
	GreaterOrEqual: "greaterOrEqual", In: "in", NotIn: "notIn", Between: "between",
	StartsWith: "startsWith", EndsWith: "endsWith", Contains: "contains", Like: "like",
}

// String returns the predicate's name as the runner protocol spells it.
func (o Op) String() string {
	if n, ok := names[o]; ok {
		return n
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp is the inverse of Op.String.
func ParseOp(s string) (Op, error) {
	for o, n := range names {
		if n == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown predicate %q", s)
}

// Predicate is one leaf predicate with its literals (keys as sortkey decodes them; nil is a null
// literal).
type Predicate struct {
	Op       Op
	Literals []any
}

// Arity checks the literal count of p: none for the null tests, two for between, any number for
// in and notIn, one otherwise.
func (p Predicate) Arity() error {
	want := 1
	switch p.Op {
	case IsNull, IsNotNull:
		want = 0
	case Between:
		want = 2
	case In, NotIn:
		return nil
	}
	if len(p.Literals) != want {
		return fmt.Errorf("predicate %s takes %d literals, got %d", p.Op, want, len(p.Literals))
	}
	return nil
}

// PrefixUpperBound returns the smallest byte string greater than every string starting with
// prefix (drop trailing 0xff bytes, increment the last), or nil when there is none.
func PrefixUpperBound(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xff {
			up := append([]byte{}, prefix[:i+1]...)
			up[i]++
			return up
		}
	}
	return nil
}
