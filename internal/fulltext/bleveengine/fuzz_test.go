package bleveengine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/bleveengine"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// FuzzOpenReader feeds arbitrary bytes to OpenReader: it must return an error or a reader that
// searches without panicking. Each input is also tried with its trailing checksum recomputed,
// so that mutations reach the body decoder instead of stopping at the checksum.
func FuzzOpenReader(f *testing.F) {
	f.Add(build(f, nil, corpus.Generate(1, 5)))
	f.Add(build(f, whitespaceExact, []corpus.Row{{ID: 0, Text: "a b"}, {ID: 7, Text: "数据 café 🚀"}}))
	f.Add(build(f, []fulltext.Option{{Key: "tokenizer", Value: "raw"}}, nil))
	f.Add([]byte(bleveengine.Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		try(t, data)
		if len(data) >= 4 {
			fixed := bytes.Clone(data)
			body := fixed[:len(fixed)-4]
			binary.BigEndian.PutUint32(fixed[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
			try(t, fixed)
		}
	})
}

func try(t *testing.T, data []byte) {
	r, err := bleveengine.OpenReader(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return
	}
	defer r.Close()
	// Searches may fail (a phrase on an archive without positions) but must not panic.
	for _, q := range []string{
		`{"match":{"query":"a b 数据"}}`,
		`{"match_phrase":{"query":"a b"}}`,
	} {
		_, _ = r.Search(context.Background(), q, 10)
	}
}
