package btree

import (
	"bytes"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
)

// TestJavaGolden reads BTree files Paimon 2.0.0 wrote (testdata/java, no JVM needed): their meta
// and entries equal the rows written, and Go writes the same rows to the same bytes (int:
// uncompressed, so the bytes are identical; string: lz4, whose compressed bytes may differ, so
// its content is compared).
func TestJavaGolden(t *testing.T) {
	for _, name := range []string{"int", "string"} {
		g, err := sortkeytest.LoadGolden(name)
		if err != nil {
			t.Fatal(err)
		}
		ser, err := g.Serializer()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := g.KeyRows()
		if err != nil {
			t.Fatal(err)
		}
		opts, err := ParseOptions(g.Options)
		if err != nil {
			t.Fatal(err)
		}
		data, res := writeFile(t, ser, rows, opts)
		if !bytes.Equal(res.Meta.Encode(), g.Meta) || res.RowCount != g.RowCount {
			t.Fatalf("%s: meta %x rows %d, java %x rows %d", name, res.Meta.Encode(), res.RowCount, g.Meta, g.RowCount)
		}
		if name == "int" && !bytes.Equal(data, g.File) {
			t.Fatalf("%s: go's file (%d bytes) differs from java's (%d bytes)", name, len(data), len(g.File))
		}
		meta, err := filemeta.Decode(g.Meta)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := Open(bytes.NewReader(g.File), int64(len(g.File)), ser, meta)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		entries, err := rd.Entries()
		if err != nil {
			t.Fatal(err)
		}
		var got []sortkeytest.Row
		for _, e := range entries {
			for _, id := range e.RowIDs {
				got = append(got, sortkeytest.Row{Key: e.Key, RowID: id})
			}
		}
		if msg := sortkeytest.SameNonNullRows(ser, got, rows); msg != "" {
			t.Fatalf("%s: %s", name, msg)
		}
	}
}
