//go:build linux || darwin || freebsd

package writebuffer

import (
	"fmt"
	"syscall"
	"unsafe"
)

// mapArena reserves pages*pageSize bytes outside the Go heap: anonymous private memory the
// kernel backs only when a page is first written, which the garbage collector neither scans nor
// counts toward its heap goal (Java's pool pages are likewise outside what its collector moves).
func mapArena(pages, pageSize int64) (*arena, error) {
	n := pages * pageSize
	if n <= 0 || n != int64(int(n)) {
		return nil, fmt.Errorf("writebuffer: %d pages of %d bytes do not fit in memory", pages, pageSize)
	}
	region, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("writebuffer: map %d bytes of write-buffer pages: %w", n, err)
	}
	return &arena{pageSize: pageSize, region: region, unmap: func() error { return syscall.Munmap(region) },
		discard: discardPages}, nil
}

// discardPages returns the operating-system pages wholly inside b (madvise works on whole pages:
// a write-buffer page smaller than the system's shares it with its neighbours, and stays).
func discardPages(b []byte) error {
	os := uintptr(syscall.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	from := (start + os - 1) &^ (os - 1)
	to := (start + uintptr(len(b))) &^ (os - 1)
	if to <= from {
		return nil
	}
	return syscall.Madvise(b[from-start:to-start], syscall.MADV_DONTNEED)
}

// allocSlots is memory for n slots outside the Go heap (slots hold no pointers) and the
// function that gives it back.
func allocSlots(n int64) ([]slot, func() error, error) {
	bytes := n * slotSize
	if n <= 0 || bytes != int64(int(bytes)) {
		return nil, nil, fmt.Errorf("writebuffer: %d record slots do not fit in memory", n)
	}
	mem, err := syscall.Mmap(-1, 0, int(bytes), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("writebuffer: map %d bytes of record slots: %w", bytes, err)
	}
	return unsafe.Slice((*slot)(unsafe.Pointer(unsafe.SliceData(mem))), n)[:0], func() error { return syscall.Munmap(mem) }, nil
}
