package btree

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/impl/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/impl/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/impl/pksorted/pred"
	"github.com/paimon-pkft/pkft/impl/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/impl/pksorted/sortkey/sortkeytest"
)

func writeFile(t testing.TB, ser *sortkey.Serializer, rows []sortkeytest.Row, opts Options) ([]byte, Result) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, ser, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r.Key, r.RowID); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res
}

// TestRoundTripEveryKeyType writes random keys (nulls, duplicates) of every supported type with
// small blocks and every codec, reads the entries back, and checks each predicate against an
// exact evaluation of the rows.
func TestRoundTripEveryKeyType(t *testing.T) {
	for ti, typ := range sortkeytest.Types() {
		for _, codec := range []string{"none", "lz4", "zstd"} {
			t.Run(fmt.Sprintf("%s-%d-%s", typ.Root, typ.Precision, codec), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(ti), 7))
				ser, err := sortkey.New(typ)
				if err != nil {
					t.Fatal(err)
				}
				c, err := blockcodec.NewCodec(codec, 1)
				if err != nil {
					t.Fatal(err)
				}
				rows := sortkeytest.Rows(ser, r, 600, 8)
				data, res := writeFile(t, ser, rows, Options{BlockSize: 64 + r.IntN(200), Codec: c})
				if res.RowCount != int64(len(rows)) {
					t.Fatalf("row count %d, want %d", res.RowCount, len(rows))
				}
				meta, err := filemeta.Decode(res.Meta.Encode())
				if err != nil {
					t.Fatal(err)
				}
				rd, err := Open(bytes.NewReader(data), int64(len(data)), ser, meta)
				if err != nil {
					t.Fatal(err)
				}
				if rd.sst.NumBlocks() < 2 {
					t.Fatalf("only %d data blocks: the test means to cross blocks", rd.sst.NumBlocks())
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
					t.Fatal(msg)
				}
				eval := func(p pred.Predicate) ([]uint64, error) {
					bm, err := rd.Evaluate(p)
					if err != nil {
						return nil, err
					}
					return bm.ToArray(), nil
				}
				if msg := sortkeytest.CheckPredicates(ser, r, 8, rows, eval); msg != "" {
					t.Fatal(msg)
				}
			})
		}
	}
}

// TestOnlyNullsAndEmpty: a file of only nulls has no key range and answers isNull only; an empty
// file is refused.
func TestOnlyNullsAndEmpty(t *testing.T) {
	ser, _ := sortkey.New(sortkeytestInt())
	rows := []sortkeytest.Row{{RowID: 3}, {RowID: 1}}
	data, res := writeFile(t, ser, rows, Options{BlockSize: DefaultBlock})
	if !res.Meta.OnlyNulls() || !res.Meta.HasNulls {
		t.Fatalf("meta %+v, want only nulls", res.Meta)
	}
	rd, err := Open(bytes.NewReader(data), int64(len(data)), ser, res.Meta)
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.NullRows().ToArray(); !slices.Equal(got, []uint64{1, 3}) {
		t.Fatalf("null rows %v", got)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, ser, Options{BlockSize: DefaultBlock})
	if _, err := w.Finish(); err == nil {
		t.Fatal("an empty btree file was written")
	}
}

// TestRefusesDecreasingKeys: keys out of order are an error, not a silently corrupt file.
func TestRefusesDecreasingKeys(t *testing.T) {
	ser, _ := sortkey.New(sortkeytestInt())
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, ser, Options{BlockSize: DefaultBlock})
	if err := w.Write(int32(5), 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(int32(4), 1); err == nil {
		t.Fatal("a decreasing key was accepted")
	}
}
