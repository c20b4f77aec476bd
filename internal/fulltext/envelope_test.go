package fulltext

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func envelope(version uint32, header string) []byte {
	var b bytes.Buffer
	b.WriteString(EnvelopeMagic)
	binary.Write(&b, binary.BigEndian, version)
	binary.Write(&b, binary.BigEndian, uint32(len(header)))
	b.WriteString(header)
	b.WriteString("body")
	return b.Bytes()
}

func TestReadEnvelope(t *testing.T) {
	data := envelope(1, `{"metadata":{"config":{"tokenizer":{"tokenizer":"ngram"}},"document_count":7,"tantivy_version":"0.24"},"files":[{"name":"meta.json","offset":0,"length":4}]}`)
	env, err := ReadEnvelope(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if env.Metadata.DocumentCount != 7 || env.Metadata.TantivyVersion != "0.24" || len(env.Files) != 1 || env.Files[0].Name != "meta.json" {
		t.Fatalf("decoded %+v", env)
	}
	if !strings.Contains(string(env.Metadata.Config), `"ngram"`) {
		t.Fatalf("config %s", env.Metadata.Config)
	}
}

func TestReadEnvelopeRejectsBadInput(t *testing.T) {
	good := envelope(1, `{"metadata":{}}`)
	long := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(long[12:16], 1<<30)
	cases := map[string][]byte{
		"empty":          nil,
		"short":          good[:10],
		"magic":          append([]byte("PFTIDX02"), good[8:]...),
		"version":        envelope(2, `{}`),
		"header too big": long,
		"header json":    envelope(1, `{"metadata":`),
	}
	for name, data := range cases {
		if _, err := ReadEnvelope(bytes.NewReader(data), int64(len(data))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzReadEnvelope(f *testing.F) {
	f.Add(envelope(1, `{"metadata":{"document_count":1}}`))
	f.Add([]byte("PFTIDX01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ReadEnvelope(bytes.NewReader(data), int64(len(data)))
	})
}
