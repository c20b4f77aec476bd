// Package btree writes and reads Paimon's BTree global index files (Java's
// org.apache.paimon.globalindex.btree): an SST file whose entries map each distinct non-null key
// to the var-length list of its row ids, then the null rows' bitmap with a CRC32, the (unused)
// bloom filter, the index block and a 52-byte footer.
package btree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/pksorted/sst"
)

// Footer constants of the BTree file.
const (
	Magic         = 0x50425449
	Version       = 1
	FooterLength  = 52
	DefaultBlock  = 64 << 10
	identifierKey = "btree"
)

// Identifier is the global index type of BTree files ("btree").
const Identifier = identifierKey

// Options are the BTree writer's options (btree-index.block-size, btree-index.compression,
// btree-index.compression-level).
type Options struct {
	BlockSize int
	Codec     blockcodec.Codec
}

// Writer writes one BTree index file. Keys must arrive in non-decreasing order; nulls may come
// anywhere.
type Writer struct {
	out      *sst.PosWriter
	ser      *sortkey.Serializer
	sst      *sst.Writer
	nulls    *roaring64.Bitmap
	rowIDs   []int64
	first    any
	last     any
	rowCount int64
	done     bool
}

// NewWriter returns a writer to w.
func NewWriter(w io.Writer, ser *sortkey.Serializer, opts Options) (*Writer, error) {
	out := &sst.PosWriter{W: w}
	s, err := sst.NewWriter(out, opts.BlockSize, opts.Codec)
	if err != nil {
		return nil, fmt.Errorf("btree index: %w", err)
	}
	return &Writer{out: out, ser: ser, sst: s}, nil
}

// Write adds one row: key (nil for null) at row id rowID (>= 0, relative to the file's range).
func (w *Writer) Write(key any, rowID int64) error {
	if w.done {
		return errors.New("btree index: write after finish")
	}
	if rowID < 0 {
		return fmt.Errorf("btree index: negative row id %d", rowID)
	}
	w.rowCount++
	if key == nil {
		if w.nulls == nil {
			w.nulls = roaring64.New()
		}
		w.nulls.Add(uint64(rowID))
		return nil
	}
	if _, err := w.ser.Encode(key); err != nil {
		return fmt.Errorf("btree index: %w", err)
	}
	if w.last != nil {
		c := w.ser.Compare(key, w.last)
		if c < 0 {
			return fmt.Errorf("btree index: key %v after %v: keys must be written in increasing order", key, w.last)
		}
		if c != 0 {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	w.last = key
	w.rowIDs = append(w.rowIDs, rowID)
	if w.first == nil {
		w.first = key
	}
	return nil
}

func (w *Writer) flush() error {
	if len(w.rowIDs) == 0 {
		return nil
	}
	v := binary.AppendUvarint(make([]byte, 0, 5+9*len(w.rowIDs)), uint64(len(w.rowIDs)))
	for _, id := range w.rowIDs {
		v = binary.AppendUvarint(v, uint64(id))
	}
	w.rowIDs = w.rowIDs[:0]
	k, err := w.ser.Encode(w.last)
	if err != nil {
		return fmt.Errorf("btree index: %w", err)
	}
	if err := w.sst.Put(k, v); err != nil {
		return fmt.Errorf("btree index: %w", err)
	}
	return nil
}

// Result is what a finished file reports: its row count and its SortedIndexFileMeta.
type Result struct {
	RowCount int64
	Meta     filemeta.Meta
}

// Finish writes the remaining entries, the null bitmap, the index block and the footer. A file
// with no row is refused, as Java refuses it.
func (w *Writer) Finish() (Result, error) {
	if w.done {
		return Result{}, errors.New("btree index: finish called twice")
	}
	w.done = true
	if w.first == nil && w.nulls == nil {
		return Result{}, errors.New("btree index: refusing to write an empty btree index file")
	}
	if err := w.flush(); err != nil {
		return Result{}, err
	}
	if err := w.sst.Flush(); err != nil {
		return Result{}, fmt.Errorf("btree index: %w", err)
	}
	var nullHandle sst.Handle
	if w.nulls != nil {
		b, err := blockcodec.SerializeBitmap(w.nulls)
		if err != nil {
			return Result{}, err
		}
		nullHandle = sst.Handle{Offset: w.out.Pos, Size: int32(len(b))}
		b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
		if _, err := w.out.Write(b); err != nil {
			return Result{}, fmt.Errorf("btree index: write null bitmap: %w", err)
		}
	}
	indexHandle, err := w.sst.WriteIndexBlock()
	if err != nil {
		return Result{}, fmt.Errorf("btree index: %w", err)
	}
	if _, err := w.out.Write(encodeFooter(indexHandle, nullHandle)); err != nil {
		return Result{}, fmt.Errorf("btree index: write footer: %w", err)
	}
	m := filemeta.Meta{HasNulls: w.nulls != nil}
	if w.first != nil {
		if m.FirstKey, err = w.ser.Encode(w.first); err != nil {
			return Result{}, err
		}
		if m.LastKey, err = w.ser.Encode(w.last); err != nil {
			return Result{}, err
		}
	}
	return Result{RowCount: w.rowCount, Meta: m}, nil
}

// encodeFooter writes the footer: no bloom filter (zeros), the index handle, the null bitmap
// handle (zeros when absent), version and magic, all little-endian.
func encodeFooter(index, nulls sst.Handle) []byte {
	out := make([]byte, 0, FooterLength)
	out = append(out, make([]byte, 20)...)
	out = binary.LittleEndian.AppendUint64(out, uint64(index.Offset))
	out = binary.LittleEndian.AppendUint32(out, uint32(index.Size))
	out = binary.LittleEndian.AppendUint64(out, uint64(nulls.Offset))
	out = binary.LittleEndian.AppendUint32(out, uint32(nulls.Size))
	out = binary.LittleEndian.AppendUint32(out, Version)
	return binary.LittleEndian.AppendUint32(out, Magic)
}
