package pkfulltext

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// randomBucket returns a bucket of data files on levels 0-5 whose names are drawn from a pool
// (small pools repeat names within and across levels), and archives for field 1: per level none,
// one exactly covering the level, one that is off by a file or a row count, or two exact ones.
func randomBucket(t *testing.T, r *rand.Rand) ([]*meta.DataFileMeta, []*meta.IndexFileMeta) {
	t.Helper()
	compact, appended := meta.FileSourceCompact, meta.FileSourceAppend
	pool := 1 + r.IntN(40)
	byLevel := map[int32][]*meta.DataFileMeta{}
	var files []*meta.DataFileMeta
	for range r.IntN(30) {
		f := &meta.DataFileMeta{FileName: fmt.Sprintf("data-%d.parquet", r.IntN(pool)), RowCount: int64(1 + r.IntN(3)),
			Level: int32(r.IntN(6)), FileSource: &compact}
		if r.IntN(10) == 0 {
			f.FileSource = &appended
		}
		files = append(files, f)
		if pkindex.ShouldReadDataFile(f) {
			byLevel[f.Level] = append(byLevel[f.Level], f)
		}
	}
	var payloads []*meta.IndexFileMeta
	archive := func(level int32, cover []*meta.DataFileMeta, bump int64) {
		var sources []pkindex.SourceFile
		var total int64
		for i, f := range cover {
			rows := f.RowCount
			if i == 0 {
				rows += bump
			}
			s, err := pkindex.NewSourceFile(f.FileName, rows)
			if err != nil {
				t.Fatal(err)
			}
			sources = append(sources, s)
			total += rows
		}
		sm, err := pkindex.NewSourceMeta(level, sources)
		if err != nil {
			return
		}
		b, err := sm.Encode()
		if err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, &meta.IndexFileMeta{IndexType: IndexType, FileName: fmt.Sprintf("full-text-%d", len(payloads)),
			RowCount: total, GlobalIndex: &meta.GlobalIndexMeta{RowRangeEnd: total - 1, IndexFieldID: 1, SourceMeta: b}})
	}
	for level := int32(1); level <= 5; level++ {
		sorted := slices.Clone(byLevel[level])
		javaio.SortStableByJavaString(sorted, fileName)
		switch r.IntN(5) {
		case 1, 2:
			archive(level, sorted, 0)
		case 3:
			if len(sorted) > 1 && r.IntN(2) == 0 {
				archive(level, sorted[1:], 0)
			} else {
				archive(level, sorted, 1)
			}
		case 4:
			archive(level, sorted, 0)
			archive(level, sorted, 0)
		}
	}
	r.Shuffle(len(payloads), func(i, j int) { payloads[i], payloads[j] = payloads[j], payloads[i] })
	return files, payloads
}

// TestInspectBucketPlansAsPick checks that the plan InspectBucket returns, which it decides
// without Pick when the eligible names are distinct, is the plan Pick returns over the bucket's
// state and its eligible files keyed by name.
func TestInspectBucketPlansAsPick(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 2))
	for i := range 20_000 {
		files, payloads := randomBucket(t, r)
		v, err := InspectBucket(1, files, payloads)
		state, stateErr := FromActiveDataFiles(1, files, payloads)
		if (err == nil) != (stateErr == nil) {
			t.Fatalf("bucket %d: InspectBucket error %v, FromActiveDataFiles error %v", i, err, stateErr)
		}
		if err != nil {
			continue
		}
		active := map[string]*meta.DataFileMeta{}
		for _, f := range v.Eligible {
			active[f.FileName] = f
		}
		want, err := payloadLevels().Pick(state.CurrentPayloads(), active)
		if err != nil {
			t.Fatalf("bucket %d: Pick: %v", i, err)
		}
		if got := v.Plan; (got == nil) != (want == nil) || got != nil && (got.DataLevel() != want.DataLevel() ||
			!slices.Equal(got.InputUnits(), want.InputUnits()) || !slices.Equal(got.SourceFiles(), want.SourceFiles())) {
			t.Fatalf("bucket %d (files %s): InspectBucket planned %s, Pick %s", i, describeFiles(files), describePlan(got), describePlan(want))
		}
	}
}

func describeFiles(files []*meta.DataFileMeta) string {
	var s []string
	for _, f := range files {
		s = append(s, fmt.Sprintf("%s@%d/%d", f.FileName, f.Level, f.RowCount))
	}
	return fmt.Sprint(s)
}

func describePlan(p *Plan) string {
	if p == nil {
		return "nothing"
	}
	var inputs []string
	for _, u := range p.InputUnits() {
		inputs = append(inputs, u.FileName)
	}
	return fmt.Sprintf("level %d replacing %v by %s", p.DataLevel(), inputs, describeFiles(p.SourceFiles()))
}
