package writebuffer

import "slices"

// arena is the memory of a pool's pages: one mapped region (page i at i*pageSize), or, where
// the platform has no anonymous mappings, pages on the Go heap.
type arena struct {
	pageSize int64
	region   []byte
	heap     [][]byte
	unmap    func() error
	discard  func([]byte) error // returns pages to the operating system; nil: nothing to do
}

// page is page i's memory.
func (a *arena) page(i int32) []byte {
	if a.region != nil {
		off := int64(i) * a.pageSize
		return a.region[off : off+a.pageSize : off+a.pageSize]
	}
	if a.heap[i] == nil {
		a.heap[i] = make([]byte, a.pageSize)
	}
	return a.heap[i]
}

// discardPages gives the memory of pages back to the operating system, one call per run of
// consecutive pages (a drained pool gives back every free page at once: thousands of pages of
// the default write-buffer-size); the pages stay usable (their content is lost).
func (a *arena) discardPages(pages []int32) error {
	if a.region == nil {
		for _, i := range pages {
			a.heap[i] = nil
		}
		return nil
	}
	if a.discard == nil || len(pages) == 0 {
		return nil
	}
	sorted := slices.Clone(pages)
	slices.Sort(sorted)
	for lo := 0; lo < len(sorted); {
		hi := lo + 1
		for hi < len(sorted) && sorted[hi] <= sorted[hi-1]+1 {
			hi++
		}
		from, to := int64(sorted[lo])*a.pageSize, (int64(sorted[hi-1])+1)*a.pageSize
		if err := a.discard(a.region[from:to]); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// release gives the arena's memory back; no page may be used afterwards.
func (a *arena) release() error {
	a.region, a.heap = nil, nil
	if a.unmap == nil {
		return nil
	}
	unmap := a.unmap
	a.unmap = nil
	return unmap()
}
