// Package bitmap writes and reads Paimon's bitmap global index files (Java's
// org.apache.paimon.globalindex.bitmap): one serialized Roaring bitmap per distinct non-null key,
// dictionary blocks mapping keys to their bitmaps, the null and non-null row bitmaps, an index
// block of the dictionary blocks' first keys and a 48-byte big-endian footer.
package bitmap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/pksorted/sst"
)

// Footer constants of the bitmap file.
const (
	Magic        = 0x42474958
	Version      = 1
	FooterLength = 48
)

// Identifier is the global index type of bitmap files ("bitmap").
const Identifier = "bitmap"

// DefaultDictionaryBlockSize is bitmap-index.dictionary-block-size's default (16 KiB).
const DefaultDictionaryBlockSize = 16 << 10

// Options are the bitmap writer's options (bitmap-index.dictionary-block-size,
// bitmap-index.compression, bitmap-index.compression-level).
type Options struct {
	DictionaryBlockSize int
	Codec               blockcodec.Codec
}

type blockInfo struct {
	offset int64
	length int32
}

type dictEntry struct {
	key    []byte
	bitmap blockInfo
}

type dictBlockMeta struct {
	firstKey []byte
	blockInfo
}

// Writer writes one bitmap index file. Non-null keys must arrive in non-decreasing order.
type Writer struct {
	out      *sst.PosWriter
	ser      *sortkey.Serializer
	opts     Options
	current  *roaring64.Bitmap
	nulls    *roaring64.Bitmap
	nonNulls *roaring64.Bitmap
	pending  []dictEntry
	pendSize int
	blocks   []dictBlockMeta
	values   int32
	first    any
	last     any
	rowCount int64
	done     bool
}

// NewWriter returns a writer to w.
func NewWriter(w io.Writer, ser *sortkey.Serializer, opts Options) (*Writer, error) {
	if opts.DictionaryBlockSize <= 0 {
		return nil, errors.New("bitmap index: dictionary block size must be greater than 0")
	}
	return &Writer{out: &sst.PosWriter{W: w}, ser: ser, opts: opts, current: roaring64.New(),
		nulls: roaring64.New(), nonNulls: roaring64.New()}, nil
}

// Write adds one row: key (nil for null) at row id rowID (>= 0).
func (w *Writer) Write(key any, rowID int64) error {
	if w.done {
		return errors.New("bitmap index: write after finish")
	}
	if rowID < 0 {
		return fmt.Errorf("bitmap index: negative row id %d", rowID)
	}
	if key == nil {
		w.rowCount++
		w.nulls.Add(uint64(rowID))
		return nil
	}
	if _, err := w.ser.Encode(key); err != nil {
		return fmt.Errorf("bitmap index: %w", err)
	}
	if w.last != nil {
		c := w.ser.Compare(key, w.last)
		if c < 0 {
			return errors.New("bitmap index: keys must be written in monotonically increasing order")
		}
		if c > 0 {
			if err := w.flushBitmap(); err != nil {
				return err
			}
		}
	}
	w.rowCount++
	w.nonNulls.Add(uint64(rowID))
	if w.first == nil {
		w.first = key
	}
	w.last = key
	w.current.Add(uint64(rowID))
	return nil
}

func varIntSize(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func (e dictEntry) size() int {
	return varIntSize(uint64(len(e.key))) + len(e.key) + varIntSize(uint64(e.bitmap.offset)) + varIntSize(uint64(e.bitmap.length))
}

func (w *Writer) writeBitmap(b *roaring64.Bitmap) (blockInfo, error) {
	data, err := blockcodec.SerializeBitmap(b)
	if err != nil {
		return blockInfo{}, fmt.Errorf("bitmap index: %w", err)
	}
	info := blockInfo{offset: w.out.Pos, length: int32(len(data))}
	if _, err := w.out.Write(data); err != nil {
		return blockInfo{}, fmt.Errorf("bitmap index: write bitmap: %w", err)
	}
	return info, nil
}

func (w *Writer) flushBitmap() error {
	if w.current.IsEmpty() {
		return nil
	}
	key, err := w.ser.Encode(w.last)
	if err != nil {
		return fmt.Errorf("bitmap index: %w", err)
	}
	info, err := w.writeBitmap(w.current)
	if err != nil {
		return err
	}
	e := dictEntry{key: key, bitmap: info}
	if len(w.pending) > 0 && varIntSize(uint64(len(w.pending)+1))+w.pendSize+e.size() > w.opts.DictionaryBlockSize {
		if err := w.flushDictionary(); err != nil {
			return err
		}
	}
	w.pending = append(w.pending, e)
	w.pendSize += e.size()
	w.values++
	w.current = roaring64.New()
	return nil
}

func (w *Writer) writeCompressible(raw []byte) (blockInfo, error) {
	stored, t, err := w.opts.Codec.Encode(raw)
	if err != nil {
		return blockInfo{}, fmt.Errorf("bitmap index: compress block: %w", err)
	}
	info := blockInfo{offset: w.out.Pos, length: int32(len(stored))}
	if _, err := w.out.Write(stored); err != nil {
		return blockInfo{}, fmt.Errorf("bitmap index: write block: %w", err)
	}
	if _, err := w.out.Write(blockcodec.Trailer(stored, t)); err != nil {
		return blockInfo{}, fmt.Errorf("bitmap index: write block trailer: %w", err)
	}
	return info, nil
}

func (w *Writer) flushDictionary() error {
	if len(w.pending) == 0 {
		return nil
	}
	raw := binary.AppendUvarint(nil, uint64(len(w.pending)))
	for _, e := range w.pending {
		raw = appendKeyInfo(raw, e.key, e.bitmap)
	}
	info, err := w.writeCompressible(raw)
	if err != nil {
		return err
	}
	w.blocks = append(w.blocks, dictBlockMeta{firstKey: w.pending[0].key, blockInfo: info})
	w.pending, w.pendSize = nil, 0
	return nil
}

func appendKeyInfo(dst, key []byte, info blockInfo) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(key)))
	dst = append(dst, key...)
	dst = binary.AppendUvarint(dst, uint64(info.offset))
	return binary.AppendUvarint(dst, uint64(info.length))
}

// Result is what a finished file reports: its row count and its SortedIndexFileMeta.
type Result struct {
	RowCount int64
	Meta     filemeta.Meta
}

// Finish writes the last bitmap, the dictionary and index blocks and the footer. With no row
// written nothing is written and ok is false (Java returns no result entry then).
func (w *Writer) Finish() (res Result, ok bool, err error) {
	if w.done {
		return Result{}, false, errors.New("bitmap index: finish called twice")
	}
	w.done = true
	if w.rowCount == 0 {
		return Result{}, false, nil
	}
	if err := w.flushBitmap(); err != nil {
		return Result{}, false, err
	}
	if err := w.flushDictionary(); err != nil {
		return Result{}, false, err
	}
	nullInfo, err := w.writeBitmap(w.nulls)
	if err != nil {
		return Result{}, false, err
	}
	nonNullInfo, err := w.writeBitmap(w.nonNulls)
	if err != nil {
		return Result{}, false, err
	}
	raw := binary.AppendUvarint(nil, uint64(len(w.blocks)))
	for _, b := range w.blocks {
		raw = appendKeyInfo(raw, b.firstKey, b.blockInfo)
	}
	indexInfo, err := w.writeCompressible(raw)
	if err != nil {
		return Result{}, false, err
	}
	f := make([]byte, 0, FooterLength)
	for _, b := range []blockInfo{nullInfo, nonNullInfo, indexInfo} {
		f = binary.BigEndian.AppendUint64(f, uint64(b.offset))
		f = binary.BigEndian.AppendUint32(f, uint32(b.length))
	}
	f = binary.BigEndian.AppendUint32(f, uint32(w.values))
	f = binary.BigEndian.AppendUint32(f, Version)
	f = binary.BigEndian.AppendUint32(f, Magic)
	if _, err := w.out.Write(f); err != nil {
		return Result{}, false, fmt.Errorf("bitmap index: write footer: %w", err)
	}
	m := filemeta.Meta{HasNulls: !w.nulls.IsEmpty()}
	if w.first != nil {
		if m.FirstKey, err = w.ser.Encode(w.first); err != nil {
			return Result{}, false, err
		}
		if m.LastKey, err = w.ser.Encode(w.last); err != nil {
			return Result{}, false, err
		}
	}
	return Result{RowCount: w.rowCount, Meta: m}, true, nil
}
