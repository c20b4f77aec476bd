package pkfulltext_test

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/impl/javaio"
	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/pkfulltext"
	"github.com/paimon-pkft/pkft/impl/pkindex"
	"github.com/paimon-pkft/pkft/internal/paimonparquet"
)

// restoreBucketArchives is how many archives restoreBucket gives a bucket: one current archive
// for each of levels 1-4 and the rest stale.
const restoreBucketArchives = 100

// restoreBucket is a synthetic bucket of n compacted data files on levels 1-5 (in generation
// order, with random-looking names) and restoreBucketArchives archives: a current one for each
// of levels 1-4 and stale ones, each covering a slice of one level's files, so that level 5 (no
// archive) is the plan. It has the shape of the cross-language bench's bucket.
func restoreBucket(tb testing.TB, n int) ([]*meta.DataFileMeta, []*meta.IndexFileMeta) {
	tb.Helper()
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
	var payloads []*meta.IndexFileMeta
	add := func(name string, level int32, cover []*meta.DataFileMeta) {
		sources := make([]pkindex.SourceFile, 0, len(cover))
		var total int64
		for _, f := range cover {
			s, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
			if err != nil {
				tb.Fatal(err)
			}
			sources = append(sources, s)
			total += f.RowCount
		}
		sm, err := pkindex.NewSourceMeta(level, sources)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := sm.Encode()
		if err != nil {
			tb.Fatal(err)
		}
		payloads = append(payloads, &meta.IndexFileMeta{IndexType: pkfulltext.IndexType, FileName: name, FileSize: total, RowCount: total,
			GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: 0, RowRangeEnd: total - 1, IndexFieldID: paimonparquet.DefaultTextFieldID, SourceMeta: b}})
	}
	for k := range restoreBucketArchives - 4 {
		level := int32(1 + k%5)
		fs := byLevel[level]
		chunk := max(1, len(fs)/20)
		from := (k / 5 * chunk) % len(fs)
		add(fmt.Sprintf("full-text-stale-%03d", k), level, fs[from:min(len(fs), from+chunk)])
	}
	for level := int32(1); level <= 4; level++ {
		add(fmt.Sprintf("full-text-current-%d", level), level, byLevel[level])
	}
	return files, payloads
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// BenchmarkRestoreDecision times a restored bucket's decision (classification and planning,
// InspectBucket) for buckets of 1,000, 10,000 and 100,000 files and 100 archives, and checks the
// decision: levels 1-4 current, the other 96 archives stale, level 5 rebuilt from its files.
// Besides wall time it reports the process CPU time per decision (cpu-ns/op), which includes
// the garbage collector's background work, as the cross-language bench measures it.
func BenchmarkRestoreDecision(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			files, payloads := restoreBucket(b, n)
			b.ReportAllocs()
			cpu := processCPU(b)
			for b.Loop() {
				v, err := pkfulltext.InspectBucket(paimonparquet.DefaultTextFieldID, files, payloads)
				if err != nil {
					b.Fatal(err)
				}
				if v.Plan == nil || v.Plan.DataLevel() != 5 || len(v.Plan.SourceFiles()) != n/5 ||
					len(v.State.CurrentPayloads()) != 4 || len(v.State.StalePayloads()) != restoreBucketArchives-4 {
					b.Fatalf("unexpected decision for %d files", n)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU returns the user and system CPU time the process has used.
func processCPU(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
