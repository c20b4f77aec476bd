// Package pkfulltexttest builds synthetic full-text buckets for the benchmarks of the restore
// decision: Go's in internal/pkfulltext and the cross-language one in compat/bench, which must time
// the same bucket.
package pkfulltexttest

import (
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
)

// Archives is how many archives Bucket gives a bucket: one current archive for each of levels
// 1-4 and the rest stale.
const Archives = 100

// Archive is one archive of a synthetic bucket: its payload, its data level and the files its
// source meta names, in its order.
type Archive struct {
	Payload *meta.IndexFileMeta
	Level   int32
	Files   []*meta.DataFileMeta
}

// Bucket is a synthetic bucket of n compacted data files on levels 1-5 (in generation order,
// with random-looking names) and Archives archives of the text field
// paimonparquet.DefaultTextFieldID: a current one for each of levels 1-4 and stale ones, each
// covering a slice of one level's files, so that level 5 (no archive) is the plan.
func Bucket(n int) ([]*meta.DataFileMeta, []Archive, error) {
	src := meta.FileSourceCompact
	files := make([]*meta.DataFileMeta, 0, n)
	byLevel := map[int32][]*meta.DataFileMeta{}
	for i := range n {
		h := splitmix64(uint64(i))
		name := fmt.Sprintf("data-%08x-%04x-%04x-%04x-%012x-%d.parquet", h>>32, (h>>16)&0xffff, h&0xffff, (h>>48)&0xfff, splitmix64(h)>>16, i)
		f := &meta.DataFileMeta{FileName: name, RowCount: 1000 + int64(i%997), Level: 1 + int32(i%5), FileSource: &src}
		files = append(files, f)
		byLevel[f.Level] = append(byLevel[f.Level], f)
	}
	for _, fs := range byLevel {
		slices.SortStableFunc(fs, func(a, b *meta.DataFileMeta) int { return javaio.CompareJava(a.FileName, b.FileName) })
	}
	var archives []Archive
	add := func(name string, level int32, cover []*meta.DataFileMeta) error {
		sources := make([]pkindex.SourceFile, 0, len(cover))
		var total int64
		for _, f := range cover {
			s, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
			if err != nil {
				return err
			}
			sources = append(sources, s)
			total += f.RowCount
		}
		sm, err := pkindex.NewSourceMeta(level, sources)
		if err != nil {
			return err
		}
		b, err := sm.Encode()
		if err != nil {
			return err
		}
		archives = append(archives, Archive{Level: level, Files: cover, Payload: &meta.IndexFileMeta{IndexType: pkfulltext.IndexType,
			FileName: name, FileSize: total, RowCount: total, GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: 0,
				RowRangeEnd: total - 1, IndexFieldID: paimonparquet.DefaultTextFieldID, SourceMeta: b}}})
		return nil
	}
	for k := range Archives - 4 {
		level := int32(1 + k%5)
		fs := byLevel[level]
		chunk := max(1, len(fs)/20)
		from := (k / 5 * chunk) % len(fs)
		if err := add(fmt.Sprintf("full-text-stale-%03d", k), level, fs[from:min(len(fs), from+chunk)]); err != nil {
			return nil, nil, err
		}
	}
	for level := int32(1); level <= 4; level++ {
		if err := add(fmt.Sprintf("full-text-current-%d", level), level, byLevel[level]); err != nil {
			return nil, nil, err
		}
	}
	return files, archives, nil
}

// Payloads are the archives' payloads, in order.
func Payloads(archives []Archive) []*meta.IndexFileMeta {
	out := make([]*meta.IndexFileMeta, len(archives))
	for i, a := range archives {
		out[i] = a.Payload
	}
	return out
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
