package indexfile

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/mergetree/writebuffer"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/types"
)

// sorter orders a build's (value, row id) rows as Java's PkSortedIndexBuilder does with a
// BinaryExternalSortBuffer keyed on the value alone: rows collect in memory until Java's
// BinaryInMemorySortBuffer would be full (sortMemory: write-buffer-size in pages of page-size),
// then are ordered by Paimon's QuickSort and spilled as one sorted run (writebuffer.Runs, under
// a temporary directory the sorter creates and removes); at local-sort.max-num-file-handles runs
// they are merged, and the output is the runs merged with the last rows in memory, by value
// alone, in the order Java's merge yields rows of equal values. Without a spill the output is the
// rows in memory sorted, as Java's sortedIterator then is.
type sorter struct {
	ser     *sortkey.Serializer
	keyType types.DataType
	keys    *writebuffer.KeyComparator
	o       writebuffer.Options
	mem     sortMemory
	rowSize func(any) (int, error)
	rows    []Entry
	parent  string
	dir     string
	runs    *writebuffer.Runs
}

// newSorter creates the sorter of values of field's type under the sort options of opts
// (write-buffer-size, page-size, local-sort.max-num-file-handles, spill-compression,
// spill-compression.zstd-level, as Java's builder reads them); spilled runs go to a new directory
// under parent ("" is os.TempDir()).
func newSorter(ser *sortkey.Serializer, field types.DataField, opts map[string]string, parent string) (*sorter, error) {
	o, err := writebuffer.ParseOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("sorted index sort buffer: %w", err)
	}
	mem, err := newSortMemory(o, field.Type)
	if err != nil {
		return nil, fmt.Errorf("sorted index sort buffer: %w", err)
	}
	keyType := types.Row(field)
	keys, err := writebuffer.NewKeyComparator(keyType)
	if err != nil {
		return nil, err
	}
	return &sorter{ser: ser, keyType: keyType, keys: keys, o: o, mem: mem, rowSize: sortRowSize(field.Type), parent: parent}, nil
}

// add buffers one row, spilling the rows in memory first when Java's buffer would be full.
func (s *sorter) add(ctx context.Context, e Entry) error {
	size, err := s.rowSize(e.Value)
	if err != nil {
		return err
	}
	for {
		if s.mem.write(size) {
			s.rows = append(s.rows, e)
			return nil
		}
		if len(s.rows) == 0 {
			return fmt.Errorf("sorted index: a row of %d bytes exceeds the sort buffer (%s = %d bytes)", size, writebuffer.OptWriteBufferSize, s.o.Size)
		}
		if err := s.spill(ctx); err != nil {
			return err
		}
		if err := s.runs.MergeAtFanIn(ctx); err != nil {
			return err
		}
	}
}

// spill sorts the rows in memory and writes them as the last run.
func (s *sorter) spill(ctx context.Context) error {
	if s.runs == nil {
		dir, err := os.MkdirTemp(s.parent, "pkft-sorted-index-")
		if err != nil {
			return fmt.Errorf("sorted index: spill directory: %w", err)
		}
		s.dir = dir
		if s.runs, err = writebuffer.NewRuns(dir, s.o, s.compare); err != nil {
			return err
		}
	}
	entries, err := s.sortedEntries()
	if err != nil {
		return err
	}
	if err := s.runs.Spill(ctx, entries); err != nil {
		return fmt.Errorf("sorted index: %w", err)
	}
	s.rows = s.rows[:0]
	s.mem.clear()
	return nil
}

// sortedEntries sorts the rows in memory and encodes them as runs hold them: the value as a
// one-field binary row (the key writebuffer.KeyComparator orders) and the row id.
func (s *sorter) sortedEntries() ([]writebuffer.Entry, error) {
	SortLikeJava(s.ser, s.rows)
	out := make([]writebuffer.Entry, len(s.rows))
	for i, r := range s.rows {
		key, err := binrow.Encode(s.keyType, []any{r.Value})
		if err != nil {
			return nil, fmt.Errorf("sorted index: encode value %v: %w", r.Value, err)
		}
		out[i] = writebuffer.Entry{Key: key, Seq: r.RowID}
	}
	return out, nil
}

// compare orders runs' records by value alone, nulls first, as Java's record comparator on the
// sort key.
func (s *sorter) compare(x, y writebuffer.Entry) int { return s.keys.Compare(x.Key, y.Key) }

var errStopped = errors.New("sorted index: iteration stopped")

// sorted yields every row in Java's order.
func (s *sorter) sorted(ctx context.Context) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if s.runs == nil {
			SortLikeJava(s.ser, s.rows)
			for _, e := range s.rows {
				if !yield(e, nil) {
					return
				}
			}
			return
		}
		mem, err := s.sortedEntries()
		if err != nil {
			yield(Entry{}, err)
			return
		}
		s.rows = nil
		err = s.runs.Merge(ctx, mem, func(e writebuffer.Entry) error {
			v, err := s.keys.Decode(e.Key)
			if err != nil {
				return fmt.Errorf("sorted index: spilled value: %w", err)
			}
			if !yield(Entry{Value: v[0], RowID: e.Seq}, nil) {
				return errStopped
			}
			return nil
		})
		if err == nil {
			err = s.keys.Err()
		}
		if err != nil && !errors.Is(err, errStopped) {
			yield(Entry{}, err)
		}
	}
}

// close deletes the spilled runs and the spill directory.
func (s *sorter) close() error {
	s.rows = nil
	if s.runs == nil {
		return nil
	}
	err := s.runs.Clear()
	if rmErr := os.RemoveAll(s.dir); rmErr != nil {
		err = errors.Join(err, fmt.Errorf("sorted index: remove spill directory: %w", rmErr))
	}
	return err
}

// spilledRuns is the number of runs on disk.
func (s *sorter) spilledRuns() int {
	if s.runs == nil {
		return 0
	}
	return s.runs.Len()
}

// sortMemory is the page accounting of Paimon's BinaryInMemorySortBuffer over a
// HeapMemorySegmentPool of write-buffer-size / page-size pages, for rows of (value, BIGINT row
// id) sorted by the value: an index of fixed-size entries (normalized key plus an 8-byte pointer)
// and the serialized rows (a 4-byte length and the binary row, never starting a row's fixed part
// across a page boundary), both in pages taken from the pool; write fails when a page is needed
// and the pool has none, at exactly the row Java's buffer reports full.
type sortMemory struct {
	pageSize, maxPages int
	entrySize          int // normalized key bytes + 8
	lastIndexOffset    int
	used               int // pages taken
	initialized        bool
	indexOffset        int
	recordPos          int
}

// sortRowFixedPart is the serialized fixed part of a (value, row id) binary row: its 4-byte
// length, the null bits and two 8-byte slots.
var sortRowFixedPart = 4 + binrow.FixedPartSize(2)

func newSortMemory(o writebuffer.Options, t types.DataType) (sortMemory, error) {
	page := int(o.PageSize)
	if page&(page-1) != 0 {
		// SimpleCollectingOutputView takes the log2 of the page size.
		return sortMemory{}, fmt.Errorf("option %s: %d bytes is not a power of 2", writebuffer.OptPageSize, page)
	}
	if page < sortRowFixedPart {
		return sortMemory{}, fmt.Errorf("option %s: %d bytes cannot hold the %d-byte fixed part of a sort row", writebuffer.OptPageSize, page, sortRowFixedPart)
	}
	entry := normalizedKeyBytes(t) + 8
	return sortMemory{pageSize: page, maxPages: int(o.Size / o.PageSize), entrySize: entry,
		lastIndexOffset: (page/entry - 1) * entry}, nil
}

// normalizedKeyBytes is the normalized key length Paimon's SortCodeGenerator gives a sort on one
// field of type t: the type's key length plus a null byte, 8 bytes for strings (whose key does
// not determine the order), none for a non-compact decimal.
func normalizedKeyBytes(t types.DataType) int {
	switch t.Root {
	case types.RootBoolean, types.RootTinyInt:
		return 2
	case types.RootSmallInt:
		return 3
	case types.RootInt, types.RootFloat, types.RootDate, types.RootTime:
		return 5
	case types.RootBigInt, types.RootDouble:
		return 9
	case types.RootDecimal:
		if types.IsCompactDecimal(t.Precision) {
			return 9
		}
		return 0
	case types.RootTimestamp, types.RootTimestampLTZ:
		if types.IsCompactTimestamp(t.Precision) {
			return 9
		}
		return 13
	}
	// CHAR, VARCHAR, BINARY, VARBINARY.
	return 8
}

// sortRowSize returns the size of the binary row (value, row id) of a value of type t: the fixed
// part and the value's variable part (strings longer than 7 bytes, padded to 8; the reserved
// space of non-compact decimals and timestamps, null or not).
func sortRowSize(t types.DataType) func(any) (int, error) {
	fixed := binrow.FixedPartSize(2)
	switch t.Root {
	case types.RootDecimal:
		if !types.IsCompactDecimal(t.Precision) {
			return func(any) (int, error) { return fixed + 16, nil }
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		if !types.IsCompactTimestamp(t.Precision) {
			return func(any) (int, error) { return fixed + 8, nil }
		}
	case types.RootChar, types.RootVarChar, types.RootBinary, types.RootVarBinary:
		return func(v any) (int, error) {
			var n int
			switch x := v.(type) {
			case nil:
			case string:
				n = len(x)
			case []byte:
				n = len(x)
			default:
				return 0, fmt.Errorf("sorted index: value %v (%T) is not a %s value", v, v, t.Root)
			}
			if n <= 7 {
				return fixed, nil
			}
			return fixed + (n+7)/8*8, nil
		}
	}
	return func(any) (int, error) { return fixed, nil }
}

// take takes a page from the pool.
func (m *sortMemory) take() bool {
	if m.used == m.maxPages {
		return false
	}
	m.used++
	return true
}

// write accounts one serialized row of size bytes (BinaryInMemorySortBuffer#write); false means
// the buffer is full.
func (m *sortMemory) write(size int) bool {
	if !m.initialized {
		// tryInitialize: the first index page and the first record page.
		m.used += 2
		m.initialized, m.indexOffset, m.recordPos = true, 0, 0
	}
	if m.indexOffset > m.lastIndexOffset {
		if !m.take() {
			return false
		}
		m.indexOffset = 0
	}
	if m.pageSize-m.recordPos < sortRowFixedPart {
		if !m.take() {
			return false
		}
		m.recordPos = 0
	}
	m.recordPos += 4
	if remaining := m.pageSize - m.recordPos; remaining >= size {
		m.recordPos += size
	} else {
		for n := size; ; {
			put := min(remaining, n)
			n -= put
			if n == 0 {
				m.recordPos += put
				break
			}
			if !m.take() {
				return false
			}
			m.recordPos, remaining = 0, m.pageSize
		}
	}
	m.indexOffset += m.entrySize
	return true
}

// clear gives every page back (BinaryInMemorySortBuffer#clear).
func (m *sortMemory) clear() {
	m.used, m.initialized, m.indexOffset, m.recordPos = 0, false, 0, 0
}
