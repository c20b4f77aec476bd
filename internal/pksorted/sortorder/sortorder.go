// Package sortorder orders rows exactly as Paimon's in-memory sort buffer does
// (org.apache.paimon.sort.QuickSort with its HeapSort fallback, which BinaryInMemorySortBuffer
// runs over the rows in arrival order). The algorithm is not stable: rows whose sort keys are
// equal end up in an order that depends on the algorithm, and a BTree index file lists a key's
// row ids in that order, so matching Java's file bytes needs Java's algorithm, not any sort.
package sortorder

import "math/bits"

// Sortable is a sequence the sorts permute: Compare orders positions i and j, Swap exchanges them.
type Sortable interface {
	Len() int
	Compare(i, j int) int
	Swap(i, j int)
}

// QuickSort sorts s as Paimon's QuickSort#sort(IndexedSortable) does.
func QuickSort(s Sortable) {
	n := s.Len()
	if n <= 1 {
		return
	}
	quickSort(s, 0, n, maxDepth(n))
}

func maxDepth(x int) int { return (32 - bits.LeadingZeros32(uint32(x-1))) << 2 }

func fix(s Sortable, a, b int) {
	if s.Compare(a, b) > 0 {
		s.Swap(a, b)
	}
}

func quickSort(s Sortable, p, r, depth int) {
	for {
		if r-p < 13 {
			for i := p + 1; i < r; i++ {
				for j := i; j > p && s.Compare(j-1, j) > 0; j-- {
					s.Swap(j, j-1)
				}
			}
			return
		}
		depth--
		if depth < 0 {
			heapSort(s, p, r)
			return
		}
		m := int(uint(p+r) >> 1)
		fix(s, m, p)
		fix(s, m, r-1)
		fix(s, p, r-1)
		i, j, ll, rr := p, r, p, r
		for {
			i++
			for i < j {
				cr := s.Compare(i, p)
				if cr > 0 {
					break
				}
				if cr == 0 {
					ll++
					if ll != i {
						s.Swap(ll, i)
					}
				}
				i++
			}
			j--
			for j > i {
				cr := s.Compare(p, j)
				if cr > 0 {
					break
				}
				if cr == 0 {
					rr--
					if rr != j {
						s.Swap(rr, j)
					}
				}
				j--
			}
			if i < j {
				s.Swap(i, j)
			} else {
				break
			}
		}
		j = i
		for ll >= p {
			i--
			s.Swap(ll, i)
			ll--
		}
		for rr < r {
			s.Swap(rr, j)
			rr++
			j++
		}
		if i-p < r-j {
			quickSort(s, p, i, depth)
			p = j
		} else {
			quickSort(s, j, r, depth)
			r = i
		}
	}
}

// heapSort is Paimon's HeapSort#sort(s, p, r).
func heapSort(s Sortable, p, r int) {
	n := r - p
	if n <= 0 {
		return
	}
	t := 1 << (bits.Len(uint(n)) - 1) // Integer.highestOneBit
	for i := t; i > 1; i >>= 1 {
		for j := i >> 1; j < i; j++ {
			downHeap(s, p-1, j, n+1)
		}
	}
	for i := r - 1; i > p; i-- {
		s.Swap(p, i)
		downHeap(s, p-1, 1, i-p+1)
	}
}

func downHeap(s Sortable, b, i, n int) {
	for idx := i << 1; idx < n; idx = i << 1 {
		if idx+1 < n && s.Compare(b+idx, b+idx+1) < 0 {
			if s.Compare(b+i, b+idx+1) < 0 {
				s.Swap(b+i, b+idx+1)
			} else {
				return
			}
			i = idx + 1
		} else if s.Compare(b+i, b+idx) < 0 {
			s.Swap(b+i, b+idx)
			i = idx
		} else {
			return
		}
	}
}
