package bitmap

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// FuzzReader opens arbitrary bytes as a bitmap index file of STRING keys and evaluates every
// predicate: it must return results or errors, never panic.
func FuzzReader(f *testing.F) {
	ser, _ := sortkey.New(types.String())
	r := rand.New(rand.NewPCG(1, 2))
	for _, codec := range []string{"none", "lz4", "zstd"} {
		c, _ := blockcodec.NewCodec(codec, 1)
		data, _, _ := writeFile(f, ser, sortkeytest.Rows(ser, r, 50, 5), Options{DictionaryBlockSize: 32, Codec: c})
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := Open(bytes.NewReader(data), int64(len(data)), ser)
		if err != nil {
			return
		}
		_, _ = rd.Entries()
		for _, op := range []pred.Op{pred.IsNull, pred.IsNotNull, pred.Equal, pred.LessThan, pred.GreaterOrEqual, pred.StartsWith, pred.Contains, pred.In} {
			p := pred.Predicate{Op: op, Literals: []any{"b"}}
			if op == pred.IsNull || op == pred.IsNotNull {
				p.Literals = nil
			}
			_, _ = rd.Evaluate(p)
		}
	})
}
