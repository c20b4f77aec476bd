// Package filemeta encodes and decodes Paimon's SortedIndexFileMeta: the first key, last key and
// null flag a btree or bitmap global index file records in its GlobalIndexMeta index meta.
package filemeta

import (
	"encoding/binary"
	"fmt"
)

const (
	formatVersionWithNullFlags = 1
	firstKeyIsNull             = 1
	lastKeyIsNull              = 1 << 1
)

// Meta is one file's SortedIndexFileMeta. FirstKey and LastKey are serialized keys (see
// sortkey); both are nil for a file that holds only nulls.
type Meta struct {
	FirstKey []byte
	LastKey  []byte
	HasNulls bool
}

// OnlyNulls reports whether the file holds no non-null key.
func (m Meta) OnlyNulls() bool { return m.FirstKey == nil && m.LastKey == nil }

// Encode returns Java's serialization: little-endian length and bytes of each key (length 0 for
// a null key), the null flag, the format version 1 and the null-key flags.
func (m Meta) Encode() []byte {
	out := make([]byte, 0, len(m.FirstKey)+len(m.LastKey)+11)
	var flags byte
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.FirstKey)))
	out = append(out, m.FirstKey...)
	if m.FirstKey == nil {
		flags |= firstKeyIsNull
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.LastKey)))
	out = append(out, m.LastKey...)
	if m.LastKey == nil {
		flags |= lastKeyIsNull
	}
	if m.HasNulls {
		out = append(out, 1)
	} else {
		out = append(out, 0)
	}
	return append(out, formatVersionWithNullFlags, flags)
}

// Decode parses an encoded Meta, accepting the legacy form without version and flags as Java
// does (both keys of length zero with nulls meaning an all-null file).
func Decode(b []byte) (Meta, error) {
	rest := b
	readKey := func(which string) ([]byte, int, error) {
		if len(rest) < 4 {
			return nil, 0, fmt.Errorf("sorted index file meta: truncated %s key length", which)
		}
		n := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if int64(n) > int64(len(rest)) || int32(n) < 0 {
			return nil, 0, fmt.Errorf("sorted index file meta: %s key length %d exceeds the %d bytes left", which, int32(n), len(rest))
		}
		k := append([]byte{}, rest[:n]...)
		rest = rest[n:]
		return k, int(n), nil
	}
	first, firstLen, err := readKey("first")
	if err != nil {
		return Meta{}, err
	}
	last, lastLen, err := readKey("last")
	if err != nil {
		return Meta{}, err
	}
	if len(rest) < 1 {
		return Meta{}, fmt.Errorf("sorted index file meta: truncated before the null flag")
	}
	m := Meta{FirstKey: first, LastKey: last, HasNulls: rest[0] == 1}
	rest = rest[1:]
	switch {
	case len(rest) >= 2:
		if rest[0] == formatVersionWithNullFlags {
			if rest[1]&firstKeyIsNull != 0 {
				m.FirstKey = nil
			}
			if rest[1]&lastKeyIsNull != 0 {
				m.LastKey = nil
			}
		}
	case firstLen == 0 && lastLen == 0 && m.HasNulls:
		m.FirstKey, m.LastKey = nil, nil
	}
	return m, nil
}
