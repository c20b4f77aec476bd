package runner

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// sortedStateResult is a bucket classification by names, as the runner's sorted-state returns it.
type sortedStateResult struct {
	Groups []struct {
		Level    int32    `json:"level"`
		Sources  []string `json:"sources"`
		Payloads []string `json:"payloads"`
	} `json:"groups"`
	Covered   []string `json:"covered"`
	Uncovered []string `json:"uncovered"`
	Rejected  []string `json:"rejected"`
}

// sortedState is index/sorted/state (java<->go): 500 seeded buckets (data files on levels 0-3,
// compact and append sources; payloads exact, partial, duplicated, on the wrong level, of
// another type or field, with a wrong row range or row count, unparsable or missing source
// meta) are classified by Paimon's PkSortedBucketIndexState (the Java runner's sorted-state) and
// by the implementation's runner goP (Go's: internal/pksorted/state.FromActiveDataFiles):
// identical groups, covered and uncovered files and rejected payloads, in the same order.
func sortedState(ctx context.Context, p, goP *Process) error {
	for seed := uint64(0); seed < 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 2121))
		var files []*meta.DataFileMeta
		type fileJSON struct {
			FileName string `json:"fileName"`
			RowCount int64  `json:"rowCount"`
			Level    int32  `json:"level"`
			Compact  bool   `json:"compact"`
		}
		var fj []fileJSON
		for i := range 1 + r.IntN(7) {
			compact := r.IntN(6) != 0
			src := meta.FileSourceAppend
			if compact {
				src = meta.FileSourceCompact
			}
			f := &meta.DataFileMeta{FileName: fmt.Sprintf("data-%c", 'a'+(i*7)%26), RowCount: int64(1 + r.IntN(9)), Level: int32(r.IntN(4)), FileSource: &src}
			files = append(files, f)
			fj = append(fj, fileJSON{f.FileName, f.RowCount, f.Level, compact})
		}
		type payloadJSON struct {
			IndexType     string  `json:"indexType"`
			FileName      string  `json:"fileName"`
			RowCount      int64   `json:"rowCount"`
			FieldID       int32   `json:"fieldId"`
			RowRangeStart int64   `json:"rowRangeStart"`
			RowRangeEnd   int64   `json:"rowRangeEnd"`
			SourceMeta    *string `json:"sourceMeta"`
		}
		var pj []payloadJSON
		for i := range r.IntN(5) {
			level := int32(1 + r.IntN(3))
			var sources []pkindex.SourceFile
			var rows int64
			for _, f := range sortedByName(files) {
				if f.Level == level && (r.IntN(8) != 0) {
					sf, _ := pkindex.NewSourceFile(f.FileName, f.RowCount)
					sources = append(sources, sf)
					rows += f.RowCount
				}
			}
			var enc []byte
			if len(sources) > 0 {
				sm, err := pkindex.NewSourceMeta(level, sources)
				if err != nil {
					return err
				}
				if enc, err = sm.Encode(); err != nil {
					return err
				}
			}
			pm := &meta.IndexFileMeta{IndexType: "btree", FileName: fmt.Sprintf("index-%d", i), FileSize: 100, RowCount: rows,
				GlobalIndex: &meta.GlobalIndexMeta{RowRangeEnd: rows - 1, IndexFieldID: 7, IndexMeta: []byte{1}, SourceMeta: enc}}
			switch r.IntN(10) {
			case 0:
				pm.IndexType = "bitmap"
			case 1:
				pm.GlobalIndex.IndexFieldID = 8
			case 2:
				pm.RowCount++
			case 3:
				pm.GlobalIndex.RowRangeEnd++
			case 4:
				pm.GlobalIndex.SourceMeta = []byte{1}
			}
			var sm *string
			if pm.GlobalIndex.SourceMeta != nil {
				s := base64.StdEncoding.EncodeToString(pm.GlobalIndex.SourceMeta)
				sm = &s
			}
			pj = append(pj, payloadJSON{pm.IndexType, pm.FileName, pm.RowCount, pm.GlobalIndex.IndexFieldID, 0, pm.GlobalIndex.RowRangeEnd, sm})
		}
		args := map[string]any{"fieldId": 7, "indexType": "btree", "dataFiles": fj, "payloads": pj}
		var java, got sortedStateResult
		if err := p.Call(ctx, "sorted-state", args, &java); err != nil {
			return fmt.Errorf("seed %d: %w", seed, err)
		}
		if err := goP.Call(ctx, "sorted-state", args, &got); err != nil {
			return fmt.Errorf("seed %d: go: %w", seed, err)
		}
		if d := cmp.Diff(java, got, cmp.Transformer("nilEmpty", func(s []string) []string {
			if len(s) == 0 {
				return nil
			}
			return s
		})); d != "" {
			return fmt.Errorf("seed %d: classification differs (-java +go):\n%s", seed, d)
		}
	}
	return nil
}

func sortedByName(files []*meta.DataFileMeta) []*meta.DataFileMeta {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b *meta.DataFileMeta) int {
		switch {
		case a.FileName < b.FileName:
			return -1
		case a.FileName > b.FileName:
			return 1
		}
		return 0
	})
	return out
}
