package sst

import (
	"fmt"
	"io"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
)

// Writer writes the data and index blocks of one SST file (Java's SstFileWriter without a bloom
// filter, which Paimon's BTree writer never enables). Keys must be put in increasing order.
type Writer struct {
	out       *PosWriter
	blockSize int
	codec     blockcodec.Codec
	data      *BlockWriter
	index     *BlockWriter
	lastKey   []byte
}

// PosWriter is an io.Writer that counts the bytes written, for block offsets.
type PosWriter struct {
	W   io.Writer
	Pos int64
}

// Write writes p and advances Pos.
func (p *PosWriter) Write(b []byte) (int, error) {
	n, err := p.W.Write(b)
	p.Pos += int64(n)
	return n, err
}

// NewWriter returns a writer flushing a data block once its estimated size exceeds blockSize.
func NewWriter(out *PosWriter, blockSize int, codec blockcodec.Codec) (*Writer, error) {
	if blockSize <= 0 {
		return nil, fmt.Errorf("sst: block size %d must be positive", blockSize)
	}
	return &Writer{out: out, blockSize: blockSize, codec: codec, data: NewBlockWriter(), index: NewBlockWriter()}, nil
}

// Put appends one entry.
func (w *Writer) Put(key, value []byte) error {
	w.data.Add(key, value)
	w.lastKey = append(w.lastKey[:0], key...)
	if w.data.Memory() > w.blockSize {
		return w.Flush()
	}
	return nil
}

// Flush writes the pending data block, if any, and records it in the index block.
func (w *Writer) Flush() error {
	if w.data.Len() == 0 {
		return nil
	}
	h, err := w.writeBlock(w.data)
	if err != nil {
		return err
	}
	w.index.Add(w.lastKey, AppendHandle(nil, h))
	return nil
}

func (w *Writer) writeBlock(b *BlockWriter) (Handle, error) {
	raw := b.Finish()
	stored, t, err := w.codec.Encode(raw)
	if err != nil {
		return Handle{}, fmt.Errorf("sst: compress block: %w", err)
	}
	h := Handle{Offset: w.out.Pos, Size: int32(len(stored))}
	if _, err := w.out.Write(stored); err != nil {
		return Handle{}, fmt.Errorf("sst: write block: %w", err)
	}
	if _, err := w.out.Write(blockcodec.Trailer(stored, t)); err != nil {
		return Handle{}, fmt.Errorf("sst: write block trailer: %w", err)
	}
	b.Reset()
	return h, nil
}

// WriteIndexBlock writes the index block (possibly empty) and returns its handle.
func (w *Writer) WriteIndexBlock() (Handle, error) { return w.writeBlock(w.index) }

// Reader reads the blocks of one SST file through r.
type Reader struct {
	r     io.ReaderAt
	size  int64
	cmp   func(a, b []byte) (int, error)
	index *Block
}

// OpenReader reads the index block at h; cmp orders serialized keys.
func OpenReader(r io.ReaderAt, size int64, h Handle, cmp func(a, b []byte) (int, error)) (*Reader, error) {
	rd := &Reader{r: r, size: size, cmp: cmp}
	idx, err := rd.ReadBlock(h)
	if err != nil {
		return nil, fmt.Errorf("sst: index block: %w", err)
	}
	rd.index = idx
	return rd, nil
}

// ReadBlock reads, checks, decompresses and parses the block at h.
func (rd *Reader) ReadBlock(h Handle) (*Block, error) {
	if h.Offset < 0 || h.Size < 0 || h.Offset+int64(h.Size)+blockcodec.TrailerLength > rd.size {
		return nil, fmt.Errorf("block at %d of %d bytes lies outside the %d-byte file", h.Offset, h.Size, rd.size)
	}
	buf := make([]byte, int(h.Size)+blockcodec.TrailerLength)
	if _, err := rd.r.ReadAt(buf, h.Offset); err != nil {
		return nil, fmt.Errorf("read block at %d: %w", h.Offset, err)
	}
	raw, err := blockcodec.Decode(buf[:h.Size], buf[h.Size:])
	if err != nil {
		return nil, fmt.Errorf("block at %d: %w", h.Offset, err)
	}
	return ParseBlock(raw)
}

// NumBlocks returns the number of data blocks.
func (rd *Reader) NumBlocks() int { return len(rd.index.Entries) }

// DataBlock reads data block i of the index.
func (rd *Reader) DataBlock(i int) (*Block, error) {
	h, err := DecodeHandle(rd.index.Entries[i].Value)
	if err != nil {
		return nil, fmt.Errorf("sst: index entry %d: %w", i, err)
	}
	b, err := rd.ReadBlock(h)
	if err != nil {
		return nil, fmt.Errorf("sst: data block %d: %w", i, err)
	}
	return b, nil
}

// Seek returns the data block index and entry index of the first entry whose key is >= target
// (Java's SstFileIterator#seekTo); block == NumBlocks() when there is none.
func (rd *Reader) Seek(target []byte) (block int, blk *Block, entry int, err error) {
	bi, err := rd.index.Seek(target, rd.cmp)
	if err != nil {
		return 0, nil, 0, err
	}
	if bi == len(rd.index.Entries) {
		return bi, nil, 0, nil
	}
	blk, err = rd.DataBlock(bi)
	if err != nil {
		return 0, nil, 0, err
	}
	ei, err := blk.Seek(target, rd.cmp)
	if err != nil {
		return 0, nil, 0, err
	}
	return bi, blk, ei, nil
}
