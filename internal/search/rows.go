package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dataformat"
	"github.com/paimon-pkft/pkft/internal/pqvalue"
	"github.com/paimon-pkft/pkft/internal/types"
)

// column is one value column to read from a data file: its name in the file's schema and its
// type; an empty name reads null (the file predates the column).
type column struct {
	name string
	typ  types.DataType
}

// readRows reads the columns of the rows at positions (ascending, distinct) of the data file
// held by r (size bytes). In a Parquet file only the requested columns are read, and within them
// only the row groups holding requested rows; rows in between are skipped, not materialized. A
// PLAIN page of over 1 MiB is decompressed only up to the last row read from it
// (pqvalue.OpenRowReader), and a dictionary-encoded page has only the dictionary entries of the
// rows read decoded (dictChunk). An Avro file is decoded record by record up to the last
// position; an ORC file is refused.
func readRows(ctx context.Context, r io.ReaderAt, size int64, fileName string, cols []column, positions []int64) (_ [][]any, err error) {
	return readRowsIn(ctx, nil, r, size, fileName, cols, positions)
}

// readRowsIn is readRows with a Parquet file's page and decompression buffers taken from pool
// (nil: allocated for this file alone).
func readRowsIn(ctx context.Context, pool *pqvalue.BufferPool, r io.ReaderAt, size int64, fileName string, cols []column, positions []int64) (_ [][]any, err error) {
	format, err := dataformat.Readable(fileName)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s: %w", fileName, err)
	}
	out := make([][]any, len(positions))
	for i := range out {
		out[i] = make([]any, len(cols))
	}
	if format == dataformat.Avro {
		return out, readAvroRows(ctx, r, size, fileName, cols, positions, out)
	}
	var mem memory.Allocator
	if pool != nil {
		mem = pool
	}
	err = readParquetRows(ctx, pool, r, size, fileName, cols, positions, out, func(r io.ReaderAt) (*file.Reader, error) {
		return pqvalue.OpenRowReader(r, size, mem)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readParquetRows reads the rows at positions of the Parquet data file held by r into out, the
// file opened by open through the page windows (their read-ahead chunk taken from pool, nil:
// allocated).
func readParquetRows(ctx context.Context, pool *pqvalue.BufferPool, r io.ReaderAt, size int64, fileName string, cols []column, positions []int64, out [][]any,
	open func(io.ReaderAt) (*file.Reader, error)) error {
	win := &pageWindows{r: r, size: size, pool: pool, of: map[int][][2]int64{}}
	defer win.release()
	pf, err := open(win)
	if err != nil {
		return fmt.Errorf("read rows of %s: %w", fileName, err)
	}
	defer pf.Close()
	for j, c := range cols {
		if c.name == "" {
			continue
		}
		idx := pf.MetaData().Schema.ColumnIndexByName(c.name)
		if idx < 0 {
			continue // a file written before the column existed reads it as null
		}
		cur := &cursor{pf: pf, col: idx, descr: pf.MetaData().Schema.Column(idx), rg: -1, win: win}
		defer cur.close()
		for i, pos := range positions {
			if err := ctx.Err(); err != nil {
				return err
			}
			var v any
			err := pqvalue.Guard(func() error {
				var err error
				v, err = cur.at(pos, c.typ)
				return err
			})
			if err != nil {
				return fmt.Errorf("read rows of %s: column %s row %d: %w", fileName, c.name, pos, err)
			}
			out[i][j] = v
		}
		// The column is done: its reader and its window go, so the next column's reads meet no
		// window of this one.
		cur.close()
		cur.allow(-1)
	}
	return nil
}

// readAvroRows reads the rows at positions of the Avro data file held by r into out. An Avro
// file is row-oriented: the records are decoded in order up to the last position asked.
func readAvroRows(ctx context.Context, r io.ReaderAt, size int64, fileName string, cols []column, positions []int64, out [][]any) error {
	want := make([]dataformat.Column, len(cols))
	for j, c := range cols {
		want[j] = dataformat.Column{Name: c.name, Type: c.typ} // "" names no Avro field: null
	}
	av, err := dataformat.OpenAvro(ctx, r, size, fileName, want)
	if err != nil {
		return fmt.Errorf("read rows of %s: %w", fileName, err)
	}
	defer av.Close()
	i := 0
	for pos := int64(0); i < len(positions); pos++ {
		if err := av.Next(ctx, out[i]); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("read rows of %s: row %d is beyond the file's %d rows", fileName, positions[i], pos)
			}
			return fmt.Errorf("read rows of %s: %w", fileName, err)
		}
		if positions[i] == pos {
			i++
		}
	}
	return nil
}

// cursor reads single rows of one column, moving forward through its row groups.
type cursor struct {
	pf    *file.Reader
	col   int
	descr *pqschema.Column

	rg      int   // current row group, -1 before the first
	rgStart int64 // first row of the current row group
	rgEnd   int64 // one past its last row
	next    int64 // the row the reader produces next
	rdr     file.ColumnChunkReader
	// dc reads the current column chunk instead of rdr when its data pages are
	// dictionary-encoded (dictChunkEligible) and the offset index locates them, up to a page it
	// does not read (a PLAIN one after the dictionary's fallback).
	dc *dictChunk
	// pageStarts are the first rows (relative to the row group) of the current column chunk's
	// pages, from its offset index (parquet-java, and so Paimon, writes one by default); nil
	// without one. pageBytes are those pages' byte ranges in the file (header included), dict
	// the dictionary page's (empty without one).
	pageStarts []int64
	pageBytes  [][2]int64
	dict       [2]int64
	win        *pageWindows
	// defs and the vals are readOne's scratch, reused from row to row.
	defs      [1]int16
	byteVals  [1]parquet.ByteArray
	int32Vals [1]int32
	int64Vals [1]int64
}

// pageWindows is the file as the column readers see it: a column whose pages the offset index
// locates reads only the dictionary page and the page holding its current row, so that the
// readers' read-ahead stops at that page's end instead of reading the pages after it. Reads
// inside a window are served from one read-ahead chunk of up to windowChunk bytes, itself ending
// at the window's end (a read of a chunk or more goes to r directly), so that the column readers
// buffer little of their own: each column chunk's page readers would otherwise allocate their
// own read-ahead buffers, which a search reading a few rows from each of many files would
// allocate and drop again for every chunk.
//
// It serves arrow-go's readers, which read it through io.SectionReader's Read, and so bends
// io.ReaderAt's rule at a window's end: a read crossing it returns the bytes before it and no
// error (a short Read: an io.EOF would stay with arrow-go's buffered reader and end the column
// at its next page), and a read starting right at it returns io.EOF (which ends the buffered
// reader's filling of its buffer). Reads outside every window (the footer, the page index) read
// the file as it is.
type pageWindows struct {
	r    io.ReaderAt
	size int64
	pool *pqvalue.BufferPool // where the read-ahead chunk comes from (nil: allocated)
	of   map[int][][2]int64  // column -> the byte ranges it may read now

	mu     sync.Mutex
	buf    []byte // the read-ahead chunk: bytes [bufOff, bufOff+bufLen) of the file
	bufOff int64
	bufLen int
}

// windowChunk is how far a read inside a window reads ahead (within the window): the read-ahead
// the column readers had of their own before, so that a file on an object store takes as many
// ranged GETs as then.
const windowChunk = 256 << 10

// ReadAt reads p at off (see pageWindows for reads inside a window).
func (w *pageWindows) ReadAt(p []byte, off int64) (int, error) {
	for _, ranges := range w.of {
		for _, rg := range ranges {
			if off >= rg[0] && off < rg[1] {
				return w.readIn(p, off, rg[1])
			}
		}
	}
	for _, ranges := range w.of {
		for _, rg := range ranges {
			if off == rg[1] && len(p) > 0 {
				return 0, io.EOF
			}
		}
	}
	return w.r.ReadAt(p, off)
}

// readIn reads p at off, up to end (the window's end), through the read-ahead chunk.
func (w *pageWindows) readIn(p []byte, off, end int64) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	want := int(min(int64(len(p)), end-off))
	n := 0
	for n < want {
		at := off + int64(n)
		if at >= w.bufOff && at < w.bufOff+int64(w.bufLen) {
			n += copy(p[n:want], w.buf[at-w.bufOff:w.bufLen])
			continue
		}
		if want-n >= windowChunk {
			m, err := w.r.ReadAt(p[n:want], at)
			n += m
			if err != nil {
				return n, err
			}
			continue
		}
		if w.buf == nil {
			if w.pool != nil {
				w.buf = w.pool.Allocate(windowChunk)
			} else {
				w.buf = make([]byte, windowChunk)
			}
		}
		m, err := w.r.ReadAt(w.buf[:min(int64(windowChunk), end-at)], at)
		w.bufOff, w.bufLen = at, m
		if m == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
	}
	return n, nil
}

// release gives the read-ahead chunk back to the pool.
func (w *pageWindows) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf != nil && w.pool != nil {
		w.pool.Free(w.buf)
	}
	w.buf, w.bufOff, w.bufLen = nil, 0, 0
}

// allow limits the cursor's column to its dictionary page and page i (i < 0: no limit).
func (c *cursor) allow(i int) {
	if i < 0 || i >= len(c.pageBytes) {
		delete(c.win.of, c.col)
		return
	}
	page := c.pageBytes[i]
	if c.dict[1] > c.dict[0] {
		// Two windows even when the page follows the dictionary: the read-ahead of the
		// dictionary's last bytes (read after the page by dictChunk) stops at its end instead
		// of reading the page's bytes again.
		c.win.of[c.col] = [][2]int64{c.dict, page}
		return
	}
	c.win.of[c.col] = [][2]int64{page}
}

// pageOf is the page of the current column chunk holding row (absolute), or 0 without an offset
// index.
func (c *cursor) pageOf(row int64) int {
	rel := row - c.rgStart
	return sort.Search(len(c.pageStarts), func(i int) bool { return c.pageStarts[i] > rel }) - 1
}

// at returns the value of row pos, which must not precede the previous call's row.
func (c *cursor) at(pos int64, t types.DataType) (any, error) {
	if (c.rdr == nil && c.dc == nil) || pos < c.next || pos >= c.rgEnd {
		if err := c.open(pos); err != nil {
			return nil, err
		}
	}
	if len(c.pageStarts) > 0 {
		c.allow(c.pageOf(pos))
	}
	if c.dc != nil {
		v, err := c.dc.at(pos - c.rgStart)
		if !errors.Is(err, errOtherPage) {
			c.next = pos + 1
			if err != nil || v == nil {
				return nil, err
			}
			switch x := v.(type) {
			case int32:
				v = int64(x)
			case []byte:
				v = slices.Clone(x)
			}
			return c.convert(v, t)
		}
		// The dictionary fell back to PLAIN pages, which both writers write after the
		// dictionary-encoded ones (or the page is another dictChunk does not read): arrow-go's
		// reader reads this page and the rest of the chunk, streaming PLAIN pages (it reads any
		// dictionary-encoded page after them as well).
		_ = pqvalue.Guard(c.dc.close)
		c.dc = nil
		rdr, err := c.pf.RowGroup(c.rg).Column(c.col)
		if err != nil {
			return nil, err
		}
		c.rdr, c.next = rdr, c.rgStart
	}
	if n := pos - c.next; n > 0 && c.pageOf(pos) > c.pageOf(c.next) {
		// The offset index locates the page holding pos: the pages in between are not read.
		if err := c.rdr.SeekToRow(pos - c.rgStart); err != nil {
			return nil, err
		}
	} else if n > 0 {
		if err := skip(c.rdr, n); err != nil {
			return nil, err
		}
	}
	c.next = pos + 1
	return c.readOne(t)
}

// open positions the cursor at the start of the row group holding pos.
func (c *cursor) open(pos int64) error {
	var start int64
	for rg := 0; rg < c.pf.NumRowGroups(); rg++ {
		n := c.pf.MetaData().RowGroups[rg].GetNumRows()
		if pos < start+n {
			if (c.rdr != nil || c.dc != nil) && rg == c.rg && pos >= c.next {
				return nil
			}
			c.close()
			c.rg, c.rgStart, c.rgEnd, c.next = rg, start, start+n, start
			c.pageStarts, c.pageBytes, c.dict = nil, nil, [2]int64{}
			c.allow(-1)
			cc, err := c.pf.MetaData().RowGroup(rg).ColumnChunk(c.col)
			if err == nil && cc.GetOffsetIndexLocation() != nil {
				if pir := c.pf.GetPageIndexReader(); pir != nil {
					if rgi, err := pir.RowGroup(rg); err == nil && rgi != nil {
						if oi, err := rgi.GetOffsetIndex(c.col); err == nil && oi != nil {
							for _, loc := range oi.GetPageLocations() {
								c.pageStarts = append(c.pageStarts, loc.FirstRowIndex)
								c.pageBytes = append(c.pageBytes, [2]int64{loc.Offset, loc.Offset + int64(loc.CompressedPageSize)})
							}
						}
					}
				}
				if cc.HasDictionaryPage() && len(c.pageBytes) > 0 && cc.DictionaryPageOffset() < c.pageBytes[0][0] {
					c.dict = [2]int64{cc.DictionaryPageOffset(), c.pageBytes[0][0]}
				}
			}
			if len(c.pageStarts) == 0 && err == nil {
				// Without an offset index the chunk's pages are read in order: its window runs
				// from its first page to the end of the file (old writers' chunk sizes may
				// leave out a dictionary page header), for the read-ahead chunk alone.
				start := cc.DataPageOffset()
				if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
					start = cc.DictionaryPageOffset()
				}
				if start >= 0 && start < c.win.size {
					c.win.of[c.col] = [][2]int64{{start, c.win.size}}
				}
			}
			if len(c.pageStarts) > 0 && c.dict[1] > c.dict[0] && dictChunkEligible(cc, c.descr) {
				pr, err := c.pf.RowGroup(rg).GetColumnPageReader(c.col)
				if err != nil {
					return err
				}
				c.dc = newDictChunk(pr, c.descr)
				return nil
			}
			c.rdr, err = c.pf.RowGroup(rg).Column(c.col)
			return err
		}
		start += n
	}
	return fmt.Errorf("row %d is beyond the file's %d rows", pos, start)
}

// close releases the current column chunk reader.
func (c *cursor) close() {
	if c.rdr != nil {
		_ = pqvalue.Guard(c.rdr.Close)
		c.rdr = nil
	}
	if c.dc != nil {
		_ = pqvalue.Guard(c.dc.close)
		c.dc = nil
	}
}

func skip(r file.ColumnChunkReader, n int64) error {
	type skipper interface {
		Skip(int64) (int64, error)
	}
	s, ok := r.(skipper)
	if !ok {
		return fmt.Errorf("column reader %T cannot skip", r)
	}
	_, err := s.Skip(n)
	return err
}

// readOne reads the next row and converts it to the Go form of t (see Result).
func (c *cursor) readOne(t types.DataType) (any, error) {
	defs := c.defs[:]
	var (
		total int64
		n     int
		err   error
		v     any
	)
	switch r := c.rdr.(type) {
	case *file.BooleanColumnChunkReader:
		vals := make([]bool, 1)
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = vals[0]
	case *file.Int32ColumnChunkReader:
		vals := c.int32Vals[:]
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = int64(vals[0])
	case *file.Int64ColumnChunkReader:
		vals := c.int64Vals[:]
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = vals[0]
	case *file.Int96ColumnChunkReader:
		vals := make([]parquet.Int96, 1)
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = vals[0]
	case *file.Float32ColumnChunkReader:
		vals := make([]float32, 1)
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = vals[0]
	case *file.Float64ColumnChunkReader:
		vals := make([]float64, 1)
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = vals[0]
	case *file.ByteArrayColumnChunkReader:
		vals := c.byteVals[:]
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = []byte(slices.Clone(vals[0]))
		vals[0] = nil // the page's bytes: not kept past this row
	case *file.FixedLenByteArrayColumnChunkReader:
		vals := make([]parquet.FixedLenByteArray, 1)
		total, n, err = r.ReadBatch(1, vals, defs, nil)
		v = []byte(slices.Clone(vals[0]))
	default:
		return nil, fmt.Errorf("column reader %T is not supported", c.rdr)
	}
	if err != nil {
		return nil, err
	}
	if total != 1 {
		return nil, fmt.Errorf("column ended early")
	}
	if n == 0 {
		return nil, nil
	}
	return c.convert(v, t)
}

// convert turns a physical Parquet value into the Go form of the Paimon type t.
func (c *cursor) convert(v any, t types.DataType) (any, error) {
	switch x := v.(type) {
	case bool, float32, float64:
		return x, nil
	case int64:
		switch t.Root {
		case types.RootTinyInt:
			return int8(x), nil
		case types.RootSmallInt:
			return int16(x), nil
		case types.RootInt, types.RootDate, types.RootTime:
			return int32(x), nil
		case types.RootBigInt:
			return x, nil
		case types.RootDecimal:
			return binrow.Decimal{Unscaled: big.NewInt(x), Scale: t.Scale}, nil
		case types.RootTimestamp, types.RootTimestampLTZ:
			return pqvalue.Timestamp(x, pqvalue.TimestampUnit(c.descr, t)), nil
		}
	case parquet.Int96:
		if t.Root == types.RootTimestamp || t.Root == types.RootTimestampLTZ {
			return pqvalue.Int96Timestamp(x), nil
		}
	case []byte:
		switch t.Root {
		case types.RootChar, types.RootVarChar:
			return string(x), nil
		case types.RootBinary, types.RootVarBinary:
			return x, nil
		case types.RootDecimal:
			return binrow.Decimal{Unscaled: pqvalue.FromTwosComplement(x), Scale: t.Scale}, nil
		}
	}
	return nil, fmt.Errorf("parquet value %T cannot be read as %s", v, t.Root)
}
