// Package sst writes and reads the SST files of Paimon's BTree global index (Java's
// org.apache.paimon.sst): key-ordered data blocks of var-length key/value entries, an index
// block mapping each data block's last key to its block handle, every block followed by a
// blockcodec trailer.
package sst

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	alignedType   = 0
	unalignedType = 1
)

// MaxHandleLength is the longest encoded block handle (var-length long and int).
const MaxHandleLength = 9 + 5

// Handle locates a stored block (its bytes without the trailer) in a file.
type Handle struct {
	Offset int64
	Size   int32
}

// AppendHandle appends Java's encoding of h: var-length offset, var-length size.
func AppendHandle(dst []byte, h Handle) []byte {
	dst = binary.AppendUvarint(dst, uint64(h.Offset))
	return binary.AppendUvarint(dst, uint64(h.Size))
}

// DecodeHandle parses an encoded block handle that must fill b exactly.
func DecodeHandle(b []byte) (Handle, error) {
	off, n := readVarLong(b)
	if n <= 0 {
		return Handle{}, errors.New("block handle: malformed offset")
	}
	size, m := readVarInt(b[n:])
	if m <= 0 {
		return Handle{}, errors.New("block handle: malformed size")
	}
	if n+m != len(b) {
		return Handle{}, fmt.Errorf("block handle: %d trailing bytes", len(b)-n-m)
	}
	return Handle{Offset: off, Size: size}, nil
}

// readVarInt decodes a non-negative var-length int of at most 5 bytes; n <= 0 when malformed.
func readVarInt(b []byte) (int32, int) {
	v, n := binary.Uvarint(b)
	if n <= 0 || n > 5 || v > 1<<31-1 {
		return 0, -1
	}
	return int32(v), n
}

// readVarLong decodes a non-negative var-length long of at most 9 bytes; n <= 0 when malformed.
func readVarLong(b []byte) (int64, int) {
	v, n := binary.Uvarint(b)
	if n <= 0 || n > 10 || v > 1<<63-1 {
		return 0, -1
	}
	return int64(v), n
}

// BlockWriter accumulates the entries of one block (Java's BlockWriter): entries of equal
// encoded size make an aligned block (trailed by the entry size), others an unaligned one
// (trailed by every entry's position and the entry count).
type BlockWriter struct {
	buf         []byte
	positions   []int32
	alignedSize int
	aligned     bool
}

// NewBlockWriter returns an empty block writer.
func NewBlockWriter() *BlockWriter { return &BlockWriter{aligned: true} }

// Add appends one entry.
func (w *BlockWriter) Add(key, value []byte) {
	start := len(w.buf)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(key)))
	w.buf = append(w.buf, key...)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(value)))
	w.buf = append(w.buf, value...)
	w.positions = append(w.positions, int32(start))
	if w.aligned {
		size := len(w.buf) - start
		if w.alignedSize == 0 {
			w.alignedSize = size
		} else {
			w.aligned = w.alignedSize == size
		}
	}
}

// Len returns the number of entries.
func (w *BlockWriter) Len() int { return len(w.positions) }

// Memory returns the size the finished block would have, as Java estimates it.
func (w *BlockWriter) Memory() int {
	m := len(w.buf) + 5
	if !w.aligned {
		m += 4 * len(w.positions)
	}
	return m
}

// Finish returns the block's bytes; the writer must be Reset before reuse.
func (w *BlockWriter) Finish() []byte {
	if len(w.positions) == 0 {
		w.aligned = false
	}
	out := w.buf
	if w.aligned {
		out = binary.LittleEndian.AppendUint32(out, uint32(w.alignedSize))
		return append(out, alignedType)
	}
	for _, p := range w.positions {
		out = binary.LittleEndian.AppendUint32(out, uint32(p))
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(w.positions)))
	w.buf = append(out, unalignedType)
	return w.buf
}

// Reset empties the writer.
func (w *BlockWriter) Reset() {
	w.buf = w.buf[:0]
	w.positions = w.positions[:0]
	w.alignedSize = 0
	w.aligned = true
}

// Entry is one key/value pair of a block; both alias the block's bytes.
type Entry struct {
	Key, Value []byte
}

// Block is a parsed, uncompressed block with every entry located.
type Block struct {
	Entries []Entry
}

// ParseBlock validates an uncompressed block and returns its entries.
func ParseBlock(b []byte) (*Block, error) {
	if len(b) < 5 {
		return nil, fmt.Errorf("block of %d bytes is shorter than its 5-byte footer", len(b))
	}
	kind := b[len(b)-1]
	v := binary.LittleEndian.Uint32(b[len(b)-5:])
	var data []byte
	var starts []int
	switch kind {
	case alignedType:
		data = b[:len(b)-5]
		if v == 0 || int32(v) < 0 {
			return nil, fmt.Errorf("aligned block: invalid entry size %d", int32(v))
		}
		// Java takes data length / entry size records; trailing bytes would be ignored there.
		for p := 0; p+int(v) <= len(data); p += int(v) {
			starts = append(starts, p)
		}
	case unalignedType:
		count := int64(int32(v))
		if count < 0 || count*4 > int64(len(b)-5) {
			return nil, fmt.Errorf("unaligned block: entry count %d does not fit in %d bytes", count, len(b))
		}
		idx := len(b) - 5 - int(count)*4
		data = b[:idx]
		for i := 0; i < int(count); i++ {
			p := int32(binary.LittleEndian.Uint32(b[idx+4*i:]))
			if p < 0 || int(p) >= len(data) {
				return nil, fmt.Errorf("unaligned block: entry %d at %d outside %d data bytes", i, p, len(data))
			}
			starts = append(starts, int(p))
		}
	default:
		return nil, fmt.Errorf("block: illegal aligned type %d", kind)
	}
	blk := &Block{Entries: make([]Entry, 0, len(starts))}
	for i, p := range starts {
		e, err := readEntry(data, p)
		if err != nil {
			return nil, fmt.Errorf("block entry %d: %w", i, err)
		}
		blk.Entries = append(blk.Entries, e)
	}
	return blk, nil
}

func readEntry(data []byte, p int) (Entry, error) {
	kl, n := readVarInt(data[p:])
	if n <= 0 {
		return Entry{}, errors.New("malformed key length")
	}
	p += n
	if int(kl) > len(data)-p {
		return Entry{}, fmt.Errorf("key of %d bytes exceeds the block", kl)
	}
	key := data[p : p+int(kl)]
	p += int(kl)
	vl, n := readVarInt(data[p:])
	if n <= 0 {
		return Entry{}, errors.New("malformed value length")
	}
	p += n
	if int(vl) > len(data)-p {
		return Entry{}, fmt.Errorf("value of %d bytes exceeds the block", vl)
	}
	return Entry{Key: key, Value: data[p : p+int(vl)]}, nil
}

// Seek returns the index of the first entry whose key is >= target under cmp (Java's
// BlockIterator#seekTo binary search), or len(Entries) when there is none.
func (b *Block) Seek(target []byte, cmp func(a, b []byte) (int, error)) (int, error) {
	lo, hi, found := 0, len(b.Entries)-1, len(b.Entries)
	for lo <= hi {
		mid := lo + (hi-lo)/2
		c, err := cmp(b.Entries[mid].Key, target)
		if err != nil {
			return 0, err
		}
		switch {
		case c == 0:
			return mid, nil
		case c > 0:
			found = mid
			hi = mid - 1
		default:
			lo = mid + 1
		}
	}
	return found, nil
}
