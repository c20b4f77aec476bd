package query

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
)

// FuzzEvaluatePayload evaluates predicates against a btree and a bitmap payload whose bytes are
// the fuzzer's: Evaluate never panics nor fails, and a file it narrows gets positions within it
// (a corrupt payload falls back to reading the file whole).
func FuzzEvaluatePayload(f *testing.F) {
	seedEnv := newEnv(f)
	l := twoFileLevel()
	for col, typ := range []string{indexfile.TypeBTree, indexfile.TypeBitmap} {
		p := seedEnv.payload(l, col, typ)
		data, err := os.ReadFile(filepath.Join(seedEnv.dir, p.FileName))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, col == 1, uint8(0))
		f.Add(data[:len(data)/2], col == 1, uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, bitmapIndex bool, which uint8) {
		e := newEnv(t)
		col, typ := 0, indexfile.TypeBTree
		if bitmapIndex {
			col, typ = 1, indexfile.TypeBitmap
		}
		l := twoFileLevel()
		p := e.payload(l, col, typ)
		if err := os.WriteFile(filepath.Join(e.dir, p.FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		p.FileSize = int64(len(data))
		exprs := []string{"price = 10", "price >= 4 AND tag IS NOT NULL", "tag IN ('x', 'q') OR price IS NULL", "price NOT IN (3) AND tag <> 'z'"}
		expr := exprs[int(which)%len(exprs)]
		ip, _ := IndexFilter(parse(t, expr), fields, defs)
		res, err := Evaluate(context.Background(), ip, fields, defs, nil, Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{p}}, e.open)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		for _, r := range res {
			if r.Outcome == Narrowed && (r.Positions.IsEmpty() || r.Positions.Maximum() >= uint64(r.File.RowCount)) {
				t.Fatalf("%s: %s narrowed to %v of %d rows", expr, r.File.FileName, r.Positions.ToArray(), r.File.RowCount)
			}
		}
	})
}
