//go:build linux || darwin || freebsd

package writebuffer

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapArena reserves pages*pageSize bytes outside the Go heap: anonymous private memory the
// kernel backs only when a page is first written, which the garbage collector neither scans nor
// counts toward its heap goal (Java's pool pages are likewise outside what its collector moves).
func mapArena(pages, pageSize int64) (*arena, error) {
	n := pages * pageSize
	if n <= 0 || n != int64(int(n)) {
		return nil, fmt.Errorf("writebuffer: %d pages of %d bytes do not fit in memory", pages, pageSize)
	}
	region, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("writebuffer: map %d bytes of write-buffer pages: %w", n, err)
	}
	return &arena{pageSize: pageSize, region: region, unmap: func() error { return unix.Munmap(region) },
		discard: discardPages}, nil
}

// discardPages returns the operating-system pages wholly inside b (madvise works on whole pages:
// a write-buffer page smaller than the system's shares it with its neighbours, and stays).
func discardPages(b []byte) error {
	os := uintptr(unix.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	from := (start + os - 1) &^ (os - 1)
	to := (start + uintptr(len(b))) &^ (os - 1)
	if to <= from {
		return nil
	}
	return unix.Madvise(b[from-start:to-start], unix.MADV_DONTNEED)
}

// allocSlots is memory for n slots outside the Go heap (slots hold no pointers) and the
// function that gives it back.
func allocSlots(n int64) ([]slot, func() error, error) {
	bytes := n * slotSize
	if n <= 0 || bytes != int64(int(bytes)) {
		return nil, nil, fmt.Errorf("writebuffer: %d record slots do not fit in memory", n)
	}
	mem, err := unix.Mmap(-1, 0, int(bytes), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("writebuffer: map %d bytes of record slots: %w", bytes, err)
	}
	return unsafe.Slice((*slot)(unsafe.Pointer(unsafe.SliceData(mem))), n)[:0], func() error { return unix.Munmap(mem) }, nil
}
