package sortedfile

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// FuzzEvaluate reads arbitrary bytes with an arbitrary file meta as two files (btree and
// bitmap) of STRING keys and evaluates every predicate, like patterns included, with a budget
// that may or may not cover the file: each must return an answer, no answer or an error,
// never panic.
func FuzzEvaluate(f *testing.F) {
	ser := serializer(f, types.String())
	r := rand.New(rand.NewPCG(5, 6))
	for _, indexType := range []string{btree.Identifier, bitmap.Identifier} {
		s := newStore()
		file := s.write(f, indexType, ser, sortkeytest.Rows(ser, r, 60, 5), 64)
		f.Add(indexType == btree.Identifier, s.data[file.Name], file.Meta, "a%b_", int64(1<<20))
	}
	f.Fuzz(func(t *testing.T, isBTree bool, data, meta []byte, literal string, budget int64) {
		indexType := bitmap.Identifier
		if isBTree {
			indexType = btree.Identifier
		}
		open := func(context.Context, File) (io.ReaderAt, io.Closer, error) {
			return bytes.NewReader(data), io.NopCloser(nil), nil
		}
		rd, err := New(Config{IndexType: indexType, Type: types.String(), FallbackScanMaxSize: budget, Parallelism: 2},
			[]File{{Name: "f", Size: int64(len(data)), Meta: meta}, {Name: "g", Size: int64(len(data)), Meta: meta}}, open)
		if err != nil {
			return
		}
		defer rd.Close()
		for _, op := range []pred.Op{pred.IsNull, pred.IsNotNull, pred.Equal, pred.NotEqual, pred.LessThan, pred.LessOrEqual,
			pred.GreaterThan, pred.GreaterOrEqual, pred.Between, pred.In, pred.NotIn, pred.StartsWith, pred.EndsWith, pred.Contains, pred.Like} {
			p := pred.Predicate{Op: op, Literals: []any{literal}}
			switch op {
			case pred.IsNull, pred.IsNotNull:
				p.Literals = nil
			case pred.Between:
				p.Literals = []any{"", literal}
			}
			_, _, _ = rd.Evaluate(context.Background(), p)
		}
	})
}
