package sortorder

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type pairs struct{ k, id []int }

func (p pairs) Len() int             { return len(p.k) }
func (p pairs) Compare(i, j int) int { return p.k[i] - p.k[j] }
func (p pairs) Swap(i, j int) {
	p.k[i], p.k[j] = p.k[j], p.k[i]
	p.id[i], p.id[j] = p.id[j], p.id[i]
}

// TestSorts: QuickSort (and HeapSort, reached directly) order keys of every small and large
// size, with many duplicates, and permute rather than lose rows.
func TestSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 12, 13, 14, 100, 1000, 5000} {
		for _, sorter := range []func(Sortable){QuickSort, func(s Sortable) { heapSort(s, 0, s.Len()) }} {
			p := pairs{make([]int, n), make([]int, n)}
			for i := range n {
				p.k[i], p.id[i] = r.IntN(n/3+1), i
			}
			sorter(p)
			if !slices.IsSorted(p.k) {
				t.Fatalf("n=%d: not sorted", n)
			}
			ids := slices.Clone(p.id)
			slices.Sort(ids)
			for i := range ids {
				if ids[i] != i {
					t.Fatalf("n=%d: rows lost", n)
				}
			}
		}
	}
}
