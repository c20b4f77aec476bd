//go:build !(linux || darwin || freebsd)

package writebuffer

import "fmt"

// mapArena is the portable arena: pages on the Go heap, each allocated when first taken.
func mapArena(pages, pageSize int64) (*arena, error) {
	if pages <= 0 || pageSize <= 0 {
		return nil, fmt.Errorf("writebuffer: %d pages of %d bytes", pages, pageSize)
	}
	return &arena{pageSize: pageSize, heap: make([][]byte, pages)}, nil
}

// allocSlots is memory for n slots on the Go heap.
func allocSlots(n int64) ([]slot, func() error, error) {
	if n <= 0 {
		return nil, nil, fmt.Errorf("writebuffer: %d record slots", n)
	}
	return make([]slot, 0, n), func() error { return nil }, nil
}
