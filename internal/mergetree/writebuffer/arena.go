package writebuffer

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

// discardPage gives page i's memory back to the operating system; the page stays usable (its
// content is lost).
func (a *arena) discardPage(i int32) error {
	if a.region == nil {
		a.heap[i] = nil
		return nil
	}
	if a.discard == nil {
		return nil
	}
	off := int64(i) * a.pageSize
	return a.discard(a.region[off : off+a.pageSize])
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
