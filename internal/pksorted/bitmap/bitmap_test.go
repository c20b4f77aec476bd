package bitmap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

func writeFile(t testing.TB, ser *sortkey.Serializer, rows []sortkeytest.Row, opts Options) ([]byte, Result, bool) {
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
	res, ok, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res, ok
}

// TestRoundTripEveryKeyType writes random keys (nulls, duplicates) of every supported type with
// small dictionary blocks and every codec, reads the dictionary back, and checks each predicate
// against an exact evaluation of the rows.
func TestRoundTripEveryKeyType(t *testing.T) {
	for ti, typ := range sortkeytest.Types() {
		for _, codec := range []string{"none", "lz4", "zstd"} {
			t.Run(fmt.Sprintf("%s-%d-%s", typ.Root, typ.Precision, codec), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(ti), 11))
				ser, err := sortkey.New(typ)
				if err != nil {
					t.Fatal(err)
				}
				c, err := blockcodec.NewCodec(codec, 1)
				if err != nil {
					t.Fatal(err)
				}
				rows := sortkeytest.Rows(ser, r, 600, 8)
				data, res, ok := writeFile(t, ser, rows, Options{DictionaryBlockSize: 16 + r.IntN(64), Codec: c})
				if !ok || res.RowCount != int64(len(rows)) {
					t.Fatalf("row count %d (written %v), want %d", res.RowCount, ok, len(rows))
				}
				rd, err := Open(bytes.NewReader(data), int64(len(data)), ser)
				if err != nil {
					t.Fatal(err)
				}
				blocks, err := rd.dictBlocks()
				if err != nil {
					t.Fatal(err)
				}
				if len(blocks) < 2 && typ.Root != types.RootBoolean {
					t.Fatalf("only %d dictionary blocks: the test means to cross blocks", len(blocks))
				}
				entries, err := rd.Entries()
				if err != nil {
					t.Fatal(err)
				}
				var got []sortkeytest.Row
				for _, e := range entries {
					for _, id := range e.Rows.ToArray() {
						got = append(got, sortkeytest.Row{Key: e.Key, RowID: int64(id)})
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

// TestNullLiterals: a null literal selects nothing, in skips it and notIn with one selects
// nothing, as Java's BitmapIndexReader answers them.
func TestNullLiterals(t *testing.T) {
	ser, _ := sortkey.New(types.Int())
	rows := []sortkeytest.Row{{RowID: 0}, {Key: int32(1), RowID: 1}, {Key: int32(2), RowID: 2}}
	data, _, _ := writeFile(t, ser, rows, Options{DictionaryBlockSize: DefaultDictionaryBlockSize})
	rd, err := Open(bytes.NewReader(data), int64(len(data)), ser)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    pred.Predicate
		want []uint64
	}{
		{pred.Predicate{Op: pred.Equal, Literals: []any{nil}}, nil},
		{pred.Predicate{Op: pred.LessThan, Literals: []any{nil}}, nil},
		{pred.Predicate{Op: pred.In, Literals: []any{nil, int32(2)}}, []uint64{2}},
		{pred.Predicate{Op: pred.NotIn, Literals: []any{nil, int32(2)}}, nil},
		{pred.Predicate{Op: pred.NotIn, Literals: []any{int32(2)}}, []uint64{1}},
		{pred.Predicate{Op: pred.Between, Literals: []any{int32(2), int32(1)}}, nil},
	} {
		bm, err := rd.Evaluate(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := bm.ToArray(); !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
			t.Errorf("%s %v: %v, want %v", tc.p.Op, tc.p.Literals, got, tc.want)
		}
	}
}

// TestEmptyWritesNothing: Java's writer returns no file for no rows; Go's writes no byte.
func TestEmptyWritesNothing(t *testing.T) {
	ser, _ := sortkey.New(types.Int())
	data, _, ok := writeFile(t, ser, nil, Options{DictionaryBlockSize: DefaultDictionaryBlockSize})
	if ok || len(data) != 0 {
		t.Fatalf("empty writer produced %d bytes (ok=%v)", len(data), ok)
	}
}

// TestRefusesDecreasingKeys: Java throws IllegalArgumentException; Go returns an error.
func TestRefusesDecreasingKeys(t *testing.T) {
	ser, _ := sortkey.New(types.Int())
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, ser, Options{DictionaryBlockSize: 10})
	if err := w.Write(int32(5), 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(int32(4), 1); err == nil {
		t.Fatal("a decreasing key was accepted")
	}
}
