package writebuffer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// spillWindow is the zstd window of spilled runs: Java compresses a spill in independent blocks
// of a page, so a small window costs little ratio, and it bounds the memory of each run's encoder
// and decoder (a merge opens up to local-sort.max-num-file-handles runs at once) to a few
// hundred kilobytes instead of the 8 MiB history of zstd's default.
const spillWindow = 128 << 10

// spillRun is one sorted run on local disk: records as uvarint key length, key, varint
// sequence number, kind byte, uvarint value length, value; zstd-compressed unless the spill
// compression is none.
type spillRun struct {
	path  string
	size  int64
	count int64
}

func (r *spillRun) remove() error {
	if err := os.Remove(r.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("writebuffer: remove spilled run: %w", err)
	}
	return nil
}

// writeRun writes the records fill emits to a new run file in dir; on any failure the file is
// removed.
func writeRun(dir string, o Options, fill func(emit func(Entry) error) error) (run *spillRun, err error) {
	f, err := os.CreateTemp(dir, "pkft-write-buffer-*.spill")
	if err != nil {
		return nil, fmt.Errorf("writebuffer: spill: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	var sink io.Writer = f
	var enc *zstd.Encoder
	if o.Compression == "zstd" {
		enc, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(o.ZstdLevel)), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(spillWindow))
		if err != nil {
			return nil, fmt.Errorf("writebuffer: spill: %w", err)
		}
		sink = enc
	}
	bw := bufio.NewWriterSize(sink, 64<<10)
	var count int64
	var hdr [3 * binary.MaxVarintLen64]byte
	err = fill(func(e Entry) error {
		n := binary.PutUvarint(hdr[:], uint64(len(e.Key)))
		if _, err := bw.Write(hdr[:n]); err != nil {
			return err
		}
		if _, err := bw.Write(e.Key); err != nil {
			return err
		}
		n = binary.PutVarint(hdr[:], e.Seq)
		hdr[n] = e.Kind
		n++
		n += binary.PutUvarint(hdr[n:], uint64(len(e.Value)))
		if _, err := bw.Write(hdr[:n]); err != nil {
			return err
		}
		if _, err := bw.Write(e.Value); err != nil {
			return err
		}
		count++
		return nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && enc != nil {
		err = enc.Close()
	}
	var info os.FileInfo
	if err == nil {
		info, err = f.Stat()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("writebuffer: spill %s: %w", f.Name(), err)
	}
	return &spillRun{path: f.Name(), size: info.Size(), count: count}, nil
}

// runReader reads a run back in order.
type runReader struct {
	f    *os.File
	dec  *zstd.Decoder
	br   *bufio.Reader
	path string
	left int64
}

func (r *spillRun) open(o Options) (*runReader, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("writebuffer: read spilled run: %w", err)
	}
	rd := &runReader{f: f, path: r.path, left: r.count}
	var src io.Reader = f
	if o.Compression == "zstd" {
		rd.dec, err = zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writebuffer: read spilled run %s: %w", r.path, err)
		}
		src = rd.dec
	}
	rd.br = bufio.NewReaderSize(src, 64<<10)
	return rd, nil
}

func (r *runReader) next() (Entry, bool, error) {
	if r.left == 0 {
		return Entry{}, false, nil
	}
	e, err := r.read()
	if err != nil {
		return Entry{}, false, fmt.Errorf("writebuffer: spilled run %s: %w", r.path, err)
	}
	r.left--
	return e, true, nil
}

func (r *runReader) read() (Entry, error) {
	var e Entry
	bytesOf := func() ([]byte, error) {
		n, err := binary.ReadUvarint(r.br)
		if err != nil {
			return nil, err
		}
		if n > 1<<31 {
			return nil, fmt.Errorf("a field of %d bytes", n)
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r.br, b)
		return b, err
	}
	var err error
	if e.Key, err = bytesOf(); err != nil {
		return e, err
	}
	if e.Seq, err = binary.ReadVarint(r.br); err != nil {
		return e, err
	}
	if e.Kind, err = r.br.ReadByte(); err != nil {
		return e, err
	}
	e.Value, err = bytesOf()
	return e, err
}

func (r *runReader) close() {
	if r.dec != nil {
		r.dec.Close()
	}
	r.f.Close()
}
