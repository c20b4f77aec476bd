package mergetree

import (
	"context"
	"fmt"
	"io"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// OpenFile opens the key-values of one data file of the bucket being read (Java's
// KeyValueFileReaderFactory#createRecordReader).
type OpenFile func(ctx context.Context, f *meta.DataFileMeta) (*kvfile.Reader, error)

// runReader reads the records of one sorted run, file after file, skipping rows that deletion
// vectors delete and records keep (when set) refuses.
type runReader struct {
	open  OpenFile
	files []KeyedFile
	dvs   map[string]dv.DeletionVector
	keep  func(*kvfile.KeyValue) bool
	cur   *kvfile.Reader
	curDV dv.DeletionVector
	// level is the level of the file the last record came from.
	level int32
	i     int
	read  int64
}

func (r *runReader) next(ctx context.Context) (*kvfile.KeyValue, error) {
	for {
		if r.cur == nil {
			if r.i >= len(r.files) {
				return nil, io.EOF
			}
			f := r.files[r.i].File
			r.i++
			rd, err := r.open(ctx, f)
			if err != nil {
				return nil, err
			}
			if rd.NumRows() != f.RowCount {
				rd.Close()
				return nil, fmt.Errorf("data file %s has %d rows, its metadata says %d", f.FileName, rd.NumRows(), f.RowCount)
			}
			r.cur, r.curDV, r.level = rd, r.dvs[f.FileName], f.Level
		}
		kv, pos, err := r.cur.Next(ctx)
		if err == io.EOF {
			r.cur.Close()
			r.cur = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		r.read++
		if r.curDV != nil && r.curDV.IsDeleted(pos) {
			continue
		}
		if r.keep != nil && !r.keep(kv) {
			continue
		}
		return kv, nil
	}
}

func (r *runReader) close() {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
}

// MergeReader merges the sorted runs of one section by key (MergeTreeReaders#readerForSection:
// each run's files read one after the other, the runs sort-merged); it returns the records of one key at a time in merge order
// (key, then the table's sequence order), each with its file's level, for the caller's merge
// function.
type MergeReader struct {
	runs []*runReader
	h    kvHeap
	read int64
	// recs is the slice Next returns, reused by the next call.
	recs []Record
}

type heapItem struct {
	kv    *kvfile.KeyValue
	run   int
	level int32
}

// kvHeap orders the runs' next records by key, then as merge.Compare orders records of one key
// (SortMergeReaderWithMinHeap's comparator).
type kvHeap struct {
	items []heapItem
	merge *Merge
}

func (h *kvHeap) Len() int { return len(h.items) }
func (h *kvHeap) Less(i, j int) bool {
	if c := binrow.CompareKeys(h.items[i].kv.Key, h.items[j].kv.Key); c != 0 {
		return c < 0
	}
	return h.merge.Compare(h.items[i].kv, h.items[j].kv) < 0
}
func (h *kvHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }

// push and pop are container/heap's Push and Pop on the items, step for step (so that records
// the order leaves tied come out as they did), without boxing each item in an interface.
func (h *kvHeap) push(it heapItem) {
	h.items = append(h.items, it)
	h.up(len(h.items) - 1)
}

func (h *kvHeap) pop() heapItem {
	n := len(h.items) - 1
	h.Swap(0, n)
	h.down(0, n)
	it := h.items[n]
	h.items = h.items[:n]
	return it
}

func (h *kvHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		j = i
	}
}

func (h *kvHeap) down(i, n int) {
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.Less(j2, j1) {
			j = j2 // right child
		}
		if !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		i = j
	}
}

// NewMergeReader opens the runs of a section, each file through open: dvs are the deletion
// vectors of the section's files by file name, and keep, when set, drops records as they are
// read (RecordLevelExpire#wrap). merge orders the records of one key.
func NewMergeReader(ctx context.Context, section [][]KeyedFile, open OpenFile, dvs map[string]dv.DeletionVector, keep func(*kvfile.KeyValue) bool, merge *Merge) (*MergeReader, error) {
	m := &MergeReader{h: kvHeap{merge: merge}}
	for i, run := range section {
		rr := &runReader{open: open, files: run, dvs: dvs, keep: keep}
		m.runs = append(m.runs, rr)
		kv, err := rr.next(ctx)
		if err == io.EOF {
			continue
		}
		if err != nil {
			m.Close()
			return nil, err
		}
		m.h.push(heapItem{kv, i, rr.level})
	}
	return m, nil
}

func (m *MergeReader) advance(ctx context.Context, run int) error {
	kv, err := m.runs[run].next(ctx)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	m.h.push(heapItem{kv, run, m.runs[run].level})
	return nil
}

// Next returns the records of the next key in merge order, io.EOF after the last key. The slice
// is the reader's: valid until the next call.
func (m *MergeReader) Next(ctx context.Context) ([]Record, error) {
	if m.h.Len() == 0 {
		m.sumRead()
		return nil, io.EOF
	}
	top := m.h.pop()
	key := top.kv.Key
	recs := append(m.recs[:0], Record{KV: top.kv, Level: top.level})
	if err := m.advance(ctx, top.run); err != nil {
		return nil, err
	}
	for m.h.Len() > 0 && binrow.CompareKeys(m.h.items[0].Key(), key) == 0 {
		it := m.h.pop()
		recs = append(recs, Record{KV: it.kv, Level: it.level})
		if err := m.advance(ctx, it.run); err != nil {
			return nil, err
		}
	}
	m.recs = recs
	return recs, nil
}

// Key returns the item's key.
func (it heapItem) Key() []any { return it.kv.Key }

// RowsRead is the number of rows read from the section's files, those deletion vectors and keep
// dropped included, as of the last Close or the Next that returned io.EOF.
func (m *MergeReader) RowsRead() int64 { return m.read }

func (m *MergeReader) sumRead() {
	m.read = 0
	for _, r := range m.runs {
		m.read += r.read
	}
}

// Close closes the file each run has open.
func (m *MergeReader) Close() {
	m.sumRead()
	for _, r := range m.runs {
		r.close()
	}
}
