package btree

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// FuzzReader opens arbitrary bytes and file meta as a BTree index file of INT keys and
// evaluates every predicate: it must return results or errors, never panic.
func FuzzReader(f *testing.F) {
	ser, _ := sortkey.New(types.Int())
	r := rand.New(rand.NewPCG(3, 4))
	for _, codec := range []string{"none", "lz4", "zstd"} {
		c, _ := blockcodec.NewCodec(codec, 1)
		data, res := writeFile(f, ser, sortkeytest.Rows(ser, r, 80, 5), Options{BlockSize: 40, Codec: c})
		f.Add(data, res.Meta.Encode())
	}
	f.Fuzz(func(t *testing.T, data, metaBytes []byte) {
		meta, err := filemeta.Decode(metaBytes)
		if err != nil {
			return
		}
		rd, err := Open(bytes.NewReader(data), int64(len(data)), ser, meta)
		if err != nil {
			return
		}
		_, _ = rd.Entries()
		for _, op := range []pred.Op{pred.IsNull, pred.IsNotNull, pred.Equal, pred.NotEqual, pred.LessThan, pred.GreaterThan, pred.Between, pred.In, pred.NotIn, pred.StartsWith} {
			p := pred.Predicate{Op: op, Literals: []any{int32(3)}}
			switch op {
			case pred.IsNull, pred.IsNotNull:
				p.Literals = nil
			case pred.Between:
				p.Literals = []any{int32(-5), int32(40)}
			}
			_, _ = rd.Evaluate(p)
		}
	})
}
