package types

import (
	"fmt"
	"strings"
)

// RowKind is the change kind stored in the header byte of every binary row.
type RowKind int8

// The row kinds and their stored byte values.
const (
	Insert       RowKind = 0
	UpdateBefore RowKind = 1
	UpdateAfter  RowKind = 2
	Delete       RowKind = 3
)

// RowKindFromByte converts a stored header byte to a RowKind, rejecting unknown values as Java's
// RowKind#fromByteValue does.
func RowKindFromByte(b byte) (RowKind, error) {
	if b > 3 {
		return 0, fmt.Errorf("unsupported row kind byte %d", b)
	}
	return RowKind(b), nil
}

// ShortString returns the kind as Java prints it: +I, -U, +U or -D.
func (k RowKind) ShortString() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return fmt.Sprintf("RowKind(%d)", int8(k))
}

// String returns ShortString.
func (k RowKind) String() string { return k.ShortString() }

// ParseRowKind reads a kind's short string as Java's RowKind#fromShortString does: +I, -U, +U or
// -D, case-insensitively.
func ParseRowKind(s string) (RowKind, error) {
	switch strings.ToUpper(s) {
	case "+I":
		return Insert, nil
	case "-U":
		return UpdateBefore, nil
	case "+U":
		return UpdateAfter, nil
	case "-D":
		return Delete, nil
	}
	return 0, fmt.Errorf("unsupported short string '%s' for row kind", s)
}
