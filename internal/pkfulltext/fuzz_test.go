package pkfulltext

import (
	"fmt"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// bucketFromBytes turns fuzz input into a bucket: data files and index files drawn from small
// pools of names, levels and row counts, so that payloads often do (and often do not quite)
// cover real files. Each index file's source meta is either encoded from files of the pool or
// the raw bytes of the input.
func bucketFromBytes(b []byte) (dataFiles []*meta.DataFileMeta, indexFiles []*meta.IndexFileMeta) {
	next := func() byte {
		if len(b) == 0 {
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	nData := int(next() % 8)
	for i := 0; i < nData; i++ {
		c, r := next(), next()
		src := meta.FileSource(c >> 7)
		f := &meta.DataFileMeta{
			FileName: fmt.Sprintf("data-%d.parquet", c%6),
			Level:    int32(c>>3) % 4,
			RowCount: int64(r % 5),
		}
		if c&0x40 == 0 {
			f.FileSource = &src
		}
		dataFiles = append(dataFiles, f)
	}
	nIndex := int(next() % 6)
	for i := 0; i < nIndex; i++ {
		c, r := next(), next()
		types := []string{IndexType, IndexType, IndexType, "DELETION_VECTORS", "btree"}
		f := &meta.IndexFileMeta{
			IndexType: types[int(c)%len(types)],
			FileName:  fmt.Sprintf("index-%d", r%4),
			FileSize:  int64(r),
			RowCount:  int64(r % 9),
		}
		if c&0x80 == 0 {
			g := &meta.GlobalIndexMeta{RowRangeStart: 0, RowRangeEnd: int64(r%9) - 1, IndexFieldID: int32(c>>5) % 3}
			if c&0x10 != 0 {
				// Raw source meta taken from the input.
				n := int(next() % 24)
				if n > len(b) {
					n = len(b)
				}
				g.SourceMeta, b = append([]byte(nil), b[:n]...), b[n:]
			} else if c&0x08 == 0 {
				var files []pkindex.SourceFile
				level := int32(next() % 4)
				for k := int(next() % 4); k > 0; k-- {
					d := next()
					sf, err := pkindex.NewSourceFile(fmt.Sprintf("data-%d.parquet", d%6), int64(d>>5)%5)
					if err == nil {
						files = append(files, sf)
					}
				}
				if sm, err := pkindex.NewSourceMeta(level, files); err == nil {
					if enc, err := sm.Encode(); err == nil {
						g.SourceMeta = enc
					}
				}
			}
			if c&0x04 != 0 {
				g.RowRangeStart = int64(next()) - 2
			}
			f.GlobalIndex = g
		}
		indexFiles = append(indexFiles, f)
	}
	return dataFiles, indexFiles
}

// FuzzInspectBucket feeds arbitrary index-manifest entries of a bucket to the bucket state
// (NewBucketIndexState, FromActiveDataFiles) and the level planner: each must classify or return
// an error, never panic, and a plan it returns must be for a positive level, cover eligible files
// only, and replace a current payload only.
func FuzzInspectBucket(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 0x88, 3, 0x89, 2, 1, 0x00, 0x00, 1, 2, 0x08})
	f.Add([]byte{3, 0x88, 3, 0x90, 4, 0x89, 2, 2, 0x00, 0x01, 1, 1, 0x88, 0x00, 0x11, 0x04, 1, 2, 3, 4})
	f.Add([]byte{1, 0x88, 4, 1, 0x10, 0x00, 8, 0, 0, 0, 1, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		dataFiles, indexFiles := bucketFromBytes(b)
		for _, field := range []int32{0, 1} {
			if _, err := NewBucketIndexState(field, indexFiles); err != nil {
				continue
			}
			v, err := InspectBucket(field, dataFiles, indexFiles)
			if err != nil {
				continue
			}
			eligible := map[string]bool{}
			for _, d := range v.Eligible {
				eligible[d.FileName] = true
			}
			current := map[*meta.IndexFileMeta]bool{}
			for _, p := range v.State.CurrentPayloads() {
				current[p] = true
			}
			if v.Plan == nil {
				continue
			}
			if v.Plan.DataLevel() <= 0 {
				t.Fatalf("plan for level %d", v.Plan.DataLevel())
			}
			for _, s := range v.Plan.SourceFiles() {
				if !eligible[s.FileName] {
					t.Fatalf("plan covers %s, which is not eligible", s.FileName)
				}
			}
			for _, u := range v.Plan.InputUnits() {
				if !current[u] {
					t.Fatalf("plan replaces %s, which is not a current payload", u.FileName)
				}
			}
		}
	})
}
