package paths

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
)

// ExternalPathStrategy is data-file.external-paths.strategy.
type ExternalPathStrategy string

// The strategies of Paimon 2.0.0, spelled as the option values.
const (
	StrategyNone          ExternalPathStrategy = "none"
	StrategySpecificFS    ExternalPathStrategy = "specific-fs"
	StrategyRoundRobin    ExternalPathStrategy = "round-robin"
	StrategyEntropyInject ExternalPathStrategy = "entropy-inject"
	StrategyWeighted      ExternalPathStrategy = "weight-robin"
)

// ParseExternalPathStrategy parses an option value case-insensitively.
func ParseExternalPathStrategy(s string) (ExternalPathStrategy, error) {
	for _, v := range []ExternalPathStrategy{StrategyNone, StrategySpecificFS, StrategyRoundRobin, StrategyEntropyInject, StrategyWeighted} {
		if strings.EqualFold(string(v), s) {
			return v, nil
		}
	}
	return "", fmt.Errorf("could not parse external path strategy %q", s)
}

// externalPathProvider picks where the next file of a bucket goes.
type externalPathProvider interface {
	next(fileName string) string
}

func newExternalPathProvider(s ExternalPathStrategy, roots []string, relBucket string, weights []int) (externalPathProvider, error) {
	if len(roots) == 0 {
		return nil, nil
	}
	switch s {
	case StrategyNone, "":
		return nil, nil
	case StrategyEntropyInject:
		return &entropyProvider{roots: roots, rel: relBucket}, nil
	case StrategySpecificFS, StrategyRoundRobin:
		return newRoundRobin(roots, relBucket), nil
	case StrategyWeighted:
		if len(roots) < 2 || weights == nil {
			return newRoundRobin(roots, relBucket), nil
		}
		if len(weights) != len(roots) {
			return nil, fmt.Errorf("the number of external paths and weights should be the same. Paths: %d, Weights: %d", len(roots), len(weights))
		}
		return newWeighted(roots, relBucket, weights), nil
	}
	return nil, fmt.Errorf("cannot support create external path provider for: %s", s)
}

// roundRobin starts at a random root and then cycles, like Java's
// RoundRobinExternalPathProvider (which advances before use).
type roundRobin struct {
	mu    sync.Mutex
	roots []string
	rel   string
	pos   int
}

func newRoundRobin(roots []string, rel string) *roundRobin {
	return &roundRobin{roots: roots, rel: rel, pos: rand.IntN(len(roots))}
}

func (r *roundRobin) next(fileName string) string {
	r.mu.Lock()
	r.pos++
	if r.pos == len(r.roots) {
		r.pos = 0
	}
	root := r.roots[r.pos]
	r.mu.Unlock()
	return Join(root, r.rel, fileName)
}

// entropyProvider injects hash directories derived from the file name
// between the bucket path and the file (EntropyInjectExternalPathProvider).
type entropyProvider struct {
	mu    sync.Mutex
	roots []string
	rel   string
	pos   int
}

func (e *entropyProvider) next(fileName string) string {
	e.mu.Lock()
	e.pos++
	if e.pos == len(e.roots) {
		e.pos = 0
	}
	root := e.roots[e.pos]
	e.mu.Unlock()
	return Join(root, e.rel, EntropyDirs(fileName), fileName)
}

// EntropyDirs is the hash directory part the entropy-inject strategy puts in
// front of a file name: the low 20 bits of murmur3_32(name) in binary, split
// as 4/4/4/8 characters ("1001/1001/1001/10011001").
func EntropyDirs(fileName string) string {
	h := murmur3x86_32([]byte(fileName), 0) | 0x80000000
	bin := fmt.Sprintf("%032b", h)
	hash := bin[len(bin)-20:]
	return hash[0:4] + "/" + hash[4:8] + "/" + hash[8:12] + "/" + hash[12:]
}

// murmur3x86_32 is MurmurHash3_x86_32, the function behind Guava's
// Hashing.murmur3_32() for UTF-8 strings.
func murmur3x86_32(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	tail := data[n*4:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// weighted picks a root at random with probability proportional to its
// weight (WeightedExternalPathProvider).
type weighted struct {
	roots      []string
	rel        string
	cumulative []float64
	total      float64
}

func newWeighted(roots []string, rel string, weights []int) *weighted {
	w := &weighted{roots: roots, rel: rel}
	var sum float64
	for _, x := range weights {
		sum += float64(x)
		w.cumulative = append(w.cumulative, sum)
	}
	w.total = sum
	return w
}

func (w *weighted) next(fileName string) string {
	r := rand.Float64() * w.total
	// First cumulative weight strictly greater than r (TreeMap.higherEntry).
	i := sort.Search(len(w.cumulative), func(i int) bool { return w.cumulative[i] > r })
	if i == len(w.cumulative) {
		i = len(w.cumulative) - 1
	}
	return Join(w.roots[i], w.rel, fileName)
}
