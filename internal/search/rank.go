package search

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
)

// Position is one scored physical row of a snapshot (Java PrimaryKeySearchPosition): the row at
// RowPosition of data file DataFile in (Partition, Bucket), with the score the archive gave it.
type Position struct {
	// Partition is the serialized partition BinaryRow as manifests store it.
	Partition []byte
	Bucket    int32
	DataFile  string
	// RowPosition is the 0-based physical row position in DataFile.
	RowPosition int64
	Score       float32
}

// newPosition validates a position as Java's PrimaryKeySearchPosition constructor does.
func newPosition(partition []byte, bucket int32, file string, row int64, score float32) (Position, error) {
	if row < 0 {
		return Position{}, fmt.Errorf("row position must not be negative: %d", row)
	}
	if math.IsNaN(float64(score)) || math.IsInf(float64(score), 0) {
		return Position{}, fmt.Errorf("search score must be finite: %v", score)
	}
	return Position{Partition: partition, Bucket: bucket, DataFile: file, RowPosition: row, Score: score}, nil
}

// javaFloatCompare is Java's Float.compare: numeric order, with -0.0 below 0.0 and NaN above
// everything.
func javaFloatCompare(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	x, y := int32(floatToIntBits(a)), int32(floatToIntBits(b))
	return cmp.Compare(x, y)
}

// floatToIntBits is Java's Float.floatToIntBits (every NaN collapses to the canonical one).
func floatToIntBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

// rowBytes is Java's BinaryRow#toBytes of a serialized partition: the row without the 4-byte
// arity prefix manifests add.
func rowBytes(serialized []byte) []byte {
	if len(serialized) >= 4 {
		return serialized[4:]
	}
	return serialized
}

// comparePositions is PrimaryKeySearchPosition#compareTo: partition bytes (unsigned,
// lexicographic, shorter first), bucket, data file name (Java String order), row position.
func comparePositions(a, b *Position) int {
	if c := bytes.Compare(rowBytes(a.Partition), rowBytes(b.Partition)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Bucket, b.Bucket); c != 0 {
		return c
	}
	if c := javaio.CompareJava(a.DataFile, b.DataFile); c != 0 {
		return c
	}
	return cmp.Compare(a.RowPosition, b.RowPosition)
}

// bestFirst is PrimaryKeySearchRanker's LOCAL_BEST_FIRST: higher score first, ties by position.
func bestFirst(a, b *Position) int {
	if c := javaFloatCompare(b.Score, a.Score); c != 0 {
		return c
	}
	return comparePositions(a, b)
}

// localOrder is the order PrimaryKeyFullTextBucketSearch sorts one archive's hits in: higher
// score first, then data file name, then row position.
func localOrder(a, b *Position) int {
	if c := javaFloatCompare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := javaio.CompareJava(a.DataFile, b.DataFile); c != 0 {
		return c
	}
	return cmp.Compare(a.RowPosition, b.RowPosition)
}

type positionKey struct {
	partition string
	bucket    int32
	file      string
	row       int64
}

func keyOf(p *Position) positionKey {
	return positionKey{string(rowBytes(p.Partition)), p.Bucket, p.DataFile, p.RowPosition}
}

// TopKByScore merges rankings as PrimaryKeySearchRanker#topKByScore does: a position appearing
// in several rankings keeps its best entry; the limit best positions are returned best first
// (higher score, then partition bytes, bucket, data file name and row position), scores
// unchanged. Rankings each in that order already (an archive's, sorted by localOrder within its
// one partition and bucket) are merged, reading only as far as the limit; others are pooled and
// sorted.
func TopKByScore(rankings [][]Position, limit int) ([]Position, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("search result limit must be positive: %d", limit)
	}
	for _, ranking := range rankings {
		if !slices.IsSortedFunc(ranking, func(a, b Position) int { return bestFirst(&a, &b) }) {
			return topKBySorting(rankings, limit), nil
		}
	}
	// heads holds, per ranking with positions left, its index and its next position's, as a
	// binary heap ordered best first.
	type head struct{ r, i int }
	less := func(a, b head) bool { return bestFirst(&rankings[a.r][a.i], &rankings[b.r][b.i]) < 0 }
	heads := make([]head, 0, len(rankings))
	n := 0
	for r, ranking := range rankings {
		n += len(ranking)
		if len(ranking) > 0 {
			heads = append(heads, head{r, 0})
		}
	}
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(heads) {
				return
			}
			if c+1 < len(heads) && less(heads[c+1], heads[c]) {
				c++
			}
			if !less(heads[c], heads[i]) {
				return
			}
			heads[i], heads[c] = heads[c], heads[i]
			i = c
		}
	}
	for i := len(heads)/2 - 1; i >= 0; i-- {
		down(i)
	}
	out := make([]Position, 0, min(limit, n))
	seen := make(map[positionKey]bool, min(limit, n))
	for len(heads) > 0 && len(out) < limit {
		h := &heads[0]
		p := &rankings[h.r][h.i]
		// The first entry of a position is its best: a later one of another ranking is not kept.
		if k := keyOf(p); !seen[k] {
			seen[k] = true
			out = append(out, *p)
		}
		if h.i++; h.i == len(rankings[h.r]) {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		}
		down(0)
	}
	return out, nil
}

// topKBySorting is TopKByScore over rankings in any order: every position's best entry, sorted.
func topKBySorting(rankings [][]Position, limit int) []Position {
	n := 0
	for _, ranking := range rankings {
		n += len(ranking)
	}
	unique := make(map[positionKey]int, n)
	all := make([]Position, 0, n)
	for _, ranking := range rankings {
		for i := range ranking {
			p := &ranking[i]
			k := keyOf(p)
			if j, ok := unique[k]; ok {
				if bestFirst(p, &all[j]) < 0 {
					all[j] = *p
				}
				continue
			}
			unique[k] = len(all)
			all = append(all, *p)
		}
	}
	slices.SortFunc(all, func(a, b Position) int { return bestFirst(&a, &b) })
	if len(all) > limit {
		all = all[:limit]
	}
	return all
}

// errNoDefinition reports a table without a primary-key full-text index on the column.
var errNoDefinition = errors.New("no primary-key full-text index")
